"""Benchmark: a workload file past the CLI's default row cap, run whole by ``simcore run`` (issue 36).

A ``paper`` workload of ``--jobs`` rows (default 3,000,000) on ``--nodes`` nodes is written as
Parquet in row groups of ``--row-group`` rows, then ``simcore run FILE --max-rows JOBS`` runs in
a child process with its jobs and events CSV written; the child's CPU seconds and peak memory
(max RSS) are measured from this process, and the summary's job count is checked against the
file's. Usage:

    python bench/big_workload.py                          # 3M rows, 10,000 nodes, fitgpp
    python bench/big_workload.py --jobs 1000000 --out big.json
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
from emit import emit  # bench/emit.py (a script's own folder is on sys.path)

from simcore.workload.presets import generate


def write_parquet(jobs: int, nodes: int, row_group: int, path: Path) -> None:
    """The canonical columns of a generated ``paper`` workload, as Parquet in row groups."""
    table = generate("paper", 0, {"jobs": jobs, "nodes": nodes}).table
    columns = {
        "job_id": pa.array(table.job_id.tolist(), pa.string()),
        "submit_time": table.submit_time,
        "duration": table.duration,
        **{dim: table.request[:, i] for i, dim in enumerate(("cpu", "mem_gb", "gpu"))},
        "job_class": pa.array(["TE" if te else "BE" for te in table.is_te.tolist()], pa.string()),
    }
    pq.write_table(pa.table(columns), path, row_group_size=row_group)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3_000_000)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--policy", default="fitgpp")
    parser.add_argument("--row-group", type=int, default=1 << 18)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / "workload.parquet"
        write_parquet(args.jobs, args.nodes, args.row_group, data)
        command = [sys.executable, "-m", "simcore", "run", str(data), "--max-rows", str(args.jobs)]
        command += ["--nodes", str(args.nodes), "--policy", args.policy, "--summary-json", str(folder / "s.json")]
        command += ["--jobs-out", str(folder / "jobs.csv"), "--events-out", str(folder / "events.csv")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        summary = json.loads((folder / "s.json").read_text())
        result = {
            "jobs": args.jobs,
            "nodes": args.nodes,
            "policy": args.policy,
            "file_mb": round(data.stat().st_size / 1e6, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
            "wall_s": round(wall, 2),
            "peak_rss_mb": round(after.ru_maxrss / 1024),
            "jobs_simulated": summary["classes"]["all"]["count"],
        }
    return emit(result, args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
