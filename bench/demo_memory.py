"""The hosted demo's memory, part by part, measured without depending on the machine's speed.

Runs the real worker path (:func:`dashboard.runs.worker.run` of
:func:`dashboard.runs.compute.comparison`) on one generated workload and reports, in MB:

- the forkserver's and one worker's peak resident memory (``VmHWM``: the high-water mark, so
  sampling cannot miss it), the worker's read with each value pickled as it is sent;
- in this process, standing in for the server: the result's :func:`~dashboard.runs.store.deep_size`
  (what the store counts), its pickled size, the resident growth once it is received and the
  transient peak while it is received (pickled bytes and objects at once), from a peak reset
  (``/proc/self/clear_refs``) just before;
- ``--copies`` more copies of the result unpickled and kept, as the store would keep distinct
  results: the resident growth per copy next to its ``deep_size``.

With ``--sweep`` it measures instead the worker's peak for one sweep task of that size; with
``--report`` the worker's peak building the Explore page's report of that scenario; with
``--page`` what drawing one visitor's Explore page adds (every tab's
figures and tables, as Streamlit's AppTest runs the page in this process): the page is opened
once (its runs computed and stored), then each tab is drawn from the store in turn (a page draws
only its open tab): the most memory each drawing allocated at once (tracemalloc, which numpy
reports to) and its peak resident growth over the resident size before it.

    PYTHONPATH=. .venv/bin/python -m bench.demo_memory --jobs 20000 \
        --policies fifo,priority,k8s,lrtp,random,fitgpp [--copies 3] [--page] [--out FILE]

Memory is not a timing question: a loaded machine makes the run slower, not larger.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from emit import emit  # bench/emit.py (a script's own folder is on sys.path)

from dashboard.runs import compute, worker
from dashboard.runs.store import deep_size
from dashboard.shared.scenario import Scenario
from simcore.workload import presets

MB = 1e6


def status(field: str, pid: str = "self") -> int:
    """A ``VmRSS``/``VmHWM`` line of /proc/PID/status, in bytes."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) * 1024
    raise LookupError(field)


def reset_peak() -> None:
    """Start ``VmHWM`` again from the current resident size (Linux: clear_refs 5)."""
    Path("/proc/self/clear_refs").write_text("5")


def measured(fn: Callable[..., Iterable[Any]], *args: Any) -> Iterator[Any]:
    """``fn(*args)`` in the worker, each value pickled as the pipe will send it (the pickle held
    while the peak is read), then, as a last value, this process's peak resident memory."""
    peak = 0
    for value in fn(*args):
        data = pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
        peak = max(peak, status("VmHWM"))
        del data
        yield value
        del value
    yield max(peak, status("VmHWM"))


def forkserver_rss() -> int:
    """Resident size of this process's forkserver (a child that is not a worker)."""
    import psutil  # type: ignore[import-untyped]

    rss = [c.memory_info().rss for c in psutil.Process().children() if "forkserver" in " ".join(c.cmdline())]
    return max(rss, default=0)


def page(args: argparse.Namespace, out: dict[str, Any]) -> None:
    """The Explore page of the scenario drawn from the shared store, tab by tab, in this process, in
    demo mode (its ``run_seconds`` lifted: a loaded machine may need longer; memory does not)."""
    import os
    from dataclasses import replace

    from streamlit.testing.v1 import AppTest

    from dashboard.shared import demo

    os.environ[demo.ENV_VAR] = "1"
    demo.DEMO = replace(demo.DEMO, run_seconds=3600.0)

    app = str(Path(__file__).resolve().parent.parent / "dashboard" / "streamlit_app.py")
    at = AppTest.from_file(app, default_timeout=3600)
    at.query_params.update({"source": "generate", "g.jobs": str(args.jobs), "seed": str(args.seed), "seeds": "1"})
    at.query_params["policies"] = args.policies
    at.run()
    if at.exception:
        raise SystemExit(f"the page failed: {[e.value for e in at.exception]}")
    from dashboard.shared import keys

    tabs = {}
    for tab in [t.label for t in at.tabs]:  # only the open tab is drawn: each in turn, from the store
        at.session_state[keys.TAB.name] = tab
        gc.collect()
        before = status("VmRSS")
        reset_peak()
        tracemalloc.start()  # what the drawing allocates at most, whether or not freed memory is reused
        at.run()
        allocated = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        tabs[tab] = {
            "allocated_peak_mb": round(allocated / MB, 1),
            "rss_peak_over_before_mb": round((status("VmHWM") - before) / MB, 1),
            "charts": len(at.get("plotly_chart")),
            "errors": [e.value[:160] for e in at.error],
        }
        print(tab, tabs[tab], flush=True)
    out.update(server_rss_after_drawing_mb=round(status("VmRSS") / MB, 1), tabs=tabs)


def sweep(args: argparse.Namespace, out: dict[str, Any]) -> None:
    """One sweep task at the size given (one knob value, one seed), run by the worker as the Sweep
    page runs it with ``max_workers`` = 1: in the worker process itself, every policy's result held
    until the task's rows are made (simcore.experiments.sweep.tasks.run_task)."""
    from dashboard.sweep.sweeps import SweepSettings

    settings = SweepSettings(jobs=str(args.jobs), policies=tuple(args.policies.split(",")), values="0.8", seeds=1)
    worker.start()
    *rows, peak = worker.run(
        measured, (compute.sweep, settings.spec(), 1, None), timeout=3600, heartbeat=lambda _f: None
    )
    out.update(worker_peak_mb=round(peak / MB, 1), forkserver_rss_mb=round(forkserver_rss() / MB, 1), rows=len(rows[0]))


def report(args: argparse.Namespace, out: dict[str, Any]) -> None:
    """The Explore page's report of the scenario, built by the worker as the button has it built
    (:func:`dashboard.report.gather.report_html`: the runs, the decision records, the HTML)."""
    from dashboard.report import gather

    scenario = Scenario(source="generate", gen=(("jobs", str(args.jobs)),), policies=tuple(args.policies.split(",")))
    gen = presets.generate(scenario.preset, args.seed, dict(scenario.gen))
    configs = {p: scenario.config(p) for p in scenario.policies}
    from simcore.engine import simulate

    flats = {p: compute.numbers(simulate(gen.table, gen.cluster, c)).flat for p, c in configs.items()}  # the page's
    page = gather.PageFacts("bench", "simcore report", None, scenario.policies[0], (flats,))
    worker.start()
    cpu = time.process_time()
    html, peak = worker.run(
        measured, (gather.report_html, gen.table, gen.cluster, configs, page), timeout=3600, heartbeat=lambda _f: None
    )
    out.update(
        worker_peak_mb=round(peak / MB, 1),
        forkserver_rss_mb=round(forkserver_rss() / MB, 1),
        html_mb=round(len(html) / MB, 1),
        simulations=gather.simulations(configs),
        server_cpu_s=round(time.process_time() - cpu, 2),
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--policies", default="fifo,priority,k8s,lrtp,random,fitgpp")
    parser.add_argument("--seed", type=int, default=2000)
    parser.add_argument("--copies", type=int, default=3, help="further copies kept, as distinct stored results")
    parser.add_argument("--page", action="store_true", help="measure one visitor's page drawing instead")
    parser.add_argument("--sweep", action="store_true", help="measure one sweep task's worker instead")
    parser.add_argument("--report", action="store_true", help="measure the report's worker instead")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    if args.page or args.sweep or args.report:
        result: dict[str, Any] = {"jobs": args.jobs, "policies": args.policies, "seed": args.seed}
        (page if args.page else sweep if args.sweep else report)(args, result)
        return emit(result, args.out)
    scenario = Scenario(source="generate", gen=(("jobs", str(args.jobs)),), policies=tuple(args.policies.split(",")))
    gen = presets.generate(scenario.preset, args.seed, dict(scenario.gen))
    configs = tuple(scenario.config(p) for p in scenario.policies)
    worker.start()
    gc.collect()
    out: dict[str, Any] = {"jobs": args.jobs, "policies": args.policies, "seed": args.seed}
    before = status("VmRSS")
    reset_peak()
    start = time.perf_counter()
    *values, worker_peak = worker.run(
        measured,
        (compute.comparison, gen.table, gen.cluster, configs, ()),
        timeout=3600,
        heartbeat=lambda _fraction: None,
    )
    out["seconds_not_a_measure"] = round(time.perf_counter() - start, 1)
    transfer_peak = status("VmHWM")
    gc.collect()
    after = status("VmRSS")
    size = deep_size(values)
    blob = pickle.dumps(values, protocol=pickle.HIGHEST_PROTOCOL)
    job_runs = args.jobs * len(configs)
    out.update(
        server_rss_before_mb=round(before / MB, 1),
        forkserver_rss_mb=round(forkserver_rss() / MB, 1),
        worker_peak_mb=round(worker_peak / MB, 1),
        result_deep_size_mb=round(size / MB, 1),
        result_pickled_mb=round(len(blob) / MB, 1),
        result_bytes_per_job_run=round(size / job_runs),
        server_growth_after_transfer_mb=round((after - before) / MB, 1),
        server_transfer_peak_over_before_mb=round((transfer_peak - before) / MB, 1),
        per_run_deep_size_mb={c.policy: round(deep_size(v) / MB, 1) for c, v in zip(configs, values, strict=True)},
    )
    kept = [values]
    growth = []
    for _ in range(args.copies):
        gc.collect()
        rss = status("VmRSS")
        kept.append(pickle.loads(blob))
        gc.collect()
        growth.append(round((status("VmRSS") - rss) / MB, 1))
    out["copy_rss_growth_mb"] = growth
    out["copy_deep_size_mb"] = [round(deep_size(v) / MB, 1) for v in kept[1:]]
    return emit(out, args.out)


if __name__ == "__main__":
    sys.exit(main())
