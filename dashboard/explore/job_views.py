"""The One job tab's data (pure: no Streamlit, no Plotly): which jobs to offer, the job's part of the
GPU-lane Gantt, and its waiting stretches as rows the chart draws.

The job's story, its blocking reasons and the counterfactuals come from :mod:`simcore.whatif`
(computed in a worker process, :mod:`dashboard.shared.compute`); this module only turns a run's
frames and those answers into what the page shows. Numbers become text through :mod:`simcore.fmt`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd

from dashboard.shared import gantt_views, views
from dashboard.shared.gantt_views import GanttView
from dashboard.shared.views import HOUR
from simcore import fmt
from simcore.model import ClusterSpec
from simcore.whatif import WAIT_REASONS, StoryStep, Wait

MAX_OPTIONS = 500  # jobs listed in the picker at once: type in the filter to reach the others
MARGIN = 0.1  # the job's Gantt window reaches this share of its life before its submit and after its finish
MIN_MARGIN = 300.0  # seconds: a short job still shows what ran around it


@dataclass(frozen=True)
class WaitRow:
    """One waiting stretch as the job's Gantt draws it (seconds) with its hover text."""

    start: float
    end: float
    text: str


def job_options(jobs: pd.DataFrame, text: str, limit: int = MAX_OPTIONS) -> list[str]:
    """The ids of the run's jobs whose id contains ``text`` (any case), in the run's order, at most ``limit``."""
    ids = jobs["job_id"].astype(str)
    wanted = text.strip().lower()
    if wanted:
        ids = ids[ids.str.lower().str.contains(wanted, regex=False)]
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
    """The Gantt of one run on the nodes the job held, over its life; None when it never ran."""
    nodes = job_nodes(segments, cluster, job_id)
    if not nodes:
        return None
    t0, t1 = job_window(jobs, segments, job_id)
    return gantt_views.gantt_view({policy: (segments, events)}, cluster, nodes, (t0 / HOUR, t1 / HOUR))


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


def reason_words(wait: Wait) -> str:
    """A wait's reason in words with the reason's code and definition (:data:`simcore.whatif.WAIT_REASONS`)."""
    return f"{wait.text} [{wait.reason}: {WAIT_REASONS[wait.reason]}]"


def waits_frame(waits: Sequence[Wait]) -> pd.DataFrame:
    """One row per waiting stretch: when, how long, the reason in words, its code and what the code means."""
    return pd.DataFrame(
        {
            "from": [fmt.clock(w.start) for w in waits],
            "to": ["never started" if math.isinf(w.end) else fmt.clock(w.end) for w in waits],
            "length": [fmt.duration(w.end - w.start) for w in waits],
            "why": [w.text for w in waits],
            "reason": [w.reason for w in waits],
            "what the reason means": [WAIT_REASONS[w.reason] for w in waits],
        },
        columns=["from", "to", "length", "why", "reason", "what the reason means"],
    )


def longest_wait(waits: Sequence[Wait]) -> Wait | None:
    """The longest waiting stretch (the first of equal ones), or None when the job never waited."""
    return max(waits, key=lambda w: w.end - w.start, default=None)


def job_row(jobs: pd.DataFrame, job_id: str, waits: Sequence[Wait]) -> pd.DataFrame:
    """The job's row of the jobs table (:func:`dashboard.shared.views.jobs_table`) with ``why it waited``:
    the longest wait's reason, in words."""
    row = views.jobs_table(jobs[jobs["job_id"].astype(str) == job_id])
    longest = longest_wait(waits)
    return row.assign(**{"why it waited": "" if longest is None else longest.text})


def wait_stretches(waits: Sequence[Wait], window: tuple[float, float]) -> list[WaitRow]:
    """The waits as the job's Gantt draws them (:func:`wait_rows`; one that never ends runs to the window's end)."""
    return wait_rows([(w.start, min(w.end, window[1]), reason_words(w)) for w in waits], window)
