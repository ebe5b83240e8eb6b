"""Benchmark: what writing a run's outputs costs beside the simulation (issue 31's aim: at most 25%).

``simcore run`` on a generated 100,000-job workload, in-process through the CLI's own functions:
the workload and its node list are written to CSV files first, then the command's arguments are
parsed, the inputs loaded, and two phases measured apart, in CPU seconds of this process (the
steadier number on a shared machine) and wall seconds:

- simulate: :func:`simcore.engine.simulate`, as ``run`` calls it;
- outputs: :func:`simcore.cli.write_outputs`, everything ``run`` does after the simulation: the
  summary (which ``run`` also prints), the jobs, events and decisions files and the summary JSON.

Each scenario runs ``--repeat`` times (default 3), alternating the phases; the ratio printed is
outputs / simulate of the median repetition (by CPU). Usage:

    python bench/outputs.py                  # paper (whole-second times) and mmc (fractional), FIFO
    python bench/outputs.py paper --policy fitgpp --jobs 20000
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from simcore.analysis.compare import parse_policy_spec
from simcore.cli import build_parser
from simcore.cli.common import config_from_args
from simcore.cli.inputs import load_inputs
from simcore.cli.run import write_outputs
from simcore.engine import compiled, simulate
from simcore.workload import write_cluster_csv, write_workload
from simcore.workload.presets import generate

PRESETS = ("paper", "mmc")


def measure(preset: str, policy: str, jobs: int, repeat: int, folder: Path) -> dict:
    wl = generate(preset, 0, {"jobs": jobs})
    workload, cluster = folder / f"{preset}.csv", folder / f"{preset}-nodes.csv"
    write_workload(wl.table, workload)
    write_cluster_csv(wl.cluster, cluster)
    outs = {f: str(folder / f"out-{f}") for f in ("jobs.csv", "events.csv", "summary.json", "decisions.jsonl")}
    argv = ["run", str(workload), "--policy", policy, "--cluster", str(cluster)]
    argv += ["--jobs-out", outs["jobs.csv"], "--events-out", outs["events.csv"]]
    argv += ["--summary-json", outs["summary.json"], "--decisions-out", outs["decisions.jsonl"]]
    args = build_parser().parse_args(argv)
    table, nodes = load_inputs(args)
    spec = parse_policy_spec(args.policy, config_from_args(args))
    runs = []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        result = simulate(table, nodes, spec.config, record_decisions=True)
        c1, w1 = time.process_time(), time.perf_counter()
        write_outputs(result, args)
        c2, w2 = time.process_time(), time.perf_counter()
        runs.append({"sim_cpu": c1 - c0, "sim_wall": w1 - w0, "out_cpu": c2 - c1, "out_wall": w2 - w1})
    sizes = {name: Path(path).stat().st_size for name, path in outs.items()}
    median = sorted(runs, key=lambda r: r["out_cpu"] / r["sim_cpu"])[len(runs) // 2]
    return {
        "scenario": f"{preset}-{policy}",
        "jobs": len(table),
        "events": len(result.ev_time),
        "decisions": len(result.decisions),
        "bytes": sum(sizes.values()),
        "ratios": [round(r["out_cpu"] / r["sim_cpu"], 3) for r in runs],
        **{k: round(v, 3) for k, v in median.items()},
        "ratio_cpu": round(median["out_cpu"] / median["sim_cpu"], 3),
        "ratio_wall": round(statistics.median(r["out_wall"] / r["sim_wall"] for r in runs), 3),
    }


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("presets", nargs="*", metavar="PRESET", help=f"of {', '.join(PRESETS)} (default: both)")
    p.add_argument("--policy", default="fifo")
    p.add_argument("--jobs", type=int, default=100_000)
    p.add_argument("--repeat", type=int, default=3)
    a = p.parse_args(argv)
    unknown = set(a.presets) - set(PRESETS)
    if unknown:
        p.error(f"unknown preset(s) {', '.join(sorted(unknown))}; known: {', '.join(PRESETS)}")
    print(
        f"engine: {'compiled (mypyc)' if compiled() else 'pure Python'}; ratio = outputs / simulate (CPU, median run)"
    )
    print(
        f"{'scenario':<14} {'jobs':>8} {'events':>8} {'MB out':>7} {'sim cpu s':>10} {'out cpu s':>10} "
        f"{'ratio':>6} {'wall ratio':>10}  ratios of each run"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for preset in a.presets or PRESETS:
            r = measure(preset, a.policy, a.jobs, a.repeat, Path(tmp))
            print(
                f"{r['scenario']:<14} {r['jobs']:>8} {r['events']:>8} {r['bytes'] / 1e6:>7.1f} {r['sim_cpu']:>10.3f} "
                f"{r['out_cpu']:>10.3f} {r['ratio_cpu']:>6.1%} {r['ratio_wall']:>10.1%}  {r['ratios']}",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
