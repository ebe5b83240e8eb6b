"""The One job tab's data (pure: no Streamlit, no Plotly): which jobs to offer, the job's part of the
GPU-lane Gantt, and its waiting stretches as rows the chart draws.

The job's story, its blocking reasons and the counterfactuals come from :mod:`simcore.analysis.whatif`
(computed in a worker process, :mod:`dashboard.runs.compute`); this module only turns a run's
frames and those answers into what the page shows. Numbers become text through :mod:`simcore.core.fmt`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from dashboard.shared import gantt_views, views
from dashboard.shared.gantt_views import GanttView
from dashboard.shared.views import HOUR
from simcore.analysis import metrics
from simcore.analysis.whatif import BASELINE, WAIT_REASONS, Change, JobDelta, StoryStep, Wait
from simcore.core import fmt
from simcore.core.model import ClusterSpec

MAX_OPTIONS = 500  # jobs listed in the picker at once: type in the filter to reach the others
MARGIN = 0.1  # the job's Gantt window reaches this share of its life before its submit and after its finish
MIN_MARGIN = 300.0  # seconds: a short job still shows what ran around it
ZOOM = 600.0  # seconds shown before a preempted job's first signal and after it runs again


@dataclass(frozen=True)
class WaitRow:
    """One waiting stretch as the job's Gantt draws it (seconds) with its hover text."""

    start: float
    end: float
    text: str


def job_options(jobs: pd.DataFrame, text: str, limit: int = MAX_OPTIONS) -> list[str]:
    """The ids of the run's jobs whose id contains ``text`` (any case), at most ``limit``: the id equal to
    it first (a job opened from the jobs table is always listed), then the run's order."""
    ids = jobs["job_id"].astype(str)
    wanted = text.strip().lower()
    if wanted:
        ids = ids[ids.str.lower().str.contains(wanted, regex=False)]
        exact = ids.str.lower() == wanted
        ids = pd.concat([ids[exact], ids[~exact]])
    return ids.head(limit).tolist()


def default_job(jobs: pd.DataFrame, events: pd.DataFrame) -> str | None:
    """The job the tab opens on: the first one preempted in the run (the question people ask most), else
    the one that waited longest, else the first; None for a run without jobs."""
    if jobs.empty:
        return None
    preempted = gantt_views.preemption_list(events)
    if len(preempted):
        return str(preempted["job_id"].iloc[0])
    waits = jobs["wait"].fillna(-1.0)
    return str(jobs["job_id"].iloc[int(waits.to_numpy().argmax())])


def job_label(jobs: pd.DataFrame, job_id: str) -> str:
    """How the picker names a job: ``17 (TE, preempted 2 times, waited 12.5 min)``."""
    row = jobs[jobs["job_id"].astype(str) == job_id]
    if row.empty:
        return job_id
    r = row.iloc[0]
    parts = [str(r["job_class"])]
    if int(r["preemptions"]) > 0:
        parts.append(f"preempted {int(r['preemptions'])} time" + ("s" if int(r["preemptions"]) > 1 else ""))
    parts.append(f"waited {fmt.duration(float(r['wait']))}")
    return f"{job_id} ({', '.join(parts)})"


def job_nodes(segments: pd.DataFrame, cluster: ClusterSpec, job_id: str) -> list[str]:
    """Every node the job held at some time (a gang: all its workers' nodes), in the cluster's order."""
    held = set(segments.loc[segments["job_id"].astype(str) == job_id, "node"])
    return [name for name in cluster.names if name in held]


def job_window(jobs: pd.DataFrame, segments: pd.DataFrame, job_id: str) -> tuple[float, float]:
    """Seconds from a little before the job's submit to a little after its last piece ends."""
    row = jobs[jobs["job_id"].astype(str) == job_id].iloc[0]
    mine = segments[segments["job_id"].astype(str) == job_id]
    first = float(row["submit_time"])
    last = float(mine["end"].max()) if len(mine) else first
    margin = max(MARGIN * (last - first), MIN_MARGIN)
    return max(first - margin, 0.0), last + margin


def job_gantt(
    segments: pd.DataFrame,
    events: pd.DataFrame,
    jobs: pd.DataFrame,
    cluster: ClusterSpec,
    policy: str,
    job_id: str,
) -> GanttView | None:
    """The Gantt of one run on the nodes the job held, over its life (first shown around its first preemption,
    if any); None when it never ran."""
    nodes = job_nodes(segments, cluster, job_id)
    if not nodes:
        return None
    t0, t1 = job_window(jobs, segments, job_id)
    around = first_preemption(segments, events, job_id)
    focus = None if around is None else (max(around[0], t0), min(around[1], t1))
    return gantt_views.gantt_view({policy: (segments, events)}, cluster, nodes, (t0 / HOUR, t1 / HOUR), focus)


def first_preemption(segments: pd.DataFrame, events: pd.DataFrame, job_id: str) -> tuple[float, float] | None:
    """Seconds around the job's first preemption, from :data:`ZOOM` before its signal to :data:`ZOOM` after it
    ran again (grace, wait and restore in sight: on a long job's whole life they are slivers); None if never
    preempted."""
    signals = gantt_views.preemption_list(events)
    mine = signals.loc[signals["job_id"].astype(str) == job_id, "time"]
    if mine.empty:
        return None
    signal = float(mine.iloc[0])
    later = segments[(segments["job_id"].astype(str) == job_id) & (segments["start"] > signal)]
    back = float(later["start"].min()) if len(later) else signal
    return max(signal - ZOOM, 0.0), back + ZOOM


def job_bars(view: GanttView, job_id: str) -> pd.DataFrame:
    """The job's own bars of the view's first panel (its run, grace and restore pieces on every lane it held)."""
    bars = view.panels[0].bars
    return bars[bars["job_id"].astype(str) == job_id].reset_index(drop=True)


def wait_rows(stretches: Sequence[tuple[float, float, str]], window: tuple[float, float]) -> list[WaitRow]:
    """The waiting stretches (start, end, why) that show in ``window`` (seconds), cut to it; the hover
    text gives the stretch's real times and length."""
    rows = []
    for start, end, why in stretches:
        lo, hi = max(start, window[0]), min(end, window[1])
        if lo < hi:
            when = f"{fmt.clock(start)} to {fmt.clock(end)} ({fmt.duration(end - start)})"
            rows.append(WaitRow(lo, hi, f"waited {when}: {why}"))
    return rows


def story_lines(story: Sequence[StoryStep]) -> list[str]:
    """The job's story, one line per step: ``day 1 00:10:00  started on node-2``."""
    return [f"{fmt.clock(step.time)}  {step.text}" for step in story]


#: each wait reason (:data:`simcore.analysis.whatif.WAIT_REASONS`) as the page names it: words, never its code
REASON_WORDS: dict[str, str] = {
    "waiting_for_grace": "its victims' grace period",
    "behind_te": "behind a waiting TE job",
    "head_of_line": "head-of-line blocking",
    "next_pass": "the next scheduling pass",
    "reserved_for_other": "room reserved for another TE job",
    "preempt_budget": "preemption budget spent",
    "min_runtime": "victims within their minimum run",
    "capped_by_P": "every candidate preempted P times",
    "capped_by_s": "every candidate too large (s)",
    "frees_soon": "room frees within the grace period",
    "no_victims": "no set of victims makes room",
    "no_room": "no room",
}


def reason_words(wait: Wait) -> str:
    """A wait's reason in words, with the reason's name and definition (:data:`simcore.analysis.whatif.WAIT_REASONS`)."""
    return f"{wait.text} [{REASON_WORDS[wait.reason]}: {WAIT_REASONS[wait.reason]}]"


def waits_frame(waits: Sequence[Wait]) -> pd.DataFrame:
    """One row per waiting stretch: when, how long, the reason in words, its name and what it means."""
    return pd.DataFrame(
        {
            "from": [fmt.clock(w.start) for w in waits],
            "to": ["never started" if math.isinf(w.end) else fmt.clock(w.end) for w in waits],
            "length": [fmt.duration(w.end - w.start) for w in waits],
            "why": [w.text for w in waits],
            "reason": [REASON_WORDS[w.reason] for w in waits],
            "what the reason means": [WAIT_REASONS[w.reason] for w in waits],
        },
        columns=["from", "to", "length", "why", "reason", "what the reason means"],
    )


def job_row(jobs: pd.DataFrame, job_id: str, waits: Sequence[Wait]) -> pd.DataFrame:
    """The job's row of the jobs table (:func:`dashboard.shared.views.jobs_table`), with its
    :data:`~dashboard.shared.views.WHY_WAITED`."""
    return views.jobs_table(jobs[jobs["job_id"].astype(str) == job_id], views.why_by_job({job_id: waits}))


def wait_stretches(waits: Sequence[Wait], window: tuple[float, float]) -> list[WaitRow]:
    """The waits as the job's Gantt draws them (:func:`wait_rows`; one that never ends runs to the window's end)."""
    return wait_rows([(w.start, min(w.end, window[1]), reason_words(w)) for w in waits], window)


# --- counterfactuals -------------------------------------------------------------------------------

#: the counterfactuals the tab offers (kinds of :data:`simcore.analysis.whatif.CHANGE_KINDS`), as the radio names them
CHANGE_LABELS = {
    "not_preempted": "had it not been preempted",
    "submit_at": "had it been submitted at t",
    "gpus": "had it asked for fewer GPUs",
    "policy": "under another policy",
}
TOUCHED_SHOWN = 10  # the jobs a change moved most, listed under its answer


def change_choices(jobs: pd.DataFrame, job_id: str, gpu: float) -> list[str]:
    """The counterfactuals that make sense for the job: not preempted only if it was, fewer GPUs only
    if it asks for more than one per worker (``gpu``)."""
    row = jobs[jobs["job_id"].astype(str) == job_id].iloc[0]
    return [
        kind
        for kind in CHANGE_LABELS
        if (kind != "not_preempted" or int(row["preemptions"]) > 0) and (kind != "gpus" or gpu > 1)
    ]


def max_fewer_gpus(gpu: float) -> int:
    """The most GPUs per worker a "fewer GPUs" change may ask for (fewer than ``gpu``, at least 1)."""
    return max(math.ceil(gpu) - 1, 1)


def change_of(kind: str, submit_h: float, gpus: int, policy: str) -> Change:
    """The :class:`simcore.analysis.whatif.Change` the widgets describe (the submit time is given in hours)."""
    values: dict[str, float | str] = {"submit_at": float(submit_h) * HOUR, "gpus": float(gpus), "policy": policy}
    return Change(kind, values.get(kind))


def change_words(change: Change) -> str:
    """The change as a sentence part: ``had it been submitted at day 1 02:00:00``."""
    if change.kind == "submit_at":
        return f"had it been submitted at {fmt.clock(float(change.value or 0.0))}"
    if change.kind == "gpus":
        return f"had it asked for {fmt.setting(change.value)} GPUs per worker"
    if change.kind == "policy":
        return f"under policy {change.value}"
    return CHANGE_LABELS.get(change.kind, change.kind)


def change_args(change: Change) -> list[str]:
    """The change as ``simcore whatif``'s options (the command a refusal names)."""
    value = fmt.setting(change.value)
    return {
        "not_preempted": ["--not-preempted"],
        "submit_at": ["--submit-at", value],
        "gpus": ["--gpus", value],
        "policy": ["--under", value],
    }.get(change.kind, ["--no-change"])


def delta_words(delta: JobDelta) -> str:
    """The job's own delta in a sentence: ``its completion time would be 12.3 h instead of 12.4 h (-10.2 min)``."""
    if math.isnan(delta.jct_after):
        return "it would not be simulated"
    move = delta.jct_after - delta.jct_before
    sign = "+" if move > 0 else ""
    return (
        f"its completion time would be {fmt.duration(delta.jct_after)} instead of {fmt.duration(delta.jct_before)} "
        f"({sign}{fmt.duration(move)}), its first start {fmt.clock(delta.start_after)} instead of "
        f"{fmt.clock(delta.start_before)}"
    )


def delta_frame(delta: JobDelta) -> pd.DataFrame:
    """The job's completion time (JCT) and first start before and after the change: a duration as
    :func:`simcore.core.fmt.duration` writes it, an instant as the Gantt's axis reads it."""

    def move(seconds: float) -> str:
        return fmt.MISSING if math.isnan(seconds) else ("+" if seconds > 0 else "") + fmt.duration(seconds)

    def at(t: float) -> str:
        return fmt.MISSING if math.isnan(t) else fmt.clock(t)

    rows = [
        ("completion time (JCT)", fmt.duration(delta.jct_before), fmt.duration(delta.jct_after)),
        ("first start", at(delta.start_before), at(delta.start_after)),
    ]
    moves = [delta.jct_after - delta.jct_before, delta.start_after - delta.start_before]
    return pd.DataFrame(
        [(*row, move(m)) for row, m in zip(rows, moves, strict=True)], columns=["", "before", "after", "change"]
    )


def trio_frame(before: dict[str, float], after: dict[str, float]) -> pd.DataFrame:
    """The cluster's trio before and after (each the % change of a slowdown against :data:`BASELINE`)."""
    return pd.DataFrame(
        [
            (label, fmt.signed(before[k]), fmt.signed(after[k]), fmt.signed(after[k] - before[k]))
            for k, label in metrics.TRIO_LABELS.items()
        ],
        columns=["", f"before (% vs {BASELINE})", f"after (% vs {BASELINE})", "change (points)"],
    )


def touched_frame(touched: Sequence[JobDelta], limit: int = TOUCHED_SHOWN) -> pd.DataFrame:
    """The jobs the change moved most: their start and JCT before and after, one unit named in the headers."""
    shown = list(touched[:limit])
    unit, size = fmt.duration_unit([x for d in shown for x in (d.jct_before, d.jct_after)])
    return pd.DataFrame(
        [
            (
                d.job_id,
                fmt.clock(d.start_before),
                fmt.MISSING if math.isnan(d.start_after) else fmt.clock(d.start_after),
                fmt.tenths(d.jct_before / size),
                fmt.tenths(d.jct_after / size),
                fmt.signed((d.jct_after - d.jct_before) / size),
            )
            for d in shown
        ],
        columns=[
            "job",
            "start before",
            "start after",
            f"JCT before ({unit})",
            f"JCT after ({unit})",
            f"JCT change ({unit})",
        ],
    )


# --- "When would my job start?" --------------------------------------------------------------------

MAX_MINUTES = 525_600.0  # a described job runs at most a year
MAX_WORKERS = 1_000  # workers of a described gang


def node_maxima(cluster: ClusterSpec) -> dict[str, float]:
    """The largest node's CPU cores, memory (GiB) and GPUs: the form's ranges (a worker fits on one node)."""
    caps = [n.capacity for n in cluster.nodes]
    return {"cpu": max(c.cpu for c in caps), "mem_gb": max(c.mem_gb for c in caps), "gpu": max(c.gpu for c in caps)}


def form_defaults(top: dict[str, float], span_h: float, prefix: str) -> dict[str, Any]:
    """The form's first values, under widget keys ``prefix + field``: a one-hour TE job of one GPU (on a
    GPU cluster) with its node's share of CPU and memory, submitted an hour in."""
    gpu = 1.0 if top["gpu"] >= 1 else 0.0
    share = gpu / top["gpu"] if gpu else 0.125
    values: dict[str, Any] = {
        "duration_min": 60.0,
        "cpu": float(np.floor(top["cpu"] * share)),
        "mem_gb": float(np.floor(top["mem_gb"] * share)),
    }
    values |= {"gpu": gpu, "job_class": "TE", "workers": 1, "submit_h": min(1.0, span_h)}
    return {prefix + k: v for k, v in values.items()}


#: the form's fields: the workload columns of :data:`simcore.analysis.whatif.JOB_FIELDS` (duration in minutes) and
#: the submit time in hours
FORM_FIELDS = ("duration_min", "cpu", "mem_gb", "gpu", "job_class", "workers", "submit_h")


def forecast_job(fields: dict[str, Any]) -> tuple[dict[str, object], float]:
    """The job :func:`simcore.analysis.whatif.when_would_it_start` takes, and its submit time (s), from the form."""
    job: dict[str, object] = {
        "duration": float(fields["duration_min"]) * 60.0,
        "cpu": float(fields["cpu"]),
        "mem_gb": float(fields["mem_gb"]),
        "gpu": float(fields["gpu"]),
        "job_class": str(fields["job_class"]),
        "workers": int(fields["workers"]),
    }
    return job, float(fields["submit_h"]) * HOUR


def forecast_lines(
    start: float | None, submit: float, nodes: Sequence[str], victims: Sequence[str], caveat: str
) -> list[str]:
    """The forecast in words: when it starts, after how long, where, and whom it preempts."""
    if start is None or math.isinf(start):
        return [f"Submitted at {fmt.clock(submit)}, it would never start in this run.", f"Caveat: {caveat}."]
    lines = [
        f"Submitted at {fmt.clock(submit)}, it would start at {fmt.clock(start)}, "
        f"after waiting {fmt.duration(start - submit)}, on {', '.join(nodes)}."
    ]
    if victims:
        lines.append(f"To start, it would preempt BE job{'s' if len(victims) > 1 else ''} {', '.join(victims)}.")
    lines.append(f"Caveat: {caveat}.")
    return lines


def add_spec(job: dict[str, object], at: float) -> str:
    """The described job as ``simcore whatif --add``'s value."""
    named = {"submit": at, **job, "class": job["job_class"]}
    return ",".join(f"{k}={fmt.setting(v)}" for k, v in named.items() if k != "job_class")
