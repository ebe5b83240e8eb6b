"""What a down window costs a run, in job-runs: the budget's price of a row of the node-events table.

Runs the workload a crowd visitor opens (the ``demo`` preset, ``--jobs`` jobs) under each policy with
no down window, then with ``--windows`` windows (half failures, half maintenance, one hour each, on
nodes and at starts drawn at random over the first run's makespan), the simulation and the frames
(:func:`dashboard.runs.compute.run_of`) as the dashboard's worker makes them, and reports the CPU
seconds of each (``time.process_time``) and what one window adds, in job-runs: its extra CPU over
the CPU of one job's share of the plain run (the budget's unit, :mod:`dashboard.runs.budget`).

    PYTHONPATH=. nice .venv/bin/python bench/node_events_cost.py --jobs 20000 --windows 100 \
        --policies fifo,fitgpp [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from dataclasses import replace
from pathlib import Path

import numpy as np
from emit import emit  # bench/emit.py (a script's own folder is on sys.path)

from dashboard.runs import compute
from simcore import engine
from simcore.core.downtime import KINDS, NodeEvents
from simcore.core.model import SimConfig
from simcore.workload import presets


def cpu_of(table, cluster, config) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """CPU seconds of the run and its frames, and its makespan."""
    cpu = time.process_time()
    result = engine.simulate(table, cluster, config)
    compute.run_of(result)
    return time.process_time() - cpu, float(np.max(result.finish))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--windows", type=int, default=100)
    parser.add_argument("--policies", default="fifo,fitgpp")
    parser.add_argument("--seed", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=2, help="runs of each, the least CPU kept")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    gen = presets.generate("demo", args.seed, {"jobs": str(args.jobs)})
    out: dict[str, object] = {
        "jobs": args.jobs,
        "windows": args.windows,
        "compiled": engine.compiled(),
        "load_avg_before": [round(x, 1) for x in os.getloadavg()],
    }
    rng = np.random.default_rng(args.seed)
    rows = {}
    for policy in args.policies.split(","):
        config = SimConfig(policy=policy)
        plain, span = min(cpu_of(gen.table, gen.cluster, config) for _ in range(args.repeat))
        names = gen.cluster.names
        starts = rng.uniform(0, span, args.windows)
        nodes = rng.integers(0, len(names), args.windows)
        events = NodeEvents.of(
            (names[k], float(s), float(s) + 3600.0, KINDS[i % 2])
            for i, (k, s) in enumerate(zip(nodes, starts, strict=True))
        )
        down_cluster = replace(gen.cluster, node_events=events)
        down = min(cpu_of(gen.table, down_cluster, config)[0] for _ in range(args.repeat))
        per_job_run = plain / args.jobs
        rows[policy] = {
            "plain_cpu_s": round(plain, 2),
            "with_windows_cpu_s": round(down, 2),
            "per_window_cpu_ms": round(1000 * (down - plain) / args.windows, 2),
            "per_window_job_runs": round((down - plain) / args.windows / per_job_run, 1),
        }
        print(policy, rows[policy], file=sys.stderr, flush=True)
    out["policies"] = rows
    out["load_avg_after"] = [round(x, 1) for x in os.getloadavg()]
    emit(out, args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
