"""Benchmark: the server-side work of a cold first visit to the default Explore page, split in CPU
seconds of one fresh process (``time.process_time``: a loaded machine stretches wall time, hardly
this), in the order a first visit does it. Run it in a fresh process each time:

    nice .venv/bin/python bench/first_visit_cpu.py

``streamlit run`` pays every step after the first on its first visitor's script run;
``python -m dashboard`` (``make run``) pays them before it serves, and with the shipped runs the
simulation and the worker process it runs in are not needed at all.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def timed(label: str, step: Callable[[], Any], rows: list[tuple[str, float]]) -> Any:
    start = time.process_time()
    value = step()
    rows.append((label, time.process_time() - start))
    return value


def main() -> int:
    rows: list[tuple[str, float]] = []
    timed("import streamlit (before the server answers)", lambda: __import__("streamlit"), rows)
    import dashboard.__main__ as launcher  # the standard library only

    def page_imports() -> None:
        from dashboard.runs import warmup

        with warmup.outside_runtime():
            for name in launcher.imported_modules(launcher.APP) + launcher.imported_modules(launcher.DEFAULT_PAGE):
                __import__(name)

    timed("the app's and the default page's imports", page_imports, rows)
    from dashboard.explore import explore_results
    from dashboard.runs import compute, data, shipped, warmup
    from dashboard.runs.results import Comparison
    from simcore.analysis.compare import Configured, run_policies

    with warmup.outside_runtime():
        default = timed("the default workload and cluster read", data.default_scenario, rows)
    scenario, workload, cluster = default
    keys, (table, _cluster, configs, _extra) = warmup.work(*default)
    labelled = [Configured(str(i), c) for i, c in enumerate(configs)]
    results = timed("the four policies simulated", lambda: run_policies(table, cluster, labelled), rows)
    timed("their frames and numbers derived", lambda: [compute.run_of(r) for r in results.values()], rows)
    runs = timed("the same read from the shipped file", lambda: shipped.load(keys, table, cluster, configs), rows)
    by_policy = dict(zip(scenario.policies, runs, strict=True))
    summaries = [{p: r.summary for p, r in by_policy.items()}]
    comparison = Comparison(workload, cluster, by_policy, summaries, [{p: r.flat for p, r in by_policy.items()}], [0])

    def figures() -> None:
        explore_results.percentile_chart(comparison)
        explore_results.cdf_chart(comparison)

    def sent() -> int:
        """The figures as ``st.plotly_chart`` sends them: validated, then as JSON (bytes)."""
        import plotly.io
        import plotly.tools

        return sum(
            len(plotly.io.to_json(plotly.tools.return_figure_from_figure_or_data(f, True), validate=False))
            for f in (explore_results.percentile_chart(comparison), explore_results.cdf_chart(comparison))
        )

    timed("the percentile and CDF figures, first time in the process", figures, rows)
    timed("the same, second time", figures, rows)
    size = timed("the two figures built, validated and as JSON, as Streamlit sends them", sent, rows)
    rows[-1] = (f"{rows[-1][0]} ({size:,} bytes)", rows[-1][1])
    for label, seconds in rows:
        print(f"{seconds:6.2f} s  {label}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
