"""``fitdelay`` (our own policy, beyond the paper) on hand-made scenarios with exact event logs."""

from __future__ import annotations

import dataclasses

import pytest
from helpers import (
    assert_events,
    assert_jobs,
    cluster_of,
    clusters,
    configs,
    contended,
    job,
    prop_cluster,
    run,
    te,
    workloads,
)
from hypothesis import given
from hypothesis import strategies as st

from simcore.engine import simulate
from simcore.policies import POLICIES, POLICY_KNOBS

_PREFIX = [
    (0, "A", "submit", ""),
    (0, "F0", "submit", ""),
    (0, "F1", "submit", ""),
    (0, "A", "start", "n0"),
    (0, "F0", "start", "n0"),
    (0, "F1", "start", "n1"),
    (1900, "C", "submit", ""),
    (1900, "C", "start", "n1"),
    (2000, "T", "submit", ""),
]


def _jobs():
    # n0: A (2 GPUs, from 0) + F0 (6, from 0); n1: F1 (4, from 0) + C (4, from 1900). T (2 GPUs) at 2000.
    return [
        job("A", 0, 5000, 2),
        job("F0", 0, 10000, 6),
        job("F1", 0, 10000, 4),
        job("C", 1900, 3000, 4),
        te("T", 2000, 100, 2),
    ]


def test_fitdelay_spares_the_old_tight_fit_that_would_lose_its_work():
    """Under checkpoint = none every 1-victim set is feasible, and the slack (L1 over cpu, mem, gpu of the room
    left / 8) is A 0, C 0.75, F1 0.75, F0 1.5. fitgpp takes the tightest fit, A, and throws away its 2000 s.
    fitdelay ranks by lost + grace + restore (without checkpoints the room is not priced): A 2000 + 90 = 2090 s,
    C 100 + 90 = 190 s, F1 and F0 2090 s, so it takes C, which has run only 100 s: it gives up more room but
    loses 1900 s less work."""
    r = run(_jobs(), prop_cluster(8, 8), policy="fitdelay", checkpoint="none")
    assert_events(
        r,
        _PREFIX
        + [
            (2000, "C", "preempt", "n1"),
            (2030, "C", "release", "n1"),
            (2030, "T", "start", "n1"),
            (2130, "T", "finish", "n1"),
            (2130, "C", "start", "n1"),
            (5000, "A", "finish", "n0"),
            (5190, "C", "finish", "n1"),
            (10000, "F0", "finish", "n0"),
            (10000, "F1", "finish", "n1"),
        ],
    )
    assert_jobs(
        r,
        {
            "A": (0, 5000, 0, 0, "n0"),
            "F0": (0, 10000, 0, 0, "n0"),
            "F1": (0, 10000, 0, 0, "n1"),
            "C": (1900, 5190, 1, 100, "n1"),
            "T": (2030, 2130, 0, 0, "n1"),
        },
    )

    g = run(_jobs(), prop_cluster(8, 8), policy="fitgpp", checkpoint="none")
    assert_events(
        g,
        _PREFIX
        + [
            (2000, "A", "preempt", "n0"),
            (2030, "A", "release", "n0"),
            (2030, "T", "start", "n0"),
            (2130, "T", "finish", "n0"),
            (2130, "A", "start", "n0"),
            (4900, "C", "finish", "n1"),
            (7190, "A", "finish", "n0"),
            (10000, "F0", "finish", "n0"),
            (10000, "F1", "finish", "n1"),
        ],
    )
    assert float(g.jobs_frame.set_index("job_id").loc["A", "lost_work"]) == 2000


@pytest.mark.parametrize(("reentry", "victim"), [(0, "C"), (130, "C"), (140, "A"), (1800, "A"), (1e6, "A")])
def test_reentry_prices_the_room_given_up_with_periodic_checkpoints(reentry, victim):
    # periodic, every 1800 s: A (2000 s run) keeps 1800 and would lose 200, C (100 s) 100, F0 and F1 200.
    # A costs 200 + 90 = 290 s, C 100 + 90 + 0.75 x reentry: C while reentry < 133.3 s, A from there on.
    r = run(_jobs(), prop_cluster(8, 8), policy="fitdelay", checkpoint="periodic", reentry=reentry)
    pre = r.events_frame[r.events_frame["event"] == "preempt"]
    assert list(pre["job_id"]) == [victim]


@pytest.mark.parametrize("reentry", [0, 1800, 1e6])
def test_without_checkpoints_the_room_is_not_priced(reentry):
    r = run(_jobs(), prop_cluster(8, 8), policy="fitdelay", checkpoint="none", reentry=reentry)
    pre = r.events_frame[r.events_frame["event"] == "preempt"]
    assert list(pre["job_id"]) == ["C"]


@pytest.mark.parametrize("mode", ["on_preempt", "periodic"])
def test_when_little_is_lost_fitdelay_takes_fitgpp_s_tight_fit(mode):
    # on_preempt: nothing lost, A's slack 0 wins. periodic (1800 s): A loses 200 s, C 100 s, and
    # 200 + 90 < 100 + 90 + 1350: A again, like fitgpp.
    for policy in ("fitgpp", "fitdelay"):
        r = run(_jobs(), prop_cluster(8, 8), policy=policy, checkpoint=mode)
        pre = r.events_frame[r.events_frame["event"] == "preempt"]
        assert list(pre["job_id"]) == ["A"], policy


@pytest.mark.parametrize(("mode", "cap"), [("on_preempt", 2), ("periodic", None), ("none", None)])
def test_the_p_cap_holds_only_where_a_preemption_loses_nothing(mode, cap):
    # B is the only candidate for three TE jobs in a row; fitgpp (P = 2) lets the third one wait for B.
    # With periodic or no checkpoints fitdelay has no cap and preempts B a third time.
    jobs = [job("B", 0, 1000, 4), te("T1", 100, 50, 2), te("T2", 300, 50, 2), te("T3", 500, 50, 2)]
    r = run(jobs, prop_cluster(4), policy="fitdelay", checkpoint=mode)
    g = run(jobs, prop_cluster(4), policy="fitgpp", checkpoint=mode)
    assert int(g.jobs_frame.set_index("job_id").loc["B", "preemptions"]) == 2
    assert int(r.jobs_frame.set_index("job_id").loc["B", "preemptions"]) == (2 if cap else 3)


_WAIT = [job("A", 0, 1010, 4), job("B", 100, 5000, 4), te("T", 1000, 100, 4)]


def test_fitdelay_waits_when_a_job_frees_the_room_within_grace():
    """n0 (8 GPUs) runs A (4, from 0, ends at 1010) and B (4, from 100); T (4 GPUs) comes at 1000. fitgpp
    preempts: same slack for both, then the least lost work, B's 900 s (A's would be 1000); T starts when A
    leaves at 1010, before B's release, so B's 900 s, grace and restore bought nothing. A finishes 10 s from
    now, within the 30 s grace: fitdelay preempts nobody, T starts at 1010 all the same and nothing is lost."""
    r = run(_WAIT, prop_cluster(8), policy="fitdelay", checkpoint="none")
    assert_events(
        r,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (100, "B", "submit", ""),
            (100, "B", "start", "n0"),
            (1000, "T", "submit", ""),
            (1010, "A", "finish", "n0"),
            (1010, "T", "start", "n0"),
            (1110, "T", "finish", "n0"),
            (5100, "B", "finish", "n0"),
        ],
    )
    g = run(_WAIT, prop_cluster(8), policy="fitgpp", checkpoint="none")
    assert_events(
        g,
        [
            (0, "A", "submit", ""),
            (0, "A", "start", "n0"),
            (100, "B", "submit", ""),
            (100, "B", "start", "n0"),
            (1000, "T", "submit", ""),
            (1000, "B", "preempt", "n0"),
            (1010, "A", "finish", "n0"),
            (1010, "T", "start", "n0"),
            (1030, "B", "release", "n0"),
            (1030, "B", "start", "n0"),
            (1110, "T", "finish", "n0"),
            (6090, "B", "finish", "n0"),
        ],
    )
    assert float(g.jobs_frame.set_index("job_id").loc["B", "lost_work"]) == 900


@pytest.mark.parametrize(
    ("mode", "grace", "waits"),
    [
        ("none", 30, True),
        ("periodic", 30, True),
        ("none", 9, False),
        ("on_preempt", 30, False),
    ],
)
def test_the_wait_is_recorded_with_its_reason(mode, grace, waits):
    # A ends 10 s after T arrives: within a 30 s grace, not within 9 s; with on_preempt fitdelay is fitgpp.
    from simcore.core.model import JobTable, SimConfig
    from simcore.policies.decision import FREES_WITHIN_GRACE

    cfg = SimConfig(policy="fitdelay", checkpoint=mode, grace=grace)
    r = simulate(JobTable.from_jobs(_WAIT), prop_cluster(8), cfg, record_decisions=True)
    first = r.decisions[0]
    assert (first["reason"], first["victims"]) == ((FREES_WITHIN_GRACE, []) if waits else (None, ["B"]))


_EXEMPT = [
    job("d", 0, 20000, 1, cpu=1, mem=8),
    job("c", 0, 20000, 3, cpu=3, mem=24),
    job("a", 2900, 20000, 2, cpu=2, mem=16),
    job("b", 2900, 120, 2, cpu=2, mem=16),
    te("T", 3000, 100, 1, cpu=1, mem=8),
]


def test_a_job_within_min_runtime_that_frees_the_room_within_grace_makes_fitdelay_wait():
    """Issue 16's reproducer. Two nodes (8 cpu, 64 GiB, 4 GPUs); checkpoint none, grace 30, min_runtime 200.
    Job order is by id as text: c, d. At 0 c takes n0 (best fit ties to the lower index), then d fits n0
    tightest (0.5 against 0.875): n0's GPUs are full. At 2900 a and b fill n1's GPUs. At 3000 T (1 GPU) fits
    nowhere; the candidates are c and d only (a and b have run 100 s < 200), and neither ends soon, but b, within
    min_runtime, ends at 3020 (within the grace period) and frees 2 GPUs on n1. fitdelay preempts nobody (reason:
    a BE job frees the room within grace); T starts at 3020 on n1 and d keeps its 3000 s of work. Looking at the
    candidates alone it signalled d (the exact fit: delay 3000 + 30 + 60, slack 0) and threw that work away.
    The wake-ups at 200 (c, d) and 3100 (a, b) find nothing pending: no pass."""
    from simcore.core.model import JobTable, SimConfig
    from simcore.policies.decision import FREES_WITHIN_GRACE

    cfg = SimConfig(policy="fitdelay", checkpoint="none", grace=30, min_runtime=200)
    r = simulate(JobTable.from_jobs(_EXEMPT), cluster_of((8, 64, 4), (8, 64, 4)), cfg, record_decisions=True)
    assert_events(
        r,
        [
            (0, "c", "submit", ""),
            (0, "d", "submit", ""),
            (0, "c", "start", "n0"),
            (0, "d", "start", "n0"),
            (2900, "a", "submit", ""),
            (2900, "b", "submit", ""),
            (2900, "a", "start", "n1"),
            (2900, "b", "start", "n1"),
            (3000, "T", "submit", ""),
            (3020, "b", "finish", "n1"),
            (3020, "T", "start", "n1"),
            (3120, "T", "finish", "n1"),
            (20000, "c", "finish", "n0"),
            (20000, "d", "finish", "n0"),
            (22900, "a", "finish", "n1"),
        ],
    )
    assert_jobs(
        r,
        {
            "d": (0, 20000, 0, 0, "n0"),
            "c": (0, 20000, 0, 0, "n0"),
            "a": (2900, 22900, 0, 0, "n1"),
            "b": (2900, 3020, 0, 0, "n1"),
            "T": (3020, 3120, 0, 0, "n1"),
        },
    )
    assert [(d["time"], d["te_job"], d["victims"], d["reason"]) for d in r.decisions] == [
        (3000, "T", [], FREES_WITHIN_GRACE)
    ]


def test_registered_with_its_knobs():
    assert POLICIES["fitdelay"].preemptive and not POLICIES["fitdelay"].fifo_order
    assert POLICY_KNOBS["fitdelay"] == ("P", "s", "reentry", "min_runtime", "preempt_budget")
    assert POLICY_KNOBS["fitgpp"] == ("P", "s", "min_runtime", "preempt_budget")
    assert POLICY_KNOBS["fifo"] == ()


def test_policies_command_lists_every_policy_with_its_knobs(capsys):
    from simcore.cli import main

    assert main(["policies"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(POLICIES)
    by_name = dict(zip(POLICIES, lines, strict=True))
    assert by_name["fitdelay"].endswith("[knobs: P=2, s=inf, reentry=1800, min_runtime=0, preempt_budget=inf]")
    assert by_name["fitgpp"].endswith("[knobs: P=2, s=inf, min_runtime=0, preempt_budget=inf]")
    assert by_name["fifo"].endswith("[knobs: none]")
    assert "beyond the paper" in by_name["fitdelay"]


@given(data=st.data())
def test_with_on_preempt_fitdelay_is_fitgpp(data):
    """Where a preemption loses nothing fitdelay is fitgpp, P cap included, whatever reentry: event for event."""
    if data.draw(st.booleans()):
        jobs, cluster = data.draw(contended())
    else:
        cluster = data.draw(clusters())
        jobs = data.draw(workloads(cluster))
    base = data.draw(configs("fitgpp"))
    cfg = dataclasses.replace(base, checkpoint="on_preempt", reentry=data.draw(st.sampled_from([0.0, 30.0, 1800.0])))
    g = simulate(jobs, cluster, cfg)
    d = simulate(jobs, cluster, dataclasses.replace(cfg, policy="fitdelay"))
    assert d.events_frame.equals(g.events_frame)
    assert d.jobs_frame.equals(g.jobs_frame)
