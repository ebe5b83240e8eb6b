"""simcore.analysis.whatif: a job's story, counterfactuals with one change, "when would my job start".

Hand-made scenarios with the expected numbers derived by hand in the comments. Default knobs:
grace 30 s, restore 60 s, on_preempt."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from helpers import events_of, job, prop_cluster, te

from simcore.analysis.whatif import Change, blocking_reasons, counterfactual, job_story, when_would_it_start
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, Job, JobTable, SimConfig
from simcore.engine import simulate


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
    assert story[0].text == (
        "submitted at day 1 00:00:00: a BE job of 100 s as 2 workers, asking for 4 GPUs, 4 CPU, 4 GiB per worker"
    )
    assert "n0, n1 (2 workers)" in story[1].text


def test_an_unknown_job_is_a_clear_error():
    _, _, result = _preempted_scenario()
    with pytest.raises(UserError, match="no job 'Z' in the workload"):
        job_story(result, "Z")


# --------------------------------------------------------------------------- counterfactuals


def _delta(d):
    return (d.job_id, d.jct_before, d.jct_after, d.start_before, d.start_after)


def test_no_change_reproduces_the_run_byte_for_byte(tmp_path):
    from simcore.io.csvsafe import write_csv
    from simcore.workload import load_workload

    jobs = load_workload(Path(__file__).resolve().parents[1] / "sample_workloads" / "demo.csv").table
    cluster = ClusterSpec.uniform(4, 64, 512, 8)
    w = counterfactual(jobs, cluster, SimConfig(policy="fitgpp"), "9", Change("none"))
    for frame in ("events_frame", "jobs_frame"):
        write_csv(getattr(w.base, frame), tmp_path / "base.csv")
        write_csv(getattr(w.alt, frame), tmp_path / "alt.csv")
        assert (tmp_path / "base.csv").read_bytes() == (tmp_path / "alt.csv").read_bytes(), frame
    assert w.touched == () and w.job.jct_before == w.job.jct_after
    assert w.trio_before == w.trio_after


def test_not_preempted_exempts_the_job_from_every_victim_search():
    # the preempted scenario: A ends at 1140 (jct 1140), T runs 130-180 (jct 80). Exempt A: T has no
    # candidate, waits for A's finish at 1000 and runs 1000-1050 (jct 950); A's jct is 1000.
    # trio vs fifo (where T also runs 1000-1050, slowdown 19; A's slowdown 1): TE p95 before
    # (80/50 - 19) / 19 = -91.578...%, after 0; BE p50 before (1.14 - 1) / 1 = +14%, after 0.
    jobs, config, _ = _preempted_scenario()
    w = counterfactual(jobs, prop_cluster(8), config, "A", Change("not_preempted"))
    assert _delta(w.job) == ("A", 1140, 1000, 0, 0)
    assert [_delta(d) for d in w.touched] == [("T", 80, 950, 130, 1000)]
    assert w.trio_before["TE_p95_slowdown_pct"] == pytest.approx((1.6 - 19) / 19 * 100)
    assert w.trio_before["BE_p50_slowdown_pct"] == pytest.approx(14.0)
    assert w.trio_after == {"TE_p95_slowdown_pct": 0.0, "BE_p50_slowdown_pct": 0.0, "BE_p95_slowdown_pct": 0.0}
    assert [t for t, j, e, n in events_of(w.alt) if e == "preempt"] == []


def test_submit_at_moves_the_job_and_who_it_overtakes():
    # fifo, one 8-GPU node. A (8, at 0) runs 0-100; B (8, at 10) runs 100-200 (jct 190). A submitted
    # at 50 instead: B (at 10) runs 10-110 (jct 100), A waits and runs 110-210 (jct 160).
    jobs = JobTable.from_jobs([job("A", 0, 100, 8), job("B", 10, 100, 8)])
    w = counterfactual(jobs, prop_cluster(8), SimConfig(), "A", Change("submit_at", 50))
    assert _delta(w.job) == ("A", 100, 160, 0, 110)
    assert [_delta(d) for d in w.touched] == [("B", 190, 100, 100, 10)]


def test_fewer_gpus_let_the_job_start_beside_the_other():
    # fifo, one 8-GPU node. A (4) runs 0-100; B (8, at 10) waits until 100 (jct 190). With 4 GPUs
    # B starts at once, beside A (jct 100); A does not move.
    jobs = JobTable.from_jobs([job("A", 0, 100, 4), job("B", 10, 100, 8, cpu=4, mem=4)])
    w = counterfactual(jobs, prop_cluster(8), SimConfig(), "B", Change("gpus", 4))
    assert _delta(w.job) == ("B", 190, 100, 100, 10)
    assert w.touched == ()


def test_another_policy():
    # the preempted scenario under fifo: nobody is preempted, T waits for A (as with A exempt)
    jobs, config, _ = _preempted_scenario()
    w = counterfactual(jobs, prop_cluster(8), config, "T", Change("policy", "fifo"))
    assert _delta(w.job) == ("T", 80, 950, 130, 1000)
    assert [_delta(d) for d in w.touched] == [("A", 1140, 1000, 0, 0)]
    assert w.alt.config.policy == "fifo" and w.alt.config.grace == config.grace


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (Change("gpus", 8), "asks for 8 GPUs per worker; ask for fewer, at least 1"),
        (Change("gpus", 0.5), "at least 1"),
        (Change("gpus", "many"), "'many' is not a number"),
        (Change("submit_at", -1), "must be >= 0"),
        (Change("submit_at", math.inf), "not a finite number"),
        (Change("policy", "nope"), "unknown policy 'nope'"),
        (Change("twice"), "unknown change 'twice'"),
    ],
)
def test_a_bad_change_is_a_clear_error(change, message):
    jobs, config, _ = _preempted_scenario()
    with pytest.raises(UserError, match=message):
        counterfactual(jobs, prop_cluster(8), config, "A", change)


# --------------------------------------------------------------------------- when would it start


def test_an_added_te_job_preempts_and_starts_after_the_grace_period():
    # fitgpp. A (8) runs from 0. A TE job of 1 GPU added at 100 preempts A and starts at 130 on n0.
    jobs = JobTable.from_jobs([job("A", 0, 1000, 8)])
    add = {"duration": 50, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "te"}
    f = when_would_it_start(jobs, prop_cluster(8), SimConfig(policy="fitgpp"), add, 100)
    assert (f.job_id, f.submit, f.start, f.nodes, f.victims) == ("new", 100, 130, ("n0",), ("A",))
    assert [(w.start, w.end, w.reason, w.blocker) for w in f.waits] == [(100, 130, "waiting_for_grace", "A")]
    assert f.caveat.startswith("a forecast under the workload as given")


def test_an_added_gang_waits_for_room_and_takes_an_integer_id():
    # fifo, two 8-GPU nodes; job 1 (8) runs 0-500 on n0. A BE gang of 2 x 8 GPUs added at 10 waits
    # for job 1's finish and starts at 500 on both nodes; the ids are integers, so its id is 2.
    jobs = JobTable.from_jobs([job(1, 0, 500, 8)])
    add = {"duration": 50, "cpu": 8, "mem_gb": 8, "gpu": 8, "job_class": "BE", "workers": 2}
    f = when_would_it_start(jobs, prop_cluster(8, 8), SimConfig(), add, 10)
    assert (f.job_id, f.start, f.nodes, f.victims) == ("2", 500, ("n0", "n1"), ())
    assert [(w.start, w.end, w.reason) for w in f.waits] == [(10, 500, "no_room")]


def test_the_run_before_the_added_job_is_the_run_without_it():
    from simcore.workload import load_workload

    jobs = load_workload(Path(__file__).resolve().parents[1] / "sample_workloads" / "demo.csv").table
    cluster, config = ClusterSpec.uniform(4, 64, 512, 8), SimConfig(policy="fitgpp")
    at = 500000.0
    add = {"duration": 600, "cpu": 8, "mem_gb": 32, "gpu": 2, "job_class": "TE"}
    f = when_would_it_start(jobs, cluster, config, add, at)
    before = [e for e in events_of(simulate(jobs, cluster, config)) if e[0] < at]
    assert [e for e in events_of(f.result) if e[0] < at] == before
    assert f.start is not None and f.start >= at


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"duration": -1}, "duration: must be > 0"),
        ({"job_class": "XX"}, "job_class: must be TE or BE"),
        ({"colour": "red"}, "unknown field"),
        ({"job_id": "A"}, "job_id 'A' is already in the workload"),
        ({"gpu": 20}, "fits on no node"),
    ],
)
def test_a_bad_added_job_is_a_clear_error(fields, message):
    jobs = JobTable.from_jobs([job("A", 0, 1000, 8)])
    add = {"duration": 50, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "TE", **fields}
    with pytest.raises(UserError, match=message):
        when_would_it_start(jobs, prop_cluster(8), SimConfig(), add, 100)


def test_a_text_id_in_a_workload_of_integer_ids_is_refused():
    jobs = JobTable.from_jobs([job(1, 0, 1000, 8)])
    add = {"job_id": "x", "duration": 50, "cpu": 1, "mem_gb": 1, "gpu": 1, "job_class": "TE"}
    with pytest.raises(UserError, match="must be an integer like the workload's ids"):
        when_would_it_start(jobs, prop_cluster(8), SimConfig(), add, 100)
