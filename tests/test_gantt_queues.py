"""The Gantt by queue (issue 34): bars coloured by their job's queue (the legend names the queues), lanes
grouped by queue (one band per queue, in the queues' order, holding the lanes its jobs used), read back
from the view and the figure's traces; and Explore's Gantt tab offering it only for a run with queues."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from helpers.apptest import APP, assert_clean, chart_spec
from streamlit.testing.v1 import AppTest

from dashboard.runs.compute import Run, run_of
from dashboard.shared import gantt_charts, gantt_queues, gantt_views
from simcore.core.model import SimConfig
from simcore.engine import simulate
from simcore.workload import presets

NODES = ["n0", "n1", "n2"]
WINDOW = (0.0, 24.0)  # hours


@pytest.fixture(scope="module")
def teams() -> tuple[presets.GeneratedWorkload, Run]:
    gen = presets.generate("teams", 0, {"jobs": 200})
    return gen, run_of(simulate(gen.table, gen.cluster, SimConfig(policy="k8s")))


def _view(teams: tuple, colour: bool, group: bool) -> gantt_views.GanttView:
    gen, run = teams
    by = gantt_queues.by_queue(gen.cluster.queues, run.jobs, colour, group)
    return gantt_views.gantt_view(
        {"k8s": (run.segments, run.events)}, gen.cluster, NODES, WINDOW, by_queue=by, down={"k8s": run.down}
    )


def test_nothing_asked_is_the_gantt_as_before(teams: tuple) -> None:
    gen, run = teams
    assert gantt_queues.by_queue(gen.cluster.queues, run.jobs, False, False) is None
    plain = gantt_views.gantt_view({"k8s": (run.segments, run.events)}, gen.cluster, NODES, WINDOW)
    assert list(plain.panels[0].layout.columns) == ["node", "lane", "y"] and "queue" not in plain.panels[0].bars
    names = {t.name for t in gantt_charts.gantt_figure(plain).data}
    assert {"BE run", "TE run"} <= names and not names & {"vision", "nlp", "research"}


def test_each_bar_is_coloured_by_its_jobs_queue_and_the_legend_names_the_queues(teams: tuple) -> None:
    gen, run = teams
    view = _view(teams, colour=True, group=False)
    queue_of = dict(zip(run.jobs["job_id"].astype(str), run.jobs["queue"], strict=True))
    colours = {"vision": "#0072B2", "nlp": "#E69F00", "research": "#CC79A7"}
    assert gantt_queues.colors(["vision", "nlp", "research"]) == colours
    fig = gantt_charts.gantt_figure(view)
    legend = [t for t in fig.data if t.showlegend is not False and t.name in colours]
    assert [t.name for t in legend] == ["vision", "nlp", "research"]  # the queues' order, each once
    assert [t.marker.color for t in legend] == list(colours.values())
    bars = [t for t in fig.data if t.type == "bar" and t.name in colours]
    assert {t.name for t in bars} == set(colours)
    seen = 0
    for trace in bars:
        ids = [row[0] for row in trace.customdata]
        assert {queue_of[j] for j in ids} == {trace.name}  # a trace holds its queue's bars only
        kind = trace.hovertemplate.split(": ")[1].split("%")[0]
        assert trace.marker.color == (colours[trace.name] if kind == "run" else gantt_charts.GANTT_KINDS[kind][0])
        assert trace.marker.pattern.fgcolor in (None, colours[trace.name])  # restore/grace hatched in its colour
        te = trace.hovertemplate.startswith("TE")
        assert trace.marker.line.color == ("#111111" if te else "white")  # TE told apart by its outline
        assert all(row[8] == f"<br>queue {trace.name}" for row in trace.customdata)
        assert trace.legendgroup == f"queue {trace.name}" and trace.showlegend is False
        seen += len(ids)
    assert seen == len(view.panels[0].bars)  # every bar drawn, once


def test_lanes_grouped_by_queue_hold_the_lanes_each_queues_jobs_used_in_order(teams: tuple) -> None:
    gen, run = teams
    panel = _view(teams, colour=False, group=True).panels[0]
    layout = panel.layout
    assert list(dict.fromkeys(layout["queue"])) == ["vision", "nlp", "research"]  # bands in the queues' order
    seg = run.segments[run.segments["node"].isin(NODES)]
    seg = seg.assign(queue=seg["job_id"].map(dict(zip(run.jobs["job_id"], run.jobs["queue"], strict=True))))
    for queue, band in layout.groupby("queue", sort=False):
        used = set(zip(seg.loc[seg["queue"] == queue, "node"], seg.loc[seg["queue"] == queue, "lane"], strict=True))
        assert set(zip(band["node"], band["lane"], strict=True)) == used  # its lanes: those its jobs used
        keys = [
            (NODES.index(n), lane == "cpu", 0 if lane == "cpu" else lane)
            for n, lane in zip(band["node"], band["lane"], strict=True)
        ]
        assert keys == sorted(keys)  # nodes in the chosen order, then lanes by number
        assert (np.diff(band["y"].to_numpy()) >= 1).all()
    tops = gantt_queues.bands(layout)
    assert tops["top"].iloc[0] == gantt_queues.BAND_GAP  # room above the first band for its label
    assert (tops["top"].iloc[1:].to_numpy() - tops["bottom"].iloc[:-1].to_numpy() >= gantt_queues.BAND_GAP).all()
    # every bar sits in its job's queue's band
    bars = panel.bars
    span = layout.groupby("queue")["y"].agg(["min", "max"])
    assert len(bars) and bars["queue"].notna().all()
    assert (bars["y"] >= span.loc[bars["queue"], "min"].to_numpy() - 0.5).all()
    assert (bars["y"] <= span.loc[bars["queue"], "max"].to_numpy() + 0.5).all()


def test_a_grouped_gantt_labels_each_band_with_its_queue_and_quota_and_its_nodes(teams: tuple) -> None:
    view = _view(teams, colour=True, group=True)
    fig = gantt_charts.gantt_figure(view)
    labels = [a.text for a in fig.layout.annotations if a.text.startswith("<b>")]
    assert labels == ["<b>vision: quota 56 GPUs</b>", "<b>nlp: quota 40 GPUs</b>", "<b>research: quota 32 GPUs</b>"]
    layout = view.panels[0].layout
    ticks = layout.groupby(["queue", "node"], sort=False)["y"].mean()
    assert list(fig.layout.yaxis.tickvals) == list(ticks.to_numpy())
    assert list(fig.layout.yaxis.ticktext) == list(ticks.index.get_level_values("node"))
    heavy = [s for s in fig.layout.shapes if s.line.width == 1.5]
    assert len(heavy) == 2  # a line above every band but the first


def test_grouped_down_time_covers_the_nodes_lanes_in_each_band() -> None:
    layout = pd.DataFrame(
        {"queue": ["a", "a", "b"], "node": ["n0", "n0", "n0"], "lane": [0, 1, 0], "y": [2.0, 3.0, 7.0]}
    )
    down = pd.DataFrame({"node": ["n0"], "start": [10.0], "end": [20.0], "kind": ["failure"]})
    bars = gantt_queues.down_in_layout(down, layout, (0.0, 100.0))
    assert bars[["y", "height"]].to_numpy().tolist() == [[2.5, 1.9], [7.0, 0.9]]  # once per band, its lanes only


def test_ids_are_written_readably_on_each_queue_colour() -> None:
    assert gantt_queues.text_color("#0072B2") == "white" and gantt_queues.text_color("#E69F00") == "#111111"
    assert gantt_queues.text_color("#000000") == "white" and gantt_queues.text_color("#FFFFFF") == "#111111"
    assert len(set(gantt_queues.QUEUE_COLORS)) == len(gantt_queues.QUEUE_COLORS)
    assert not set(gantt_queues.QUEUE_COLORS) & {c for c, _ in gantt_charts.GANTT_KINDS.values()}


# --- the page ---------------------------------------------------------------------------------------------


def test_the_gantt_tab_colours_and_groups_a_run_with_queues() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(
        {"source": "generate", "preset": "teams", "g.jobs": "200", "policies": "k8s", "tab": "Gantt"}
    )
    at.run()
    assert_clean(at)
    at.toggle(key="gantt_queue_colour").set_value(True).run()
    at.toggle(key="gantt_queue_group").set_value(True).run()
    assert_clean(at)
    spec = chart_spec(at, "gantt")
    legend = [
        t["name"]
        for t in spec["data"]
        if t.get("legendgroup", "").startswith("queue") and t.get("showlegend") is not False
    ]
    assert legend == ["vision", "nlp", "research"]
    notes = [a["text"] for a in spec["layout"]["annotations"] if a["text"].startswith("<b>")]
    assert notes[0] == "<b>vision: quota 56 GPUs</b>"
    assert any("the lanes are grouped by queue" in c.value for c in at.caption)


def test_the_gantt_tab_of_a_run_without_queues_says_why_it_has_no_queue_controls() -> None:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update({"tab": "Gantt"})
    at.run()
    assert_clean(at)
    assert not [t for t in at.toggle if t.key in ("gantt_queue_colour", "gantt_queue_group")]
    assert any("These runs have no queues, so the Gantt cannot be coloured" in c.value for c in at.caption)
