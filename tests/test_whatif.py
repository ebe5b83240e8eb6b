"""simcore.whatif: a job's story, counterfactuals with one change, "when would my job start".

Hand-made scenarios with the expected numbers derived by hand in the comments. Default knobs:
grace 30 s, restore 60 s, on_preempt."""

from __future__ import annotations

import pytest
from helpers import events_of, job, prop_cluster, te

from simcore.engine import simulate
from simcore.errors import UserError
from simcore.model import Job, JobTable, SimConfig
from simcore.whatif import blocking_reasons, job_story


def _run(jobs: list[Job], cluster, **knobs):
    table, config = JobTable.from_jobs(jobs), SimConfig(**knobs)
    return table, config, simulate(table, cluster, config, record_decisions=True)


def _preempted_scenario():
    # one 8-GPU node. BE A (8 GPUs, 1000 s) starts at 0. TE T (1 GPU, 50 s) at 100 fits nowhere:
    # fitgpp signals A at 100 (its only candidate); A releases at 130, T starts at 130 and ends at
    # 180; A restarts at 180, restores until 240, has 900 s left (100 s done, saved): ends at 1140.
    jobs = [job("A", 0, 1000, 8), te("T", 100, 50, 1)]
    return _run(jobs, prop_cluster(8), policy="fitgpp")


def test_the_story_of_a_preempted_job_follows_its_events():
    jobs, config, result = _preempted_scenario()
    waits = blocking_reasons(jobs, prop_cluster(8), config, "A")
    story = job_story(result, "A", waits)
    assert [(s.time, s.kind, s.nodes, s.other) for s in story] == [
        (0, "submitted", (), None),
        (0, "started", ("n0",), None),
        (100, "signalled", ("n0",), "T"),
        (130, "preempted", ("n0",), None),
        (130, "waited", (), None),  # no room: T took the node at 130 until 180
        (180, "resumed", ("n0",), None),
        (1140, "finished", ("n0",), None),
    ]
    texts = [s.text for s in story]
    assert "TE job T" in texts[2] and "30 s grace period" in texts[2]
    assert "fitgpp chose it" in texts[2] and "the only victim set" in texts[2]  # one candidate: no deciding
    assert texts[4].startswith("waited 50 s: no node has room")
    assert "completion time 19.0 min" in texts[6]  # 1140 s
    # exact: each step that is an event is one of the job's rows of the events CSV
    rows = {(t, e, n) for t, j, e, n in events_of(result) if j == "A"}
    kinds = {
        "started": "start",
        "resumed": "start",
        "signalled": "preempt",
        "preempted": "release",
        "finished": "finish",
    }
    assert {(s.time, kinds[s.kind], s.nodes[0]) for s in story if s.kind in kinds} == rows - {(0, "submit", "")}


def test_the_story_of_the_te_job_says_it_waited_for_the_grace_period():
    jobs, config, result = _preempted_scenario()
    story = job_story(result, "T", blocking_reasons(jobs, prop_cluster(8), config, "T"))
    assert [(s.time, s.kind, s.other) for s in story] == [
        (100, "submitted", None),
        (100, "waited", "A"),
        (130, "started", None),
        (180, "finished", None),
    ]
    assert story[1].text == "waited 30 s: its victims (A) are checkpointing in their grace period"


def test_a_gang_has_one_step_per_instant_naming_every_node():
    # two 4-GPU nodes; BE gang G of 2 workers x 4 GPUs (100 s) takes both at 0 and ends at 100
    g = Job("G", 0.0, 100.0, job("x", 0, 1, 4).request, job("x", 0, 1, 4).job_class, workers=2)
    _, _, result = _run([g], prop_cluster(4, 4))
    story = job_story(result, "G")
    assert [(s.time, s.kind, s.nodes) for s in story] == [
        (0, "submitted", ()),
        (0, "started", ("n0", "n1")),
        (100, "finished", ("n0", "n1")),
    ]
    assert "as 2 workers" in story[0].text and "n0, n1 (2 workers)" in story[1].text


def test_an_unknown_job_is_a_clear_error():
    _, _, result = _preempted_scenario()
    with pytest.raises(UserError, match="no job 'Z' in the workload"):
        job_story(result, "Z")
