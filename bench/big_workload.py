"""Benchmark: a workload file past the CLI's default row cap, run whole by ``simcore run`` (issue 36).

A ``paper`` workload of ``--jobs`` rows (default 3,000,000) on ``--nodes`` nodes is written as
Parquet in row groups of ``--row-group`` rows (or as CSV: ``--format csv``), then ``simcore run
FILE --max-rows JOBS`` runs in a child process with its jobs and events CSV written (Parquet:
``--outputs parquet``; none: ``--outputs none``); the child's CPU seconds and peak memory (max
RSS) are measured from this process, and the summary's job count is checked against the file's.
``--load-only``: the child only loads the file (``load_workload``), to measure the reader alone.
Usage:

    python bench/big_workload.py                          # 3M rows, 10,000 nodes, fitgpp
    python bench/big_workload.py --jobs 1000000 --out big.json
    python bench/big_workload.py --format csv --load-only
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
import pyarrow.csv as pacsv
import pyarrow.parquet as pq
from emit import emit  # bench/emit.py (a script's own folder is on sys.path)

from simcore.workload.presets import generate


def write_workload(jobs: int, nodes: int, row_group: int, path: Path) -> None:
    """The canonical columns of a generated ``paper`` workload, as Parquet in row groups or as CSV
    (by ``path``'s extension)."""
    table = generate("paper", 0, {"jobs": jobs, "nodes": nodes}).table
    columns = {
        "job_id": pa.array(table.job_id.tolist(), pa.string()),
        "submit_time": table.submit_time,
        "duration": table.duration,
        **{dim: table.request[:, i] for i, dim in enumerate(("cpu", "mem_gb", "gpu"))},
        "job_class": pa.array(["TE" if te else "BE" for te in table.is_te.tolist()], pa.string()),
    }
    if path.suffix == ".csv":
        pacsv.write_csv(pa.table(columns), path)
    else:
        pq.write_table(pa.table(columns), path, row_group_size=row_group)


#: the child of ``--load-only``: the loader alone, its job count printed
LOAD_ONLY = (
    "import sys; from simcore.workload import load_workload; "
    "print(len(load_workload(sys.argv[1], max_rows=int(sys.argv[2]), max_bytes=1 << 40).table))"
)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=3_000_000)
    parser.add_argument("--nodes", type=int, default=10_000)
    parser.add_argument("--policy", default="fitgpp")
    parser.add_argument("--row-group", type=int, default=1 << 18)
    parser.add_argument("--format", choices=("parquet", "csv"), default="parquet")
    parser.add_argument("--outputs", choices=("csv", "parquet", "none"), default="csv")
    parser.add_argument("--load-only", action="store_true")
    parser.add_argument("--out", type=Path)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        data = folder / f"workload.{args.format}"
        write_workload(args.jobs, args.nodes, args.row_group, data)
        if args.load_only:
            command = [sys.executable, "-c", LOAD_ONLY, str(data), str(args.jobs)]
        else:
            command = [sys.executable, "-m", "simcore", "run", str(data), "--max-rows", str(args.jobs)]
            command += ["--max-bytes", str(1 << 40), "--nodes", str(args.nodes), "--policy", args.policy]
            command += ["--summary-json", str(folder / "s.json")]
            if args.outputs != "none":
                out = args.outputs
                command += ["--jobs-out", str(folder / f"jobs.{out}"), "--events-out", str(folder / f"events.{out}")]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        printed = subprocess.run(command, check=True, stdout=subprocess.PIPE, text=True).stdout
        wall = time.perf_counter() - t0
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if args.load_only:
            jobs = int(printed.split()[-1])
        else:
            jobs = json.loads((folder / "s.json").read_text())["classes"]["all"]["count"]
        result = {
            "jobs": args.jobs,
            "nodes": args.nodes,
            "policy": args.policy,
            "format": args.format,
            "outputs": "none (load only)" if args.load_only else args.outputs,
            "file_mb": round(data.stat().st_size / 1e6, 1),
            "cpu_s": round(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, 2),
            "wall_s": round(wall, 2),
            "peak_rss_mb": round(after.ru_maxrss / 1024),
            "jobs_simulated" if not args.load_only else "jobs_loaded": jobs,
        }
    return emit(result, args.out)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
