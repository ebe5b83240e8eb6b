"""Benchmark: jobs/second and peak memory for named scenarios (DESIGN.md issue 2 targets).

Each scenario runs in a fresh subprocess so its peak RSS is its own. Usage:
    python bench/run.py                 # every scenario
    python bench/run.py mmc paper-fitgpp
Generation time is reported apart from simulation time; jobs/s counts simulation only
(wall clock). CPU seconds are printed too: on a busy machine they are the steadier number.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time

SCENARIOS: dict[str, tuple[str, dict, str]] = {
    # name: (preset, overrides, policy)
    "mmc-fifo": ("mmc", {"nodes": 64, "jobs": 200_000, "load": 0.9}, "fifo"),
    **{
        f"paper10k-{p}": ("paper", {"jobs": 10_000}, p) for p in ("fifo", "priority", "k8s", "lrtp", "random", "fitgpp")
    },
    "1M-1000nodes-fitgpp": ("paper", {"jobs": 1_000_000, "nodes": 1000}, "fitgpp"),
}


def one(name: str) -> dict:
    from simcore.engine import simulate
    from simcore.model import SimConfig
    from simcore.presets import generate

    preset, overrides, policy = SCENARIOS[name]
    t0 = time.perf_counter()
    wl = generate(preset, 0, overrides)
    gen = time.perf_counter() - t0
    t1, c1 = time.perf_counter(), time.process_time()
    result = simulate(wl.table, wl.cluster, SimConfig(policy=policy))
    sim, cpu = time.perf_counter() - t1, time.process_time() - c1
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "scenario": name,
        "jobs": len(wl.table),
        "nodes": len(wl.cluster.nodes),
        "generate_s": round(gen, 2),
        "simulate_s": round(sim, 2),
        "cpu_s": round(cpu, 2),
        "jobs_per_s": round(len(wl.table) / sim),
        "events": len(result.ev_time),
        "preemptions": int(result.preemptions.sum()),
        "peak_rss_mb": round(peak_mb),
    }


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "--one":
        print(json.dumps(one(argv[1])))
        return 0
    names = argv or list(SCENARIOS)
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    print(
        f"{'scenario':<22} {'jobs':>9} {'nodes':>6} {'sim s':>7} {'cpu s':>7} {'jobs/s':>9} {'events':>9} {'preempt':>8} {'peak MB':>8}"
    )
    for n in names:
        out = subprocess.run([sys.executable, __file__, "--one", n], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"{r['scenario']:<22} {r['jobs']:>9} {r['nodes']:>6} {r['simulate_s']:>7} {r['cpu_s']:>7} {r['jobs_per_s']:>9} "
              f"{r['events']:>9} {r['preemptions']:>8} {r['peak_rss_mb']:>8}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
