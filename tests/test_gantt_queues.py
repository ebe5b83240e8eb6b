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
from dashboard.shared import gantt_charts, gantt_queues, gantt_views, state
from dashboard.shared.scenario import Scenario
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


# --- the link ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "views"),
    [("colour", ("colour",)), ("group", ("group",)), ("group, colour", ("colour", "group")), ("", ())],
)
def test_a_links_gantt_queue_reads_the_switches_in_their_order(text: str, views: tuple[str, ...]) -> None:
    scenario, warnings = Scenario.from_query({"gantt_queue": text})
    assert warnings == [] and scenario.gantt_queue == views
    assert scenario.to_query() == ({"gantt_queue": ",".join(views)} if views else {})  # written back the same
    values = state.explore_widget_values(scenario)
    assert (values["gantt_queue_colour"], values["gantt_queue_group"]) == ("colour" in views, "group" in views)


@pytest.mark.parametrize("text", ["sideways", "colour,colour", "colour,group,size", "1", "colour;group"])
def test_a_bad_gantt_queue_is_ignored_with_a_notice_and_the_rest_of_the_link_kept(text: str) -> None:
    scenario, warnings = Scenario.from_query({"gantt_queue": text, "tab": "Gantt"})
    assert scenario.gantt_queue == () and scenario.tab == "Gantt"
    assert len(warnings) == 1 and warnings[0].startswith("link parameter gantt_queue=")
    assert warnings[0].endswith("ignored: must be colour, group or colour,group")


def test_an_older_link_opens_with_the_switches_off() -> None:
    scenario, _ = Scenario.from_query({"tab": "Gantt", "gantt_nodes": "n0"})
    assert scenario.gantt_queue == () and "gantt_queue" not in scenario.to_query()
    values = state.explore_widget_values(scenario)
    assert values["gantt_queue_colour"] is False and values["gantt_queue_group"] is False


def test_the_switches_follow_the_visitor_then_the_link_and_a_run_without_queues_drops_them() -> None:
    linked = Scenario(gantt_queue=("group",))
    session: dict = {}
    state.gantt_queue_setup(session, linked, queues=True)  # first drawn: the link's
    assert session == {"gantt_queue_colour": False, "gantt_queue_group": True}
    session["gantt_queue_colour"] = True  # the visitor's switch stays
    state.gantt_queue_setup(session, linked, queues=True)
    assert session == {"gantt_queue_colour": True, "gantt_queue_group": True}
    session.update(x_gantt_policy="k8s", gantt_with="(none)", x_gantt_nodes=["n0"], x_gantt_window=(0.0, 1.0))
    choice = state.gantt_choice(session)
    assert choice.by_queue == ("colour", "group")
    setup = state.GanttSetup("k8s", ["n0"], 1.0, (0.0, 1.0), pd.DataFrame())
    assert state.gantt_in_link(Scenario(), setup, choice).to_query() == {"gantt_queue": "colour,group"}
    state.gantt_queue_setup(session, linked, queues=False)  # no queues: no switches, none in the link
    assert "gantt_queue_colour" not in session and "gantt_queue_group" not in session
    assert state.gantt_in_link(Scenario(), setup, state.gantt_choice(session)).to_query() == {}


# --- the page ---------------------------------------------------------------------------------------------

TEAMS = {"source": "generate", "preset": "teams", "g.jobs": "200", "policies": "k8s", "baseline": "k8s", "tab": "Gantt"}
QUEUE_NAMES = ["vision", "nlp", "research"]
BAND_LABELS = ["<b>vision: quota 56 GPUs</b>", "<b>nlp: quota 40 GPUs</b>", "<b>research: quota 32 GPUs</b>"]


def _page(query: dict[str, str]) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=180)
    at.query_params.update(query)
    at.run()
    assert_clean(at)
    return at


def _link(at: AppTest) -> dict[str, str]:
    """The page's link (its query parameters, each one value)."""
    return {k: v[-1] if isinstance(v, list) else v for k, v in at.query_params.items()}


def _by_queue(at: AppTest) -> tuple[list[str], list[str]]:
    """The drawn Gantt's legend entries by queue and its bands' labels."""
    spec = chart_spec(at, "gantt")
    legend = [
        t["name"]
        for t in spec["data"]
        if t.get("legendgroup", "").startswith("queue") and t.get("showlegend") is not False
    ]
    return legend, [a["text"] for a in spec["layout"].get("annotations", []) if a["text"].startswith("<b>")]


def _switches(at: AppTest) -> tuple[bool, bool]:
    return at.toggle(key="gantt_queue_colour").value, at.toggle(key="gantt_queue_group").value


def test_the_gantt_tab_colours_and_groups_a_run_with_queues_and_its_link_keeps_the_switches() -> None:
    at = _page(TEAMS)
    assert _switches(at) == (False, False) and "gantt_queue" not in _link(at)
    assert _by_queue(at) == ([], [])
    at.toggle(key="gantt_queue_group").set_value(True).run()
    assert _link(at)["gantt_queue"] == "group"
    at.toggle(key="gantt_queue_colour").set_value(True).run()
    assert_clean(at)
    link = _link(at)
    assert link["gantt_queue"] == "colour,group"
    assert _by_queue(at) == (QUEUE_NAMES, BAND_LABELS)
    assert any("the lanes are grouped by queue" in c.value for c in at.caption)
    # the link opened in a new session: both switches on, the Gantt drawn by queue as it was
    shared = _page(link)
    assert _switches(shared) == (True, True) and _link(shared) == link
    assert _by_queue(shared) == (QUEUE_NAMES, BAND_LABELS)
    shared.toggle(key="gantt_queue_group").set_value(False).run()  # a switch turned off leaves the link
    assert _link(shared)["gantt_queue"] == "colour" and _by_queue(shared) == (QUEUE_NAMES, [])
    shared.session_state["x_tab"] = "Queues"  # another tab, then back: the switch is still on
    shared.run()
    assert _link(shared)["gantt_queue"] == "colour"
    shared.session_state["x_tab"] = "Gantt"
    shared.run()
    assert_clean(shared)
    assert _switches(shared) == (True, False) and _by_queue(shared) == (QUEUE_NAMES, [])


def test_a_bad_gantt_queue_in_the_link_is_ignored_with_a_notice() -> None:
    at = _page({**TEAMS, "gantt_queue": "colour,sideways"})
    notice = next(c.value for c in at.code if "ignored" in c.value)
    assert notice == "link parameter gantt_queue='colour,sideways' ignored: must be colour, group or colour,group"
    assert _switches(at) == (False, False) and "gantt_queue" not in _link(at)  # the default: neither
    assert _by_queue(at) == ([], [])


def test_the_gantt_tab_of_a_run_without_queues_says_why_it_has_no_queue_controls() -> None:
    at = _page({"tab": "Gantt", "gantt_queue": "colour,group"})  # a link's switches: ignored without queues
    assert not [t for t in at.toggle if t.key in ("gantt_queue_colour", "gantt_queue_group")]
    assert any("These runs have no queues, so the Gantt cannot be coloured" in c.value for c in at.caption)
    assert not [c for c in at.code if "ignored" in c.value]  # a valid parameter, not a mistake
    assert "gantt_queue" not in _link(at) and _by_queue(at) == ([], [])
