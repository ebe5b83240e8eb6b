"""Lesson (h), "quota, borrowing and reclaim" (issue 34): its event logs derived by hand, its questions
read from the runs, and the Learn page answering them (AppTest).

quota_reclaim.csv on two_nodes.yaml (2 nodes of 32 CPU, 256 GiB, 4 GPUs): vision (quota 4), nlp and
research (quota 2 each), weights 1, no borrow limit. At 0 s vision's job 1 (2 GPUs, 30 min), nlp's jobs
2 (2 GPUs) and 3 (1 GPU) and research's 4 (2) and 5 (1) start: 8 GPUs, nlp and research each hold 3
(1 borrowed). At 600 s nlp's 6 and research's 7 (2 GPUs each) wait: no room. At 1800 s job 1 ends:
2 GPUs free on node-0. Neither waiting job is within quota (3 + 2 > 2), so they go by share: nlp
(3 - 2) / 1 = 1, research 1: a tie, the policy's order: job 6. With research's weight 2 its share is
0.5 < 1: job 7. With nlp's borrow limit 1 nlp may hold 3 at most (3 + 2 > 2 + 1): job 7. At 2400 s
vision's TE job 8 (2 GPUs) arrives, within its quota (0 + 2 <= 4); the only node with room to make is
node-0 (job 2 of nlp and the job started at 1800 s), and the borrower there that started last is
taken: under k8s job 6 (nlp, running 5 > 2, eligible: 5 - 2 + 2 > 2), job 7 in the two other k8s
variants. fifo never preempts: job 8 waits until job 6 ends at 5400 s.
"""

from __future__ import annotations

from helpers.paths import APP
from streamlit.testing.v1 import AppTest

from dashboard.learn import exercises, lessons, queue_questions
from dashboard.runs import compute

LESSON = lessons.lesson("quota")


def run_of(label: str) -> compute.Run:
    variant = LESSON.variant(label)
    return compute.full_run(*lessons.load_variant(LESSON, variant), variant.config)


def asked(label: str) -> dict[str, exercises.Question]:
    run = run_of(label)
    assert run.usage is not None and run.ledger is not None
    variant = LESSON.variant(label)
    assert variant.queues is not None
    found = queue_questions.questions(run.jobs, run.events, run.usage, run.ledger, variant.queues, label)
    return {q.key: q for q in found}


def starts(run: compute.Run) -> list[tuple[float, str, str]]:
    ev = run.events[run.events["event"].isin(["start", "preempt"])]
    return [(float(t), str(e), str(j)) for t, e, j in zip(ev["time"], ev["event"], ev["job_id"], strict=True)]


def test_the_variants_event_logs() -> None:
    at_zero = [(0.0, "start", j) for j in ("1", "2", "3", "4", "5")]
    assert starts(run_of("k8s")) == [
        *at_zero,
        (1800.0, "start", "6"),
        (2400.0, "preempt", "6"),
        (2430.0, "start", "8"),  # after the 30 s grace
        (3630.0, "start", "6"),
        (6690.0, "start", "7"),
    ]
    for label in ("k8s, research weight 2", "k8s, nlp borrow limit 1"):
        log = starts(run_of(label))
        assert log[5:8] == [(1800.0, "start", "7"), (2400.0, "preempt", "7"), (2430.0, "start", "8")], label
    assert starts(run_of("k8s, nlp borrow limit 1"))[-1] == (7200.0, "start", "6")  # nlp back under 3 GPUs
    assert starts(run_of("fifo")) == [*at_zero, (1800.0, "start", "6"), (5400.0, "start", "8"), (6600.0, "start", "7")]


def test_who_borrows_the_freed_gpus() -> None:
    for label, job in (("k8s", "6"), ("k8s, research weight 2", "7"), ("k8s, nlp borrow limit 1", "7"), ("fifo", "6")):
        q = asked(label)["first_borrow"]
        assert q.options == ("6", "7") and q.accepted == (job,), label
        assert q.prompt == f"Under **{label}**, GPUs free up at day 1 00:30:00. Which waiting job gets them?"
    weighted = asked("k8s, research weight 2")["first_borrow"].explanation
    assert "**nlp** holds 3 GPUs (quota 2, borrow limit no limit, weight 1: share 1)" in weighted
    assert "**research** holds 3 GPUs (quota 2, borrow limit no limit, weight 2: share 0.5)" in weighted
    limited = asked("k8s, nlp borrow limit 1")["first_borrow"].explanation
    assert "**nlp** holds 3 GPUs (quota 2, borrow limit 1, weight 1: share 1)" in limited


def test_whose_gpus_the_reclaim_takes() -> None:
    k8s = asked("k8s")["reclaim"]
    assert k8s.options == ("vision", "nlp", "research", queue_questions.NOBODY) and k8s.accepted == ("nlp",)
    assert k8s.answer == "nlp's"
    assert "Running GPUs before: vision 0, nlp 5; after: vision 0, nlp 3" in k8s.explanation
    assert asked("k8s, research weight 2")["reclaim"].accepted == ("research",)
    fifo = asked("fifo")["reclaim"]
    assert fifo.accepted == (queue_questions.NOBODY,) and "never preempt" in fifo.explanation


def test_the_lesson_on_the_learn_page() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.switch_page("app_pages/learn.py").run()
    at.selectbox(key="lesson").set_value("quota").run()
    at.radio(key="lesson_variant_quota").set_value("k8s, research weight 2").run()
    assert not at.exception and not at.error
    scope = "quota_k8s, research weight 2"
    reclaim = at.radio(key=f"quiz_answer_{scope}_reclaim")
    assert reclaim.options == ["vision", "nlp", "research", queue_questions.NOBODY]  # names, not "job nlp"
    assert not at.success and not [e for e in at.error]  # nothing revealed before Check
    reclaim.set_value("nlp").run()
    next(b for b in at.button if b.key == f"check_quiz_answer_{scope}_reclaim").click().run()
    assert [e.value for e in at.error] == ["Not quite: you said nlp; the simulation says research's."]
    assert any("Running GPUs before: vision 0, research 5" in m.value for m in at.markdown)
    at.radio(key=f"quiz_answer_{scope}_first_borrow").set_value("7").run()
    next(b for b in at.button if b.key == f"check_quiz_answer_{scope}_first_borrow").click().run()
    assert [s.value for s in at.success] == ["Right: job 7."]
