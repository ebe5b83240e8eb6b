"""The decision view's words and candidate table (dashboard.shared.decision_text), on the lesson scenario
where k8s and fitgpp choose different victims for the same TE job (sample_workloads/lessons/
which_victim.csv: fitgpp takes job 1 on node-0, k8s jobs 5 and 6 on node-1), and on the demo sample."""

from __future__ import annotations

from helpers.paths import APP
from streamlit.testing.v1 import AppTest

from dashboard.learn import lessons
from dashboard.shared import decision_text, gantt_views
from dashboard.shared.decisions import records
from simcore.analysis import accounting, contrast
from simcore.core.model import SimConfig
from simcore.engine import simulate
from simcore.policies.glossary import TERMS, TIE_BREAK
from simcore.workload.presets import generate

ITEM = lessons.lesson("victim")
TABLE, CLUSTER = lessons.load(ITEM)
K8S, FITGPP = records(
    TABLE,
    CLUSTER,
    [(ITEM.variant("k8s").config, ("fitgpp",)), (ITEM.variant("fitgpp").config, ("k8s",))],
    lambda _: None,
)


def test_words_say_what_was_taken_why_by_contrast_and_what_the_other_policy_took() -> None:
    chosen = {"time": 600.0, "job_id": "1", "node": "node-0"}
    record = decision_text.decision_for(FITGPP, chosen)
    assert record is not None and record["victims"] == ["1"]
    other = decision_text.decision_of_te_job(K8S, record["te_job"])
    lines = decision_text.decision_words(record, 2.0, 0.0, "k8s", other)
    assert lines[:4] == [
        "TE job 7 needed 2 GPUs and fitted on no node at day 1 00:10:00.",
        "fitgpp took node node-0: 1 victim (BE job 1), 0 s of work lost.",
        # job 1 frees exactly the TE job's 16 CPU, 128 GiB, 2 GPUs; job 4 leaves node-1's free 8 CPU and
        # 64 GiB over: 8/32 + 64/256 = 0.5 (tests/test_exercises.py derives the lesson's state)
        "Against node node-1's best set (BE job 4), the runner-up: tied on victims (1); slack 0 against 0.5 "
        f"({contrast.NORM_WORDS}; lower is better).",
        "On the same state, k8s would take BE jobs 5, 6 on node node-1 (earliest victim start decided); fitgpp did "
        f"not take it: victims 1 against 2 (fewer is better). Principle: {TERMS['victims'].principle}.",
    ]
    assert lines[4].startswith("In k8s's own run on the same jobs (a second view")
    assert lines[4].endswith("took BE jobs 5, 6 on node node-1, where TE job 7 asked for room at the same instant.")
    assert len(lines) == 5


def test_k8s_words_name_its_own_criterion_in_clock_times() -> None:
    record = decision_text.decision_for(K8S, {"time": 600.0, "job_id": "5"})
    assert record is not None
    lines = decision_text.decision_words(record, 1.0, 0.0, "fitgpp", decision_text.decision_of_te_job(FITGPP, "7"))
    # both nodes need 2 victims; node-1's youngest started at 80 s, node-0's at 20 s: clock times, not seconds
    assert lines[2] == (
        "Against node node-0's best set (BE jobs 2, 3), the runner-up: tied on victims (2); earliest victim start "
        "day 1 00:01:20 against day 1 00:00:20 (later is better)."
    )


def test_candidate_table_has_a_row_per_set_and_says_who_takes_it() -> None:
    table = decision_text.candidate_table(decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"}))
    assert table["node"].tolist() == ["node-0", "node-1", "node-1"]
    assert table["would take"].tolist() == ["1", "4", "5, 6"]  # k8s's set, which fitgpp did not weigh, last
    assert table["chosen"].tolist() == [True, False, False]
    assert table["victims"].tolist() == ["1", "1", "2"]
    assert table["slack"].tolist() == ["0", "0.5", "0"]
    assert table["earliest start"].tolist() == ["day 1 00:00:00", "day 1 00:01:00", "day 1 00:01:20"]
    assert table["taken on this state by"].tolist() == ["fitgpp", "", "k8s"]
    assert table["against the chosen set"].tolist() == [
        "",
        "slack 0 against 0.5 (lower is better)",
        "victims 1 against 2 (fewer is better)",
    ]


def test_glossary_defines_every_value_the_table_shows() -> None:
    record = decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"})
    table, terms = decision_text.candidate_table(record), decision_text.glossary(record)
    assert terms["value"].tolist() == [c for c in table.columns if c not in decision_text.SET_COLUMNS]
    assert terms["meaning"].iloc[1] == TERMS["slack"].meaning


def test_tie_break_and_single_option_are_said() -> None:
    record = decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"})
    plain = {k: v for k, v in record.items() if k not in ("same_state", "sets")}
    tied = {**plain, "candidates": [plain["candidates"][0], {**plain["candidates"][0], "node": "node-1"}]}
    line = decision_text.decision_words(tied, 1.0, 0.0, "", None)[2]
    assert (
        "tied on victims (1), slack (0), lost work (0 s), past preemptions (0), earliest start (day 1 00:00:00)" in line
    )
    assert line.endswith(f"the tie-break chose: {TERMS[TIE_BREAK].meaning}.")
    alone = {**plain, "candidates": plain["candidates"][:1]}
    assert decision_text.decision_words(alone, 1.0, 0.0, "", None)[2] == (
        "It was the only set fitgpp weighed: no other node's removal made room."
    )


def test_other_policy_that_never_preempted_is_said_so() -> None:
    record = decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"})
    assert "never had to preempt for TE job 7" in decision_text.decision_words(record, 1.0, 0.0, "priority", None)[-1]
    no_victims = {**record, "victims": [], "node": None, "reason": "all capped by P"}
    assert decision_text.decision_words(record, 1.0, 0.0, "fitgpp", no_victims)[-1].endswith(": all capped by P.")
    nothing = {**record, "same_state": {"fitgpp": no_victims}}
    assert decision_text.decision_words(nothing, 1.0, 0.0, "", None)[-1] == (
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


# --- what each choice costs when a gang is among the options ---------------------------------------

#: a hand-built k8s decision on the gang lesson's state (sample_workloads/lessons/gang_victim.csv at 2980 s,
#: checkpoint none): BE job 5 (1 worker of 4 GPUs, running since 0) on node-4, BE gang 6 (4 workers of
#: 1 GPU, since 600) on node-0..3; fitgpp on the same state also takes job 5
GANG = {
    "time": 2980.0,
    "te_job": "7",
    "policy": "k8s",
    "node": "node-4",
    "victims": ["5"],
    "key": [["victims", "min"], ["earliest_victim_start", "max"]],
    "candidates": [
        {"node": "node-4", "job_id": ["5"], "victims": 1, "earliest_victim_start": 0.0, "chosen": True,
         "workers": 1, "holds": ["node-4"], "lost_now": [2980.0]},
        {"node": "node-0", "job_id": ["6"], "victims": 4, "earliest_victim_start": 600.0, "chosen": False,
         "workers": 4, "holds": ["node-0", "node-1", "node-2", "node-3"], "lost_now": [2380.0]},
    ],
    "deciding": "victims",
    "reason": None,
    "same_state": {"fitgpp": {
        "node": "node-4", "victims": ["5"], "deciding": "victims",
        "candidates": [{"node": "node-4", "job_id": ["5"], "workers": 1, "holds": ["node-4"], "lost_now": [2980.0]}],
    }},
}  # fmt: skip
GANG_JOBS = {"5": (4000.0, 1), "6": (1000.0, 4), "7": (1000.0, 1)}  # GPU units (thousandths) per worker, workers


def test_gang_costs_are_workers_nodes_and_gpu_seconds_derived_by_hand() -> None:
    costs = decision_text.option_costs(GANG, GANG_JOBS)
    # job 5: 2980 s lost x 4 GPUs x 1 worker = 11920 GPU-s; gang 6: 2380 s x 1 GPU x 4 workers = 9520 GPU-s
    assert [(c.label, c.node, c.jobs, c.workers, c.holds, c.gpu_seconds) for c in costs] == [
        ("chosen by k8s", "node-4", ("5",), 1, ("node-4",), 11920.0),
        ("runner-up", "node-0", ("6",), 4, ("node-0", "node-1", "node-2", "node-3"), 9520.0),
        ("fitgpp on the same state", "node-4", ("5",), 1, ("node-4",), 11920.0),
    ]
    words = decision_text.cost_words(costs)
    assert words[0] == (
        "Chosen by k8s: BE job 5 via node node-4 stops 1 worker on 1 node (node-4) and throws away 3.3 h of GPU time."
    )
    assert words[1] == (
        "Runner-up: BE job 6 via node node-0 stops 4 workers on 4 nodes (node-0, node-1, node-2, node-3) and "
        "throws away 2.6 h of GPU time."
    )
    table = decision_text.cost_table(costs)
    assert table["workers stopped"].tolist() == [1, 4, 1] and table["nodes touched"].tolist() == [1, 4, 1]
    assert table["GPU time lost"].tolist() == ["3.3 h", "2.6 h", "3.3 h"]
    glossary = decision_text.cost_glossary()
    assert glossary["value"].tolist() == [c for c in table.columns if c not in ("option", "node", "would take")]


def test_gang_costs_only_when_a_gang_is_among_the_options() -> None:
    # no gang field at all (a workload without gangs: the records are unchanged)
    assert decision_text.option_costs(decision_text.decision_for(FITGPP, {"time": 600.0, "job_id": "1"}), {}) == []
    # a state with a gang whose shown options are all single jobs
    single = {**GANG, "candidates": GANG["candidates"][:1]}
    assert decision_text.option_costs(single, GANG_JOBS) == []


def test_gang_costs_of_the_engine_records_match_the_runs_accounting() -> None:
    item = lessons.lesson("gang")
    table, cluster = lessons.load(item)
    config = item.variant("k8s").config
    (mine,) = records(table, cluster, [(config, ("fitgpp",))], lambda _: None)
    record = decision_text.decision_for(mine, {"time": 2980.0, "job_id": "5"})
    assert record is not None
    costs = decision_text.option_costs(record, decision_text.job_gpus(table))
    run = simulate(table, cluster, config)
    # the chosen set's figure is the run's own accounting of that preemption (one definition)
    assert costs[0].gpu_seconds == accounting.summary(run)["gpu_seconds_lost"] == 11920.0
    assert [c.workers for c in costs] == [1, 4, 1] and costs[1].holds == ("node-0", "node-1", "node-2", "node-3")


def test_explore_shows_the_gang_costs_in_words_and_a_table() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update(source="upload", cluster="upload", policies="k8s,fitgpp", checkpoint="none", tab="Gantt")
    at.run()
    files = lessons.LESSON_DIR
    at.file_uploader(key="upload_cluster").set_value(
        ("five_nodes.yaml", (files / "five_nodes.yaml").read_bytes(), "text/yaml")
    ).run()
    at.file_uploader(key="upload_workload").set_value(
        ("gang_victim.csv", (files / "gang_victim.csv").read_bytes(), "text/csv")
    ).run()
    at.selectbox(key="x_gantt_policy").set_value("k8s").run()
    next(b for b in at.button if b.label == "Next preemption").click().run()
    assert not at.exception and not at.error
    text = "\n".join(t.value for t in at.text)
    # k8s stops job 5 (3.3 h of GPU time); its runner-up is the gang; lrtp and fitgpp (s = inf), asked on the
    # same state, also take job 5 (one worker against the gang's four)
    assert "Chosen by k8s: BE job 5 via node node-4 stops 1 worker on 1 node (node-4)" in text
    assert "Runner-up: BE job 6 via node node-0 stops 4 workers on 4 nodes" in text
    assert "Fitgpp on the same state: BE job 5 via node node-4" in text
    assert "What each choice costs" in " ".join(m.value for m in at.markdown)
    costs = next(d.value for d in at.dataframe if "workers stopped" in d.value.columns)
    assert costs["GPU time lost"].tolist() == ["3.3 h", "2.6 h", "3.3 h", "3.3 h"]
    assert costs["option"].tolist()[2:] == ["lrtp on the same state", "fitgpp on the same state"]
