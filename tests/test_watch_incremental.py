"""The watch of every job looks after each pass only at the pending jobs whose facts may have changed
(simcore.engine.watch, issue 31); these check that it collects exactly the stretches, so the waits,
of the watch that looked at every pending job after every pass (tests/helpers/watch_reference.py,
main's before the change), on many small random workloads under every policy and knob setting,
with gangs, and on hand-made cases for each trigger."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from helpers import POLICIES, clusters, configs, contended, job, prop_cluster, te, workloads
from helpers.watch_reference import ReferenceWatch
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.analysis.whatif.reasons import wait_key, waits_of
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.engine import simulate
from simcore.engine.watch import JobWatch
from simcore.workload import presets

MANY = settings(max_examples=max(1, settings().max_examples * 3))


def _stretches(watch) -> dict[int, list[tuple]]:
    return {j: [(s.first.time, s.key, s.last) for s in v] for j, v in watch.stretches.items()}


def assert_same_as_reference(table: JobTable, cluster: ClusterSpec, config: SimConfig) -> None:
    """Both watches on the same run: equal passes, stretches (first instant, key, last instant) and waits."""
    new, old = JobWatch(wait_key), ReferenceWatch(wait_key)
    result = simulate(table, cluster, config, record_decisions=True, watch=new)
    again = simulate(table, cluster, config, record_decisions=True, watch=old)
    assert new.passes == old.passes
    assert _stretches(new) == _stretches(old)
    assert waits_of(result, new) == waits_of(again, old)


@st.composite
def gangs(draw, cluster: ClusterSpec) -> JobTable:
    """A random workload whose jobs run as 1 to 3 workers."""
    table = draw(workloads(cluster))
    workers = draw(st.lists(st.integers(1, 3), min_size=len(table), max_size=len(table)))
    return replace(table, workers=np.array(workers, dtype=np.int64))


@st.composite
def scenarios(draw, kind: str) -> tuple[JobTable, ClusterSpec]:
    """A random workload and cluster: any (``plain``), a busy one where preemptions happen
    (``contended``), or any with jobs of 1 to 3 workers (``gangs``)."""
    if kind == "contended":
        return draw(contended())
    cluster = draw(clusters())
    return draw(gangs(cluster) if kind == "gangs" else workloads(cluster)), cluster


@pytest.mark.parametrize("kind", ["plain", "contended", "gangs"])
@MANY
@given(data=st.data())
def test_random_workloads_every_policy_and_knob(kind, data):
    table, cluster = data.draw(scenarios(kind))
    config = data.draw(configs(data.draw(st.sampled_from([*POLICIES, "fitdelay"]))))
    assert_same_as_reference(table, cluster, config)


@settings(max_examples=max(1, settings().max_examples // 4))
@given(
    st.sampled_from(["demo", "paper-gang"]),
    st.integers(0, 50),
    st.sampled_from([*POLICIES, "fitdelay"]),
    st.sampled_from([{}, {"backfill": "none"}, {"grace": 0}, {"min_runtime": 600, "P": 1}, {"preempt_budget": 2}]),
)
def test_generated_workloads(preset, seed, policy, knobs):
    gen = presets.generate(preset, seed, {"jobs": 60})
    assert_same_as_reference(gen.table, gen.cluster, SimConfig(policy=policy, **knobs))


def test_two_passes_at_one_instant():
    # Z lasts 0 s: it starts at 10 and finishes at 10, a second pass at that instant. B, waiting since 5,
    # gets a stretch of its own at each pass of 10 (a stretch never spans two passes at one instant).
    jobs = [job("A", 0, 100, 8), job("Z", 10, 0, 0), job("B", 5, 50, 8)]
    table, cluster, config = JobTable.from_jobs(jobs), prop_cluster(8), SimConfig()
    assert_same_as_reference(table, cluster, config)
    watch = JobWatch(wait_key)
    simulate(table, cluster, config, record_decisions=True, watch=watch)
    assert watch.passes == [0, 5, 10, 10, 100, 150]
    assert _stretches(watch)[2] == [(5, ("no_room", None), 10), (10, ("no_room", None), 10)]


@pytest.mark.pure_engine  # subclasses JobWatch to count the jobs each pass looks at
def test_triggers_on_a_hand_made_run():
    # fitgpp, one 8-GPU node, grace 30, restore 60: A (6, 1000 s) runs from 0; TE T (4, 50 s, at 100)
    # signals A and waits for its grace (nominated: looked at every pass); C (2, at 110) joins and fits
    # the room reserved for T (reserved_for_other: looked at again); D (8, at 120) joins quiet
    # (no_room). At 130 A releases and rejoins (looked at), T and C start. At 140 (C ends) and 180 (T
    # ends, A restarts) room is given back, but the most any node has, 4 then 2 GPUs, is below what A
    # or D asks: nobody is looked at. D, quiet from 120 on, is never looked at again, and its one
    # stretch runs to its start at 1140 (A's 900 s left and its 60 s restore).
    jobs = [job("A", 0, 1000, 6), te("T", 100, 50, 4), job("C", 110, 10, 2), job("D", 120, 10, 8)]
    table, cluster, config = JobTable.from_jobs(jobs), prop_cluster(8), SimConfig(policy="fitgpp")
    assert_same_as_reference(table, cluster, config)
    looked: list[list[int]] = []

    class Counting(JobWatch):
        def _looked_at(self, run, joined, again):
            ranks = super()._looked_at(run, joined, again)
            looked.append(sorted(run.waiting.job_of_rank[r] for r in ranks))
            return ranks

    watch = Counting(wait_key)
    result = simulate(table, cluster, config, record_decisions=True, watch=watch)
    assert watch.passes == [0, 100, 110, 120, 130, 140, 180, 1140, 1150]
    a, t, c, d = range(4)  # job indices
    assert looked == [[], [t], [t, c], [t, c, d], [a], [], [], [], []]
    waits = waits_of(result, watch)
    assert {j: [(w.start, w.end, w.reason, w.blocker) for w in v] for j, v in waits.items()} == {
        "A": [(130, 180, "no_room", None)],
        "T": [(100, 130, "waiting_for_grace", "A")],
        "C": [(110, 130, "reserved_for_other", "T")],
        "D": [(120, 1140, "no_room", None)],
    }


def test_backfill_none_the_first_waiting_job_is_looked_at_every_pass():
    # fitgpp, backfill none, one 8-GPU node, grace 30: TE X (2) runs 0-120 and B (4) from 0. TE T (5, at
    # 100) signals B and reserves the 2 GPUs free. H (3, at 105) fits neither the free room (0) nor T's
    # (2): no_room, quiet. At 120 X ends: 2 free, T's room 4, H fits it but not the free 2: reserved for
    # T, a change only H's place at the head of the queue says (no room test runs under backfill none).
    # At 130 B releases and rejoins ahead of H (submitted earlier): H waits behind it until 180.
    jobs = [te("X", 0, 120, 2), job("B", 0, 10000, 4), te("T", 100, 50, 5), job("H", 105, 10, 3)]
    table, cluster = JobTable.from_jobs(jobs), prop_cluster(8)
    config = SimConfig(policy="fitgpp", backfill="none")
    assert_same_as_reference(table, cluster, config)
    watch = JobWatch(wait_key)
    waits = waits_of(simulate(table, cluster, config, record_decisions=True, watch=watch), watch)
    assert [(w.start, w.end, w.reason, w.blocker) for w in waits["H"]] == [
        (105, 120, "no_room", None),
        (120, 130, "reserved_for_other", "T"),
        (130, 180, "head_of_line", "B"),
    ]
