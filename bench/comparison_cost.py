"""What one comparison costs in the demo's worker: CPU seconds per policy, simulation and frames apart.

Runs :func:`dashboard.runs.compute.comparison`'s two steps (``simulate``, then ``run_of``) policy
by policy in this process (the project root on ``PYTHONPATH``: whichever checkout it names, its
compiled engine if built), on the workload a crowd visitor opens (``?source=generate&g.jobs=N&seed=S``:
the ``demo`` preset), and reports each step's CPU time (``time.process_time``: what the process
itself used, so a machine shared with other jobs changes it little, unlike wall time) and wall time,
and which engine ran (``SIMCORE_PURE=1`` forces the pure-Python one, what Community Cloud runs).

    PYTHONPATH=. nice .venv/bin/python bench/comparison_cost.py --jobs 20000 \
        --policies fifo,priority,k8s,lrtp,random,fitgpp [--out FILE]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from emit import emit  # bench/emit.py (a script's own folder is on sys.path)

from dashboard.runs import compute
from dashboard.shared.scenario import Scenario
from simcore import engine
from simcore.workload import presets


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--policies", default="fifo,priority,k8s,lrtp,random,fitgpp")
    parser.add_argument("--seed", type=int, default=2000)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    scenario = Scenario(source="generate", gen=(("jobs", str(args.jobs)),), policies=tuple(args.policies.split(",")))
    gen = presets.generate(scenario.preset, args.seed, dict(scenario.gen))
    out: dict[str, object] = {
        "jobs": args.jobs,
        "seed": args.seed,
        "compiled": engine.compiled(),
        "load_avg_before": [round(x, 1) for x in os.getloadavg()],
    }
    rows = {}
    for policy in scenario.policies:
        cpu, wall = time.process_time(), time.perf_counter()
        result = engine.simulate(gen.table, gen.cluster, scenario.config(policy))
        sim_cpu = time.process_time() - cpu
        compute.run_of(result)
        rows[policy] = {
            "simulate_cpu_s": round(sim_cpu, 1),
            "frames_cpu_s": round(time.process_time() - cpu - sim_cpu, 1),
            "wall_s": round(time.perf_counter() - wall, 1),
        }
        print(policy, rows[policy], file=sys.stderr, flush=True)
        del result
    out["policies"] = rows
    out["total_cpu_s"] = round(sum(r["simulate_cpu_s"] + r["frames_cpu_s"] for r in rows.values()), 1)
    out["load_avg_after"] = [round(x, 1) for x in os.getloadavg()]
    return emit(out, args.out)


if __name__ == "__main__":
    sys.exit(main())
