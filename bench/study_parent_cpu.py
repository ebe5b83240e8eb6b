"""Benchmark: the CPU seconds the parent process of ``simcore reproduce`` spends during the sweeps
(grouping the tasks, receiving each unit's rows, storing the part files, merging), while the pool
workers simulate. On a 2-core machine that CPU competes with the two workers. Also prints the
sweeps' wall time (stretched by anything else running). Run it in a fresh process:

    PYTHONPATH=. .venv/bin/python bench/study_parent_cpu.py /tmp/study-out [--workers 2]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from simcore.cli import main as cli_main  # noqa: E402
from simcore.experiments import sweep  # noqa: E402

measured: dict[str, float] = {}
run_sweeps = sweep.run_sweeps


def timed_run_sweeps(*args: Any, **kwargs: Any) -> Any:
    """:func:`simcore.experiments.sweep.run_sweeps`, its parent CPU and wall time kept in ``measured``."""
    cpu, wall = time.process_time(), time.perf_counter()
    reports = run_sweeps(*args, **kwargs)
    measured["parent_cpu"] = time.process_time() - cpu
    measured["wall"] = time.perf_counter() - wall
    return reports


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out_dir")
    ap.add_argument("--workers", default="2")
    args = ap.parse_args()
    sweep.run_sweeps = timed_run_sweeps  # the study calls it as sweep.run_sweeps
    cli_main(["reproduce", "--out-dir", args.out_dir, "--workers", args.workers])
    print(f"sweeps: parent CPU {measured['parent_cpu']:.2f} s, wall {measured['wall']:.1f} s")


if __name__ == "__main__":  # the pool's forkserver imports this file again: run only here
    main()
