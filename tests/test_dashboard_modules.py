"""The dashboard's shape, checked so it stays so: small modules, one module that caches
(dashboard/runs/data.py), the session written only by its rules (dashboard/shared/state.py and the Sweep's
dashboard/sweep/sweep_state.py; the pages only read it), one module that names the session's keys
(dashboard/shared/keys.py)."""

from __future__ import annotations

import ast

from helpers.paths import ROOT

DASHBOARD = sorted((ROOT / "dashboard").rglob("*.py"))
PAGES = sorted((ROOT / "dashboard" / "app_pages").glob("*.py"))
MAX_LINES = 400
WRITES = {"update", "pop", "setdefault", "clear", "popitem", "__setitem__", "__delitem__"}


def _is_session(node: ast.AST) -> bool:
    return isinstance(node, ast.Attribute) and node.attr == "session_state"


def session_writes(source: str) -> list[int]:
    """Lines that assign, delete or mutate ``st.session_state`` (reading it is fine)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Subscript | ast.Attribute) and isinstance(node.ctx, ast.Store | ast.Del):
            if _is_session(node.value) or (isinstance(node, ast.Attribute) and _is_session(node)):
                lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in WRITES:
            if _is_session(node.func.value):
                lines.append(node.lineno)
    return lines


def caches(source: str) -> list[int]:
    """Lines that use one of Streamlit's caches."""
    return [
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute) and node.attr in ("cache_data", "cache_resource")
    ]


def test_no_dashboard_module_is_over_400_lines() -> None:
    long = {str(f.relative_to(ROOT)): n for f in DASHBOARD if (n := len(f.read_text().splitlines())) > MAX_LINES}
    assert not long, f"split these by concern: {long}"


def test_only_data_py_caches() -> None:
    found = {str(f.relative_to(ROOT)): c for f in DASHBOARD if (c := caches(f.read_text())) and f.name != "data.py"}
    assert not found
    assert caches((ROOT / "dashboard" / "runs" / "data.py").read_text())


def test_pages_only_read_the_session() -> None:
    assert PAGES
    found = {str(f.relative_to(ROOT)): w for f in PAGES if (w := session_writes(f.read_text()))}
    assert not found, f"move these into dashboard/shared/state.py: {found}"


def test_the_checks_see_every_kind_of_write_and_cache() -> None:
    for source in (
        "st.session_state['a'] = 1",
        "st.session_state.a = 1",
        "del st.session_state['a']",
        "st.session_state.update(a=1)",
        "st.session_state.pop('a')",
        "st.session_state.setdefault('a', 1)",
        "x = 1\nif x:\n    st.session_state['b'] += 1",
    ):
        assert session_writes(source), source
    assert session_writes("v = st.session_state['a']\nw = st.session_state.get('b')") == []
    assert caches("@st.cache_data\ndef f(): pass") == [1] and caches("g = st.cache_resource(f)") == [1]


def _session_names() -> tuple[set[str], tuple[str, ...]]:
    """The names of dashboard.shared.keys' keys and the prefixes of its families."""
    from dashboard.shared import keys

    values = vars(keys).values()
    return {k.name for k in values if isinstance(k, keys.Key)}, tuple(
        f.prefix for f in values if isinstance(f, keys.Family)
    )


def spelled_keys(source: str, names: set[str], prefixes: tuple[str, ...]) -> list[str]:
    """Session keys written as text (a literal, or the literal start of an f-string)."""
    found = set()  # an f-string's first part is also a constant of its own: count it once
    for node in ast.walk(ast.parse(source)):
        text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
        if isinstance(node, ast.JoinedStr) and node.values and isinstance(node.values[0], ast.Constant):
            text = str(node.values[0].value)
        if text is not None and (text in names or text.startswith(prefixes)):
            found.add(f"line {node.lineno}: {text!r}")
    return sorted(found)


def test_session_keys_are_spelled_only_in_keys_py() -> None:
    names, prefixes = _session_names()
    assert "x_gantt_policy" in names and "lesson_step_" in prefixes
    found = {
        str(f.relative_to(ROOT)): s
        for f in DASHBOARD
        if f.name != "keys.py" and (s := spelled_keys(f.read_text(), names, prefixes))
    }
    assert not found, f"read and write these through dashboard.shared.keys: {found}"
    assert spelled_keys('s["x_tab"]\nk = f"x_u_{name}"', names, prefixes) == ["line 1: 'x_tab'", "line 2: 'x_u_'"]
