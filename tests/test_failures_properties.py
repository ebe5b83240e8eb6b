"""Invariants of runs with down time (DESIGN rule 12), on random workloads, windows and knobs.

Each case (:func:`helpers.downtime_cases.scenario`: every policy and the knobs that interact with
down time) is run and checked from the outputs alone (:func:`helpers.downtime_cases.check_down_time`:
nothing starts or runs on a down node, nothing starts on a draining node, every job on a node going
down has its fail rows at that instant, no node over capacity, progress adds up, TE jobs are never
preempted, the counts and the accounting agree), and a second run gives the same events.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers.downtime_cases import check_down_time, scenario

from simcore.analysis import gantt
from simcore.core.result import DRAIN, FAIL
from simcore.engine import simulate

CASES = 64


@pytest.mark.parametrize("seed", range(CASES))
def test_runs_with_down_time_keep_every_invariant(seed):
    jobs, cluster, config = scenario(seed)
    r = simulate(jobs, cluster, config)
    check_down_time(r, config)
    again = simulate(jobs, cluster, config)
    assert again.events_frame.equals(r.events_frame)  # deterministic


def test_the_random_cases_cover_every_kind_of_event():
    """The cases above see drains, failures (of TE jobs and gangs too) and checkpoint pauses."""
    seen: set[str] = set()
    for seed in range(CASES):
        jobs, cluster, config = scenario(seed)
        r = simulate(jobs, cluster, config)
        rows = r.events_frame
        seen |= set(rows.event)
        failed = set(rows[rows.event == "fail"].job_id)
        te = set(jobs.job_id[jobs.is_te])
        gangs = set(jobs.job_id[np.asarray(jobs.workers) > 1])
        if failed & te:
            seen.add("TE failed")
        if failed & gangs:
            seen.add("gang failed")
        if (
            config.checkpoint == "periodic"
            and config.checkpoint_cost > 0
            and (gantt.segments(r).kind == "checkpoint").any()
        ):
            seen.add("pause")
        if (rows.event == "drain").any() and (rows.event == "preempt").any():
            seen.add("drain and preempt")
    assert {"drain", "fail", "node_down", "node_up", "preempt", "TE failed", "gang failed", "pause"} <= seen
    assert DRAIN != FAIL
