"""Predict, then reveal: the questions of a run, the seeded exercise generator, the knob mapping
table, and the Learn page answering a question right and wrong (AppTest)."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers.paths import APP, ROOT
from streamlit.testing.v1 import AppTest

from dashboard.learn import exercises, knob_map, lessons
from dashboard.runs import compute
from simcore.core.errors import UserError


def lesson_questions(key: str, label: str) -> dict[str, exercises.Question]:
    item = lessons.lesson(key)
    variant = item.variant(label)
    table, cluster = lessons.inputs(item, variant)  # with the variant's queues, if it has some
    run = compute.full_run(table, cluster, variant.config)
    found = exercises.evidences(
        table, cluster, {v.label: v.config for v in item.variants if v.queues == variant.queues}
    )
    return {q.key: q for q in exercises.questions(run.jobs, run.events, label, found[label])}


def exercise_questions(ex: exercises.Exercise, policy: str) -> dict[str, exercises.Question]:
    run = ex.runs[policy]
    return {q.key: q for q in exercises.questions(run.jobs, run.events, policy, ex.evidence[policy])}


# --- the questions of a run (answers derived by hand from the lesson files) ------------------------


def test_lesson_a_questions_come_from_the_run() -> None:
    # job 1 runs when TE job 3 arrives (job 2 waits): the choices are job 1 and nobody, under every variant
    fifo = lesson_questions("hol", "fifo")
    assert fifo["victim"].options == ("1", exercises.NOBODY) and fifo["victim"].accepted == (exercises.NOBODY,)
    assert "fifo never looks for victims" in fifo["victim"].explanation
    assert float(fifo["te_wait"].accepted[0]) == (3600 + 3600 - 120) / 60  # behind both BE jobs
    assert "no node has room" in fifo["te_wait"].explanation  # the rule that kept it waiting
    fitgpp = lesson_questions("hol", "fitgpp")
    assert fitgpp["victim"].options == ("1", exercises.NOBODY) and fitgpp["victim"].accepted == ("1",)
    assert float(fitgpp["te_wait"].accepted[0]) == lessons.lesson("hol").variant("fitgpp").config.grace / 60
    assert "its victims (1) are checkpointing in their grace period" in fitgpp["te_wait"].explanation


def test_lesson_b_asks_which_of_the_six_and_the_policies_differ() -> None:
    # which_victim.csv on two_nodes.yaml (2 nodes of 32 CPU, 256 GiB, 4 GPUs): node-0 holds job 1
    # (16 CPU, 128 GiB, 2 GPUs, started at 0 s) and jobs 2, 3 (8, 64, 1 each; 20 s, 40 s), full;
    # node-1 holds job 4 (16, 128, 2; 60 s) and jobs 5, 6 (4, 32, 1 each; 80 s, 100 s), leaving
    # 8 CPU and 64 GiB free. All six BE jobs run 7200 s, so all six run when TE job 7 (16, 128, 2)
    # arrives at 600 s: the options are jobs 1 to 6.
    # k8s reprieves the oldest job of each node while the TE job still fits: that leaves the two
    # 1-GPU jobs on either node, and it takes node-1's (started 80 s against 20 s): jobs 5 and 6,
    # signalled at once, so either one counts as "preempted first".
    # fitgpp wants one victim: job 1 or job 4 alone makes room; job 1 frees exactly 16, 128, 2
    # (slack 0), job 4 leaves node-1's 8 CPU and 64 GiB over: job 1.
    k8s, fitgpp = lesson_questions("victim", "k8s")["victim"], lesson_questions("victim", "fitgpp")["victim"]
    assert k8s.options == fitgpp.options == ("1", "2", "3", "4", "5", "6", exercises.NOBODY)
    assert k8s.accepted == ("5", "6") and fitgpp.accepted == ("1",)
    assert exercises.is_right(k8s, "5") and exercises.is_right(k8s, "6") and not exercises.is_right(k8s, "1")
    assert exercises.is_right(fitgpp, "1") and not exercises.is_right(fitgpp, "5")
    # explained by the key value that decided, against each alternative, with both values; the sets it
    # weighed shown with it
    assert "slack 0 against 0.5" in fitgpp.explanation and "victims 1 against 2 (fewer is better)" in fitgpp.explanation
    assert "earliest victim start day 1 00:01:20 against day 1 00:00:20 (later is better)" in k8s.explanation
    assert fitgpp.record is not None and fitgpp.record["victims"] == ["1"]


def test_a_wait_is_right_within_a_minute_or_five_percent() -> None:
    q = lesson_questions("hol", "fifo")["te_wait"]  # 118 min: 5% is 5.9 min
    assert exercises.is_right(q, 118.0) and exercises.is_right(q, 112.5) and not exercises.is_right(q, 111.0)
    short = lesson_questions("hol", "fitgpp")["te_wait"]  # 0.5 min: within 1 minute
    assert exercises.is_right(short, 1.5) and not exercises.is_right(short, 2.0)


# --- the generator -----------------------------------------------------------------------------------


def test_generator_is_deterministic_for_a_seed() -> None:
    a, b = exercises.generate(11), exercises.generate(11)
    assert a.table.to_frame().equals(b.table.to_frame()) and a.cluster == b.cluster
    for p in exercises.POLICIES:
        assert a.runs[p].events.equals(b.runs[p].events)
        assert exercise_questions(a, p) == exercise_questions(b, p)
    assert a.limits.equals(b.limits)
    assert not exercises.generate(12).table.to_frame().equals(a.table.to_frame())


@pytest.mark.parametrize("seed", [0, 1, 2, 3, 5, 8, 13, 21, 34, 55, 89, 144, exercises.SEED_MAX])
def test_every_exercise_preempts_and_stays_small(seed: int) -> None:
    ex = exercises.generate(seed)
    assert 1 <= ex.tries <= exercises.MAX_TRIES
    assert len(ex.cluster.nodes) <= 2 and len(ex.table) <= 4 * 2 + 2
    for policy in ex.runs:
        asked = exercise_questions(ex, policy)
        assert set(asked) == {"victim", "te_wait"}
        assert set(asked["victim"].accepted) <= set(asked["victim"].options)
        # at least two running BE jobs to choose from, besides "nobody" (issue 33)
        assert len(exercises.plausible(asked["victim"])) >= 2 and asked["victim"].options[-1] == exercises.NOBODY
    # every BE GPU is taken when the first TE job arrives: the BE requests fill the cluster exactly
    be_gpus = ex.table.request[~np.asarray(ex.table.is_te), 2].sum()
    assert be_gpus == sum(n.capacity.gpu for n in ex.cluster.nodes)


def test_limits_table_alone_is_a_lower_bound() -> None:
    for seed in range(20):
        lim = exercises.generate(seed).limits.set_index("TE job")
        alone = lim["wait under TE jobs alone (s)"]
        for column in lim.columns:
            assert (alone <= lim[column]).all(), (seed, column)
        assert f"wait under {exercises.BOUND_LABEL} (s)" in lim.columns


def test_seeds_are_range_checked() -> None:
    assert exercises.parse_seed("42") == 42
    with pytest.raises(UserError, match="exercise='x'.*whole number"):
        exercises.parse_seed("x")
    with pytest.raises(UserError, match="between 0 and"):
        exercises.parse_seed(str(exercises.SEED_MAX + 1))
    with pytest.raises(UserError, match="between 0 and"):
        exercises.generate(-1)


# --- the knob mapping table ----------------------------------------------------------------------------


def test_policies_doc_holds_the_knob_map_of_the_module() -> None:
    text = (ROOT / "docs" / "policies.md").read_text()
    assert knob_map.doc_block() in text
    body = [line for line in knob_map.markdown().splitlines() if line.startswith("| ")]
    assert len(body) == 1 + len(knob_map.ROWS)
    assert all(line.count(" | ") == 1 + len(knob_map.PRODUCTS) for line in body)
    names = knob_map.markdown()
    for verified in (
        "GraceTime",
        "PreemptExemptTime",
        "PreemptMode",
        "terminationGracePeriodSeconds",
        "PriorityClass",
        "withinClusterQueue",
        "preempt-min-runtime",
    ):
        assert f"`{verified}" in names


# --- the page --------------------------------------------------------------------------------------------


def learn(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for k, v in (query or {}).items():
        at.query_params[k] = v
    at.switch_page("app_pages/learn.py").run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def check(at: AppTest, scope: str, question: str) -> None:
    next(b for b in at.button if b.key == f"check_quiz_answer_{scope}_{question}").click().run()


def feedback(at: AppTest) -> tuple[list[str], list[str]]:
    return [s.value for s in at.success], [e.value for e in at.error]


def test_a_lesson_question_answered_wrong_then_right() -> None:
    at = learn()
    at.selectbox(key="lesson").set_value("victim").run()
    at.radio(key="lesson_variant_victim").set_value("k8s").run()
    assert feedback(at) == ([], [])  # nothing revealed before an answer
    # k8s signals jobs 5 and 6 (see the derivation above); job 1 is fitgpp's victim, not k8s's
    at.radio(key="quiz_answer_victim_k8s_victim").set_value("1").run()
    assert feedback(at) == ([], [])  # choosing is not checking
    check(at, "victim_k8s", "victim")
    answer = "job 5 and job 6 (any one of them counts)"
    assert feedback(at) == ([], [f"Not quite: you said job 1; the simulation says {answer}."])
    said = " ".join(m.value for m in at.markdown)
    assert "k8s takes job 5, job 6 on node node-1 for TE job 7" in said
    assert "earliest victim start day 1 00:01:20 against day 1 00:00:20 (later is better)" in said
    sets = next(d.value for d in at.dataframe if "against the chosen set" in d.value.columns)
    assert sets["would take"].tolist()[0] == "5, 6"  # the sets k8s weighed, its choice first
    at.radio(key="quiz_answer_victim_k8s_victim").set_value("6").run()
    check(at, "victim_k8s", "victim")
    assert feedback(at) == ([f"Right: {answer}."], [])


def _charts(at: AppTest) -> int:
    return len(at.get("plotly_chart"))


def test_what_happened_is_hidden_until_every_question_is_checked() -> None:
    """Lesson (a) under fifo (issue 33): before Check neither the Gantt, the outcome table nor the words
    saying what happens are on the page, and every question offers at least two choices; once both
    questions are checked they are, with the variant's outcome."""
    at = learn()
    fifo = lessons.lesson("hol").variant("fifo")
    said = " ".join(m.value for m in at.markdown)
    assert _charts(at) == 0 and fifo.outcome not in said and "118" not in said
    assert not [d for d in at.dataframe if "variant" in d.value.columns]  # no outcome table
    assert all(len(r.options) >= 2 for r in at.radio if r.key.startswith("quiz_answer_"))
    assert any(b.label == "Show what happened" for b in at.button)
    at.radio(key="quiz_answer_hol_fifo_victim").set_value(exercises.NOBODY).run()
    check(at, "hol_fifo", "victim")
    assert _charts(at) == 0  # one question checked of two: still hidden
    at.number_input(key="quiz_answer_hol_fifo_te_wait").set_value(100.0).run()
    check(at, "hol_fifo", "te_wait")
    said = " ".join(m.value for m in at.markdown)
    assert fifo.outcome in said and _charts(at) >= 2  # the GPU grid and the Gantt
    assert [d for d in at.dataframe if "variant" in d.value.columns]
    # the other variants join the Gantt and the table once answered, one by one
    at.radio(key="lesson_variant_hol").set_value("priority").run()
    assert _charts(at) == 0
    next(b for b in at.button if b.label == "Show what happened").click().run()
    table = next(d.value for d in at.dataframe if "variant" in d.value.columns)
    assert table["variant"].tolist() == ["fifo", "priority"]


def test_no_lesson_text_gives_an_answer_before_its_check() -> None:
    """The setup a visitor reads above the questions never says who is preempted or how long the TE job
    waits: those words are each variant's outcome (and the lesson's summary), shown after its check."""
    for item in lessons.LESSONS:
        for v in item.variants:
            asked = lesson_questions(item.key, v.label)
            assert v.outcome not in item.setup
            for job_id in set(asked["victim"].accepted) - {exercises.NOBODY}:
                assert not re.search(rf"(preempts|takes|stops) job {job_id}\b", item.setup), (item.key, v.label)
            assert asked["te_wait"].answer not in item.setup, (item.key, v.label)
        assert not item.summary or item.summary not in item.setup


def test_an_exercise_from_the_link_answered_right_and_wrong() -> None:
    ex = exercises.generate(7)
    run = ex.runs["fitgpp"]
    wait = float(run.jobs.loc[run.jobs["job_class"] == "TE", "wait"].iloc[0]) / 60
    at = learn({exercises.SEED_PARAM: "7"})
    assert at.number_input(key="exercise_seed").value == 7
    assert not [d for d in at.dataframe if "TE job" in d.value.columns]  # the limits give the waits: hidden
    scope = "ex7_fitgpp"
    at.number_input(key=f"quiz_answer_{scope}_te_wait").set_value(wait + 30).run()
    check(at, scope, "te_wait")
    assert len(at.error) == 1 and at.error[0].value.startswith(f"Not quite: you said {wait + 30:g} min")
    at.number_input(key=f"quiz_answer_{scope}_te_wait").set_value(wait).run()
    check(at, scope, "te_wait")
    assert [s.value for s in at.success] == [f"Right: {exercise_questions(ex, 'fitgpp')['te_wait'].answer}."]
    for policy in exercises.POLICIES:
        asked = exercise_questions(ex, policy)
        at.radio(key=f"quiz_answer_ex7_{policy}_victim").set_value(asked["victim"].accepted[0]).run()
        check(at, f"ex7_{policy}", "victim")
        at.number_input(key=f"quiz_answer_ex7_{policy}_te_wait").set_value(wait).run()
        check(at, f"ex7_{policy}", "te_wait")
    # every question checked: the exercise's Gantt and its limits are shown
    assert _charts(at) >= 1 and [d for d in at.dataframe if "TE job" in d.value.columns]


def test_new_exercise_draws_a_seed_and_a_bad_link_is_refused() -> None:
    at = learn()
    assert at.number_input(key="exercise_seed").value is None
    next(b for b in at.button if b.label == "New exercise").click().run()
    seed = at.number_input(key="exercise_seed").value
    assert seed is not None and 0 <= seed <= exercises.SEED_MAX
    assert at.query_params[exercises.SEED_PARAM] == str(seed)  # the link reproduces it
    bad = learn({exercises.SEED_PARAM: "-3"})
    assert any("between 0 and" in e.value for e in bad.error)
