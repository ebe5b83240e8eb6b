"""Import directions that keep the layers apart, and no import circle (part of `make test`, so breaking one fails the build).

The layer tables below are the ones docs/architecture.md shows (a test checks the doc mirrors them):

- ``simcore``'s top level holds only its layers, one package each, and each imports only its own
  layer and those below it;
- ``simcore`` never imports the dashboard, Streamlit or Plotly: it runs headless and its results
  cannot depend on a UI;
- the dashboard in tiers: ``shared`` never imports the run machinery (``runs``), a page's own
  modules or a page; ``runs`` imports ``shared`` and itself; the page sections ``explore``,
  ``sweep``, ``learn`` never import each other (what two of them need is in ``shared`` or
  ``runs``); the ``report`` (the shareable HTML file) reads those below it and the sections'
  charts; the pages (``app_pages``) never import ``simcore.engine`` (they run simulations through
  ``dashboard.runs``);
- the dashboard's views import neither Streamlit nor Plotly, its charts not Streamlit;
- no circle: neither among modules (counting the packages an import runs first) nor, at every level
  of either tree, among a package's modules and sub-packages.

Imports are read with :mod:`ast`, so an import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from helpers.paths import ROOT

#: simcore's layers, lowest first: (name, the packages under simcore/ that make it). ``__init__`` is
#: the package itself (the public API), ``__main__`` ``python -m simcore``; a package holds every
#: module and sub-package under it.
SIMCORE_LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("core", ("core",)),
    ("io", ("io",)),
    ("workload", ("workload",)),
    ("policies", ("policies",)),
    ("engine", ("engine",)),
    ("analysis", ("analysis",)),
    ("experiments", ("experiments",)),
    ("front end", ("cli", "__main__", "__init__")),
)

#: the dashboard's tiers, lowest first: (name, packages under dashboard/, what each may import).
DASHBOARD_TIERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("shared", ("shared",), "shared only"),
    ("runs", ("runs",), "shared and runs"),
    ("page sections", ("explore", "sweep", "learn"), "those below and its own section"),
    ("report", ("report",), "those below and itself"),
    ("pages", ("app_pages", "streamlit_app", "__main__"), "anything but simcore.engine"),
)
#: the tier of the page sections, which never import each other
SECTIONS = 2
#: pure modules: views (no Streamlit, no Plotly) and charts (no Streamlit)
VIEWS = (
    "shared/views.py",
    "shared/gantt_views.py",
    "shared/down_views.py",
    "shared/decisions.py",
    "shared/decision_text.py",
    "explore/job_views.py",
    "sweep/sweeps.py",
    "sweep/advice_views.py",
    "explore/interruption_views.py",
    "learn/lesson_views.py",
    "learn/learn_numbers.py",
    "learn/lessons.py",
    "learn/interruption_lessons.py",
)
CHARTS = (
    "shared/chart_style.py",
    "shared/gantt_charts.py",
    "learn/lesson_charts.py",
    "explore/charts.py",
    "explore/job_charts.py",
    "sweep/sweep_charts.py",
    "sweep/advice_charts.py",
    "report/builder.py",
    "report/sections.py",
    "report/plain_html.py",
    "report/gather.py",
    "report/cli.py",
)

#: (files, forbidden module prefixes, why)
RULES = [
    ("simcore/**/*.py", ("dashboard", "streamlit", "plotly"), "simcore runs without the dashboard"),
    ("dashboard/app_pages/**/*.py", ("simcore.engine",), "pages reach the engine through dashboard.runs"),
]


def imported_modules(source: str) -> list[tuple[int, str]]:
    """(line, module) of every import; ``from a import b`` counts as ``a`` and ``a.b``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
            found += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
    return found


def violations(source: str, forbidden: tuple[str, ...]) -> list[str]:
    return [
        f"line {line}: {module}"
        for line, module in imported_modules(source)
        if any(module == f or module.startswith(f + ".") for f in forbidden)
    ]


@pytest.mark.parametrize(("pattern", "forbidden", "why"), RULES, ids=["simcore", "pages"])
def test_import_directions(pattern, forbidden, why):
    files = sorted(ROOT.glob(pattern))
    assert files, f"no files match {pattern}"
    bad = {str(f.relative_to(ROOT)): v for f in files if (v := violations(f.read_text(encoding="utf-8"), forbidden))}
    assert not bad, f"{why}: {bad}"


# --- the layers --------------------------------------------------------------------------------


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def internal_imports(source: str, package: str, modules: set[str]) -> list[tuple[int, str]]:
    """(line, module) of the package's own modules imported: ``from a import b`` is ``a.b`` when that
    is a module (``from simcore import fmt`` imports simcore.core.fmt), else ``a``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            subs = [f"{node.module}.{a.name}" for a in node.names if f"{node.module}.{a.name}" in modules]
            found += [(node.lineno, m) for m in subs] or [(node.lineno, node.module)]
    return [(line, m) for line, m in found if m == package or m.startswith(package + ".")]


def layer_of(module: str, layers: tuple[tuple[str, tuple[str, ...]], ...], package: str) -> int:
    """The index of the layer holding ``module`` (ValueError when no layer names it)."""
    rest = module[len(package) + 1 :] if module != package else "__init__"
    for i, (_name, members) in enumerate(layers):
        if any(rest == m or rest.startswith(m + ".") for m in members):
            return i
    raise ValueError(f"{module} is in no layer")


def upward_imports(package: str, layers: tuple[tuple[str, tuple[str, ...]], ...]) -> dict[str, list[str]]:
    files = sorted((ROOT / package).rglob("*.py"))
    modules = {module_name(f) for f in files}
    bad: dict[str, list[str]] = {}
    for f in files:
        me = module_name(f)
        here = layer_of(me, layers, package)
        for line, target in internal_imports(f.read_text(encoding="utf-8"), package, modules):
            there = layer_of(target, layers, package)
            if there > here:
                bad.setdefault(me, []).append(f"line {line}: {target} ({layers[there][0]} above {layers[here][0]})")
    return bad


def test_simcores_top_level_shows_the_layers():
    """Only packages at simcore/'s top level (and the package's own ``__init__``, ``__main__``),
    each of them one layer's."""
    loose = sorted(f.name for f in (ROOT / "simcore").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]
    packages = sorted(d.name for d in (ROOT / "simcore").iterdir() if (d / "__init__.py").exists())
    assert packages == sorted(m for _name, ms in SIMCORE_LAYERS for m in ms if not m.startswith("__"))


def test_every_simcore_module_is_in_one_layer_and_imports_none_above_it():
    for f in (ROOT / "simcore").rglob("*.py"):
        layer_of(module_name(f), SIMCORE_LAYERS, "simcore")  # raises for a module in no layer
    members = [m for _name, ms in SIMCORE_LAYERS for m in ms]
    assert len(members) == len(set(members))
    bad = upward_imports("simcore", SIMCORE_LAYERS)
    assert not bad, f"a lower layer imports a higher one: {bad}"


def dashboard_tier(module: str) -> tuple[int, str]:
    """(tier index, section) of a dashboard module; the section is its package under dashboard/."""
    section = module.split(".")[1] if "." in module else "streamlit_app"
    for i, (_name, packages, _may) in enumerate(DASHBOARD_TIERS):
        if section in packages:
            return i, section
    raise ValueError(f"{module} is in no tier")


def dashboard_violations() -> dict[str, list[str]]:
    files = sorted((ROOT / "dashboard").rglob("*.py"))
    modules = {module_name(f) for f in files}
    bad: dict[str, list[str]] = {}
    for f in files:
        me = module_name(f)
        if me == "dashboard":
            continue
        tier, section = dashboard_tier(me)
        for line, target in internal_imports(f.read_text(encoding="utf-8"), "dashboard", modules):
            if target == "dashboard":
                continue
            their_tier, their_section = dashboard_tier(target)
            if their_tier > tier or (their_tier == tier == SECTIONS and their_section != section):
                bad.setdefault(me, []).append(f"line {line}: {target}")
    return bad


def test_the_dashboard_tiers_import_only_downwards_and_sections_not_each_other():
    for f in (ROOT / "dashboard").rglob("*.py"):
        if f.name != "__init__.py" or f.parent.name != "dashboard":
            dashboard_tier(module_name(f))  # raises for a module in no tier
    bad = dashboard_violations()
    assert not bad, f"a tier imports one above it, or one page section another: {bad}"


@pytest.mark.parametrize(("files", "forbidden"), [(VIEWS, ("streamlit", "plotly")), (CHARTS, ("streamlit",))])
def test_views_and_charts_stay_pure(files, forbidden):
    for name in files:
        assert not violations((ROOT / "dashboard" / name).read_text(encoding="utf-8"), forbidden), name


def test_the_architecture_doc_shows_these_tables():
    """docs/architecture.md lists the same simcore layers, in order, each with its modules, and the tiers."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = doc.split("### Layers of `simcore`", 1)[1].split("###", 1)[0]
    rows = [r for r in section.splitlines() if r.startswith("| ") and not r.startswith("| layer")]
    assert [r.split("|")[1].strip() for r in rows] == [name for name, _ in SIMCORE_LAYERS]
    every = {m for _, members in SIMCORE_LAYERS for m in members}
    for row, (name, members) in zip(rows, SIMCORE_LAYERS, strict=True):
        named = set(re.findall(r"`([a-z_]+)(?:\.py|/)`", row.split("|")[2]))  # `model.py`, `engine/`
        assert set(members) <= named and not named & (every - set(members)), (name, named)
    tiers = doc.split("### Layers of `dashboard`", 1)[1].split("Across the tiers", 1)[0]
    tier_rows = [r for r in tiers.splitlines() if r.startswith("| ") and not r.startswith("| tier")]
    assert [r.split("|")[1].strip() for r in tier_rows] == [name for name, _, _ in DASHBOARD_TIERS]


def test_the_check_sees_every_spelling_of_a_forbidden_import():
    pages = RULES[1][1]
    for source in (
        "import simcore.engine",
        "from simcore.engine import simulate",
        "from simcore import engine",
        "def f():\n    import simcore.engine as e\n",
    ):
        assert violations(source, pages), source
    assert violations("import plotly.graph_objects as go", RULES[0][1]) == ["line 1: plotly.graph_objects"]
    assert violations("from dashboard import views", RULES[0][1]) == ["line 1: dashboard", "line 1: dashboard.views"]
    # near names are not the forbidden modules
    assert not violations(
        "import simcore.engines_doc\nfrom simcore import compare\nimport plotlyish", (*pages, "plotly")
    )


def test_the_layer_check_sees_an_upward_import():
    modules = {"simcore", "simcore.core", "simcore.core.fmt", "simcore.engine", "simcore.engine.loop"}
    found = internal_imports(
        "from simcore.core import fmt\nfrom simcore.engine import loop\nimport numpy", "simcore", modules
    )
    assert found == [(1, "simcore.core.fmt"), (2, "simcore.engine.loop")]
    assert internal_imports("from simcore import simulate", "simcore", modules) == [(1, "simcore")]
    layer = {m: SIMCORE_LAYERS[layer_of(m, SIMCORE_LAYERS, "simcore")][0] for m in modules}
    assert layer == {
        "simcore": "front end",
        "simcore.core": "core",
        "simcore.core.fmt": "core",
        "simcore.engine": "engine",
        "simcore.engine.loop": "engine",
    }
    assert dashboard_tier("dashboard.learn.lessons") == (SECTIONS, "learn")
    assert dashboard_tier("dashboard.shared.keys")[0] == 0 and dashboard_tier("dashboard.runs.data")[0] == 1


# --- circles -----------------------------------------------------------------------------------


def parents(module: str) -> list[str]:
    """The packages above ``module``, outermost first (``a.b.c``: ``a``, ``a.b``)."""
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def sources(package: str) -> dict[str, str]:
    """Module name -> its source, for every module of ``package``."""
    return {module_name(f): f.read_text(encoding="utf-8") for f in sorted((ROOT / package).rglob("*.py"))}


def import_graph(source: dict[str, str], package: str) -> dict[str, set[str]]:
    """Module -> the package's modules that importing it runs: each module it names (``from a import
    b``: ``a.b`` when that is a module, else ``a``) and the packages above that one which it is not
    already inside (``import a.b.c`` runs ``a/__init__.py`` and ``a/b/__init__.py`` first)."""
    modules = set(source)
    graph: dict[str, set[str]] = {}
    for me, text in source.items():
        inside = {*parents(me), me}
        runs: set[str] = set()
        for _line, target in internal_imports(text, package, modules):
            while target not in modules:  # import a.b.name: the module a.b
                target = target.rpartition(".")[0]
            runs.update({target} - {me}, (p for p in parents(target) if p not in inside))
        graph[me] = runs
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one node (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(found)


def circles_by_level(graph: dict[str, set[str]]) -> dict[str, list[list[str]]]:
    """Per package, the circles among what it holds: its own ``__init__`` and each module and
    sub-package in it (a sub-package standing for everything under it)."""
    packages = {m for m in graph if any(other.startswith(m + ".") for other in graph)}
    out = {}
    for package in sorted(packages):

        def child(module: str, package: str = package) -> str | None:
            if module == package:
                return "__init__"
            return module[len(package) + 1 :].split(".")[0] if module.startswith(package + ".") else None

        level: dict[str, set[str]] = {}
        for a, targets in graph.items():
            if (ca := child(a)) is not None:
                level.setdefault(ca, set()).update(cb for b in targets if (cb := child(b)) not in (None, ca))
        if found := circles(level):
            out[package] = found
    return out


@pytest.mark.parametrize("package", ["simcore", "dashboard"])
def test_no_import_circle_among_modules_or_packages(package):
    graph = import_graph(sources(package), package)
    assert circles(graph) == [], "modules that import each other, through a chain"
    assert circles_by_level(graph) == {}, "packages (or a package's modules) that import each other"


def test_the_circle_checks_see_a_circle():
    # module level: a -> b -> c -> a; d only imports
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    # two packages whose modules import each other, with no circle among the modules themselves
    graph = {
        "p": set(),
        "p.x": set(),
        "p.x.m": {"p.y.n"},
        "p.y": set(),
        "p.y.n": set(),
        "p.y.k": {"p.x.j"},
        "p.x.j": set(),
    }
    assert circles(graph) == [] and circles_by_level(graph) == {"p": [["x", "y"]]}
    # importing p.y.n runs p/y/__init__.py first, which imports p.x back: a circle of p.x and p.y
    # that no import statement spells
    tree = {"p": "", "p.x": "import p.y.n\n", "p.y": "from p import x\n", "p.y.n": ""}
    graph = import_graph(tree, "p")
    assert graph["p.x"] == {"p.y.n", "p.y"} and graph["p.y"] == {"p.x"}
    assert circles(graph) == [["p.x", "p.y"]]
    # a module's own packages are already running: importing a sibling adds no edge to them
    assert import_graph({"p": "", "p.a": "import p.b\n", "p.b": ""}, "p")["p.a"] == {"p.b"}


def test_no_test_module_imports_another() -> None:
    """What tests share lives in ``tests/helpers`` (plain functions) or ``tests/conftest.py``
    (fixtures): a test module imported by another would run its module-level work twice and tie
    two modules' tests together. Code handed to a subprocess as text counts too."""
    spelled = re.compile(r"^\s*(from|import)\s+(tests\.)?test_\w+", re.M)
    importers = [
        p.name for p in sorted((ROOT / "tests").glob("test_*.py")) if spelled.search(p.read_text(encoding="utf-8"))
    ]
    assert importers == []
