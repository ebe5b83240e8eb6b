"""Import directions that keep the layers apart (part of `make test`, so breaking one fails the build).

- ``simcore`` (the simulator, CLI and study) never imports the dashboard, Streamlit or Plotly:
  it runs headless and its results cannot depend on a UI.
- The dashboard's pages never import ``simcore.engine`` directly: they describe the UI, and
  running simulations goes through ``dashboard.shared.compute`` / ``dashboard.shared.data``.

Imports are read with :mod:`ast`, so an import inside a function counts as much as one at the top.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: (files, forbidden module prefixes, why)
RULES = [
    ("simcore/**/*.py", ("dashboard", "streamlit", "plotly"), "simcore runs without the dashboard"),
    ("dashboard/app_pages/**/*.py", ("simcore.engine",), "pages reach the engine through dashboard.shared.compute"),
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
