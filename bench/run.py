"""Benchmark: jobs/second and peak memory for named scenarios (DESIGN.md issue 2 targets).

Each scenario runs in a fresh subprocess so its peak RSS is its own. Usage:
    python bench/run.py                 # every scenario
    python bench/run.py mmc paper-fitgpp
Generation time is reported apart from simulation time; jobs/s counts simulation only
(wall clock). CPU seconds are printed too: on a busy machine they are the steadier number.
The ``paper-gang10k`` scenarios need an engine that runs gangs (DESIGN rule 10): with one that
does not, they are skipped with a message saying so.
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
    **{
        f"paper-gang10k-{p}": ("paper-gang", {"jobs": 10_000}, p)
        for p in ("fifo", "priority", "k8s", "lrtp", "random", "fitgpp")
    },
    "1M-1000nodes-fitgpp": ("paper", {"jobs": 1_000_000, "nodes": 1000}, "fitgpp"),
}


def engine_runs_gangs() -> bool:
    """Whether the engine places a gang's workers (one start row per worker, DESIGN section 6):
    a 2-worker job of 8 GPUs on two 8-GPU nodes must start on both."""
    import numpy as np

    from simcore.engine import simulate
    from simcore.model import ClusterSpec, JobTable, SimConfig
    from simcore.result import EVENT_NAMES

    gang = JobTable(
        job_id=np.array(["g"], dtype=object),
        submit_time=np.zeros(1),
        duration=np.ones(1),
        request=np.array([[1.0, 1.0, 8.0]]),
        is_te=np.zeros(1, dtype=bool),
        workers=np.array([2], dtype=np.int64),
    )
    try:
        result = simulate(gang, ClusterSpec.uniform(2, 8, 8, 8), SimConfig())
    except Exception:  # an engine that refuses gangs
        return False
    return int(np.sum(result.ev_code == EVENT_NAMES.index("start"))) == 2


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
    if any(SCENARIOS[n][0] == "paper-gang" for n in names) and not engine_runs_gangs():
        skipped = [n for n in names if SCENARIOS[n][0] == "paper-gang"]
        print(f"skipped {', '.join(skipped)}: this engine does not run gangs yet (DESIGN rule 10)", flush=True)
        names = [n for n in names if n not in skipped]
    print(
        f"{'scenario':<22} {'jobs':>9} {'nodes':>6} {'sim s':>7} {'cpu s':>7} {'jobs/s':>9} {'events':>9} {'preempt':>8} {'peak MB':>8}"
    )
    for n in names:
        out = subprocess.run([sys.executable, __file__, "--one", n], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        print(
            f"{r['scenario']:<22} {r['jobs']:>9} {r['nodes']:>6} {r['simulate_s']:>7} {r['cpu_s']:>7} {r['jobs_per_s']:>9} "
            f"{r['events']:>9} {r['preemptions']:>8} {r['peak_rss_mb']:>8}",
            flush=True,
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
