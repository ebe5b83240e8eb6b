"""The cluster at one instant of a run, for the lessons' time control; pure (no Streamlit).

A run's *instants* are the distinct times of its events. The state shown at an instant is the
state after every event of that instant: which job holds which GPU lane (from
:func:`simcore.analysis.gantt.segments`), which jobs wait in the queue, and the events of the instant
told in words. Lost work per preemption follows DESIGN.md section 2: the progress since the
last kept checkpoint (all of it with ``checkpoint = none``, none with ``on_preempt``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from dashboard.shared import views
from simcore.analysis import gantt
from simcore.core import fmt
from simcore.core.model import ClusterSpec

WAITING = ("submit", "release")  # the last event of a job that is in the queue
QUEUE_WAIT = "waiting since its last event"


@dataclass(frozen=True)
class Snapshot:
    """The cluster at ``time``: lane occupancy, the queue and what just happened."""

    time: float
    grid: pd.DataFrame  # node, lane, job_id, job_class, kind: one row per occupied lane piece
    queue: pd.DataFrame  # job, class, QUEUE_WAIT (as d/h/min/s): longest waiting first
    story: tuple[str, ...]  # the events of this instant, one sentence each


def instants(events: pd.DataFrame) -> list[float]:
    """The distinct event times of a run, in order: the steps of the time control."""
    return sorted(set(events["time"].astype(float).tolist()))


def step(times: Sequence[float], index: int, delta: int) -> int:
    """The index ``delta`` steps from ``index``, kept inside the list."""
    return min(max(index + delta, 0), max(len(times) - 1, 0))


def snapshot(
    jobs: pd.DataFrame, events: pd.DataFrame, segments: pd.DataFrame, losses: pd.DataFrame, time: float
) -> Snapshot:
    """The state after every event at ``time`` (``jobs``, ``events``, ``segments``: one run's frames)."""
    held = segments[(segments["start"] <= time) & (segments["end"] > time)]
    grid = held[["node", "lane", "job_id", "job_class", "kind"]].reset_index(drop=True)
    past = events[events["time"] <= time]
    last = past.groupby("job_id", sort=False)[["event", "time"]].last()
    waiting = last[last["event"].isin(WAITING)]  # waiting since its submit, or since its release after a preemption
    queue = pd.DataFrame(
        {
            "job_id": waiting.index,
            "job_class": jobs.set_index("job_id").loc[waiting.index, "job_class"].to_numpy(),
            "seconds": time - waiting["time"].to_numpy(float),
        }
    )
    queue = queue.sort_values(["seconds"], ascending=False, kind="stable", ignore_index=True)
    queue = pd.DataFrame(
        {
            "job": queue["job_id"],
            "class": queue["job_class"],
            QUEUE_WAIT: [fmt.duration(t) for t in queue["seconds"]],
        }
    )
    now = events[events["time"] == time]
    story = tuple(_sentence(row, jobs, held, losses) for _, row in now.iterrows())
    return Snapshot(time, grid, queue, story)


def _sentence(row: pd.Series, jobs: pd.DataFrame, held: pd.DataFrame, losses: pd.DataFrame) -> str:
    job = jobs[jobs["job_id"] == row["job_id"]].iloc[0]
    who = f"{job['job_class']} job {row['job_id']}"
    event, node = row["event"], row["node"]
    if event == "submit":
        return f"{who} arrives ({fmt.duration(float(job['duration']))} of work) and joins the queue."
    if event == "start":
        lanes = held[(held["job_id"] == row["job_id"]) & (held["node"] == node)]
        gpus = ", ".join(str(x) for x in sorted(set(lanes["lane"].tolist()), key=str))
        restoring = bool((lanes["kind"] == "restore").any())
        tail = ": it first restores its checkpoint" if restoring else ""
        return f"{who} starts on {node} (GPU {gpus or 'none'}){tail}."
    if event == "preempt":
        mine = losses[(losses["job_id"] == row["job_id"]) & (losses["time"] == row["time"])]
        lost = float(mine["lost"].iloc[0]) if len(mine) else 0.0
        loss = (
            "it loses no work"
            if lost == 0
            else f"{fmt.duration(lost)} of work done since its last kept checkpoint is lost"
        )
        return (
            f"{who} on {node} is preempted: its progress stops now, it keeps its GPUs for the grace "
            f"period (its chance to checkpoint), and {loss}."
        )
    if event == "release":
        return f"{who} releases its GPUs on {node} and goes back to the queue with its remaining work."
    if event == "finish":
        return f"{who} finishes on {node} (slowdown {fmt.number(float(job['slowdown']))})."
    return f"{who}: {event} on {node}."


def grid_frame(snap: Snapshot, cluster: ClusterSpec) -> pd.DataFrame:
    """Every GPU lane of every node at the snapshot: node, lane, job_id ('' when idle), job_class, kind."""
    rows = []
    for node in cluster.nodes:
        for lane in range(gantt.lane_count(node.capacity.gpu)):
            here = snap.grid[(snap.grid["node"] == node.name) & (snap.grid["lane"] == lane)]
            if len(here):
                for _, r in here.iterrows():
                    rows.append((node.name, lane, str(r["job_id"]), r["job_class"], r["kind"]))
            else:
                rows.append((node.name, lane, "", "idle", "idle"))
    return pd.DataFrame(rows, columns=["node", "lane", "job_id", "job_class", "kind"])


def outcome_table(runs: Mapping[str, Any]) -> pd.DataFrame:
    """The end of each variant in numbers, from its run: TE wait, BE slowdown, preemptions, lost work (times
    in one unit per column, named in its header)."""
    rows = []
    for label, run in runs.items():
        j = run.jobs
        te, be = j[j["job_class"] == "TE"], j[j["job_class"] == "BE"]
        rows.append(
            {
                "variant": label,
                "longest TE wait": float(te["wait"].max()) if len(te) else 0.0,
                "BE slowdown, mean": float(be["slowdown"].mean()) if len(be) else float("nan"),
                "preemptions": int(j["preemptions"].sum()),
                "lost work": float(j["lost_work"].sum()),
                "last finish": float(j["finish"].max()),
            }
        )
    table = pd.DataFrame(rows)
    for column in ("longest TE wait", "lost work"):  # seconds -> the unit the column reads best in, in its header
        unit, size = fmt.duration_unit(table[column].to_numpy(float))
        table[column] = table[column] / size
        table = table.rename(columns={column: f"{column} ({unit})"})
    name, finish = views.instants("last finish", table.pop("last finish"))
    table[name] = finish
    return table
