"""Where a run with queues spends its time (issue 34's speed aim): the ``teams`` preset's 10,000 jobs
run four ways on the same cluster: with its queues; with every quota and borrow limit inf (the same
per-pass queue order and bookkeeping, no queue ever over quota: no reclaim, and a TE job takes only
its own queue's BE jobs, DESIGN-queues point 9); every job in one queue of quota inf (the queue path
with the very decisions of the run without queues, event for event: the bookkeeping alone); and
without queues.

For each policy and way it prints the CPU seconds (minimum of ``--rounds`` alternating rounds), the
ratio to the run without queues, the preemptions, the victim searches and their CPU (the policy's
``victims`` wrapped with a timer: the search alone, the same code with or without queues), the
scheduling passes (counted once on the pure path, ``SIMCORE_PURE=1`` in a subprocess: a compiled
class cannot be wrapped; the count is the same on both paths) and the CPU per pass of everything but
the searches. ``--end-to-end`` times what a user waits for instead: ``simcore run`` in a process of its
own on the same workload as a CSV file, with ``--queues`` and without, writing the jobs, events and
summary files (the CPU of the process: start-up, imports, reading, the run, the metrics and the files).
Usage:

    python bench/queue_cost.py [--rounds N] [POLICY ...]                  # default: fifo k8s fitgpp
    python bench/queue_cost.py --end-to-end [--rounds N] [POLICY ...]
"""

from __future__ import annotations

import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

WAYS = ("queues", "inf quotas", "one queue", "none")
JOBS = 10_000


def _ways():
    """The teams preset's jobs and cluster of each way."""
    from simcore.core.queues import QueueSpec, with_queues
    from simcore.workload.presets import generate

    wl = generate("teams", 0, {"jobs": JOBS})
    spec = wl.cluster.queues
    unlimited = replace(spec, queues=tuple(replace(q, gpu=math.inf, borrow_limit=math.inf) for q in spec.queues))
    one = QueueSpec.of([("all", math.inf)])
    return {
        "queues": (wl.table, wl.cluster),
        "inf quotas": (wl.table, wl.cluster.with_queues(unlimited)),
        "one queue": (with_queues(wl.table, ["all"] * len(wl.table)), wl.cluster.with_queues(one)),
        "none": (wl.table, wl.cluster.with_queues(None)),
    }


def passes(policy: str) -> dict[str, int]:
    """Scheduling passes of each way (pure path: the loop's ``_pass`` wrapped with a counter)."""
    from simcore.core.model import SimConfig
    from simcore.engine import compiled, loop, simulate

    assert not compiled(), "count passes on the pure path (SIMCORE_PURE=1)"
    ways = _ways()
    count = [0]
    inner = loop._Run._pass

    def counted(self, joining):
        count[0] += 1
        return inner(self, joining)

    loop._Run._pass = counted  # type: ignore[method-assign]
    out = {}
    for way, (jobs, cluster) in ways.items():
        count[0] = 0
        simulate(jobs, cluster, SimConfig(policy=policy))
        out[way] = count[0]
    return out


def timed(policy: str, rounds: int) -> dict[str, dict]:
    """CPU seconds of each way (best of `rounds`, alternating), then the searches of one more run."""
    from simcore.core.model import SimConfig
    from simcore.engine import simulate
    from simcore.policies import POLICIES

    ways = _ways()
    config = SimConfig(policy=policy)
    best = {way: math.inf for way in WAYS}
    for _ in range(rounds):
        for way in WAYS:
            c0 = time.process_time()
            simulate(*ways[way], config)
            best[way] = min(best[way], time.process_time() - c0)
    cls = type(POLICIES[policy])
    inner = cls.victims
    spent = [0, 0.0]

    def searched(self, view):
        c0 = time.process_time()
        try:
            return inner(self, view)
        finally:
            spent[0] += 1
            spent[1] += time.process_time() - c0

    cls.victims = searched  # type: ignore[method-assign]
    out = {}
    for way in WAYS:
        spent[:] = [0, 0.0]
        r = simulate(*ways[way], config)
        out[way] = {
            "cpu_s": best[way],
            "preemptions": int(r.preemptions.sum()),
            "searches": spent[0],
            "search_cpu_s": spent[1],
        }
    cls.victims = inner  # type: ignore[method-assign]
    return out


def _child_cpu() -> float:
    use = resource.getrusage(resource.RUSAGE_CHILDREN)
    return use.ru_utime + use.ru_stime


def end_to_end(policies: list[str], rounds: int) -> None:
    """CPU seconds of ``simcore run`` processes with the preset's queues and without (best of `rounds`, alternating)."""
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        simcore = [sys.executable, "-m", "simcore"]
        made = subprocess.run(
            [
                *simcore,
                "generate",
                "--preset",
                "teams",
                "--seed",
                "0",
                "--set",
                f"jobs={JOBS}",
                "--out",
                str(d / "w.csv"),
            ]
            + ["--queues-out", str(d / "q.csv")],
            capture_output=True,
            text=True,
            check=True,
        )
        cluster = made.stdout.strip().splitlines()[-1].split(":", 1)[1].split()  # "cluster: --nodes ... --queues q.csv"
        cluster = cluster[: cluster.index("--queues")]
        outputs = [
            "--jobs-out",
            str(d / "j.csv"),
            "--events-out",
            str(d / "e.csv"),
            "--summary-json",
            str(d / "s.json"),
        ]
        engine = subprocess.run(
            [sys.executable, "-c", "from simcore.engine import compiled; print(compiled())"],
            capture_output=True,
            text=True,
        ).stdout.strip()
        print(
            f"simcore run end to end (a process each; engine {'compiled (mypyc)' if engine == 'True' else 'pure Python'}),"
            f" teams preset, {JOBS:,} jobs; CPU best of {rounds}"
        )
        print(f"{'policy':<9} {'queues s':>9} {'none s':>7} {'ratio':>6}")
        for policy in policies:
            best = {"queues": math.inf, "none": math.inf}
            for _ in range(rounds):
                for way in best:
                    extra = ["--queues", str(d / "q.csv")] if way == "queues" else []
                    c0 = _child_cpu()
                    subprocess.run(
                        [*simcore, "run", str(d / "w.csv"), "--policy", policy, *cluster, *extra, *outputs],
                        capture_output=True,
                        check=True,
                    )
                    best[way] = min(best[way], _child_cpu() - c0)
            print(
                f"{policy:<9} {best['queues']:>9.3f} {best['none']:>7.3f} {best['queues'] / best['none']:>5.2f}x",
                flush=True,
            )


def main(argv: list[str]) -> int:
    rounds = 3
    e2e = argv[:1] == ["--end-to-end"]
    if e2e:
        argv = argv[1:]
    if argv[:1] == ["--rounds"]:
        rounds, argv = int(argv[1]), argv[2:]
    if e2e:
        end_to_end(argv or ["fifo", "k8s", "fitgpp"], rounds)
        return 0
    if argv[:1] == ["--passes"]:
        print(json.dumps(passes(argv[1])))
        return 0
    from simcore.engine import compiled

    print(
        f"engine: {'compiled (mypyc)' if compiled() else 'pure Python'}; teams preset, {JOBS:,} jobs; CPU best of {rounds}"
    )
    print(
        f"{'policy':<9} {'way':<11} {'cpu s':>7} {'ratio':>6} {'preempt':>8} {'searches':>9} {'search s':>9} "
        f"{'ms/search':>10} {'passes':>7} {'us/pass*':>9}"
    )
    env = {**os.environ, "SIMCORE_PURE": "1"}
    for policy in argv or ["fifo", "k8s", "fitgpp"]:
        out = subprocess.run(
            [sys.executable, __file__, "--passes", policy], capture_output=True, text=True, check=True, env=env
        )
        n_passes = json.loads(out.stdout.strip().splitlines()[-1])
        rows = timed(policy, rounds)
        for way in WAYS:
            r = rows[way]
            per_search = 1000 * r["search_cpu_s"] / r["searches"] if r["searches"] else 0.0
            per_pass = 1e6 * (r["cpu_s"] - r["search_cpu_s"]) / n_passes[way]
            print(
                f"{policy:<9} {way:<11} {r['cpu_s']:>7.3f} {r['cpu_s'] / rows['none']['cpu_s']:>5.2f}x "
                f"{r['preemptions']:>8} {r['searches']:>9} {r['search_cpu_s']:>9.3f} {per_search:>10.3f} "
                f"{n_passes[way]:>7} {per_pass:>9.1f}",
                flush=True,
            )
    print("* us/pass: (CPU - search CPU) / passes: everything but the victim searches, per pass")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
