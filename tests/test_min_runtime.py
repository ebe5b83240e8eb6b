"""``min_runtime`` (DESIGN.md section 4) and the checkpoint-aware candidate fields, on hand-made
scenarios with exact event logs. Default knobs: grace 30 s, restore 60 s, on_preempt."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers import assert_events, assert_jobs, job, prop_cluster, run, te

from simcore import policies
from simcore.analysis.compare import parse_policy_spec
from simcore.cli import main as cli_main
from simcore.core.model import ClusterSpec, Node, Resources, SimConfig
from simcore.policies.base import Preemption, PreemptionView

PREEMPTIVE = ["k8s", "lrtp", "random", "fitgpp", "fitdelay"]


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_te_waits_for_the_exemption_to_end_then_preempts(policy):
    # B starts at 0. T (t=100) finds B 100 s into its segment (< 300): no candidate, T waits.
    # t=300 is an instant of its own (no event row): B's segment reaches 300 s, T preempts it.
    # B restarts at 380 (restore until 440; 300 s kept). T2 at 500 finds B 120 s into its new
    # segment: the exemption counts from the start, restore included, so it ends at 680 (not 740).
    # B keeps 300 + 240 = 540 s, restarts at 760, restores until 820 and ends 820 + 460 = 1280.
    jobs = [job("B", 0, 1000, 4), te("T", 100, 50, 2), te("T2", 500, 50, 2)]
    r = run(jobs, prop_cluster(4), policy=policy, min_runtime=300)
    assert_events(
        r,
        [
            (0, "B", "submit", ""),
            (0, "B", "start", "n0"),
            (100, "T", "submit", ""),
            (300, "B", "preempt", "n0"),
            (330, "B", "release", "n0"),
            (330, "T", "start", "n0"),
            (380, "T", "finish", "n0"),
            (380, "B", "start", "n0"),
            (500, "T2", "submit", ""),
            (680, "B", "preempt", "n0"),
            (710, "B", "release", "n0"),
            (710, "T2", "start", "n0"),
            (760, "T2", "finish", "n0"),
            (760, "B", "start", "n0"),
            (1280, "B", "finish", "n0"),
        ],
    )
    assert_jobs(r, {"B": (0, 1280, 2, 0, "n0"), "T": (330, 380, 0, 0, "n0"), "T2": (710, 760, 0, 0, "n0")})


def _two_nodes():
    # B1 on n0 from 0, B2 on n1 from 200; T (2 GPUs) at 300 fits nowhere.
    return [job("B1", 0, 1000, 4), job("B2", 200, 1000, 4), te("T", 300, 50, 2)]


@pytest.mark.parametrize("policy", ["k8s", "lrtp", "fitgpp", "fitdelay"])
def test_without_exemption_the_young_job_on_the_other_node_is_the_victim(policy):
    # k8s: latest start; lrtp: most remaining (900 > 700); fitgpp/fitdelay: equal slack, nothing lost,
    # then the latest start. All take B2 on n1.
    r = run(_two_nodes(), prop_cluster(4, 4), policy=policy)
    pre = r.events_frame[r.events_frame["event"] == "preempt"]
    assert list(zip(pre["time"], pre["job_id"], pre["node"], strict=True)) == [(300, "B2", "n1")]


@pytest.mark.parametrize("policy", PREEMPTIVE)
def test_te_takes_the_other_node_when_the_young_job_is_exempt(policy):
    # min_runtime = 150: B2 has run 100 s (exempt), B1 300 s. Every policy's only candidate is B1:
    # T takes n0 at once (after the grace period), not n1 later. B1 restarts at 380, ends 440 + 700.
    r = run(_two_nodes(), prop_cluster(4, 4), policy=policy, min_runtime=150)
    assert_events(
        r,
        [
            (0, "B1", "submit", ""),
            (0, "B1", "start", "n0"),
            (200, "B2", "submit", ""),
            (200, "B2", "start", "n1"),
            (300, "T", "submit", ""),
            (300, "B1", "preempt", "n0"),
            (330, "B1", "release", "n0"),
            (330, "T", "start", "n0"),
            (380, "T", "finish", "n0"),
            (380, "B1", "start", "n0"),
            (1140, "B1", "finish", "n0"),
            (1200, "B2", "finish", "n1"),
        ],
    )


_GRACE0_CLUSTER = ClusterSpec(tuple(Node(name, Resources(g, g, g)) for name, g in [("n-0", 2), ("n-1", 2), ("s-0", 1)]))
_GRACE0_JOBS = [
    job(1, 0, 10000, 1),
    job(2, 0, 10000, 1),
    job(3, 0, 10000, 1),
    te(4, 100, 5000, 2),
    job(5, 600, 10000, 1),
]
_GRACE0_KNOBS = {"policy": "k8s", "placement": "first_fit", "grace": 0, "min_runtime": 1000}


def test_victims_released_with_grace_0_rejoin_at_the_next_min_runtime_instant():
    # Issue 16's reproducer. Nodes n-0, n-1 (2, 2, 2) and s-0 (1, 1, 1); k8s, first_fit, grace 0,
    # min_runtime 1000. t=0: 1, 2 on n-0, 3 on n-1 (first fit). t=100: TE 4 (2, 2, 2) fits nowhere,
    # no candidate yet (all within min_runtime): it waits. t=600: 5 takes n-1's last room.
    # t=1000 (1, 2, 3 reach min_runtime; 4 waits): on n-0, 4 fits only without both 1 and 2; n-1
    # holds 5 (exempt until 1600), s-0 is too small. 1 and 2 are signalled and released in the pass
    # (grace 0), 4 starts on n-0; 1 and 2 rejoin the queue after the pass, with s-0 free.
    # t=1600, 5's min_runtime instant: no TE job waits, but 1 and 2 have not been looked at since
    # s-0's room came back, so the pass runs: 1 takes s-0 (restore 60, 9000 s left: 10660); 2 fits
    # nowhere. t=6000: 4 ends, 2 restarts on n-0 (6000 + 60 + 9000 = 15060). Skipping t=1600
    # would hold 1 until 6000 as well.
    r = run(_GRACE0_JOBS, _GRACE0_CLUSTER, **_GRACE0_KNOBS)
    assert_events(
        r,
        [
            (0, "1", "submit", ""),
            (0, "2", "submit", ""),
            (0, "3", "submit", ""),
            (0, "1", "start", "n-0"),
            (0, "2", "start", "n-0"),
            (0, "3", "start", "n-1"),
            (100, "4", "submit", ""),
            (600, "5", "submit", ""),
            (600, "5", "start", "n-1"),
            (1000, "1", "preempt", "n-0"),
            (1000, "2", "preempt", "n-0"),
            (1000, "1", "release", "n-0"),
            (1000, "2", "release", "n-0"),
            (1000, "4", "start", "n-0"),
            (1600, "1", "start", "s-0"),
            (6000, "4", "finish", "n-0"),
            (6000, "2", "start", "n-0"),
            (10000, "3", "finish", "n-1"),
            (10600, "5", "finish", "n-1"),
            (10660, "1", "finish", "s-0"),
            (15060, "2", "finish", "n-0"),
        ],
    )
    assert_jobs(
        r,
        {
            "1": (0, 10660, 1, 0, "s-0"),
            "2": (0, 15060, 1, 0, "n-0"),
            "3": (0, 10000, 0, 0, "n-1"),
            "4": (1000, 6000, 0, 0, "n-0"),
            "5": (600, 10600, 0, 0, "n-1"),
        },
    )


@pytest.mark.pure_engine  # spies on _Run._pass
def test_a_min_runtime_instant_is_skipped_only_when_its_pass_changes_nothing(monkeypatch):
    # The scenario above. Wake-ups at 1000 (1, 2, 3: TE 4 waits) and 1600 (5: 1 and 2 rejoined
    # after the last pass, unseen) are instants. At 2600 (1's, restarted at 1600) only 2 is pending,
    # and it was looked at at 1600 with the room there still is: skipped. At 7000 (2's) nothing is
    # pending: skipped. Every other instant is a finish or an arrival.
    from simcore.engine import loop

    times: list[float] = []
    real = loop._Run._pass

    def spy(self, joining):
        times.append(self.now)
        return real(self, joining)

    monkeypatch.setattr(loop._Run, "_pass", spy)
    run(_GRACE0_JOBS, _GRACE0_CLUSTER, **_GRACE0_KNOBS)
    assert times == [0, 100, 600, 1000, 1600, 6000, 10000, 10600, 10660, 15060]


@pytest.mark.parametrize("policy", ["k8s", "fitgpp"])
def test_no_instant_is_added_while_no_te_job_waits(policy):
    # No TE job ever needs a victim: the event log is the same as without the exemption.
    jobs = [job("B", 0, 1000, 2), te("T", 100, 50, 2), job("B2", 150, 400, 4)]
    base = run(jobs, prop_cluster(4), policy=policy)
    exempt = run(jobs, prop_cluster(4), policy=policy, min_runtime=600)
    assert base.events_frame.equals(exempt.events_frame)
    assert not (base.events_frame["event"] == "preempt").any()


def test_exemption_longer_than_the_job_means_no_preemption():
    # B (run 1000 s) never reaches min_runtime = 5000: T waits until B ends.
    r = run([job("B", 0, 1000, 4), te("T", 100, 50, 2)], prop_cluster(4), policy="k8s", min_runtime=5000)
    assert_jobs(r, {"B": (0, 1000, 0, 0, "n0"), "T": (1000, 1050, 0, 0, "n0")})


# --------------------------------------------------------------------------- knob plumbing


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "2e9", "ten"])
def test_min_runtime_is_validated(bad):
    with pytest.raises(ValueError, match="min_runtime"):
        SimConfig().with_knobs({"min_runtime": bad})


def test_min_runtime_in_set_and_per_policy_specs(tmp_path, capsys):
    spec = parse_policy_spec("k8s:min_runtime=600", SimConfig())
    assert spec.config.min_runtime == 600 and spec.config.policy == "k8s"
    csv = tmp_path / "w.csv"
    csv.write_text("job_id,submit_time,duration,cpu,mem_gb,gpu,job_class\n1,0,1000,4,4,4,BE\n2,100,50,2,2,2,TE\n")
    out = tmp_path / "s.json"
    base = ["run", str(csv), "--nodes", "1", "--node-cpu", "4", "--node-mem-gb", "4", "--node-gpu", "4"]
    assert cli_main([*base, "--policy", "k8s", "--set", "min_runtime=300", "--summary-json", str(out)]) == 0
    assert '"min_runtime": 300.0' in out.read_text()
    assert cli_main([*base, "--policy", "k8s", "--set", "min_runtime=-5"]) == 2
    assert "knob min_runtime" in capsys.readouterr().err


# --------------------------------------------------------------------------- candidate fields


class _Spy:
    """k8s's victims, recording what every decision saw."""

    name, preemptive, fifo_order, help = "spy", True, False, "test"

    def __init__(self) -> None:
        self.seen: list[tuple[float, float, float, float, float]] = []

    def victims(self, view: PreemptionView) -> Preemption | None:
        c = view.candidates
        self.seen += [
            (
                view.now,
                float(c.seg_start[i]),
                float(c.lost_now[i]),
                float(c.last_checkpoint[i]),
                float(c.restore_next[i]),
            )
            for i in range(len(c))
        ]
        return policies.K8S.victims(view)


@pytest.mark.parametrize(
    ("mode", "first", "second"),
    [
        # periodic, every 25 s: at 60 the last checkpoint was at 50 (10 s lost); B restarts at 140 (restore
        # until 200) with 50 s kept; at 230 it has 80 s: the checkpoint of 75 s was taken at 200 + 25 = 225.
        ("periodic", (60, 0, 10, 50, 60), (230, 140, 5, 225, 60)),
        # on_preempt: nothing saved before the first signal; then the signal at 60 saved everything.
        ("on_preempt", (60, 0, 0, math.nan, 60), (230, 140, 0, 60, 60)),
        # none: nothing is ever saved; everything done is lost.
        ("none", (60, 0, 60, math.nan, 60), (230, 140, 30, math.nan, 60)),
    ],
)
def test_candidates_carry_checkpoint_information(monkeypatch, mode, first, second):
    spy = _Spy()
    monkeypatch.setitem(policies.POLICIES, "spy", spy)
    jobs = [job("B", 0, 1000, 4), te("T1", 60, 50, 2), te("T2", 230, 50, 2)]
    run(jobs, prop_cluster(4), policy="spy", checkpoint=mode, checkpoint_interval=25)
    np.testing.assert_equal(spy.seen, [first, second])


def test_dashboard_knobs_carry_min_runtime_and_reentry():
    """The Explore page's knob widgets and its shareable link carry both knobs, and a bad value is refused."""
    from dashboard.shared.scenario import Scenario, from_widgets, widget_values
    from dashboard.sweep.sweeps import SWEEP_KNOBS

    base = Scenario(policies=("fifo", "k8s", "fitdelay"))
    values = widget_values(base)
    assert values["x_k_min_runtime"] == 0 and values["x_k_reentry"] == 1800
    scenario, problems = from_widgets({**values, "x_k_min_runtime": 600.0, "x_k_reentry": 900.0}, base, {})
    assert not problems and scenario.knobs.min_runtime == 600 and scenario.knobs.reentry == 900
    back, warnings = Scenario.from_query(scenario.to_query())
    assert not warnings and back.knobs == scenario.knobs
    _, problems = from_widgets({**values, "x_k_min_runtime": -1.0}, base, {})
    assert any("min_runtime" in p for p in problems)
    assert "min_runtime" in SWEEP_KNOBS
