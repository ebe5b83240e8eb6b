"""The decision view's words and candidate table (dashboard.shared.decision_text), on the lesson scenario
where k8s and fitgpp choose different victims for the same TE job (sample_workloads/lessons/
which_victim.csv: fitgpp takes job 1 on node-0, k8s jobs 5 and 6 on node-1), and on the demo sample."""

from __future__ import annotations

from dashboard.learn import lessons
from dashboard.shared import decision_text, gantt_views
from dashboard.shared.decisions import records
from simcore.engine import simulate
from simcore.model import SimConfig
from simcore.policies.glossary import TERMS, TIE_BREAK
from simcore.presets import generate

ITEM = lessons.lesson("victim")
TABLE, CLUSTER = lessons.load(ITEM)
K8S, FITGPP = records(
    TABLE, CLUSTER, [(ITEM.variant("k8s").config, "fitgpp"), (ITEM.variant("fitgpp").config, "k8s")], lambda _: None
)


def test_words_say_what_was_taken_why_and_what_the_other_policy_took() -> None:
    chosen = {"time": 600.0, "job_id": "1", "node": "node-0"}
    record = decision_text.decision_for(FITGPP, chosen)
    assert record is not None and record["victims"] == ["1"]
    other = decision_text.decision_of_te_job(K8S, record["te_job"])
    lines = decision_text.decision_words(record, 2.0, 0.0, "k8s", other)
    assert lines[0] == "TE job 7 needed 2 GPUs and fitted on no node at day 1 00:10:00."
    assert lines[1] == (
        "fitgpp took node node-0: 1 victim (BE job 1), 0 s of work lost; chosen because it tied with node node-1 "
        "on victims (1); slack decided: 0 against 0.5 for node node-1 (lower is better). Slack is "
        f"{TERMS['slack'].meaning}. Principle: {TERMS['slack'].principle}."
    )
    assert lines[2] == (
        "On the same state (this instant's cluster), k8s would take BE jobs 5, 6 on node node-1: a different choice, "
        "decided by its earliest victim start."
    )
    assert lines[3].startswith("In k8s's own run on the same jobs (a second view")
    assert lines[3].endswith("took BE jobs 5, 6 on node node-1, where TE job 7 asked for room at the same instant.")


def test_k8s_words_name_its_own_criterion() -> None:
    record = decision_text.decision_for(K8S, {"time": 600.0, "job_id": "5"})
    assert record is not None
    line = decision_text.decision_words(record, 1.0, 0.0, "fitgpp", decision_text.decision_of_te_job(FITGPP, "7"))[1]
    # both jobs started within the first day: the instants read as clock times, not raw seconds
    assert "earliest victim start decided: day 1 00:01:20 against day 1 00:00:20 for node node-0 (higher" in line


def test_candidate_table_lists_every_weighed_node_best_first() -> None:
    table = decision_text.candidate_table(decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"}))
    assert table["node"].tolist() == ["node-0", "node-1"]
    assert table["would take"].tolist() == ["1", "4"]
    assert table["chosen"].tolist() == [True, False]
    assert table["slack"].tolist() == ["0", "0.5"]
    assert table["earliest start"].tolist() == ["day 1 00:00:00", "day 1 00:01:00"]


def test_glossary_defines_every_value_the_table_shows() -> None:
    record = decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"})
    table, terms = decision_text.candidate_table(record), decision_text.glossary(record)
    assert terms["value"].tolist() == [c for c in table.columns if c not in ("node", "would take", "chosen")]
    assert terms["meaning"].iloc[1] == TERMS["slack"].meaning


def test_tie_break_and_single_option_are_said() -> None:
    record = decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"})
    tied = {
        **record,
        "candidates": [record["candidates"][0], {**record["candidates"][0], "node": "node-1"}],
        "deciding": TIE_BREAK,
    }
    line = decision_text.decision_words(tied, 1.0, 0.0, "k8s", None)[1]
    assert "on victims (1), slack (0), lost work (0 s), past preemptions (0), earliest start (day 1 00:00:00)" in line
    assert f"tie break decided: {TERMS[TIE_BREAK].meaning}." in line
    alone = {**record, "candidates": record["candidates"][:1], "deciding": None}
    assert (
        "chosen because it was the only node where preempting made room."
        in (decision_text.decision_words(alone, 1.0, 0.0, "k8s", None)[1])
    )


def test_other_policy_that_never_preempted_is_said_so() -> None:
    record = decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"})
    assert "never had to preempt for TE job 7" in decision_text.decision_words(record, 1.0, 0.0, "priority", None)[3]
    no_victims = {**record, "victims": [], "node": None, "reason": "all capped by P"}
    assert decision_text.decision_words(record, 1.0, 0.0, "fitgpp", no_victims)[3].endswith(": all capped by P.")
    nothing = {**record, "same_state": no_victims}
    assert decision_text.decision_words(nothing, 1.0, 0.0, "fitgpp", None)[2] == (
        "On the same state, fitgpp would take no victim: all capped by P."
    )


def test_every_preemption_of_a_demo_run_finds_its_record() -> None:
    gen = generate("demo", 0, {"jobs": "300"})
    for policy in ("fitgpp", "k8s", "random"):
        result = simulate(gen.table, gen.cluster, SimConfig(policy=policy), record_decisions=True)
        events = result.events_frame
        pre = gantt_views.preemption_list(events)
        assert len(pre) > 0
        for _, row in pre.iterrows():
            record = decision_text.decision_for(result.decisions, row)
            assert record is not None and record["node"] == row["node"]
            assert decision_text.candidate_table(record)["chosen"].iloc[0]
