"""The report as one self-contained HTML file (pure): the scenario and its command, the trio
and percentiles, the slowdown CDFs, the GPU-lane Gantt (with queues, also by queue) with its
preemption steps, the decision log in words, the accounting, with queues their per-queue numbers,
usage and ledger, and the workload's checksum.

Plotly's JavaScript is embedded from the installed package, so the file opens with no network.
The figures are the Explore page's own (:mod:`dashboard.explore.charts`,
:mod:`dashboard.shared.gantt_charts`) drawn from runs whose visitor text is escaped
(:mod:`dashboard.report.plain_html`). Same inputs, byte-identical file (fixed chart ids, no clock).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import plotly.offline

from dashboard.explore import charts, queue_charts, queue_views, worth_views
from dashboard.report import sections
from dashboard.report.plain_html import text
from dashboard.runs.compute import Run
from dashboard.shared import gantt_charts, gantt_queue_charts, gantt_queues, gantt_views, views
from dashboard.shared.chart_style import PLOT_CONFIG
from dashboard.shared.gantt_queues import ByQueue
from simcore.analysis.accounting import ACCOUNTING_COLUMNS
from simcore.core import fmt
from simcore.core.model import ClusterSpec, JobTable, SimConfig

#: the Gantt's initial zoom: hours from an hour before the first preemption (the whole run is in the file)
GANTT_FOCUS_HOURS = 24.0
#: bars drawn in the report's Gantt, shared by its panels (the size cap)
GANTT_MAX_BARS = 3000
QUEUES_NOTE = (
    "Per queue and policy: waits and slowdowns of its jobs, the GPUs they held on average, preemptions counted "
    "per job stopped (reclaimed from it by another queue, stopped by its own TE jobs, reclaims it made) and the "
    "GPU-hours its jobs paid to reclaims."
)
BY_QUEUE_NOTE = (
    "A band holds the GPU lanes its queue's jobs used in the whole run, so a lane two queues used at different "
    "times is in both bands; the window, the bars and the policies are the Gantt's above."
)
FITGPP_NOTE = "fitgpp is our reconstruction of the paper's approach (arXiv 1902.01613), not its exact algorithm."
STYLE = """body{font-family:system-ui,sans-serif;margin:2em auto;max-width:1200px;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1em;font-size:.9em}th,td{border:1px solid #ccc;padding:2px 8px;
text-align:left}th{background:#f2f2f2}pre{background:#f6f6f6;padding:.6em;white-space:pre-wrap;
word-break:break-all}.note{color:#555;font-size:.9em}li{margin-bottom:.6em}code{word-break:break-all}
caption{text-align:left}.scroll{max-height:30em;overflow:auto;border-bottom:1px solid #ddd}"""


@dataclass(frozen=True, eq=False)
class ReportInput:
    """Everything a report shows, already computed (the CLI runs it; Explore passes its own)."""

    title: str  # the workload's label: a file name, a sample or a preset
    command: str  # the command(s) that reproduce it
    checksum: str  # sha256 of the workload file's bytes
    jobs: JobTable
    cluster: ClusterSpec
    configs: Mapping[str, SimConfig]  # policy label -> its configuration, in the scenario's order
    baseline: str
    runs: Mapping[str, Run]  # the first seed's full runs
    seed_flats: Sequence[Mapping[str, Mapping[str, Any]]]  # per seed: policy -> flat record (metrics.flat_summary)
    records: Mapping[str, Sequence[Mapping[str, Any]]]  # preemptive policy -> its decision records
    records_note: str = ""  # why the decision log is missing (records left out), else empty


def _figure(fig: go.Figure, name: str) -> str:
    return fig.to_html(full_html=False, include_plotlyjs=False, div_id=f"chart-{name}", config=PLOT_CONFIG)


def _json_script(data: Any) -> str:
    """Data for a reader's scripts: JSON that cannot close the script element."""
    body = json.dumps(data, sort_keys=True, allow_nan=False).replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<script type="application/json" id="report-data">{body}</script>'


def _scenario(inp: ReportInput) -> str:
    te = int(inp.jobs.is_te.sum())
    default = SimConfig().knobs()
    knobs = {k: v for k, v in inp.configs[inp.baseline].knobs().items() if v != default[k]}
    rows = pd.DataFrame(
        {
            "": ["workload", "jobs", "cluster", "policies", "baseline", "knobs", "workload sha256"],
            "value": [
                inp.title,
                f"{len(inp.jobs)} ({te} TE, {len(inp.jobs) - te} BE)",
                f"{len(inp.cluster.nodes)} nodes, {inp.cluster.total().gpu:g} GPUs",
                ", ".join(inp.configs),
                inp.baseline,
                ", ".join(f"{k}={v}" for k, v in knobs.items()) or "the defaults",
                inp.checksum,
            ],
        }
    )
    return sections.table(rows) + f"<p>Reproduce it with:</p><pre id='command'>{text(inp.command)}</pre>"


def _trio(inp: ReportInput) -> str:
    cards = views.trio_cards(
        views.trio_frame(views.seed_trios(inp.seed_flats, inp.baseline)),
        views.absolute_trio(inp.seed_flats),
        list(inp.configs),
        inp.baseline,
    )
    rows = [
        {"policy": p, **{label: value + (f" ({change})" if change else "") for label, value, change in row}}
        for p, row in zip(inp.configs, cards, strict=True)
    ]
    note = f"Slowdown, and in brackets its change against {inp.baseline}."
    if len(inp.seed_flats) > 1:
        note += f" Mean over {len(inp.seed_flats)} seeds; in brackets the interval of the change."
    return sections.table(pd.DataFrame(rows), note)


def _gantt(inp: ReportInput, escaped: Mapping[str, Run]) -> tuple[str, list[str]]:
    """The Gantt of the policies that preempted (else the baseline), all nodes, the whole run; with queues,
    the same Gantt by queue under it (:func:`_by_queue`)."""
    shown = [p for p in inp.configs if len(gantt_views.preemption_list(inp.runs[p].events))] or [inp.baseline]
    cluster = inp.cluster
    first = escaped[shown[0]]
    span, focus = gantt_views.gantt_default_window(first.segments, first.events, GANTT_FOCUS_HOURS)

    def figure(by: ByQueue | None, name: str) -> tuple[str, bool]:
        view = gantt_views.gantt_view(
            {p: (escaped[p].segments, escaped[p].events) for p in shown},
            cluster,
            cluster.names,
            (0.0, span),
            (focus[0] * views.HOUR, focus[1] * views.HOUR),
            max_bars=GANTT_MAX_BARS,
            by_queue=by,
        )
        return _figure(gantt_charts.gantt_figure(view), name), view.truncated

    chart, truncated = figure(None, "gantt")
    note = (
        f"Zoomed on the {GANTT_FOCUS_HOURS:g} hours from an hour before {shown[0]}'s first preemption; "
        "double-click the chart to see the whole run, drag to zoom."
    )
    if truncated:
        note += f" At most {GANTT_MAX_BARS} bars are drawn: the end of the run is left empty."
    html = f"<p class='note'>{text(note)}</p>" + chart
    if cluster.queues is not None:
        by = gantt_queues.by_queue(cluster.queues, first.jobs, colour=True, group=True)
        html += _by_queue(figure(by, "gantt-queues")[0], by)
    return html, shown


def _by_queue(chart: str, by: ByQueue | None) -> str:
    """The Gantt by queue, coloured and grouped at once: a static page has no switches, and the reader of a
    report with queues asks both which team's jobs held a lane and whose quota each band of lanes served."""
    note = f"{gantt_queue_charts.colours_note(by)}. {BY_QUEUE_NOTE}"
    return f"<h3>By queue</h3><p class='note'>{text(note)}</p>" + chart


def _accounting(inp: ReportInput) -> str:
    rows = []
    for p in inp.configs:
        flat = inp.runs[p].flat
        row: dict[str, object] = {"policy": p}
        for k, head in ACCOUNTING_COLUMNS.items():  # GPU time in GPU-hours, as the dashboard shows it
            gpu_s = k.startswith("gpu_seconds_")
            row[head.replace("GPU-s", "GPU-h") if gpu_s else head] = flat[k] / views.HOUR if gpu_s else flat[k]
        rows.append(row)
    worth = worth_views.worth_frame(inp.seed_flats, inp.baseline)
    return sections.table(pd.DataFrame(rows)) + _figure(charts.worth_figure(worth), "worth")


def _queues(inp: ReportInput) -> str:
    """With queues: the per-queue table of every policy, one run's usage against each quota (the first
    that reclaimed, else the first), and each policy's ledger in time order (at most MAX_ROWS rows)."""
    ledgers = {p: queue_views.ledger_rows(led) for p in inp.configs if (led := inp.runs[p].ledger) is not None}
    with_queues = list(ledgers)
    if not with_queues:
        return ""
    shown = next((p for p in with_queues if ledgers[p]), with_queues[0])
    spec = inp.cluster.queues
    limits = {q.name: q.borrow_limit for q in spec.queues} if spec is not None else {}
    usage = inp.runs[shown].usage
    assert usage is not None
    parts = [
        "<h2>Queues</h2>",
        sections.table(queue_views.queue_frame({p: inp.runs[p].summary for p in with_queues}), QUEUES_NOTE),
        f"<p class='note'>{text(f'GPUs held against each quota (dashed) and quota + borrow limit (dotted): {shown}.')}</p>",
        _figure(queue_charts.usage_figure(usage, limits), "queues-usage"),
        "<h3>The preemption ledger: who paid, who gained</h3>",
    ]
    for p, rows in ledgers.items():
        if not rows:
            parts.append(f"<p>{text(f'{p}: no preemption.')}</p>")
            continue
        frame = queue_views.ledger_table(rows[: sections.MAX_ROWS])
        frame[frame.columns[0]] = [fmt.clock(r["time"]) for r in rows[: sections.MAX_ROWS]]
        parts.append(f"<h4>{text(p)}</h4>" + sections.table(frame.rename(columns={frame.columns[0]: "time"})))
        parts.append(sections.more_note(min(len(rows), sections.MAX_ROWS), len(rows), "decisions"))
    return "".join(parts)


def build_report(inp: ReportInput) -> str:
    """The whole report as HTML text."""
    escaped = inp.runs  # the shared charts escape visitor text themselves (plain.chart_text)
    jobs = {p: run.jobs for p, run in escaped.items()}
    gantt, gantt_policies = _gantt(inp, escaped)
    steps = "".join(f"<h3>{text(p)}</h3>" + sections.preemption_steps(inp.runs[p]) for p in gantt_policies)
    log = (
        "".join(
            f"<h3>{text(p)}</h3>" + sections.decision_log(p, inp.runs[p], inp.records, inp.jobs) for p in inp.records
        )
        or "<p>No policy of this scenario preempts.</p>"
    )
    percentiles = views.percentile_table(inp.seed_flats).reset_index()
    body = [
        f"<h1>simcore report: {text(inp.title)}</h1>",
        "<h2>Scenario</h2>",
        _scenario(inp),
        "<h2>The trio</h2>",
        _trio(inp),
        "<h2>Slowdown percentiles</h2>",
        sections.table(percentiles),
        _figure(charts.percentile_figure(views.percentile_frame(inp.seed_flats)), "percentiles"),
        "<h2>Slowdown CDFs</h2>",
        _figure(charts.cdf_figure(views.cdf_frame(jobs)), "cdf"),
        "<h2>GPU lanes (Gantt)</h2>",
        gantt,
        "<h2>Preemption steps</h2>",
        steps or "<p>No preemptions.</p>",
        "<h2>Decision log</h2>",
        log,
        "<h2>Preemption accounting</h2>",
        _accounting(inp),
        _queues(inp),
        f"<p class='note'>{text(FITGPP_NOTE)}</p>" if any(c.policy == "fitgpp" for c in inp.configs.values()) else "",
    ]
    data = {
        "command": inp.command,
        "sha256": inp.checksum,
        "baseline": inp.baseline,
        "trio": views.seed_trios(inp.seed_flats[:1], inp.baseline)[0],
    }
    head = (
        f"<meta charset='utf-8'><title>simcore report: {text(inp.title)}</title><style>{STYLE}</style>"
        f"<script>{plotly.offline.get_plotlyjs()}</script>"
    )
    return f"<!DOCTYPE html>\n<html><head>{head}</head><body>{''.join(body)}{_json_script(data)}</body></html>\n"
