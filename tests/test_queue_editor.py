"""The sidebar's queues table as an editor (issue 34): its rows are the canonical text's cells, its edits
(changed cells, added and deleted rows) become canonical text through the queues file's own checks, a bad
cell is named by its row as the table shows it and its column, the demo's cap holds, and the ``teams``
preset's own queues are what the editor shows. AppTest cannot edit a ``st.data_editor``, so the editor's
``on_change`` is exercised here on a plain session; tests/test_browser_queues.py edits it in Chromium."""

from __future__ import annotations

import math
from typing import Any

import pytest
from helpers.apptest import APP, assert_clean
from streamlit.testing.v1 import AppTest

from dashboard.explore import queue_sidebar
from dashboard.shared import keys, queue_table, table_edits
from dashboard.shared.demo import DEMO, LOCAL
from dashboard.shared.scenario import Scenario
from simcore.core.model import QueueSpec
from simcore.core.queues import QUEUE_COLUMNS
from simcore.workload import presets

TABLE = "queue,gpu,borrow_limit,weight\nvision,56,72,1\nnlp,40,24,1\nresearch,32,0,2"
ROWS = (("vision", "56", "72", "1"), ("nlp", "40", "24", "1"), ("research", "32", "0", "2"))


def edit(rows: tuple[queue_table.Row, ...], edits: dict[str, Any], max_queues: int = 8) -> dict[str, Any]:
    """A session after the editor drawn over ``rows`` reported ``edits`` (its ``on_change``)."""
    editor = queue_table.editor_key(rows)
    session: dict[str, Any] = {keys.QUEUES.name: queue_table.text_of(queue_table.parse(TABLE, 8)), editor.name: edits}
    queue_table.edited(session, editor, rows, max_queues)
    return session


# --- rows, frame and text ------------------------------------------------------------------------------------


def test_the_rows_are_the_canonical_texts_cells_and_come_back_to_it() -> None:
    spec = queue_table.parse(TABLE, 8)
    assert queue_table.rows_of(spec) == ROWS and queue_table.rows_of(None) == ()
    assert queue_table.from_rows(ROWS, 8) == TABLE == queue_table.text_of(spec)
    inf = QueueSpec.of([("a", math.inf), ("b,c", 1.5, 2, 0.5)])
    assert queue_table.rows_of(inf) == (("a", "inf", "inf", "1"), ("b,c", "1.5", "2", "0.5"))
    assert queue_table.from_rows(queue_table.rows_of(inf), 8) == queue_table.text_of(inf)
    assert queue_table.from_rows((), 8) == ""  # no row: the workload's own queues, or none


def test_the_frame_holds_text_for_the_gpu_amounts_and_a_number_for_the_weight() -> None:
    frame = queue_table.frame((("a", "inf", "inf", "1"), ("b", "8", "0", "0.5")))
    assert list(frame.columns) == list(QUEUE_COLUMNS)
    assert frame["gpu"].tolist() == ["inf", "8"] and frame["borrow_limit"].tolist() == ["inf", "0"]
    assert frame["weight"].tolist() == [1.0, 0.5]
    assert list(queue_table.frame(()).columns) == list(QUEUE_COLUMNS) and queue_table.frame(()).empty


def test_cells_are_read_as_typed_then_written_canonically() -> None:
    typed = ((" vision ", "56.0", "", "1.0"), ("nlp", "INF", "24.0004", ""), ("x", "0.0001", "inf", "3"))
    assert queue_table.from_rows(typed, 8) == (
        "queue,gpu,borrow_limit,weight\nvision,56,inf,1\nnlp,inf,24.0004,1\nx,0.0001,inf,3"  # as a file reads them
    )


# --- the editor's edits ------------------------------------------------------------------------------------------


def test_an_edited_cell_becomes_the_tables_text() -> None:
    session = edit(ROWS, {"edited_rows": {2: {"borrow_limit": "96", "weight": 0.5}, 0: {"gpu": "inf"}}})
    assert keys.QUEUES.read(session) == (
        "queue,gpu,borrow_limit,weight\nvision,inf,72,1\nnlp,40,24,1\nresearch,32,96,0.5"
    )


def test_an_added_row_is_a_new_queue_and_a_deleted_row_is_gone() -> None:
    added = {"queue": "speech", "gpu": "8", "borrow_limit": "inf", "weight": 1.0}
    session = edit(ROWS, {"added_rows": [added], "deleted_rows": [1]})
    assert keys.QUEUES.read(session) == (
        "queue,gpu,borrow_limit,weight\nvision,56,72,1\nresearch,32,0,2\nspeech,8,inf,1"
    )
    # the editor's defaults for a new row (gpu 0, borrow_limit inf, weight 1) with only its name typed
    session = edit(ROWS, {"added_rows": [{"queue": "new", "gpu": "0", "borrow_limit": "inf", "weight": 1.0}]})
    assert keys.QUEUES.read(session).endswith("\nnew,0,inf,1")
    assert keys.QUEUES.read(edit(ROWS, {"deleted_rows": [0, 1, 2]})) == ""  # no row: the workload's own, or none


@pytest.mark.parametrize(
    ("edits", "said"),
    [
        ({"edited_rows": {1: {"gpu": "lots"}}}, "row 2, column gpu: not a number: 'lots'"),
        ({"edited_rows": {0: {"borrow_limit": "-1"}}}, "row 1, column borrow_limit: must be >= 0"),
        ({"edited_rows": {2: {"weight": 0.0}}}, "row 3, column weight: must be a finite number > 0"),
        ({"edited_rows": {2: {"gpu": None}}}, "row 3, column gpu: empty"),
        ({"added_rows": [{"gpu": "0", "borrow_limit": "inf", "weight": 1.0}]}, "row 4, column queue: empty"),
        ({"edited_rows": {1: {"queue": "vision"}}}, "row 2, column queue: duplicate queue 'vision' (first at row 1)"),
        ({"edited_rows": {0: {"gpu": "=1+1"}}}, "row 1, column gpu: not a number"),
    ],
)
def test_a_bad_cell_is_named_by_its_row_as_shown_and_its_column_and_the_table_stays(
    edits: dict[str, Any], said: str
) -> None:
    session = edit(ROWS, edits)
    assert keys.QUEUES.read(session) == TABLE  # the runs keep the last table without a problem
    editor = queue_table.editor_key(ROWS)
    problem = queue_table.pending_problem(session, editor, ROWS, 8)
    assert problem is not None and problem.startswith("the queues table: refused") and said in problem
    assert queue_table.pending_problem({}, editor, ROWS, 8) is None  # no edits: nothing to say


def test_the_demo_caps_the_rows_and_the_cells() -> None:
    extra = [{"queue": f"q{i}", "gpu": "1", "borrow_limit": "inf", "weight": 1.0} for i in range(DEMO.max_queues - 2)]
    session = edit(ROWS, {"added_rows": extra}, DEMO.max_queues)
    assert keys.QUEUES.read(session) == TABLE
    editor = queue_table.editor_key(ROWS)
    problem = queue_table.pending_problem(session, editor, ROWS, DEMO.max_queues)
    assert problem == f"the queues table: {DEMO.max_queues + 1} queues, more than the {DEMO.max_queues} allowed here"
    assert keys.QUEUES.read(edit(ROWS, {"added_rows": extra[:-1]}, DEMO.max_queues)).count("\n") == DEMO.max_queues
    # the editor bounds a typed cell's length; the table's text keeps its own limit for what gets past it
    assert queue_table.pending_problem({editor.name: {"edited_rows": {0: {"queue": "v" * 25_000}}}}, editor, ROWS, 8)
    huge = queue_table.pending_problem({editor.name: {"edited_rows": {0: {"gpu": "1e300"}}}}, editor, ROWS, 8)
    assert huge is not None and "row 1, column gpu: must be >= 0 and <=" in huge


def test_an_edit_of_a_changed_table_is_a_new_editor() -> None:
    editor = queue_table.editor_key(ROWS)
    assert queue_table.editor_key(ROWS) == editor and editor.name.startswith("queues_editor_")
    assert queue_table.editor_key(ROWS[:2]) != editor  # drawn afresh: the old edits are not applied twice
    assert not editor.name.startswith(keys.EXPLORE)  # not a scenario widget: never in the link
    assert table_edits.apply_edits(ROWS, {"edited_rows": {7: {"gpu": "1"}, 0: {"colour": "red"}}}, QUEUE_COLUMNS) == [
        list(r) for r in ROWS
    ]


# --- the link and the preset's own queues -------------------------------------------------------------------


def test_the_link_keeps_the_canonical_text_as_before() -> None:
    """A link made before the editor (the text box's table) opens the same table and is written back unchanged."""
    old = {"source": "generate", "preset": "teams", "queues": TABLE}
    scenario, warnings = Scenario.from_query(old)
    assert warnings == [] and scenario.queues == TABLE and scenario.to_query()["queues"] == TABLE
    # the editor's rows of that scenario give back the same text
    assert queue_table.from_rows(queue_table.rows_of(queue_table.parse(scenario.queues, LOCAL.max_queues)), 8) == TABLE
    loose, _ = Scenario.from_query({"queues": "queue,gpu\n vision ,56.0\n\nnlp,inf"})
    assert loose.queues == "queue,gpu,borrow_limit,weight\nvision,56,inf,1\nnlp,inf,inf,1"


@pytest.mark.parametrize("preset", list(presets.PRESETS))
def test_the_editor_shows_the_queues_each_preset_generates(preset: str) -> None:
    gen = {"jobs": "40"}
    assert queue_table.own_queues("generate", preset, gen) == presets.generate(preset, 0, gen).cluster.queues


def test_own_queues_follow_the_presets_parameters_and_only_a_generated_workload_has_them() -> None:
    gen = {"quota_gpu": "64,64", "borrow_limit": "0,64", "weight": "1,3", "team_jobs_w": "0.5,0.5"}
    gen |= {"te_share": "0.3,0.3", "peak_start": "9,9", "peak_end": "17,17", "peak_factor": "2,2"}
    spec = queue_table.own_queues("generate", "teams", gen)
    assert spec == presets.generate("teams", 0, {**gen, "jobs": "40"}).cluster.queues
    assert spec is not None and [q.weight for q in spec.queues] == [1, 3]
    assert queue_table.own_queues("sample", "teams", {}) is None
    assert queue_table.own_queues("generate", "teams", {"quota_gpu": "1,2"}) is None  # refused: the run says why


# --- the page ---------------------------------------------------------------------------------------------------


def _queues_editor(at: AppTest) -> Any:
    return next(d.value for d in at.sidebar.dataframe if list(d.value.columns) == list(QUEUE_COLUMNS))


def test_the_teams_preset_shows_its_own_queues_in_the_editor_and_a_table_replaces_them() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"source": "generate", "preset": "teams", "g.jobs": "200", "policies": "k8s"})
    at.run()
    assert_clean(at)
    shown = _queues_editor(at)
    assert shown["queue"].tolist() == ["vision", "nlp", "research"] and shown["gpu"].tolist() == ["56", "40", "32"]
    assert any("teams preset's own queues" in c.value for c in at.sidebar.caption)
    assert "queues" not in at.query_params  # shown, not the table's: the link stays as it was
    at.session_state[keys.QUEUES.name] = TABLE  # what a valid edit puts there (test_an_edited_cell...)
    at.run()
    assert_clean(at)
    assert _queues_editor(at)["borrow_limit"].tolist() == ["72", "24", "0"]
    assert at.query_params["queues"] in (TABLE, [TABLE])
    assert not any("teams preset's own queues" in c.value for c in at.sidebar.caption)


def test_a_pending_bad_cell_is_said_under_the_editor_and_the_runs_keep_the_table() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"source": "generate", "preset": "teams", "g.jobs": "200", "policies": "k8s"})
    at.run()
    own = presets.generate("teams", 0, {"jobs": 200}).cluster.queues
    editor = queue_table.editor_key(queue_table.rows_of(own))
    at.session_state[editor.name] = {"edited_rows": {1: {"gpu": "lots"}}, "added_rows": [], "deleted_rows": []}
    at.run()  # AppTest keeps the edits (it cannot send them as the browser does: no on_change)
    assert not at.exception
    (warning,) = [w.value.replace("\\", "") for w in at.sidebar.warning]
    assert "row 2, column gpu: not a number: 'lots'" in warning and "last table without a problem" in warning
    assert "queues" not in at.query_params
    assert queue_sidebar.COLUMN_HELP.keys() == set(QUEUE_COLUMNS)
    # every row of the preset's own deleted: the editor says the preset's stay in use
    at.session_state[editor.name] = {"edited_rows": {}, "added_rows": [], "deleted_rows": [0, 1, 2]}
    at.run()
    assert not at.sidebar.warning
    assert any("the preset's three stay in use" in c.value for c in at.sidebar.caption)
