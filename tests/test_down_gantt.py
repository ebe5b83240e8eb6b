"""Down time on the Gantt and in a lesson's instants (issue 35): the run's down stretches and lost work by
cause (simcore.analysis.interruptions), the bars across a down node's lanes, the drain and failure marks on
the bars they end, the checkpoint pauses, and the lesson's story and GPU grid at a node's failure, all on a
run derived by hand.

One node n0 of 4 GPUs, one BE job a (4 GPUs, 3000 s, submitted at 0), fifo, checkpoint on_preempt, grace
30 s, restore 60 s; n0 fails over [1000, 1500) and [1400, 2000) (one down time [1000, 2000)) and is
maintained over [2500, 2600). a runs from 0, fails at 1000 (no save yet: 1000 s lost), restarts at 2000
(restore to 2060), is signalled at 2500 - 30 = 2470 (its save keeps its 410 s), released at 2500, restarts
at 2600 and finishes at 2600 + 60 + 2590 = 5250.
"""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.learn import lesson_charts, lesson_views
from dashboard.runs import compute
from dashboard.shared import gantt_charts, gantt_views
from simcore.analysis import interruptions
from simcore.core.downtime import NodeEvents
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.engine import simulate

WINDOWS = [("n0", 1000.0, 1500.0, "failure"), ("n0", 1400.0, 2000.0, "failure"), ("n0", 2500.0, 2600.0, "maintenance")]
CLUSTER = ClusterSpec.uniform(1, 16, 128, 4).with_node_events(NodeEvents.of(WINDOWS))
JOBS = JobTable(
    job_id=np.array(["a"], dtype=object),
    submit_time=np.array([0.0]),
    duration=np.array([3000.0]),
    request=np.array([[4.0, 32.0, 4.0]]),
    is_te=np.array([False]),
)
RUN = compute.full_run(JOBS, CLUSTER, SimConfig(policy="fifo"))


def test_the_run_is_the_hand_derived_one() -> None:
    ev = RUN.events
    assert list(zip(ev["time"], ev["job_id"], ev["event"], strict=True)) == [
        (0.0, "a", "submit"),
        (0.0, "a", "start"),
        (1000.0, "", "node_down"),
        (1000.0, "a", "fail"),
        (2000.0, "", "node_up"),
        (2000.0, "a", "start"),
        (2470.0, "a", "drain"),
        (2500.0, "a", "release"),
        (2500.0, "", "node_down"),
        (2600.0, "", "node_up"),
        (2600.0, "a", "start"),
        (5250.0, "a", "finish"),
    ]


def test_down_stretches_join_overlapping_windows_and_name_their_kinds() -> None:
    assert RUN.down.to_dict("records") == [
        {"node": "n0", "start": 1000.0, "end": 2000.0, "kind": "failure"},
        {"node": "n0", "start": 2500.0, "end": 2600.0, "kind": "maintenance"},
    ]
    both = ClusterSpec.uniform(1, 16, 128, 4).with_node_events(
        NodeEvents.of([("n0", 1000.0, 1500.0, "maintenance"), ("n0", 1200.0, 9000.0, "failure")])
    )
    run = compute.full_run(JOBS, both, SimConfig(policy="fifo"))
    # one down time from 1000 s, made by both windows; the job restarts at 9000 s and finishes at 9000 + 60 + 2970
    assert run.down.to_dict("records") == [
        {"node": "n0", "start": 1000.0, "end": 9000.0, "kind": "failure+maintenance"}
    ]
    assert interruptions.node_hours_down(simulate(JOBS, both, SimConfig(policy="fifo"))) == {
        "n0": pytest.approx(8000 / 3600)
    }


def test_lost_work_names_each_interruptions_cause() -> None:
    assert RUN.lost.to_dict("records") == [
        {"job_id": "a", "time": 1000.0, "lost": 1000.0, "cause": "failure"},
        {"job_id": "a", "time": 2470.0, "lost": 0.0, "cause": "drain"},
    ]
    plain = compute.full_run(JOBS, ClusterSpec.uniform(1, 16, 128, 4), SimConfig(policy="fifo"))
    assert plain.lost.empty and list(plain.lost.columns) == list(interruptions.LOST_COLUMNS)
    assert plain.down.empty


def _view(window_h: tuple[float, float]) -> gantt_views.GanttView:
    return gantt_views.gantt_view(
        {"fifo": (RUN.segments, RUN.events)},
        CLUSTER,
        ["n0"],
        window_h,
        lost={"fifo": RUN.lost},
        down={"fifo": RUN.down},
    )


def test_a_down_node_is_one_bar_across_all_its_lanes_clipped_to_the_window() -> None:
    panel = _view((0.0, 2.0)).panels[0]
    # lanes 0..3 at y 0..3: the bar's middle is 1.5, its height the four lanes (3 + 0.9, as a 4-GPU job's bar)
    assert panel.down[["start", "end", "seg_start", "seg_end", "y", "height", "kind"]].to_dict("records") == [
        {
            "start": 1000.0,
            "end": 2000.0,
            "seg_start": 1000.0,
            "seg_end": 2000.0,
            "y": 1.5,
            "height": 3.9,
            "kind": "failure",
        },
        {
            "start": 2500.0,
            "end": 2600.0,
            "seg_start": 2500.0,
            "seg_end": 2600.0,
            "y": 1.5,
            "height": 3.9,
            "kind": "maintenance",
        },
    ]
    late = _view((0.5, 1.0)).panels[0].down  # 1800 to 3600 s: the first cut at its start, its hover keeps the real one
    assert late[["start", "end", "seg_start"]].values.tolist() == [[1800.0, 2000.0, 1000.0], [2500.0, 2600.0, 2500.0]]
    assert _view((1.0, 2.0)).panels[0].down.empty  # nothing down after 3600 s


def test_the_failure_and_the_drain_are_marked_on_the_bars_they_end_and_the_lost_work_by_cause() -> None:
    panel = _view((0.0, 2.0)).panels[0]
    assert panel.marks[["event", "job_id", "time", "y"]].values.tolist() == [
        ["drain", "a", 2470.0, 1.5],
        ["fail", "a", 1000.0, 1.5],
    ]
    assert panel.preempts.empty
    # the failure threw away a's first 1000 s: the whole of its first run bar, hatched; the drain's save kept everything
    assert panel.lost[["start", "end", "lost", "cause"]].values.tolist() == [[0.0, 1000.0, 1000.0, "failure"]]
    figure = gantt_charts.gantt_figure(_view((0.0, 2.0)))
    traces = {t.name: t for t in figure.data}
    down = traces["node down: maintenance"]
    assert list(down.y) == [1.5] and list(down.x) == [100_000.0]  # 100 s, in ms on the date axis
    assert (
        traces["node failure"].marker.symbol == "star"
        and traces["drain signal (maintenance)"].marker.symbol == "x-open"
    )
    assert "the node's failure" in str(traces["lost work"].customdata[0][4])
    assert figure.data[0].name.startswith("node down")  # drawn first: under the jobs


def test_checkpoint_pauses_are_drawn_as_their_own_kind() -> None:
    config = SimConfig(policy="fifo", checkpoint="periodic", checkpoint_interval=1000.0, checkpoint_cost=100.0)
    run = compute.full_run(JOBS, ClusterSpec.uniform(1, 16, 128, 4), config)
    pauses = run.segments[(run.segments["kind"] == "checkpoint") & (run.segments["lane"] == 0)]
    # checkpoints at 1000 and 2000 s of work: pauses [1000, 1100) and [2100, 2200); the finish at 3000 + 2 x 100
    assert pauses[["start", "end"]].values.tolist() == [[1000.0, 1100.0], [2100.0, 2200.0]]
    view = gantt_views.gantt_view({"fifo": (run.segments, run.events)}, CLUSTER, ["n0"], (0.0, 1.0))
    names = [t.name for t in gantt_charts.gantt_figure(view).data]
    assert "BE checkpoint" in names and float(run.jobs["finish"].iloc[0]) == 3200.0


def test_the_lessons_instant_tells_the_failure_and_greys_nothing_but_the_down_node() -> None:
    snap = lesson_views.snapshot(RUN.jobs, RUN.events, RUN.segments, RUN.lost, 1000.0)
    assert snap.story == (
        "Node n0 goes down: nothing runs there until it is back.",
        "BE job a is stopped by the failure of n0, with no warning and no grace period: 16.7 min of work done "
        "since its last kept checkpoint is lost; it goes back to the queue.",
    )
    assert snap.down == frozenset({"n0"}) and snap.queue["job"].tolist() == ["a"]
    grid = lesson_views.grid_frame(snap, CLUSTER)
    assert grid["kind"].tolist() == ["down"] * 4 and grid["job_id"].tolist() == [""] * 4
    colors = lesson_charts.gpu_grid_figure(grid).data[0].marker.color
    assert list(colors) == [lesson_charts.GRID_COLORS["down"]] * 4
    later = lesson_views.snapshot(RUN.jobs, RUN.events, RUN.segments, RUN.lost, 2470.0)
    assert later.down == frozenset() and later.story[0].startswith("BE job a on n0 is told to leave")
    assert lesson_views.snapshot(RUN.jobs, RUN.events, RUN.segments, RUN.lost, 2000.0).story[0] == (
        "Node n0 is back up and takes jobs again."
    )
