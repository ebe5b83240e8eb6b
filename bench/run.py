"""Benchmark: jobs/second and peak memory for named scenarios (DESIGN.md issue 2 targets).

Each scenario runs in a fresh subprocess so its peak RSS is its own. Usage:
    python bench/run.py                 # every scenario but the 10M-job one (ON_REQUEST)
    python bench/run.py mmc paper-fitgpp
Generation time is reported apart from simulation time; jobs/s counts simulation only
(wall clock). CPU seconds are printed too: on a busy machine they are the steadier number.
``python bench/run.py --one NAME DIR`` also writes the run's jobs and events into DIR, as CSV then
as Parquet, and reports each one's CPU seconds and the peak memory after it (issue 36).
Beside each ``demo20k-waits-*`` scenario, every job's waits (:func:`simcore.analysis.whatif.all_waits`) are
timed against the plain run, minimum of three alternating rounds each (issue 31: within 3x).
Beside ``mmc-fifo`` a plain ``heapq`` event loop does the same arrivals and departures (the same
generated workload, FIFO on the same identical servers), measured in the same process: the floor a
Python event loop sets, and the engine's ratio to it.
The ``paper-gang10k`` scenarios need an engine that runs gangs (DESIGN rule 10): with one that
does not, they are skipped with a message saying so. A ``teams10k`` scenario runs the ``teams``
preset with its queues (DESIGN rule 11); the same name ending in ``-noqueues`` runs the very same
jobs on the same cluster without queues; when both run, the ratio of their CPU seconds is printed
(issue 34's aim: within 1.5x).
"""

from __future__ import annotations

import heapq
import json
import resource
import subprocess
import sys
import time

NO_QUEUES = "-noqueues"  # a teams scenario's jobs and cluster, without its queues
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
    # issue 36: the cost per job on 10x the nodes and 10x the jobs, and gangs at that size
    "1M-10000nodes-fitgpp": ("paper", {"jobs": 1_000_000, "nodes": 10_000}, "fitgpp"),
    "10M-10000nodes-fitgpp": ("paper", {"jobs": 10_000_000, "nodes": 10_000}, "fitgpp"),
    "1M-10000nodes-paper-gang": ("paper-gang", {"jobs": 1_000_000, "nodes": 10_000}, "fitgpp"),
    **{f"demo20k-waits-{p}": ("demo", {"jobs": 20_000}, p) for p in ("fifo", "k8s", "fitgpp")},
    **{
        f"teams10k-{p}{suffix}": ("teams", {"jobs": 10_000}, p)
        for p in ("fifo", "priority", "k8s", "lrtp", "random", "fitgpp", "fitdelay")
        for suffix in ("", NO_QUEUES)
    },
}
#: run only when named (about 200 CPU s and 5 GB): ``python bench/run.py 10M-10000nodes-fitgpp``
ON_REQUEST = {"10M-10000nodes-fitgpp"}
#: the scenarios that also time every job's waits (simcore.analysis.whatif.all_waits, issue 31: within 3x the plain run)
WAITS = {n for n in SCENARIOS if "-waits-" in n}


def engine_runs_gangs() -> bool:
    """Whether the engine places a gang's workers (one start row per worker, DESIGN section 6):
    a 2-worker job of 8 GPUs on two 8-GPU nodes must start on both."""
    import numpy as np

    from simcore.core.model import ClusterSpec, JobTable, SimConfig
    from simcore.core.result import EVENT_NAMES
    from simcore.engine import simulate

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


def heapq_floor(submit: list[float], duration: list[float], servers: int) -> tuple[float, int]:
    """A plain heapq M/M/c FIFO loop over the same jobs: (CPU seconds, events popped). Arrivals
    and departures are heap entries; a departure hands its server to the queue's head."""
    c0 = time.process_time()
    heap = [(t, 1, i) for i, t in enumerate(submit)]  # kind 0 departure sorts before 1 arrival
    heapq.heapify(heap)
    queue: list[int] = []
    head, free, events = 0, servers, 0
    pop, push = heapq.heappop, heapq.heappush
    while heap:
        t, kind, i = pop(heap)
        events += 1
        if kind:
            if free:
                free -= 1
                push(heap, (t + duration[i], 0, i))
            else:
                queue.append(i)
        elif head < len(queue):
            j = queue[head]
            head += 1
            push(heap, (t + duration[j], 0, j))
        else:
            free += 1
    return time.process_time() - c0, events


def waits_cost(wl, policy: str, rounds: int = 3) -> dict:
    """CPU seconds of the plain run and of every job's waits (one watched run, its decision records and
    the waits in words), the minimum of `rounds` alternating rounds, and their ratio."""
    from simcore.analysis.whatif import all_waits
    from simcore.core.model import SimConfig
    from simcore.engine import simulate

    config = SimConfig(policy=policy)
    plain, waits = [], []
    for _ in range(rounds):
        c = time.process_time()
        simulate(wl.table, wl.cluster, config)
        plain.append(time.process_time() - c)
        c = time.process_time()
        all_waits(wl.table, wl.cluster, config)
        waits.append(time.process_time() - c)
    return {"plain_cpu_s": round(min(plain), 3), "waits_cpu_s": round(min(waits), 3)}


def write_outputs(result, folder: str) -> dict:
    """Write the run's jobs and events as CSV, then as Parquet, into `folder`: each one's CPU
    seconds, and the process's peak memory after it (a peak that only grows: the peak of the run
    and of every file written so far)."""
    from pathlib import Path

    from simcore.io.runcsv import write_run_csvs
    from simcore.io.runparquet import write_run_parquet

    out = {}
    for kind, write in (("csv", write_run_csvs), ("parquet", write_run_parquet)):
        c = time.process_time()
        write(result, Path(folder) / f"jobs.{kind}", Path(folder) / f"events.{kind}")
        out[f"{kind}_write_cpu_s"] = round(time.process_time() - c, 2)
        out[f"peak_rss_mb_after_{kind}"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
        out[f"{kind}_mb"] = round(sum((Path(folder) / f"{n}.{kind}").stat().st_size for n in ("jobs", "events")) / 1e6)
    return out


def one(name: str, outputs: str | None = None) -> dict:
    import numpy as np

    from simcore.core.model import SimConfig
    from simcore.engine import compiled, simulate
    from simcore.workload.presets import generate

    preset, overrides, policy = SCENARIOS[name]
    t0 = time.perf_counter()
    wl = generate(preset, 0, overrides)
    gen = time.perf_counter() - t0
    cluster = wl.cluster.with_queues(None) if name.endswith(NO_QUEUES) else wl.cluster
    t1, c1 = time.perf_counter(), time.process_time()
    result = simulate(wl.table, cluster, SimConfig(policy=policy))
    sim, cpu = time.perf_counter() - t1, time.process_time() - c1
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    waits = result.first_start - wl.table.submit_time  # every job starts in these scenarios
    span = float(result.finish.max() - wl.table.submit_time.min())
    floor = {}
    if name in WAITS:
        floor = waits_cost(wl, policy)
    if preset == "mmc" and policy == "fifo":  # every mmc node holds one job: c identical servers
        floor_cpu, floor_events = heapq_floor(
            wl.table.submit_time.tolist(), wl.table.duration.tolist(), len(wl.cluster.nodes)
        )
        floor = {"floor_cpu_s": round(floor_cpu, 3), "floor_events": floor_events}
    return {
        "scenario": name,
        "jobs": len(wl.table),
        "nodes": len(wl.cluster.nodes),
        "generate_s": round(gen, 2),
        "simulate_s": round(sim, 2),
        "cpu_s": round(cpu, 3),
        "jobs_per_s": round(len(wl.table) / sim),
        "events": len(result.ev_time),
        "preemptions": int(result.preemptions.sum()),
        "wait_mean_s": round(float(np.nanmean(waits)), 1),
        # the mean number of jobs waiting (Little's law: the waits summed over the run's span)
        "pending_mean": round(float(np.nansum(waits)) / span, 1),
        "peak_rss_mb": round(peak_mb),
        "compiled": compiled(),
        **floor,
        **(write_outputs(result, outputs) if outputs else {}),
    }


def main(argv: list[str]) -> int:
    if len(argv) in (2, 3) and argv[0] == "--one":  # a third argument: a folder to write the run's files in
        print(json.dumps(one(*argv[1:])))
        return 0
    names = argv or [n for n in SCENARIOS if n not in ON_REQUEST]
    unknown = [n for n in names if n not in SCENARIOS]
    if unknown:
        print(f"unknown scenario(s): {', '.join(unknown)}; known: {', '.join(SCENARIOS)}", file=sys.stderr)
        return 2
    if any(SCENARIOS[n][0] == "paper-gang" for n in names) and not engine_runs_gangs():
        skipped = [n for n in names if SCENARIOS[n][0] == "paper-gang"]
        print(f"skipped {', '.join(skipped)}: this engine does not run gangs yet (DESIGN rule 10)", flush=True)
        names = [n for n in names if n not in skipped]
    from simcore.engine import compiled

    # the path every scenario's subprocess runs (the same environment): SIMCORE_PURE=1 selects the sources
    engine = "compiled (mypyc)" if compiled() else "pure Python"
    print(f"engine: {engine}; the other path: {'SIMCORE_PURE=1' if compiled() else 'make install'}")
    print(
        f"{'scenario':<22} {'jobs':>9} {'nodes':>6} {'sim s':>7} {'cpu s':>7} {'jobs/s':>9} {'events':>9} {'preempt':>8} {'peak MB':>8}"
    )
    cpu: dict[str, float] = {}
    for n in names:
        out = subprocess.run([sys.executable, __file__, "--one", n], capture_output=True, text=True, check=True)
        r = json.loads(out.stdout.strip().splitlines()[-1])
        cpu[n] = r["cpu_s"]
        print(
            f"{r['scenario']:<22} {r['jobs']:>9} {r['nodes']:>6} {r['simulate_s']:>7} {r['cpu_s']:>7} {r['jobs_per_s']:>9} "
            f"{r['events']:>9} {r['preemptions']:>8} {r['peak_rss_mb']:>8}",
            flush=True,
        )
        if "waits_cpu_s" in r:
            w, p = r["waits_cpu_s"], r["plain_cpu_s"]
            print(
                f"{'  all waits':<22} {r['jobs']:>9} {r['nodes']:>6} {'':>7} {w:>7}   plain run {p} s, ratio {w / p:.2f}x",
                flush=True,
            )
        if n.endswith(NO_QUEUES) and n[: -len(NO_QUEUES)] in cpu:
            print(f"{'  queues / none':<22} CPU {cpu[n[: -len(NO_QUEUES)]] / r['cpu_s']:.2f}x", flush=True)
        if "floor_cpu_s" in r:
            f = r["floor_cpu_s"]
            print(
                f"{'  heapq floor':<22} {r['jobs']:>9} {r['nodes']:>6} {'':>7} {f:>7} {round(r['jobs'] / f):>9} "
                f"{r['floor_events']:>9}   engine/floor CPU: {r['cpu_s'] / f:.1f}x",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
