"""Lessons (f) and (g) of Learn (issue 35): a node failure against a preemption of the same job under each
checkpoint mode, and why the checkpoint interval has an optimum once checkpoints cost something. Every
outcome is derived by hand below; the questions are read from the runs, show no answer before Check, and
after Check give the deciding values.

(f) ``price_of_preemption.csv`` on one 4-GPU node: BE job 1 (whole node, 7200 s) from 0, TE job 2 (1 GPU,
600 s) at 2700; grace 30 s, restore 60 s. *Preempted*: signalled at 2700, released at 2730, the TE job runs
2730-3330, job 1 restarts at 3330 and restores to 3390. *Node fails*: node-0 down over [2700, 2730), job 1
stops at 2700 with no signal, the TE job starts at 2730 and ends at 3330, job 1 restarts at 3330. What job 1
keeps at 2700: on_preempt preempted 2700 (its save), failed 0 (no signal, no save); periodic (every 1800 s)
1800 either way; none 0 either way. Its finish is 3390 + 7200 - kept: 7890 / 10590, 8790 / 8790, 10590 / 10590.

(g) ``checkpoint_interval.csv``: BE job 1 (whole node, 14400 s), each checkpoint a 300 s pause, node-0 down
over [3000, 3060) and [9000, 9060). Every 30 min: a pause at 1800-2100; the failure at 3000 finds 2700 s
done, 1800 kept (900 lost); restored by 3120, pauses at 4920-5220 and 7020-7320; the failure at 9000 finds
5400 + 1680 done (1680 lost); restored by 9120, pauses at 10920, 13020, 15120, 17220 (+300 each); the last
1800 s of work end at 19320: 7 pauses, 2580 s lost. Every 2 h: no pause before 3000 (3000 lost), restored by
3120, none before 9000 (5880 lost), restored by 9120, one pause at 16320-16620, finished at 23820.
"""

from __future__ import annotations

import pytest
from helpers.apptest import APP
from streamlit.testing.v1 import AppTest

from dashboard.learn import interruption_lessons as il
from dashboard.learn import lessons
from dashboard.runs import compute
from simcore.core import fmt


def runs_of(key: str) -> dict[str, compute.Run]:
    item = lessons.lesson(key)
    return {v.label: compute.full_run(*lessons.load_variant(item, v), v.config) for v in item.variants}


UNCHOSEN = runs_of("unchosen")
INTERVAL = runs_of("interval")
JOB = il.JOB


def job(run: compute.Run) -> dict:
    return run.jobs[run.jobs["job_id"].astype(str) == JOB].iloc[0].to_dict()


@pytest.mark.parametrize(
    ("mode", "preempted", "failed"),
    [
        ("on_preempt", (7890.0, 0.0), (10590.0, 2700.0)),
        ("periodic", (8790.0, 900.0), (8790.0, 900.0)),
        ("none", (10590.0, 2700.0), (10590.0, 2700.0)),
    ],
)
def test_lesson_f_a_failure_against_a_preemption_under_each_mode(mode: str, preempted: tuple, failed: tuple) -> None:
    for how, (finish, lost) in ((il.PREEMPTED, preempted), (il.FAILED, failed)):
        run = UNCHOSEN[f"{how}, checkpoint {mode}"]
        assert (job(run)["finish"], job(run)["lost_work"]) == (finish, lost)
        events = run.events[run.events["job_id"] == JOB]
        assert events["event"].tolist() == (
            ["submit", "start", "preempt", "release", "start", "finish"]
            if how == il.PREEMPTED
            else ["submit", "start", "fail", "start", "finish"]
        )
        te = run.jobs[run.jobs["job_class"] == "TE"].iloc[0]
        assert te["wait"] == 30.0  # the same 30 s either way: the grace period, or the node's down time


def test_lesson_f_questions_are_read_from_the_runs_with_the_deciding_values() -> None:
    label = f"{il.FAILED}, checkpoint on_preempt"
    lost, worse = il.unchosen_questions(UNCHOSEN, label)
    assert lost.options == ("0 s", "15.0 min", "45.0 min") and lost.accepted == ("45.0 min",)
    assert worse.options == ("being preempted", "its node failing", "the same") and worse.accepted == (
        "its node failing",
    )
    assert "45.0 min" not in lost.prompt and "finishes" not in worse.prompt  # no answer in a question
    assert "day 1 02:11:30" in worse.explanation and "day 1 02:56:30" in worse.explanation  # 7890 s and 10590 s
    assert "It kept 0 s, so 45.0 min of work is redone" in lost.explanation
    for mode in ("periodic", "none"):
        assert il.unchosen_questions(UNCHOSEN, f"{il.PREEMPTED}, checkpoint {mode}")[1].accepted == ("the same",)


def test_lesson_g_the_interval_with_an_optimum() -> None:
    finish = {label: job(run)["finish"] for label, run in INTERVAL.items()}
    assert finish == {
        "every 10.0 min": 22320.0,
        "every 20.0 min": 20820.0,
        "every 30.0 min": 19320.0,
        "every 60.0 min": 20520.0,
        "every 2.0 h": 23820.0,
    }
    assert {label: il.pauses(run) for label, run in INTERVAL.items()} == {
        "every 10.0 min": 23,
        "every 20.0 min": 13,
        "every 30.0 min": 7,
        "every 60.0 min": 3,
        "every 2.0 h": 1,
    }
    assert (
        job(INTERVAL["every 30.0 min"])["lost_work"] == 2580.0 and job(INTERVAL["every 2.0 h"])["lost_work"] == 8880.0
    )
    pauses, best = il.interval_questions(INTERVAL, "every 2.0 h")
    assert pauses.options == ("1", "3", "7", "13", "23") and pauses.accepted == ("1",)
    assert best.accepted == ("every 30.0 min",) and len(best.options) == 5
    # Young/Daly at the best: M = (19320 - 120) s of run over 2 failures = 9600 s, sqrt(2 x 300 x 9600) = 2400 s
    assert il.young_daly(INTERVAL["every 30.0 min"]) == 2400.0 and "gives 40.0 min" in best.explanation
    assert "every 10.0 min: finishes at day 1 06:12:00 (23 pauses, 13.0 min lost)" in best.explanation


def test_the_outcomes_are_the_runs_and_the_setups_give_no_answer() -> None:
    """Each variant's outcome (typed, shown after its check) states the lost work and finish of its run (and
    in (g) the pauses); no question of the lesson has its answer in the setup shown above the questions."""
    for key, runs in (("unchosen", UNCHOSEN), ("interval", INTERVAL)):
        item = lessons.lesson(key)
        assert item.ask is not None and item.summary
        for v in item.variants:
            run = runs[v.label]
            lost = job(run)["lost_work"]
            said = [fmt.duration(lost) if lost else "no work", fmt.clock(job(run)["finish"])]
            if key == "interval":
                said.append(f"{il.pauses(run)} pause")
            assert all(x in v.outcome for x in said), (v.label, said)
            for q in item.ask(runs, v.label):
                assert q.answer not in item.setup, (v.label, q.key)
    assert "40.0 min" in lessons.lesson("interval").summary  # Young/Daly at the best interval, as asked


def learn(**chosen: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in chosen.items():
        at.session_state[key] = value
    at.switch_page("app_pages/learn.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def test_the_lessons_questions_on_the_page_reveal_nothing_before_check() -> None:
    label = f"{il.FAILED}, checkpoint on_preempt"
    at = learn(lesson="unchosen", lesson_variant_unchosen=label)
    scope = f"unchosen_{label}"
    radio = at.radio(key=f"quiz_answer_{scope}_lost")
    assert radio.options == ["0 s", "15.0 min", "45.0 min"] and radio.value is None
    assert not at.success and not at.error  # nothing revealed before an answer
    radio.set_value("0 s").run()
    assert not at.success and not at.error  # choosing is not checking
    next(b for b in at.button if b.key == f"check_quiz_answer_{scope}_lost").click().run()
    assert [e.value for e in at.error] == ["Not quite: you said 0 s; the simulation says 45.0 min lost."]
    assert any("It kept 0 s, so 45.0 min of work is redone" in m.value for m in at.markdown)
    at.radio(key=f"quiz_answer_{scope}_worse").set_value("its node failing").run()
    next(b for b in at.button if b.key == f"check_quiz_answer_{scope}_worse").click().run()
    assert "Right: its node failing." in [s.value for s in at.success]
    outcome = lessons.lesson("unchosen").variant(label).outcome
    # the TE job's wait is still unchecked: what happened stays hidden
    assert not at.get("plotly_chart") and not any(outcome in m.value for m in at.markdown)
    at.number_input(key=f"quiz_answer_{scope}_te_wait").set_value(0.5).run()
    next(b for b in at.button if b.key == f"check_quiz_answer_{scope}_te_wait").click().run()
    assert any(outcome in m.value for m in at.markdown) and at.get("plotly_chart")


def test_lesson_g_draws_its_pauses_and_down_time() -> None:
    at = learn(lesson="interval", lesson_variant_interval="every 30.0 min")
    assert not at.get("plotly_chart")  # hidden until answered or shown
    next(b for b in at.button if b.key == "show_interval_every 30.0 min").click().run()
    names = {t["name"] for c in at.get("plotly_chart") if c.key.endswith("_gantt") for t in _data(c)}
    assert {"BE checkpoint", "node down: failure", "node failure", "lost work"} <= names


def _data(chart) -> list[dict]:  # type: ignore[no-untyped-def]
    import json

    return json.loads(chart.proto.spec)["data"]
