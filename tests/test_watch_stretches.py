"""simcore.engine.watch keeps one stretch per wait (its first pass's facts and its last pass's
instant), so a run watching every job holds memory in proportion to the waits, not to waiting
jobs x passes (issue 16)."""

import gc
import tracemalloc

from helpers import job, prop_cluster

from simcore.analysis.whatif import all_waits
from simcore.analysis.whatif.reasons import wait_key
from simcore.core.model import JobTable, SimConfig
from simcore.engine import simulate
from simcore.engine.watch import JobWatch
from simcore.workload import presets


def _watched(table, cluster, config):
    watch = JobWatch(wait_key)
    result = simulate(table, cluster, config, record_decisions=True, watch=watch)
    return [str(x) for x in result.jobs.job_id], watch


def test_one_stretch_per_wait_on_a_hand_made_queue():
    # fifo, backfill none, one 8-GPU node, every job 8 GPUs: A runs 0-100, then B (10, 50 s), D (20,
    # 10 s), X1..X3 (30, 40, 50; 10 s each) one after another. Passes at 0, 10, 20, 30, 40, 50, then at
    # each finish: 100, 150, 160, 170, 180, 190. B waits no_room over the five passes 10-50 (one
    # stretch); each job behind waits head_of_line on the first pending job until it heads the queue.
    jobs = [job("A", 0, 100, 8), job("B", 10, 50, 8), job("D", 20, 10, 8)]
    jobs += [job(f"X{i}", 20 + 10 * i, 10, 8) for i in (1, 2, 3)]
    table, cluster, config = JobTable.from_jobs(jobs), prop_cluster(8), SimConfig(policy="fifo", backfill="none")
    ids, watch = _watched(table, cluster, config)
    assert watch.passes == [0, 10, 20, 30, 40, 50, 100, 150, 160, 170, 180, 190]

    def named(key):
        code, blocker = key
        return code, None if blocker is None else ids[blocker]

    stored = {ids[j]: [(s.first.time, *named(s.key), s.last) for s in v] for j, v in watch.stretches.items()}
    hol, none = "head_of_line", "no_room"
    assert stored == {
        "B": [(10, none, None, 50)],
        "D": [(20, hol, "B", 50), (100, none, None, 100)],
        "X1": [(30, hol, "B", 50), (100, hol, "D", 100), (150, none, None, 150)],
        "X2": [(40, hol, "B", 50), (100, hol, "D", 100), (150, hol, "X1", 150), (160, none, None, 160)],
        "X3": [
            (50, hol, "B", 50),
            (100, hol, "D", 100),
            (150, hol, "X1", 150),
            (160, hol, "X2", 160),
            (170, none, None, 170),
        ],
    }
    # each stretch is one wait, ending at the pass after its last
    waits = all_waits(table, cluster, config)
    assert [(w.start, w.end, w.reason, w.blocker) for w in waits["X2"]] == [
        (40, 100, hol, "B"),
        (100, 150, hol, "D"),
        (150, 160, hol, "X1"),
        (160, 170, none, None),
    ]
    assert waits["A"] == ()


def _retained(n: int) -> tuple[int, int, int, int]:
    """What the watch holds after a fitgpp run of `n` demo jobs (seed 3): (bytes, by tracemalloc;
    its stretches; the passes; the job-passes its stretches span)."""
    gen = presets.generate("demo", 3, {"jobs": n})
    tracemalloc.start()
    try:
        _, watch = _watched(gen.table, gen.cluster, SimConfig(policy="fitgpp"))
        gc.collect()
        held = tracemalloc.get_traced_memory()[0]
        at = {t: i for i, t in enumerate(watch.passes)}  # a pass instant -> its (last) pass number
        stretches = [s for v in watch.stretches.values() for s in v]
        job_passes = sum(at[s.last] - at[s.first.time] + 1 for s in stretches)
        counts = (len(stretches), len(watch.passes), job_passes)
        del watch, stretches
        gc.collect()
        return held - tracemalloc.get_traced_memory()[0], *counts
    finally:
        tracemalloc.stop()


def test_memory_grows_with_the_waits_not_with_the_passes():
    # demo preset, fitgpp, 300 and 600 jobs: 25 and 53 passes per wait. Before, the watch held one
    # record per job and pass, about 200 bytes each: 10.4 MB at 1,000 jobs, 41 MB at 2,000 (seed 2000).
    small, s_small, p_small, job_passes = _retained(300)
    large, s_large, p_large, _ = _retained(600)
    gen = presets.generate("demo", 3, {"jobs": 300})
    assert s_small == sum(len(w) for w in all_waits(gen.table, gen.cluster, SimConfig(policy="fitgpp")).values())
    assert job_passes > 20 * s_small  # long waits: one record per pass would be 20 times as many
    # what the watch holds grows as its stretches and passes do, about 210-240 bytes each
    assert large / small <= 1.5 * (s_large + p_large) / (s_small + p_small)
    assert small <= 500 * (s_small + p_small) and large <= 500 * (s_large + p_large)
