"""The Learn lessons (their scenarios, the cluster at an instant, the time control) and the
numbers Learn quotes (computed from docs/results rows, checked against docs/RESULTS.md)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pandas as pd
import pytest
from helpers.paths import APP, ROOT
from streamlit.testing.v1 import AppTest

from dashboard.learn import exercises, lesson_charts, lesson_views, lessons
from dashboard.learn.learn_content import regime_facts
from dashboard.learn.learn_numbers import learn_numbers
from dashboard.runs import compute
from dashboard.shared import gantt_charts, gantt_views
from simcore.core import fmt

RUNS = {
    (item.key, v.label): (item, v, compute.full_run(*lessons.load_variant(item, v), v.config))
    for item in lessons.LESSONS
    for v in item.variants
}


def victims(run: compute.Run) -> list[str]:
    return run.events.loc[run.events["event"] == "preempt", "job_id"].tolist()


def te_wait(run: compute.Run) -> float:
    return float(run.jobs.loc[run.jobs["job_class"] == "TE", "wait"].iloc[0])


# --- the scenarios do what their lessons say (values derived by hand from the CSV files) ---------


def test_lesson_a_fifo_blocks_priority_waits_for_one_job_preemption_waits_for_grace() -> None:
    # TE job 3 arrives at 120 s; BE jobs 1 and 2 take the whole node for 3600 s each
    assert te_wait(RUNS["hol", "fifo"][2]) == 3600 + 3600 - 120
    assert te_wait(RUNS["hol", "priority"][2]) == 3600 - 120
    fitgpp = RUNS["hol", "fitgpp"][2]
    assert te_wait(fitgpp) == lessons.lesson("hol").variant("fitgpp").config.grace
    assert victims(fitgpp) == ["1"]
    assert victims(RUNS["hol", "fifo"][2]) == victims(RUNS["hol", "priority"][2]) == []


def test_lesson_b_k8s_stops_two_young_jobs_fitgpp_one_exact_fit() -> None:
    # TE job 7 (2 GPUs) at 600 s. k8s reprieves the oldest job of each node (1 on node-0, 4 on node-1:
    # the two 1-GPU jobs alone make room) and takes node-1's pair, started later (80 s against 20 s)
    assert victims(RUNS["victim", "k8s"][2]) == ["5", "6"]
    # fitgpp: one victim suffices; job 1 frees exactly the TE job's shape (slack 0), job 4 leaves node-1's
    # free 8 CPU and 64 GiB over (8/32 + 64/256 = 0.5)
    assert victims(RUNS["victim", "fitgpp"][2]) == ["1"]
    # the payoff: each victim is delayed by grace 30 + the TE job's 600 + restore 60 = 690 s
    table = lesson_views.outcome_table({v: RUNS["victim", v][2] for v in ("k8s", "fitgpp")}).set_index("variant")
    assert table["preemptions"].to_dict() == {"k8s": 2, "fitgpp": 1}
    # the TE job waits out the grace, 30 s under both: under 2 min, so the column reads in seconds
    assert table["longest TE wait (s)"].to_dict() == {"k8s": 30.0, "fitgpp": 30.0}
    # six BE jobs of 7200 s; a victim's slowdown is (7200 + 690) / 7200
    assert table.loc["k8s", "BE slowdown, mean"] == pytest.approx((4 + 2 * 7890 / 7200) / 6)
    assert table.loc["fitgpp", "BE slowdown, mean"] == pytest.approx((5 + 7890 / 7200) / 6)
    delay = {
        v: RUNS["victim", v][2].jobs.query("job_class == 'BE'").eval("finish - submit_time - duration").sum()
        for v in ("k8s", "fitgpp")
    }
    assert delay == {"k8s": 2 * 690.0, "fitgpp": 690.0}  # 23 min and 11.5 min, as the lesson says
    assert "23 min" in lessons.lesson("victim").text and "11.5 min" in lessons.lesson("victim").text


def test_lesson_c_loses_nothing_one_interval_remainder_or_everything() -> None:
    # BE job 1 has run 2700 s at the signal; periodic checkpoints every 1800 s keep 1800 s of it
    lost = {label: float(RUNS["price", label][2].jobs["lost_work"].sum()) for _, label in RUNS if _ == "price"}
    assert list(lost.values()) == [0.0, 2700.0 - 1800.0, 2700.0]


def test_lesson_d_fitdelay_spares_the_old_job() -> None:
    assert victims(RUNS["fitdelay", "fitgpp"][2]) == ["1"]
    assert victims(RUNS["fitdelay", "fitdelay"][2]) == ["2"]
    assert (
        RUNS["fitdelay", "fitgpp"][2].jobs["lost_work"].sum()
        > 100 * RUNS["fitdelay", "fitdelay"][2].jobs["lost_work"].sum()
    )


def _rows(run: compute.Run, event: str) -> list[tuple[float, str, str]]:
    at = run.events[run.events["event"] == event]
    return list(zip(at["time"], at["job_id"].astype(str), at["node"], strict=True))


GANG_NODES = ["node-0", "node-1", "node-2", "node-3"]


def test_lesson_e_k8s_stops_the_single_job_fitgpp_the_gang_fitdelay_nobody() -> None:
    # TE 1-4 (3 GPUs) fill node-0..3 at 0; BE 5 (4 GPUs, 3000 s) node-4 at 0; BE gang 6 (4 x 1 GPU, 7200 s)
    # takes the last GPU of node-0..3 at 600 (best fit: each worker on the lowest node left with exactly 1 GPU);
    # TE 7 (1 GPU, 600 s) at 2980 fits nowhere. checkpoint none, grace 30, restore 60.
    runs = {v.label: RUNS["gang", v.label][2] for v in lessons.lesson("gang").variants}
    for run in runs.values():
        assert _rows(run, "start")[:9] == [
            *((0.0, str(j), f"node-{j - 1}") for j in range(1, 5)),
            (0.0, "5", "node-4"),
            *((600.0, "6", n) for n in GANG_NODES),
        ]
    # k8s: job 5 is 1 worker against the gang's 4; released at 3010, TE 7 runs 3010-3610, job 5 redoes
    # its 3000 s from 3610 after a 60 s restore: 3610 + 60 + 3000 = 6670
    k8s = runs["k8s"]
    assert _rows(k8s, "preempt") == [(2980.0, "5", "node-4")]
    assert _rows(k8s, "start")[9:] == [(3010.0, "7", "node-4"), (3610.0, "5", "node-4")]
    assert k8s.jobs.set_index("job_id").loc[["5", "6"], "finish"].tolist() == [6670.0, 7800.0]
    # fitgpp (s = 1): job 5's share 1.0 > 1 x 0.25 is capped; each gang worker (0.25) passes; all four
    # nodes tie (slack 0, lost 2380 x 4) and node-0 wins on index. Job 5 ends at 3000, so TE 7 starts
    # there before the gang releases at 3010; the gang restarts at 3010: 3010 + 60 + 7200 = 10270
    fit = runs["fitgpp (s = 1)"]
    assert _rows(fit, "preempt") == [(2980.0, "6", n) for n in GANG_NODES]
    assert _rows(fit, "release") == [(3010.0, "6", n) for n in GANG_NODES]
    assert _rows(fit, "start")[9:] == [(3000.0, "7", "node-4"), *((3010.0, "6", n) for n in GANG_NODES)]
    assert fit.jobs.set_index("job_id").loc[["5", "6"], "finish"].tolist() == [3000.0, 10270.0]
    # fitdelay: job 5 ends at 3000, within the 30 s grace of 2980: it waits, TE 7 starts at 3000
    fd = runs["fitdelay"]
    assert _rows(fd, "preempt") == []
    assert _rows(fd, "start")[9:] == [(3000.0, "7", "node-4")]
    assert fd.jobs.set_index("job_id").loc[["5", "6"], "finish"].tolist() == [3000.0, 7800.0]
    # what it costs: lost work 2980 s x 4 GPUs = 11920 GPU-s (3.3 h); 2380 s x 1 GPU x 4 workers = 9520 (2.6 h)
    lost = {label: float(run.summary["accounting"]["gpu_seconds_lost"]) for label, run in runs.items()}
    assert lost == {"k8s": 11920.0, "fitgpp (s = 1)": 9520.0, "fitdelay": 0.0}
    waits = {label: float(run.jobs.set_index("job_id").loc["7", "wait"]) for label, run in runs.items()}
    assert waits == {"k8s": 30.0, "fitgpp (s = 1)": 20.0, "fitdelay": 20.0}
    intro = lessons.lesson("gang").text
    # BE delay: job 5 ends at 6670 instead of 3000 (61.2 min), the gang at 10270 instead of 7800 (41.2 min)
    delay = {
        label: run.jobs.query("job_class == 'BE'").eval("finish - submit_time - duration").sum()
        for label, run in runs.items()
    }
    assert delay == {"k8s": 3670.0, "fitgpp (s = 1)": 2470.0, "fitdelay": 0.0}
    quoted = (
        "49.7 min",
        "3.3 h",
        "39.7 min",
        "2.6 h",
        "waits 20 s",
        "49 min 40 s",
        "4 workers on 4",
        "61.2 min",
        "41.2 min",
    )
    for said in quoted:
        assert said in intro


def test_gang_lesson_asks_how_many_workers_each_variant_stops() -> None:
    # BE job 5 has 1 worker, gang 6 has 4: the options are 0, 1, 4 and both (5)
    item = lessons.lesson("gang")
    table, cluster = lessons.load(item)
    found = exercises.evidences(table, lessons.variant_configs(item, cluster))
    asked = {}
    for label, stopped in {"k8s": "1", "fitgpp (s = 1)": "4", "fitdelay": "0"}.items():
        run = RUNS["gang", label][2]
        asked[label] = {q.key: q for q in exercises.questions(run.jobs, run.events, label, found[label])}
        assert asked[label]["workers"].options == ("0", "1", "4", "5")
        assert asked[label]["workers"].accepted == (stopped,)
    victim = asked["fitgpp (s = 1)"]["victim"]
    assert victim.accepted == ("6",) and victim.answer == "job 6"  # four preempt rows, one job
    assert "on 4 nodes" in asked["fitgpp (s = 1)"]["workers"].explanation
    # fitdelay stops nobody: job 5 frees the room within the grace period, which the explanation says
    assert asked["fitdelay"]["victim"].accepted == (exercises.NOBODY,)
    assert "a BE job frees the room within grace" in asked["fitdelay"]["victim"].explanation


def test_lessons_stay_tiny() -> None:
    for item in lessons.LESSONS:
        table, cluster = lessons.load(item)
        assert len(table) <= 8 and len(cluster.nodes) <= 5
        assert (lessons.LESSON_DIR / item.workload).name in (lessons.LESSON_DIR / "README.md").read_text()


# --- the cluster at an instant -------------------------------------------------------------------


@pytest.mark.parametrize("key", list(RUNS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_losses_per_preemption_add_up_to_the_engines_lost_work(key: tuple[str, str]) -> None:
    _, _, run = RUNS[key]
    per_job = run.lost.groupby("job_id")["lost"].sum()
    engine = run.jobs.set_index("job_id")["lost_work"]
    assert per_job.reindex(engine.index, fill_value=0.0).tolist() == engine.tolist()
    # one row per interruption (preemption, drain, failure): a gang writes one row per worker at the same instant
    stops = run.events["event"].isin(("preempt", "drain", "fail"))
    signals = run.events.loc[stops, ["job_id", "time"]].drop_duplicates()
    assert len(run.lost) == len(signals)
    assert run.lost["time"].tolist() == signals["time"].tolist()


# the lost part of the preempted bar, hand-derived: job 1 runs from 0 and is signalled at 2700 s (45 min);
# periodic checkpoints every 30 min keep 1800 s, so 900 s are lost; none keeps nothing; on_preempt keeps all
@pytest.mark.parametrize(
    ("label", "lost"),
    [
        ("checkpoint none", [(0.0, 2700.0)]),
        ("checkpoint periodic (every 30 min)", [(1800.0, 2700.0)]),
        ("checkpoint on_preempt", []),
    ],
)
def test_the_lesson_gantt_hatches_the_lost_part_of_the_preempted_bar(
    label: str, lost: list[tuple[float, float]]
) -> None:
    item, _, run = RUNS["price", label]
    cluster = lessons.load(item)[1]
    view = gantt_views.gantt_view(
        {label: (run.segments, run.events)}, cluster, cluster.names, (0.0, 2.0), lost={label: run.lost}
    )
    bars = view.panels[0].lost
    assert list(zip(bars["start"], bars["end"], strict=True)) == lost
    assert set(bars["job_id"]) == ({"1"} if lost else set())
    figure = gantt_charts.gantt_figure(view)
    traces = [t for t in figure.data if t.name == "lost work"]
    assert len(traces) == (1 if lost else 0)
    if lost:
        assert traces[0].showlegend and traces[0].marker.pattern.shape == gantt_charts.GANTT_LOST[0]
        assert traces[0].customdata[0][3] == fmt.duration(lost[0][1] - lost[0][0])  # "45.0 min", "15.0 min"
    # all three variants stacked, as the lesson draws them: the legend names the lost work once
    runs = {v.label: RUNS["price", v.label][2] for v in item.variants}
    stacked = gantt_views.gantt_view(
        {k: (r.segments, r.events) for k, r in runs.items()},
        cluster,
        cluster.names,
        (0.0, 2.0),
        lost={k: r.lost for k, r in runs.items()},
    )
    lost_traces = [t for t in gantt_charts.gantt_figure(stacked).data if t.name == "lost work"]
    assert len(lost_traces) == 2 and [t.showlegend for t in lost_traces] == [True, False]  # periodic, none
    # a Gantt asked for no lost work (Explore's) draws none
    assert (
        gantt_views.gantt_view({label: (run.segments, run.events)}, cluster, cluster.names, (0.0, 2.0))
        .panels[0]
        .lost.empty
    )


@pytest.mark.parametrize("key", list(RUNS), ids=lambda k: f"{k[0]}-{k[1]}")
def test_every_job_is_somewhere_at_every_instant(key: tuple[str, str]) -> None:
    item, variant, run = RUNS[key]
    cluster = lessons.load(item)[1]
    times = lesson_views.instants(run.events)
    assert times == sorted(set(run.events["time"])) and len(times) >= 3
    for t in times:
        snap = lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, t)
        on_gpus = set(snap.grid["job_id"])
        queued = set(snap.queue["job"])
        done = set(run.jobs.loc[run.jobs["finish"] <= t, "job_id"])
        future = set(run.jobs.loc[run.jobs["submit_time"] > t, "job_id"])
        assert not (on_gpus & queued) and not (on_gpus & done) and not (queued & done)
        assert on_gpus | queued | done | future == set(run.jobs["job_id"])
        grid = lesson_views.grid_frame(snap, cluster)
        assert len(grid) == sum(int(n.capacity.gpu) for n in cluster.nodes)  # whole GPUs: one job per lane
        assert set(grid.loc[grid["job_id"] != "", "job_id"]) == on_gpus
        assert len(snap.story) == (run.events["time"] == t).sum()


def test_story_tells_the_preemption_with_its_lost_work() -> None:
    _, _, run = RUNS["price", "checkpoint none"]
    snap = lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, 2700.0)
    assert snap.story[0].startswith("TE job 2 arrives")
    assert "BE job 1 on node-0 is preempted" in snap.story[1] and "45.0 min of work" in snap.story[1]
    assert snap.queue["job"].tolist() == ["2"]
    assert set(snap.grid["kind"]) == {"grace"}


def test_step_stays_inside_the_instants() -> None:
    times = [0.0, 1.0, 2.0]
    assert lesson_views.step(times, 0, -1) == 0
    assert lesson_views.step(times, 1, 1) == 2
    assert lesson_views.step(times, 2, 1) == 2


def test_outcome_table_is_the_runs_numbers() -> None:
    runs = {label: RUNS["hol", label][2] for label in ("fifo", "priority", "fitgpp")}
    table = lesson_views.outcome_table(runs).set_index("variant")
    assert table.loc["fifo", "longest TE wait (min)"] == 118.0  # 7080 s
    assert table.loc["fitgpp", "preemptions"] == 1 and table.loc["priority", "preemptions"] == 0


# --- the numbers Learn quotes ----------------------------------------------------------------------


def _results_row(policy: str) -> list[str]:
    """The cells of ``policy``'s row in docs/RESULTS.md's first table (trio vs fifo)."""
    text = (ROOT / "docs" / "RESULTS.md").read_text()
    section = text.split("## 1.")[1].split("## 2.")[0]
    line = next(x for x in section.splitlines() if x.startswith(f"| {policy} |"))
    return [c.strip().split(" ")[0] for c in line.strip("|").split("|")][1:]


def test_learn_numbers_match_results_md() -> None:
    n = learn_numbers()
    facts = " ".join(f.text for f in regime_facts(n))
    for cell in _results_row("fitgpp"):
        assert cell in facts  # e.g. "+23.2%"
    fit = [float(c.rstrip("%")) for c in _results_row("fitgpp")]
    gaps50 = [float(_results_row(p)[1].rstrip("%")) - fit[1] for p in ("k8s", "lrtp", "random")]
    gaps95 = [float(_results_row(p)[2].rstrip("%")) - fit[2] for p in ("k8s", "lrtp", "random")]
    assert n.naive_gap_p50[0] == pytest.approx(min(gaps50), abs=0.11)
    assert n.naive_gap_p95[1] == pytest.approx(max(gaps95), abs=0.11)
    assert f"{n.naive_gap_p50[0]:.1f}-{n.naive_gap_p50[1]:.1f} points" in facts
    assert "checkpoint = none" in facts and n.none_lost_fitgpp > n.none_lost_k8s


def test_learn_numbers_follow_the_rows(tmp_path: Path) -> None:
    # kept between Learn's reruns, but computed again once a rows file changes in place
    for name in ("main", "curves"):
        shutil.copy(ROOT / "docs" / "results" / f"rows_{name}.parquet", tmp_path)
    before = learn_numbers(tmp_path)
    assert learn_numbers(tmp_path) is before and before == learn_numbers()
    main = pd.read_parquet(tmp_path / "rows_main.parquet")
    fitgpp = main["policy"] == "fitgpp"
    main.loc[fitgpp, "BE_p95_slowdown_pct_vs_fifo"] += 10.0
    main.to_parquet(tmp_path / "rows_main.parquet")
    after = learn_numbers(tmp_path)
    assert after.fitgpp_trio[2] == pytest.approx(before.fitgpp_trio[2] + 10.0)
    assert regime_facts(after)[0].text != regime_facts(before)[0].text


def test_learn_page_has_no_typed_results() -> None:
    """Percentages in the Learn sources are computed: no literal like "23.2%" or "about 20%"."""
    for path in ("dashboard/app_pages/learn.py", "dashboard/learn/learn_content.py"):
        source = (ROOT / path).read_text()
        assert not re.findall(r"\d+\.\d+%|about \d+%", source), path


# --- the page: every control of the time control -------------------------------------------------


def learn(**chosen: object) -> AppTest:
    """The Learn page after its first run, with the widget values ``chosen`` (by key) already set,
    as a visitor's earlier choices would be: each saves a rerun of the whole page. Every variant's
    step-through is shown (as Show what happened would), unanswered."""
    at = AppTest.from_file(APP, default_timeout=120)
    for item in lessons.LESSONS:
        for v in item.variants:
            at.session_state[f"quiz_shown_{item.key}_{v.label}"] = True
    for key, value in chosen.items():
        at.session_state[key] = value
    at.switch_page("app_pages/learn.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def story(at: AppTest) -> str:
    return " ".join(m.value for m in at.markdown)


def button(at: AppTest, label: str):
    return next(b for b in at.button if b.label == label)


def test_time_control_walks_a_lesson_to_its_end() -> None:
    at = learn()
    assert at.selectbox(key="lesson").value == "hol"
    assert "BE job 1 arrives" in story(at)
    n = len(lesson_views.instants(RUNS["hol", "fifo"][2].events))
    button(at, "Next").click().run()
    assert at.select_slider(key="lesson_step_hol_fifo").value == 1 and "BE job 2 arrives" in story(at)
    button(at, "Previous").click().run()
    assert at.select_slider(key="lesson_step_hol_fifo").value == 0
    button(at, "Last").click().run()
    assert at.select_slider(key="lesson_step_hol_fifo").value == n - 1 and "TE job 3 finishes" in story(at)
    button(at, "First").click().run()
    assert at.select_slider(key="lesson_step_hol_fifo").value == 0
    at.select_slider(key="lesson_step_hol_fifo").set_value(4).run()
    assert "TE job 3 starts" in story(at)
    assert not at.exception


def test_play_advances_and_stops_at_the_end() -> None:
    at = learn(lesson_variant_hol="fitgpp")
    assert at.radio(key="lesson_variant_hol").value == "fitgpp"
    n = len(lesson_views.instants(RUNS["hol", "fitgpp"][2].events))
    button(at, "Play").click().run()
    assert at.select_slider(key="lesson_step_hol_fitgpp").value == 1
    button(at, "Pause").click().run()  # paused: further reruns stay on the instant
    at.run()
    assert at.select_slider(key="lesson_step_hol_fitgpp").value == 1
    button(at, "Play").click().run()
    assert at.select_slider(key="lesson_step_hol_fitgpp").value == 2
    assert any(b.label == "Pause" for b in at.button)
    # moved near the end while playing (it keeps playing): each rerun one instant on, no further
    at.select_slider(key="lesson_step_hol_fitgpp").set_value(n - 3).run()
    assert at.select_slider(key="lesson_step_hol_fitgpp").value == n - 2
    for _ in range(3):
        at.run()
    assert at.select_slider(key="lesson_step_hol_fitgpp").value == n - 1
    assert any(b.label == "Play" for b in at.button)  # stopped by itself at the end


@pytest.mark.parametrize("key", [x.key for x in lessons.LESSONS])
def test_each_lesson_and_variant_draws(key: str) -> None:
    """Each variant drawn at its last instant (set beforehand, as Last would: one rerun a variant;
    the buttons themselves are walked by the tests above)."""
    item = lessons.lesson(key)
    last = {v.label: len(lesson_views.instants(RUNS[key, v.label][2].events)) - 1 for v in item.variants}
    at = learn(lesson=key, **{f"lesson_step_{key}_{label}": i for label, i in last.items()})
    assert at.selectbox(key="lesson").value == key
    for v in item.variants:
        radio = at.radio(key=f"lesson_variant_{key}")
        if radio.value != v.label:  # the first variant is the one the lesson's own run drew
            radio.set_value(v.label).run()
        assert not at.exception, [e.value for e in at.exception]
        assert len(at.get("plotly_chart")) >= 2  # the GPU grid and the Gantt
        assert at.select_slider(key=f"lesson_step_{key}_{v.label}").value == last[v.label]
        assert "finishes" in story(at)


def test_gpu_grid_colours_each_gpu_as_the_gantt_does() -> None:

    item, variant, run = RUNS["price", "checkpoint none"]
    cluster = lessons.load(item)[1]
    at_grace = lesson_views.grid_frame(
        lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, 2700.0), cluster
    )
    at_te = lesson_views.grid_frame(
        lesson_views.snapshot(run.jobs, run.events, run.segments, run.lost, 2730.0), cluster
    )
    grace = lesson_charts.gpu_grid_figure(at_grace).data[0]
    assert list(grace.marker.color) == [gantt_charts.GANTT_KINDS["grace"][0]] * 4 and list(grace.text) == ["1"] * 4
    te = lesson_charts.gpu_grid_figure(at_te).data[0]
    assert list(te.marker.color) == [gantt_charts.GANTT_CLASS_COLORS["TE"]] + [lesson_charts.GRID_COLORS["idle"]] * 3
    assert list(te.text) == ["2", "", "", ""]
