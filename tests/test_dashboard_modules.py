"""The dashboard's shape, checked so it stays so: small modules, one module that caches
(dashboard/shared/data.py), one that writes the session (dashboard/shared/state.py; the pages only read it)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
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
    assert caches((ROOT / "dashboard" / "shared" / "data.py").read_text())


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
