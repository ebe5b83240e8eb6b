"""``fitdelay`` (our own policy, beyond the paper) on hand-made scenarios with exact event logs."""

from __future__ import annotations

import pytest
from helpers import assert_events, assert_jobs, job, prop_cluster, run, te

from simcore.policies import POLICIES, POLICY_KNOBS

_PREFIX = [
    (0, "A", "submit", ""), (0, "F0", "submit", ""), (0, "F1", "submit", ""),
    (0, "A", "start", "n0"), (0, "F0", "start", "n0"), (0, "F1", "start", "n1"),
    (1900, "C", "submit", ""), (1900, "C", "start", "n1"),
    (2000, "T", "submit", ""),
]  # fmt: skip


def _jobs():
    # n0: A (2 GPUs, from 0) + F0 (6, from 0); n1: F1 (4, from 0) + C (4, from 1900). T (2 GPUs) at 2000.
    return [job("A", 0, 5000, 2), job("F0", 0, 10000, 6), job("F1", 0, 10000, 4), job("C", 1900, 3000, 4),
            te("T", 2000, 100, 2)]  # fmt: skip


def test_fitdelay_spares_the_old_tight_fit_that_would_lose_its_work():
    """Under checkpoint = none every 1-victim set is feasible, and the slack (L1 over cpu, mem, gpu of the room
    left / 8) is A 0, C 0.75, F1 0.75, F0 1.5. fitgpp takes the tightest fit, A, and throws away its 2000 s.
    fitdelay prices each set as lost + grace + restore + reentry (1800 s) x slack: A 2000 + 90 = 2090 s,
    C 100 + 90 + 1350 = 1540 s, F1 2000 + 90 + 1350 = 3440 s, F0 2000 + 90 + 2700 = 4790 s, so it takes C,
    which has run only 100 s: it gives up more room but loses 1900 s less work."""
    r = run(_jobs(), prop_cluster(8, 8), policy="fitdelay", checkpoint="none")
    assert_events(r, _PREFIX + [
        (2000, "C", "preempt", "n1"),
        (2030, "C", "release", "n1"), (2030, "T", "start", "n1"),
        (2130, "T", "finish", "n1"), (2130, "C", "start", "n1"),
        (5000, "A", "finish", "n0"),
        (5190, "C", "finish", "n1"),
        (10000, "F0", "finish", "n0"), (10000, "F1", "finish", "n1"),
    ])  # fmt: skip
    assert_jobs(r, {"A": (0, 5000, 0, 0, "n0"), "F0": (0, 10000, 0, 0, "n0"), "F1": (0, 10000, 0, 0, "n1"),
                    "C": (1900, 5190, 1, 100, "n1"), "T": (2030, 2130, 0, 0, "n1")})  # fmt: skip

    g = run(_jobs(), prop_cluster(8, 8), policy="fitgpp", checkpoint="none")
    assert_events(g, _PREFIX + [
        (2000, "A", "preempt", "n0"),
        (2030, "A", "release", "n0"), (2030, "T", "start", "n0"),
        (2130, "T", "finish", "n0"), (2130, "A", "start", "n0"),
        (4900, "C", "finish", "n1"),
        (7190, "A", "finish", "n0"),
        (10000, "F0", "finish", "n0"), (10000, "F1", "finish", "n1"),
    ])  # fmt: skip
    assert float(g.jobs_frame.set_index("job_id").loc["A", "lost_work"]) == 2000


@pytest.mark.parametrize(("reentry", "victim"), [(0, "C"), (1200, "C"), (2600, "A"), (1e6, "A")])
def test_reentry_prices_the_room_given_up(reentry, victim):
    # C costs 190 + 0.75 x reentry, A 2090: C while reentry < 2533 s, A from there on.
    r = run(_jobs(), prop_cluster(8, 8), policy="fitdelay", checkpoint="none", reentry=reentry)
    pre = r.events_frame[r.events_frame["event"] == "preempt"]
    assert list(pre["job_id"]) == [victim]


@pytest.mark.parametrize("mode", ["on_preempt", "periodic"])
def test_when_little_is_lost_fitdelay_takes_fitgpp_s_tight_fit(mode):
    # on_preempt: nothing lost, A's slack 0 wins. periodic (1800 s): A loses 200 s, C 100 s, and
    # 200 + 90 < 100 + 90 + 1350: A again, like fitgpp.
    for policy in ("fitgpp", "fitdelay"):
        r = run(_jobs(), prop_cluster(8, 8), policy=policy, checkpoint=mode)
        pre = r.events_frame[r.events_frame["event"] == "preempt"]
        assert list(pre["job_id"]) == ["A"], policy


def test_fitdelay_has_no_p_cap():
    # B is the only candidate for three TE jobs in a row; fitgpp (P = 2) lets the third one wait for B.
    jobs = [job("B", 0, 1000, 4), te("T1", 100, 50, 2), te("T2", 300, 50, 2), te("T3", 500, 50, 2)]
    r = run(jobs, prop_cluster(4), policy="fitdelay")
    g = run(jobs, prop_cluster(4), policy="fitgpp")
    assert int(r.jobs_frame.set_index("job_id").loc["B", "preemptions"]) == 3
    assert int(g.jobs_frame.set_index("job_id").loc["B", "preemptions"]) == 2


def test_registered_with_its_knobs():
    assert POLICIES["fitdelay"].preemptive and not POLICIES["fitdelay"].fifo_order
    assert POLICY_KNOBS["fitdelay"] == ("s", "reentry", "min_runtime")
    assert POLICY_KNOBS["fitgpp"] == ("P", "s", "min_runtime")
    assert POLICY_KNOBS["fifo"] == ()


def test_policies_command_lists_every_policy_with_its_knobs(capsys):
    from simcore.cli import main

    assert main(["policies"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == list(POLICIES)
    by_name = dict(zip(POLICIES, lines, strict=True))
    assert by_name["fitdelay"].endswith("[knobs: s=inf, reentry=1800, min_runtime=0]")
    assert by_name["fitgpp"].endswith("[knobs: P=2, s=inf, min_runtime=0]")
    assert by_name["fifo"].endswith("[knobs: none]")
    assert "beyond the paper" in by_name["fitdelay"]
