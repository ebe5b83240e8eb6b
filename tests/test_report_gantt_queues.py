"""The report's Gantt by queue (issue 34): with queues, under the usual Gantt, the same policies and window
drawn coloured and grouped by queue, read back from the figure in the file (which bar in which colour and
band, the legend, each band's quota); without queues the by-queue drawing is never reached."""

from __future__ import annotations

import pandas as pd
from helpers.report import report_figure
from helpers.two_teams import NODE, QUEUES, WORKLOAD

from dashboard.shared import gantt_charts, gantt_queue_charts, gantt_queues
from simcore.cli import main

# tests/helpers/two_teams.py's run under k8s, by DESIGN-queues with the default grace (30 s) and restore
# (60 s): a1 (A) holds lanes 0-3 from 0 to 1000; b1 (B, within quota) reclaims a2 (A, borrowing) at 10:
# a2 runs 0-10 on lanes 4-7 then its grace to 40; b1 starts at 40 and t1 (B, TE) takes it at once, TE
# first: b1's grace 40-70, t1 runs 70-120 on lanes 4-5; b1 (B within quota, first in the pass) restores
# 120-180 and runs 180-280; then a2 restores 280-340 and runs its last 990 s, 340-1330.
ARGS = ["report", "w.csv", "--policies", "fifo,k8s", *NODE]
BARS = [  # job, kind, queue, lanes, start and end in seconds, as derived above
    ("a1", "run", "A", "0-3", 0, 1000),
    ("a2", "grace", "A", "4-7", 10, 40),
    ("a2", "restore", "A", "4-7", 280, 340),
    ("a2", "run", "A", "4-7", 0, 10),
    ("a2", "run", "A", "4-7", 340, 1330),
    ("b1", "grace", "B", "4-7", 40, 70),
    ("b1", "restore", "B", "4-7", 120, 180),
    ("b1", "run", "B", "4-7", 180, 280),
    ("t1", "run", "B", "4-5", 70, 120),
]
COLOURS = {"A": "#0072B2", "B": "#E69F00"}


def _report(tmp_path, monkeypatch, queues: bool) -> str:
    """The report's text, written in ``tmp_path`` under fixed relative names (its command quotes them: the
    recorded file was written as ``plain.html``)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.csv").write_text(WORKLOAD)
    (tmp_path / "q.csv").write_text(QUEUES)
    assert main([*ARGS, *(["--queues", "q.csv"] if queues else []), "--out", "plain.html"]) == 0
    return (tmp_path / "plain.html").read_text(encoding="utf-8")


def _seconds(stamp: str) -> float:
    return (pd.Timestamp(stamp) - gantt_charts.GANTT_EPOCH).total_seconds()


def test_a_report_with_queues_draws_the_gantt_by_queue_under_the_usual_one(tmp_path, monkeypatch) -> None:
    html = _report(tmp_path, monkeypatch, queues=True)
    section = html.split("<h2>GPU lanes (Gantt)</h2>")[1].split("<h2>")[0]
    assert section.index('id="chart-gantt"') < section.index("<h3>By queue</h3>")
    assert section.index("<h3>By queue</h3>") < section.index('id="chart-gantt-queues"')
    assert "the lanes are grouped by queue, one band each, labelled with its quota in GPUs" in section
    usual, _ = report_figure(html, "gantt")
    assert not [t for t in usual if (t.get("legendgroup") or "").startswith("queue")]  # the usual one: by class

    data, layout = report_figure(html, "gantt-queues")
    assert [a["text"] for a in layout["annotations"]] == ["k8s", "<b>A: quota 4 GPUs</b>", "<b>B: quota 4 GPUs</b>"]
    legend = [(t["name"], t["marker"]["color"]) for t in data if t["type"] == "scatter" and t["name"] in COLOURS]
    assert legend == list(COLOURS.items())  # the queues in their order, each in its colour
    # the band line between A's lanes and B's: every A bar above it, every B bar below
    (line,) = [s for s in layout["shapes"] if s["line"]["width"] == 1.5]
    drawn: list[tuple[str, str, str, str, float, float]] = []
    for trace in (t for t in data if t["type"] == "bar"):
        queue, kind = trace["name"], trace["hovertemplate"].split(": ")[1].split("%")[0]
        colour = COLOURS[queue] if kind == "run" else gantt_charts.GANTT_KINDS[kind][0]
        assert trace["marker"]["color"] == colour and trace["legendgroup"] == f"queue {queue}"
        if kind != "run":
            assert trace["marker"]["pattern"]["fgcolor"] == COLOURS[queue]  # hatched in its queue's colour
        te = trace["hovertemplate"].startswith("TE")
        assert trace["marker"]["line"]["color"] == ("#111111" if te else "white")
        for row, base, ms, y in zip(trace["customdata"], trace["base"], trace["x"], trace["y"], strict=True):
            assert (y < line["y0"]) == (queue == "A"), (row[0], y)
            start = _seconds(base)
            drawn.append((row[0], kind, queue, row[2], start, start + ms / 1000))
    assert sorted(drawn) == BARS


def test_a_report_without_queues_never_reaches_the_gantt_by_queue(tmp_path, monkeypatch) -> None:
    """Without queues the report is the file it was before the Gantt by queue (checked once by hand with
    ``cmp`` against main's): no step of the by-queue drawing runs, and the page names none of it."""

    def never(*_args, **_kwargs):
        raise AssertionError("the Gantt by queue was drawn for a run without queues")

    monkeypatch.setattr(gantt_queues, "by_queue", never)
    monkeypatch.setattr(gantt_queue_charts, "colours_note", never)
    html = _report(tmp_path, monkeypatch, queues=False)
    assert "By queue" not in html and "chart-gantt-queues" not in html and "quota" not in html
    assert html.count('id="chart-gantt"') == 1
