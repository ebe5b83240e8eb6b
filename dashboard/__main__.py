"""``python -m dashboard [streamlit run options]``: the dashboard's server (``make run``), with the
first visitor's work done before it accepts connections.

``streamlit run dashboard/streamlit_app.py`` runs no app code before a first visitor, who then waits
for the pages' imports (pandas, Plotly, simcore, the page's modules), the default scenario's runs and
Plotly's first figure. This launcher does that work first: it starts the worker processes'
forkserver, imports the modules the app and its default page import, puts the default scenario's
runs in the shared store (read from the shipped file, :mod:`dashboard.runs.shipped`) and builds
the default page's first two figures once: inside ``streamlit run`` itself, once Streamlit has read
its options and configuration and before it serves. Nothing depends on a visitor. If any of it
fails, one line is logged and the server starts all the same. Then what it leaves is kept out of
the garbage collector's scans (:func:`settle`).
"""

from __future__ import annotations

import ast
import gc
import importlib
import importlib.util
import logging
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
APP = HERE / "streamlit_app.py"
DEFAULT_PAGE = HERE / "app_pages" / "explore.py"  # the page of the app's default=True entry
LOG = logging.getLogger("dashboard")


def imported_modules(script: Path) -> list[str]:
    """The modules a script imports at its top level, in order (``from package import module``
    gives the submodule too)."""
    names: list[str] = []
    for node in ast.parse(script.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Import):
            names += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names if _is_module(f"{node.module}.{a.name}")]
    return names


def _is_module(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # its parent is a module, not a package: this is a name in it
        return False


def prepare() -> None:
    """The work a first visitor of the default page would wait for, done now (see the module text)."""
    from dashboard.runs import warmup, worker

    worker.start()  # the forkserver imports the simulator in its own process meanwhile
    with warmup.outside_runtime():
        for name in imported_modules(APP) + imported_modules(DEFAULT_PAGE):
            importlib.import_module(name)
        from dashboard.explore import explore_results
        from dashboard.runs import data

        data.warm_default()  # the app's own call finds it done: cached once per process
        default = data.default_scenario()
        if default is None:
            return
        comparison = data.compare(*default, lambda _fraction: None, "")  # waits for the warm-up's runs
    # Plotly builds its validators and copies its template on a process's first figures
    explore_results.percentile_chart(comparison)
    explore_results.cdf_chart(comparison)


def prepare_or_log() -> None:
    """:func:`prepare`; if it fails, one line is logged and nothing else happens."""
    try:
        prepare()
    except Exception as exc:  # a slower first visit, never a server that does not start
        LOG.warning("warm-up before serving failed (%s: %s); starting the server anyway", type(exc).__name__, exc)


def settle() -> None:
    """The objects alive now (imports, warm-up) moved out of the garbage collector's sight.

    Streamlit collects garbage after every script run (``runner.postScriptGC``), holding the
    interpreter while it scans every object: 0.2 s of each visit with the 150,000 objects the
    imports and the warm-up leave, during which the server serves nothing (the page's scripts
    included). Frozen (``gc.freeze``), they are not scanned again. They live as long as the server
    anyway; a stored result is freed by reference counting once dropped, frozen or not."""
    gc.collect()  # the warm-up's garbage first, so none of it is frozen
    gc.freeze()


def main(argv: list[str] | None = None) -> None:
    """``streamlit run`` the app with ``argv`` (its options, e.g. ``--server.address``), with
    :func:`prepare_or_log` run once Streamlit has read its configuration, before it serves."""
    from streamlit.web import bootstrap, cli

    serve = bootstrap.run

    def prepared_run(*args: Any, **kwargs: Any) -> None:
        prepare_or_log()
        settle()
        serve(*args, **kwargs)

    # `streamlit run`'s own path (options, config files, secrets beside the script) up to serving
    bootstrap.run = prepared_run
    cli.main(["run", str(APP), *(sys.argv[1:] if argv is None else argv)], prog_name="streamlit")


if __name__ == "__main__":
    main()
