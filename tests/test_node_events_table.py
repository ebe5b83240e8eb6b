"""Explore's node-events table and the three knobs of rule 12 (issue 35): the rows the session keeps, the
editor's edits applied to them, their link form (read as untrusted), the check against the cluster with
the file's own messages, the budget that counts them, and the page in AppTest."""

from __future__ import annotations

import math

import pytest
from helpers.apptest import APP, assert_clean, chart_spec
from streamlit.testing.v1 import AppTest

from dashboard.runs import budget
from dashboard.shared import keys, node_events_table
from dashboard.shared.demo import DEMO, LOCAL, Refused
from dashboard.shared.scenario import Scenario
from simcore.core.downtime import NodeWindow
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig

CLUSTER = ClusterSpec.uniform(2, 8, 64, 4)  # nodes n0, n1
ROWS = (("n0", "3600", "7200", "failure"), ("n1", "100", "200", "maintenance"))


# --- the editor's edits ------------------------------------------------------------------------------------


def test_edits_change_delete_and_add_rows_by_their_first_positions() -> None:
    edits = {
        "edited_rows": {0: {"end": 9000.0}, 1: {"node": " n0 "}},
        "deleted_rows": [1],
        "added_rows": [{"node": "n1", "start": 5.5, "kind": "failure"}],
    }
    # row 1 was edited, then deleted; the added row's missing end is an empty cell (checked before any run)
    assert node_events_table.apply_edits(ROWS, edits) == (
        ("n0", "3600", "9000", "failure"),
        ("n1", "5.5", "", "failure"),
    )
    assert node_events_table.apply_edits(ROWS, {}) == ROWS


def test_the_editors_callback_keeps_the_edited_rows_and_a_new_table_is_a_new_editor() -> None:
    session: dict[str, object] = {keys.NODE_EVENTS.name: ROWS}
    editor = node_events_table.editor_key(ROWS)
    session[editor.name] = {"deleted_rows": [0]}
    node_events_table.edited(session, editor)
    assert keys.NODE_EVENTS.read(session) == (ROWS[1],)
    assert node_events_table.editor_key((ROWS[1],)) != editor  # drawn afresh: the old edits are not applied twice
    assert node_events_table.editor_key(ROWS) == editor


def test_the_editors_frame_holds_numbers_and_known_kinds_only() -> None:
    frame = node_events_table.frame((("n0", "60", "x", "reboot"),))
    assert frame["start"].tolist() == [60.0] and math.isnan(frame["end"].iloc[0]) and frame["kind"].tolist() == [None]
    assert list(node_events_table.frame(()).columns) == ["node", "start", "end", "kind"]


# --- the link ----------------------------------------------------------------------------------------------


def test_rows_travel_in_a_link_and_come_back_equal() -> None:
    odd = (('a,"b"', "0", "1e3", "failure"), ("n0", "", "", ""))  # a name with a comma and quotes; empty cells
    assert node_events_table.from_link(node_events_table.to_link(odd)) == odd
    scenario = Scenario(node_events=ROWS, knobs=SimConfig(mtbf=86400.0, repair=600.0, checkpoint_cost=30.0))
    query = scenario.to_query()
    assert {"node_events", "mtbf", "repair", "checkpoint_cost"} <= set(query)
    back, warnings = Scenario.from_query(query)
    assert warnings == [] and back.node_events == ROWS
    assert (back.knobs.mtbf, back.knobs.repair, back.knobs.checkpoint_cost) == (86400.0, 600.0, 30.0)


@pytest.mark.parametrize(
    ("text", "why"),
    [
        ("n0,1,2", "row 1 has 3 cells, not 4"),
        ("n0,1,2,failure\nn1,1,2,failure,extra", "row 2 has 5 cells"),
        ("n0,1,2," + "x" * 201, "row 1 has a cell longer than 200 characters"),
        ("\n".join(["n0,1,2,failure"] * (LOCAL.max_node_events + 1)), "at most 100,000 rows"),
    ],
)
def test_a_links_rows_of_the_wrong_shape_are_ignored_with_a_notice(text: str, why: str) -> None:
    scenario, warnings = Scenario.from_query({"node_events": text, "P": "1"})
    assert scenario.node_events == () and scenario.knobs.P == 1  # the rest of the link still applies
    assert len(warnings) == 1 and warnings[0].startswith("link parameter node_events=") and why in warnings[0]


@pytest.mark.parametrize(("param", "text"), [("mtbf", "0"), ("mtbf", "-5"), ("repair", "0"), ("checkpoint_cost", "-1")])
def test_a_links_knob_out_of_its_range_is_ignored(param: str, text: str) -> None:
    scenario, warnings = Scenario.from_query({param: text})
    assert scenario.knobs == SimConfig() and len(warnings) == 1 and param in warnings[0]


# --- checked against the cluster, as a node-events file is ------------------------------------------------


def test_valid_rows_become_the_clusters_down_windows() -> None:
    events = node_events_table.check(ROWS, CLUSTER)
    assert events is not None and events.windows == (
        NodeWindow("n0", 3600.0, 7200.0, "failure"),
        NodeWindow("n1", 100.0, 200.0, "maintenance"),
    )
    assert node_events_table.check((), CLUSTER) is None


def test_every_bad_cell_is_named_by_row_and_column_and_the_clusters_nodes_are_listed() -> None:
    rows = (("n9", "10", "20", "failure"), ("n0", "", "20", "failure"), ("n1", "50", "40", "reboot"))
    with pytest.raises(UserError) as caught:
        node_events_table.check(rows, CLUSTER)
    text = str(caught.value)
    assert text.startswith("node events table: refused (4 problems; the table's first row is row 1):")
    assert "row 1, column node: no node of the cluster is named 'n9'" in text
    assert "row 2, column start: must be a number of seconds (got '')" in text
    assert "row 3, column end: must be after start (40 <= 50)" in text
    assert "row 3, column kind: must be failure or maintenance (got 'reboot')" in text
    assert text.endswith("(the cluster's nodes: n0, n1)")


def test_the_table_as_a_file_is_what_the_command_line_reads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from simcore.workload.node_events import load_node_events

    path = tmp_path / node_events_table.FILE_NAME
    path.write_text(node_events_table.csv_text(ROWS))
    assert load_node_events(path, CLUSTER) == node_events_table.check(ROWS, CLUSTER)
    command = budget.explore_command(Scenario(node_events=ROWS))
    assert command.endswith("--node-events node_events.csv")


# --- counted in the budget ----------------------------------------------------------------------------------


def _table(submits: list[float], durations: list[float]) -> JobTable:
    import numpy as np

    n = len(submits)
    return JobTable(
        job_id=np.array([str(i) for i in range(n)], dtype=object),
        submit_time=np.array(submits),
        duration=np.array(durations),
        request=np.ones((n, 3)),
        is_te=np.zeros(n, dtype=bool),
    )


def test_the_expected_down_windows_are_the_rows_and_the_random_failures_over_the_horizon() -> None:
    table = _table([0.0, 1000.0], [500.0, 2000.0])  # submits over 1000 s, the longest job 2000 s: horizon 3000 s
    scenario = Scenario(node_events=ROWS, knobs=SimConfig(mtbf=900.0, repair=100.0))
    # 2 rows + 4 nodes x 3000 s / (900 + 100) s = 2 + 12
    assert budget.down_windows(scenario, table, 4) == 14
    assert budget.down_windows(Scenario(node_events=ROWS), table, 4) == 2  # mtbf = inf: no random failure
    # the work spread over the nodes, when longer than the span: 4 jobs of 1000 s at once on 1 node, 4000 s
    assert budget.random_windows(_table([0.0] * 4, [1000.0] * 4), 1, 900.0, 100.0) == 4
    assert budget.random_windows(_table([0.0] * 4, [1000.0] * 4), 4, 900.0, 100.0) == 4  # 4 x the 1000 s span


def test_demo_mode_refuses_more_rows_than_its_cap_and_counts_each_window_at_its_cost() -> None:
    rows = (("n0", "1", "2", "failure"),) * (DEMO.max_node_events + 1)
    with pytest.raises(Refused) as caught:
        budget.check_scenario(Scenario(node_events=rows), DEMO)
    assert f"{DEMO.max_node_events + 1} rows of the node-events table: more than {DEMO.max_node_events}" in str(
        caught.value
    )
    scenario = Scenario(policies=("fifo", "fitgpp"), baseline="fifo")
    budget.check_run(scenario, 1000, 4, DEMO, windows=0)  # 2,000 job-runs: well within
    # each window counts DOWN_WINDOW_JOB_RUNS job-runs per policy: (1000 + w x 40) x 2 > 200,000 from w = 2,476
    budget.check_run(scenario, 1000, 4, DEMO, windows=2475)
    with pytest.raises(Refused, match=r"job-runs \(\(jobs \+ down windows x their cost\) x policies x seeds\)"):
        budget.check_run(scenario, 1000, 4, DEMO, windows=2476)


# --- the page ---------------------------------------------------------------------------------------------


LINK = {
    "node_events": "demo-0,3600,7200,failure\ndemo-1,20000,30000,maintenance",
    "mtbf": "864000",
    "repair": "1800",
    "checkpoint_cost": "30",
    "checkpoint": "periodic",
    "tab": "Gantt",
}


def test_a_link_fills_the_table_and_the_knobs_and_the_run_has_the_windows() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(LINK)
    at.run()
    assert_clean(at)
    # the node-events editor (the sidebar's other editor is the queues table's): the link's rows
    table = next(d.value for d in at.sidebar.dataframe if "kind" in d.value.columns)
    assert table["node"].tolist() == ["demo-0", "demo-1"] and table["start"].tolist() == [3600.0, 20000.0]
    assert at.text_input(key=keys.KNOB("mtbf").name).value == "864000"
    assert at.number_input(key=keys.KNOB("repair").name).value == 1800.0
    assert at.number_input(key=keys.KNOB("checkpoint_cost").name).value == 30.0
    labels = {e.label for e in at.sidebar.expander}
    assert "Failures and maintenance" in labels
    names = {t["name"] for t in chart_spec(at, "gantt")["data"]}
    assert {"node down: failure", "node down: maintenance", "BE checkpoint"} <= names
    assert dict(at.query_params)["node_events"] == LINK["node_events"]  # the URL keeps them


def test_rows_put_in_the_session_go_into_the_link_and_a_bad_row_stops_the_run_with_its_row_and_column() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.run()
    assert_clean(at)
    at.session_state[keys.NODE_EVENTS.name] = (("demo-0", "100", "50", "failure"),)
    at.run()
    assert not at.exception and not at.metric  # nothing ran
    (error,) = at.error
    assert "node events table" in error.value and "row 1, column end" in error.value.replace("\\", "")
    assert dict(at.query_params)["node_events"] == "demo-0,100,50,failure"
