"""What the pages keep in the session (dashboard.shared.state) on a plain dict, and the one spread
statistic of the trio cards and the sweep lines (simcore.analysis.stats), without a Streamlit runtime."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pandas as pd
import pytest
from helpers import job, prop_cluster, run, te

from dashboard.shared import keys, state, views
from dashboard.shared.demo import DEMO, LOCAL
from dashboard.shared.scenario import Scenario
from dashboard.sweep import sweep_state, sweeps
from simcore.analysis import gantt
from simcore.analysis.metrics import TRIO_KEYS, TRIO_LABELS
from simcore.analysis.stats import BOOTSTRAP_NAME, bootstrap_mean

H = views.HOUR


def _runs() -> tuple[object, dict[str, SimpleNamespace]]:
    # a 4-GPU and a 1-GPU node: k8s preempts A on n0 at t = 10 for T (2 GPUs), fifo never preempts
    jobs = [job("A", 0, 100, 4), te("T", 10, 20, 2)]
    out = {}
    for policy in ("fifo", "k8s"):
        r = run(jobs, prop_cluster(4, 1), policy=policy)
        out[policy] = SimpleNamespace(segments=gantt.segments(r), events=r.events_frame)
    return r.cluster, out


PREEMPTIVE = {"fifo": False, "k8s": True}
SCENARIO = Scenario(policies=("fifo", "k8s"), baseline="fifo")


def test_keep_choice_replaces_only_a_value_that_is_no_longer_offered() -> None:
    session: dict = {"x_baseline": "k8s"}
    state.keep_choice(session, keys.BASELINE, ["fifo", "k8s"], "fifo")
    assert session["x_baseline"] == "k8s"
    state.keep_choice(session, keys.BASELINE, ["fifo"], "fifo")
    assert session["x_baseline"] == "fifo"
    state.keep_choice(session, keys.TAB, ["x"], "x")
    assert session["x_tab"] == "x"


def test_a_new_preset_starts_from_its_own_generator_defaults() -> None:
    session: dict = {"x_gen_jobs": 50, "x_gen_load": 0.5, "x_gen_more": "a=1"}
    state.preset_fields(session, "demo", {"jobs": 400, "load": 0.9, "te_share": 0.3})
    assert (session["x_gen_jobs"], session["x_gen_load"]) == (50, 0.5)  # the visitor's values stay
    assert session["x_gen_te_share"] == 0.3  # a field without a value gets its default
    state.preset_fields(session, "paper", {"jobs": 800})
    assert session["x_gen_jobs"] == 800 and "x_gen_load" not in session and "x_gen_te_share" not in session
    assert session["_gen_preset"] == "paper" and session["x_gen_more"] == "a=1"


def test_gantt_setup_fills_the_defaults_then_keeps_the_visitors_choice() -> None:
    cluster, runs = _runs()
    session: dict = {}
    setup = state.gantt_setup(session, SCENARIO, ("w", "c"), cluster, runs, PREEMPTIVE)
    assert setup.policy == "k8s" and session["x_gantt_policy"] == "k8s"  # the preemptive one first
    assert session["gantt_with"] == "fifo"  # the baseline below it
    assert session["x_gantt_nodes"] == setup.nodes == ["n0", "n1"]
    assert setup.window == (0.0, 1.0) and session["x_gantt_window"] == (0.0, 1.0) and setup.span == 1.0
    assert setup.preempts[["time", "job_id", "node"]].values.tolist() == [[10.0, "A", "n0"]]
    assert session["gantt_zoom"] == state.GANTT_ZOOM
    session.update(x_gantt_nodes=["n1", "gone"], gantt_with="k8s")  # a node the cluster lost, a stale second
    state.gantt_setup(session, SCENARIO, ("w", "c"), cluster, runs, PREEMPTIVE)
    assert session["x_gantt_nodes"] == ["n1"] and session["gantt_with"] == "fifo"
    # a new workload: the old view is dropped, whatever the link said
    session.update(x_gantt_policy="fifo", _gantt_preemption={"policy": "fifo"})
    linked = Scenario(policies=("fifo", "k8s"), gantt_policy="fifo", gantt_nodes=("n1",))
    state.gantt_setup(session, linked, ("w2", "c"), cluster, runs, PREEMPTIVE)
    assert session["x_gantt_policy"] == "k8s" and session["x_gantt_nodes"] == ["n0", "n1"]
    assert "_gantt_preemption" not in session


def test_gantt_setup_takes_a_links_view_and_drops_what_does_not_fit() -> None:
    cluster, runs = _runs()
    session: dict = {}
    linked = Scenario(policies=("fifo", "k8s"), gantt_policy="fifo", gantt_nodes=("n1", "zz"), gantt_window=(0.0, 50.0))
    setup = state.gantt_setup(session, linked, ("w", "c"), cluster, runs, PREEMPTIVE)
    assert session["x_gantt_policy"] == "fifo" and session["gantt_with"] == "(none)"  # fifo is the baseline
    assert session["x_gantt_nodes"] == ["n1"]
    assert session["x_gantt_window"] == (0.0, 1.0) == (0.0, setup.span)  # cut to the run
    other = Scenario(policies=("fifo", "k8s"), gantt_policy="lrtp", gantt_window=(5.0, 9.0))
    session = {}
    state.gantt_setup(session, other, ("w", "c"), cluster, runs, PREEMPTIVE)
    assert session["x_gantt_policy"] == "k8s"  # not among the chosen policies: the default
    assert session["x_gantt_window"] == (0.0, 1.0)  # nothing of it inside the run: the default


def test_stepping_chooses_centres_adds_the_node_and_says_when_there_is_none() -> None:
    cluster, runs = _runs()
    session: dict = {"x_gantt_nodes": ["n1"]}
    setup = state.gantt_setup(session, SCENARIO, ("w", "c"), cluster, runs, PREEMPTIVE)
    state.gantt_step(session, setup, 1)
    assert session["_gantt_preemption"] == {"policy": "k8s", "index": 0, "time": 10.0, "job_id": "A", "node": "n0"}
    assert session["x_gantt_nodes"] == ["n1", "n0"]  # the victim's node is shown
    assert session["x_gantt_window"] == (0.0, 1.0)
    state.gantt_step(session, setup, 1)
    assert session["_gantt_note"] == "No preemption after this one." and session["_gantt_preemption"]["index"] == 0
    choice = state.gantt_choice(session)
    half = state.GANTT_ZOOM / 2
    assert choice.policies == ["k8s", "fifo"] and choice.focus == (10.0 - half, 10.0 + half)
    # another policy: the chosen preemption is not one of its own
    session["x_gantt_policy"] = "fifo"
    state.gantt_setup(session, SCENARIO, ("w", "c"), cluster, runs, PREEMPTIVE)
    assert session["_gantt_preemption"] is None and state.gantt_choice(session).focus is None


def test_the_link_holds_only_what_differs_from_the_gantts_defaults() -> None:
    cluster, runs = _runs()
    session: dict = {}
    setup = state.gantt_setup(session, SCENARIO, ("w", "c"), cluster, runs, PREEMPTIVE)
    same = state.gantt_in_link(SCENARIO, setup, state.gantt_choice(session))
    assert same == SCENARIO and "gantt_nodes" not in same.to_query()
    session.update(x_gantt_policy="fifo", x_gantt_nodes=["n1"], x_gantt_window=[0.0, 0.5])
    moved = state.gantt_in_link(SCENARIO, setup, state.gantt_choice(session))
    assert (moved.gantt_policy, moved.gantt_nodes, moved.gantt_window) == ("fifo", ("n1",), (0.0, 0.5))


def test_a_sweep_shows_results_only_for_the_settings_last_run() -> None:
    session: dict = {}
    a = sweeps.SweepSettings(knob="grace", values="0,60", workers=3, dask="tcp://h:1")
    assert not sweep_state.sweep_settings(session, a, False, LOCAL).run
    assert sweep_state.sweep_settings(session, a, True, LOCAL).run
    assert sweep_state.sweep_settings(session, a, False, LOCAL).run  # a rerun keeps showing them
    b = sweeps.SweepSettings(knob="grace", values="0,120")
    assert not sweep_state.sweep_settings(session, b, False, LOCAL).run  # a changed value waits for the button
    demo = sweep_state.sweep_settings(session, a, True, DEMO)
    assert (demo.workers, demo.dask, demo.run) == (0, "", True)  # never a scheduler in demo mode


def test_a_links_dask_address_is_offered_never_used() -> None:
    session: dict = {}
    settings, notes = sweep_state.sweep_from_link(session, {"dask": "tcp://h:1", "run": "1"}, LOCAL)
    assert settings.dask == "" and not settings.run and notes == []
    assert sweep_state.dask_offered(session, LOCAL) == "tcp://h:1" and sweep_state.dask_offered(session, DEMO) == ""
    sweep_state.accept_dask(session)
    assert session["s_dask"] == "tcp://h:1" and sweep_state.dask_offered(session, LOCAL) == ""
    session = {}
    _settings, notes = sweep_state.sweep_from_link(session, {"dask": "tcp://h:1"}, DEMO)
    assert sweep_state.dask_offered(session, DEMO) == "" and "dask" in notes[0]
    session = {"s_knob": "grace", "s_values": "1"}
    sweep_state.knob_values_reset(session)
    assert session["s_values"] == sweeps.SWEEP_KNOBS["grace"][0]


# --- the one spread statistic ---------------------------------------------------------------------


def _summary(te_p95: float, be_p50: float, be_p95: float) -> dict:
    """The trio's fields of a flat record."""
    return {"TE_slowdown_p95": te_p95, "BE_slowdown_p50": be_p50, "BE_slowdown_p95": be_p95}


def test_the_trio_cards_show_the_mean_and_the_stats_modules_interval() -> None:
    trios = [  # per seed: policy -> trio (percent against fifo)
        {"fifo": dict.fromkeys(TRIO_KEYS, 0.0), "k8s": dict(zip(TRIO_KEYS, (-90.0, 10.0, 5.0), strict=True))},
        {"fifo": dict.fromkeys(TRIO_KEYS, 0.0), "k8s": dict(zip(TRIO_KEYS, (-80.0, 25.0, None), strict=True))},
        {"fifo": dict.fromkeys(TRIO_KEYS, 0.0), "k8s": dict(zip(TRIO_KEYS, (-70.0, 40.0, None), strict=True))},
    ]
    summaries = [{"fifo": _summary(10.0, 2.0, 8.0), "k8s": _summary(v, 3.0, 9.0)} for v in (1.0, 2.0, 3.0)]
    cards = views.trio_cards(views.trio_frame(trios), views.absolute_trio(summaries), ["fifo", "k8s"], "fifo")
    assert [label for label, _, _ in cards[0]] == list(TRIO_LABELS.values())
    assert [(value, delta) for _, value, delta in cards[0]] == [("10", None), ("2", None), ("8", None)]
    for (_label, _value, delta), values in zip(cards[1], ([-90, -80, -70], [10, 25, 40], [5.0]), strict=True):
        n, mean, lo, hi = bootstrap_mean(values)
        spread = f" [{lo:+.1f}, {hi:+.1f}]" if n > 1 else ""  # one seed with a value: no interval
        assert delta == f"{mean:+.1f}%{spread}"
    assert cards[1][0][1] == "2"  # the absolute TE p95, mean over seeds (fmt.number: three significant digits)
    lo, hi = bootstrap_mean([-90, -80, -70])[2:]
    assert cards[1][0][2] == f"-80.0% [{lo:+.1f}, {hi:+.1f}]" and lo < -80 < hi


def test_the_sweep_lines_use_the_same_interval_and_both_name_it() -> None:
    rows = pd.DataFrame(
        {"load": [1.0] * 3 + [2.0], "policy": ["k8s"] * 4, "seed": [0, 1, 2, 0], "m": [1.0, 4.0, 10.0, 7.0]}
    )
    frame = sweeps.metric_frame(rows, "load", ["m"])
    n, mean, lo, hi = bootstrap_mean([1.0, 4.0, 10.0])
    assert frame.iloc[0][["n", "mean", "lo", "hi"]].tolist() == pytest.approx([n, mean, lo, hi])
    assert frame.iloc[1][["n", "mean", "lo", "hi"]].tolist() == [1, 7.0, 7.0, 7.0]  # one seed: no whisker
    assert BOOTSTRAP_NAME in views.spread_note([3, 4, 5]) and "3 seeds" in views.spread_note([3, 4, 5])
    assert [m for m, _ in sweeps.trio_metrics("fifo")] == [f"{k}_vs_fifo" for k in TRIO_KEYS]
    assert not math.isnan(lo)


def test_a_lessons_time_control_stays_inside_its_instants_and_stops_at_the_last() -> None:
    key, who = state.lesson_step_key("hol", "fifo"), ("hol", "fifo")
    session: dict = {}
    state.lesson_move(session, key, 5, delta=-1)
    assert session["lesson_step_hol_fifo"] == 0  # never before the first instant
    state.lesson_move(session, key, 5, to=9)
    assert key.read(session) == 5  # nor past the last
    state.lesson_move(session, key, 5, to=3)
    state.lesson_toggle_play(session, who)
    assert state.lesson_playing(session) == who
    assert not state.lesson_tick(session, key, 5) and key.read(session) == 4
    assert state.lesson_tick(session, key, 5) and key.read(session) == 5 and state.lesson_playing(session) is None
    state.lesson_toggle_play(session, who)
    state.lesson_toggle_play(session, who)  # pressed again: paused
    assert state.lesson_playing(session) is None
