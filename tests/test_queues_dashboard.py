"""The dashboard's queues (issue 34): the sidebar's table, the link, the budget, the Queues tab's views
and charts (read back by their traces), and the pages through AppTest."""

from __future__ import annotations

import math

import numpy as np
import pytest
from helpers.apptest import APP, assert_clean, chart_spec
from streamlit.testing.v1 import AppTest

from dashboard.explore import explore_queues, queue_charts, queue_views
from dashboard.runs import budget
from dashboard.shared import queue_table
from dashboard.shared.demo import DEMO, Refused
from dashboard.shared.scenario import Scenario
from simcore.analysis import metrics, queue_metrics
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, Queue, QueueSpec, SimConfig
from simcore.engine import simulate
from simcore.workload import presets

TABLE = "queue,gpu,borrow_limit,weight\nvision,56,72,1\nnlp,40,24,1\nresearch,32,0,2"
TEAMS = {"source": "generate", "preset": "teams", "g.jobs": "300", "policies": "fifo,k8s"}


def app(**query: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(query)
    return at.run()


# --- the table's text ---------------------------------------------------------------------------------


def test_the_table_reads_as_a_queues_file_and_writes_back_the_same_text() -> None:
    spec = queue_table.parse(TABLE, 8)
    assert spec == QueueSpec.of([("vision", 56, 72, 1), ("nlp", 40, 24, 1), ("research", 32, 0, 2)])
    assert queue_table.text_of(spec) == TABLE
    assert queue_table.parse("  \n", 8) is None and queue_table.text_of(None) == ""
    inf = queue_table.text_of(QueueSpec.of([("a", math.inf), ("b,c", 1.5, 2, 0.5)]))
    assert inf == 'queue,gpu,borrow_limit,weight\na,inf,inf,1\n"b,c",1.5,2,0.5'  # a name with a comma is quoted
    assert queue_table.parse(inf, 8) == QueueSpec.of([("a", math.inf), ("b,c", 1.5, 2, 0.5)])


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("queue,gpu,borrow_limit,weight\na,-1,0,1", "row 2, column gpu"),
        ("queue,gpu,borrow_limit,weight\na,1,0,0", "row 2, column weight"),
        ("queue,gpu,borrow_limit,weight\na,1,0,1\na,2,0,1", "duplicate queue 'a'"),
        ("queue,gpu,limit\na,1,0", "unknown column"),
        ("queue,gpu\na,=1+1", "not a number"),
    ],
)
def test_a_bad_table_is_refused_naming_row_and_column(text: str, said: str) -> None:
    with pytest.raises(UserError, match=said) as err:
        queue_table.parse(text, 8)
    assert str(err.value).startswith("the queues table: refused")


def test_the_table_is_capped() -> None:
    rows = "\n".join(f"q{i},1" for i in range(9))
    with pytest.raises(UserError, match="9 queues, more than the 8 allowed here"):
        queue_table.parse("queue,gpu\n" + rows, 8)
    with pytest.raises(UserError, match="characters"):
        queue_table.parse("queue,gpu\n" + "a" * 30_000 + ",1", 8)


def test_an_uploads_teams_start_with_the_gpus_shared_equally() -> None:
    spec = queue_table.proposal(["a", "b", "c"], 128)
    assert [(q.name, q.gpu, q.borrow_limit, q.weight) for q in spec.queues] == [
        ("a", 44, math.inf, 1),
        ("b", 42, math.inf, 1),
        ("c", 42, math.inf, 1),
    ]


# --- the scenario, its link and its budget ----------------------------------------------------------------


def test_the_link_carries_the_table_and_drops_a_bad_one_with_a_warning() -> None:
    s = Scenario(source="generate", preset="teams", queues=TABLE)
    query = s.to_query()
    assert query["queues"] == TABLE
    back, warnings = Scenario.from_query(query)
    assert back == s and warnings == []
    bad, warnings = Scenario.from_query({"queues": "queue,gpu\na,nan"})
    assert bad.queues == "" and len(warnings) == 1
    assert warnings[0].startswith("link parameter queues=") and "row 2, column gpu" in warnings[0]
    assert "queues" not in Scenario().to_query()


def test_the_command_writes_the_table_quoted_and_passes_it() -> None:
    s = Scenario(source="generate", preset="teams", queues="queue,gpu\nx;rm -rf ~,8")
    lines = budget.explore_command(s).splitlines()
    assert lines[0] == "printf '%s\\n' queue,gpu 'x;rm -rf ~,8' > queues.csv"
    assert lines[-1].endswith("--queues queues.csv")
    own = budget.explore_command(Scenario(source="generate", preset="teams")).splitlines()
    assert own[-1].endswith("--cluster cluster.csv --queues workload.queues.csv")  # generate writes it
    assert "--queues" not in budget.explore_command(Scenario())


def test_runs_with_queues_count_three_times_and_the_rows_are_capped() -> None:
    s = Scenario(source="sample", policies=("fifo", "priority", "k8s", "lrtp", "random", "fitgpp"))
    jobs = 12_000  # x 6 policies: 72,000 job-runs without queues, 216,000 with them (over 200,000)
    assert jobs * 6 <= DEMO.budget < jobs * 6 * budget.QUEUES_COST and jobs <= DEMO.max_jobs
    budget.check_run(s, jobs, 4, DEMO, queued=False)
    with pytest.raises(Refused, match=r"216,000 job-runs \(jobs x policies x seeds x 3 with queues\)"):
        budget.check_run(s, jobs, 4, DEMO, queued=True)
    many = "queue,gpu\n" + "\n".join(f"q{i},1" for i in range(DEMO.max_queues + 1))
    with pytest.raises(Refused, match=f"{DEMO.max_queues + 1} queues: more than {DEMO.max_queues}"):
        budget.check_scenario(Scenario(queues=many), DEMO)


def test_down_windows_and_queues_both_count_in_the_budget() -> None:
    """A run with down windows and queues: (jobs + windows x DOWN_WINDOW_JOB_RUNS) x policies x seeds x QUEUES_COST."""
    s = Scenario(source="sample", policies=("fifo", "fitgpp"), baseline="fifo")
    assert DEMO.budget == 200_000 and budget.DOWN_WINDOW_JOB_RUNS == 40 and budget.QUEUES_COST == 3
    budget.check_run(s, 1000, 4, DEMO, windows=808, queued=True)  # (1000 + 808 x 40) x 2 x 3 = 199,920
    label = r"200,160 job-runs \(\(jobs \+ down windows x their cost\) x policies x seeds x 3 with queues\)"
    with pytest.raises(Refused, match=label):
        budget.check_run(s, 1000, 4, DEMO, windows=809, queued=True)  # (1000 + 809 x 40) x 2 x 3 = 200,160


# --- the views and charts, on a run with queues ---------------------------------------------------------


@pytest.fixture(scope="module")
def teams_run() -> tuple:
    gen = presets.generate("teams", 0, {"jobs": 300})
    result = simulate(gen.table, gen.cluster, SimConfig(policy="k8s"))
    return result, metrics.summarize(result)


def test_the_queue_table_shows_each_queues_block(teams_run: tuple) -> None:
    result, summary = teams_run
    frame = queue_views.queue_frame({"k8s": summary})
    assert frame["queue"].tolist() == ["vision", "nlp", "research"]
    for _, row in frame.iterrows():
        block = summary["queues"][row["queue"]]
        assert row["quota (GPUs)"] == block["gpu"] and row["jobs"] == block["jobs"]
        assert row["BE p95 slowdown"] == block["classes"]["BE"]["slowdown"]["p95"]
        assert row["TE p95 wait (h)"] == block["classes"]["TE"]["wait"]["p95"] / 3600
        assert row["reclaimed from it"] == block["preemptions_suffered"]["reclaim"]
        assert row["reclaims it made"] == block["preemptions_caused"]["reclaim"]
        paid = sum(block[c]["reclaim"] for c in ("gpu_seconds_lost", "gpu_seconds_grace", "gpu_seconds_restore"))
        assert row["GPU-h paid to reclaims"] == pytest.approx(paid / 3600)
    # every reclaim made is one suffered by another queue
    assert frame["reclaims it made"].sum() == frame["reclaimed from it"].sum() > 0


def test_an_unlimited_quota_is_inf_and_an_empty_class_nan() -> None:
    gen = presets.generate("demo", 0, {"jobs": 20, "te_share": 0})
    cluster = gen.cluster.with_queues(QueueSpec((Queue("default", math.inf),)))
    summary = metrics.summarize(simulate(gen.table, cluster, SimConfig(policy="fifo")))
    row = queue_views.queue_frame({"fifo": summary}).iloc[0]
    assert math.isinf(row["quota (GPUs)"]) and math.isinf(row["borrow limit (GPUs)"])
    assert math.isnan(row["TE p95 slowdown"]) and row["BE p50 slowdown"] >= 1


def test_the_usage_chart_draws_each_queues_steps_against_its_quota(teams_run: tuple) -> None:
    result, _ = teams_run
    usage = queue_metrics.usage_over_time(result)
    fig = queue_charts.usage_figure(usage, {"vision": 72, "nlp": 24, "research": 96})
    held = [t for t in fig.data if t.name == "GPUs held"]
    quota = [t for t in fig.data if t.name == "quota"]
    limit = [t for t in fig.data if t.name == "quota + borrow limit"]
    assert len(held) == len(quota) == len(limit) == 3
    for trace, name in zip(held, ("vision", "nlp", "research"), strict=True):
        part = usage[usage["queue"] == name]
        assert trace.line.shape == "hv"  # held from each instant to the next
        assert list(trace.y) == part["used"].tolist()
        assert np.allclose(trace.x, part["time"].to_numpy() / 3600)
    assert [t.y[0] for t in quota] == [56, 40, 32] and [t.y[0] for t in limit] == [128, 64, 128]
    assert [a.text for a in fig.layout.annotations] == [
        "vision: quota 56 GPUs",
        "nlp: quota 40 GPUs",
        "research: quota 32 GPUs",
    ]


def test_the_ledger_timeline_joins_who_gained_to_who_paid(teams_run: tuple) -> None:
    result, _ = teams_run
    rows = queue_views.ledger_rows(queue_metrics.ledger_frame(result))
    records = queue_metrics.ledger_records(result)
    assert [r["victims"] for r in rows] == [r["victims"] for r in records]
    assert [r["victim_gpus"] for r in rows] == [r["victim_gpus"] for r in records]
    assert [r["running_after"] for r in rows] == [r["running_after"] for r in records]
    fig = queue_charts.ledger_figure(rows, ["vision", "nlp", "research"])
    link, gained, paid = fig.data
    assert list(gained.y) == [r["queue"] for r in rows]
    assert list(gained.x) == [r["time"] / 3600 for r in rows]
    expected_paid = [q for r in rows for q in dict.fromkeys(r["victim_queues"])]
    assert list(paid.y) == expected_paid
    assert len(link.x) == 3 * len(expected_paid)  # one segment per (decision, queue that paid)
    first = rows[0]
    assert gained.text[0] == queue_views.ledger_words(first)
    table = queue_views.ledger_table(rows)
    assert table["GPUs taken"].tolist() == [sum(r["victim_gpus"]) for r in rows]
    assert table["paid"].iloc[0] == queue_views.paid_text(first)


def test_the_ledger_row_in_words() -> None:
    row = {
        "time": 90061.0,
        "cause": "reclaim",
        "queue": "vision",
        "job": "7",
        "job_class": "BE",
        "victims": ["3", "4"],
        "victim_queues": ["nlp", "research"],
        "victim_gpus": [8.0, 0.5],
        "running_before": {"vision": 40.0, "nlp": 48.0, "research": 40.5},
        "running_after": {"vision": 40.0, "nlp": 40.0, "research": 40.0},
    }
    assert queue_views.ledger_words(row) == (
        "At day 2 01:01:01, vision's BE job 7 reclaimed its quota: job 3 of nlp (8 GPUs), "
        "job 4 of research (0.5 GPUs) stopped."
    )
    assert queue_views.running_text(row) == "vision 40 -> 40; nlp 48 -> 40; research 40.5 -> 40"


def test_the_queue_key_separates_runs_with_and_without_queues() -> None:
    from dashboard.runs.runkeys import cluster_hash

    cluster = ClusterSpec.uniform(2, 8, 64, 8)
    with_q = cluster.with_queues(QueueSpec.of([("a", 8)]))
    assert cluster_hash(cluster) != cluster_hash(with_q)
    assert cluster_hash(with_q) != cluster_hash(cluster.with_queues(QueueSpec.of([("a", 8, 0)])))


# --- the pages ------------------------------------------------------------------------------------------


def test_the_teams_preset_shows_its_queues_tab() -> None:
    at = app(**TEAMS, tab="Queues")
    assert_clean(at)
    assert "teams" in at.selectbox(key="x_preset").options
    assert any("Queues (the workload's own): vision: quota 56 GPUs" in c.value.replace("\\", "") for c in at.caption)
    frame = at.dataframe[0].value
    assert frame["policy"].tolist() == ["fifo"] * 3 + ["k8s"] * 3
    assert (frame.loc[frame["policy"] == "fifo", "reclaims it made"] == 0).all()  # fifo never preempts
    usage = chart_spec(at, "queues_usage")
    assert [t["name"] for t in usage["data"]].count("GPUs held") == 3
    at.selectbox(key="queues_policy").set_value("k8s").run()
    assert_clean(at)
    ledger = at.dataframe[1].value
    assert len(ledger) > 0 and set(ledger["cause"]) <= {"reclaim", "te_first"}


def test_a_ledger_row_opens_its_decision_and_its_jobs() -> None:
    at = app(**TEAMS, tab="Queues")
    at.selectbox(key="queues_policy").set_value("k8s").run()
    table = at.dataframe[1]
    first = table.value.iloc[0]
    at.session_state["ledger_table"] = {"selection": {"rows": [0], "columns": []}}
    at.run()
    assert_clean(at)
    assert any("**Why this victim?**" in m.value for m in at.markdown)
    gained = next(b for b in at.button if b.key == "ledger_open_gained")
    assert gained.label == f"Open job {first['gained: job']} (gained) in One job"
    gained.click().run()
    assert_clean(at)
    assert at.session_state["x_tab"] == "One job" and at.session_state["one_job"] == first["gained: job"]


def test_the_sidebar_table_changes_the_runs_and_the_link() -> None:
    at = app(**TEAMS, tab="Queues")
    before = chart_spec(at, "queues_usage")
    at.session_state["x_queues"] = TABLE  # research may no longer borrow (the editor's text: test_queue_editor.py)
    at.run()
    assert_clean(at)
    assert at.query_params["queues"] in (TABLE, [TABLE])
    assert any("Queues (the sidebar's table)" in c.value.replace("\\", "") for c in at.caption)
    usage = chart_spec(at, "queues_usage")
    assert usage != before
    research = [t for t in usage["data"] if t["name"] == "GPUs held"][2]
    assert max(research["y"]) <= 32  # quota 32 + borrow limit 0


def test_a_bad_table_is_said_and_the_last_good_one_kept() -> None:
    at = app(**TEAMS, tab="Queues")
    at.session_state["x_queues"] = "queue,gpu\nvision,lots"  # never from the editor, which checks it first
    at.run()
    assert not at.exception
    assert any("row 2, column gpu" in w.value.replace("\\", "") for w in at.warning)
    assert "queues" not in at.query_params


UPLOAD = (
    b"job_id,submit_time,duration,cpu,mem_gb,gpu,job_class,queue\n"
    b"1,0,600,1,1,8,BE,blue\n2,10,600,1,1,8,BE,blue\n3,20,60,1,1,8,TE,red\n4,30,600,1,1,8,BE,red\n"
)


def test_an_upload_naming_queues_is_offered_a_table_and_honours_it() -> None:
    at = app(source="upload", cluster="custom", nodes="2", node_gpu="8", policies="fifo,k8s")
    at.file_uploader(key="upload_workload").set_value(("teams.csv", UPLOAD, "text/csv")).run()
    assert_clean(at)
    offer = next(i for i in at.info if "names 2 queues" in i.value)
    assert "blue, red" in offer.value.replace("\\", "")
    next(b for b in at.button if b.key == "queues_fill").click().run()
    assert_clean(at)
    assert at.session_state["x_queues"] == "queue,gpu,borrow_limit,weight\nblue,8,inf,1\nred,8,inf,1"
    at.session_state["x_tab"] = "Queues"
    at.run()
    frame = at.dataframe[0].value
    assert frame["queue"].tolist() == ["blue", "red"] * 2
    assert frame.loc[frame["policy"] == "k8s", "reclaims it made"].tolist() == [0, 1]  # red's TE takes blue's GPUs
    at.session_state["x_queues"] = "queue,gpu\nblue,8"
    at.run()
    said = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "2 job(s) name a queue that the queues table does not define (known: blue)" in said
    assert "job '3', column queue" in said and "job '4', column queue" in said


def test_a_run_without_queues_says_how_to_get_them() -> None:
    at = app(tab="Queues")  # the default sample: no queues
    assert_clean(at)
    assert [i.value for i in at.info if "no queues" in i.value] == [explore_queues.NO_QUEUES]
    assert not at.get("plotly_chart") or all(c.key != "queues_usage" for c in at.get("plotly_chart"))
