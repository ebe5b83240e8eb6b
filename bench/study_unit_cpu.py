"""Benchmark: the CPU seconds of one unit of the full study (one workload's tasks, as a pool worker
runs them: :func:`simcore.experiments.sweep.run_tasks`), the minimum of several repeats in one process
(``time.process_time``: a loaded machine stretches wall time, hardly this). ``--profile`` then
prints a cProfile of one more repeat. The unit is the first (longest first, as the study submits
them) whose workload key contains the given text:

    PYTHONPATH=. .venv/bin/python bench/study_unit_cpu.py "[], 1)" --repeats 3 [--profile]

``"[], 1)"`` is the main study's seed-1 workload (90 runs of 4,000 jobs).
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcore.experiments.study.plan import DEFAULT_TRACE, FULL  # noqa: E402
from simcore.experiments.study.run import _spec, study_grids  # noqa: E402
from simcore.experiments.sweep.runner import _distinct_runs  # noqa: E402
from simcore.experiments.sweep.spec import Task  # noqa: E402
from simcore.experiments.sweep.tasks import run_tasks, workload_key  # noqa: E402


def study_unit(text: str) -> list[Task]:
    """The tasks of the study's longest-first unit whose workload key contains ``text``."""
    groups: dict[str, list[tuple[int, Task]]] = {}
    for i, (grid, name) in enumerate(study_grids(FULL, ROOT / DEFAULT_TRACE)):
        for task in _spec(grid, name).tasks():
            groups.setdefault(workload_key(task), []).append((i, task))
    units = sorted(groups.values(), key=lambda g: -_distinct_runs(g))
    return next([t for _, t in u] for u in units if text in workload_key(u[0][1]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("key", help='text of the unit\'s workload key, e.g. "[], 1)"')
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="then print a cProfile of one more repeat")
    args = ap.parse_args()
    tasks = study_unit(args.key)
    print(f"{workload_key(tasks[0])}: {len(tasks)} tasks")
    best = float("inf")
    for _ in range(args.repeats):
        start = time.process_time()
        run_tasks(tasks)
        best = min(best, time.process_time() - start)
    print(f"unit CPU, min of {args.repeats}: {best:.3f} s")
    if args.profile:
        with cProfile.Profile() as prof:
            run_tasks(tasks)
        pstats.Stats(prof).sort_stats("cumulative").print_stats(45)


if __name__ == "__main__":
    main()
