"""The Queues tab's frames (issue 34), pure: per queue its waits, slowdowns, usage and preemptions from
the summaries' ``queues`` blocks (DESIGN-queues point 12), and the preemption ledger as people read it.

Every column names its unit; the tables round them (:mod:`dashboard.shared.tables`). A queue's name
may be the visitor's text: it stays a cell value, never markup.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import pandas as pd

from dashboard.shared.views import HOUR, instants
from simcore.core import fmt
from simcore.core.queues import QueueSpec

#: the per-queue columns: (header with its unit, path in the queues block, scale)
QUEUE_COLUMNS: tuple[tuple[str, tuple[str, ...], float], ...] = (
    ("quota (GPUs)", ("gpu",), 1.0),
    ("borrow limit (GPUs)", ("borrow_limit",), 1.0),
    ("weight", ("weight",), 1.0),
    ("jobs", ("jobs",), 1.0),
    ("TE p95 slowdown", ("classes", "TE", "slowdown", "p95"), 1.0),
    ("BE p50 slowdown", ("classes", "BE", "slowdown", "p50"), 1.0),
    ("BE p95 slowdown", ("classes", "BE", "slowdown", "p95"), 1.0),
    ("TE p95 wait (h)", ("classes", "TE", "wait", "p95"), HOUR),
    ("BE p95 wait (h)", ("classes", "BE", "wait", "p95"), HOUR),
    ("mean use (GPUs)", ("usage_mean",), 1.0),
    ("GPU-h above quota", ("gpu_seconds_above_quota",), HOUR),
    ("reclaimed from it", ("preemptions_suffered", "reclaim"), 1.0),
    ("stopped by its own TE", ("preemptions_suffered", "te_first"), 1.0),
    ("reclaims it made", ("preemptions_caused", "reclaim"), 1.0),
)
#: the columns that count (jobs, preemptions): whole numbers
COUNTS = ("jobs", "reclaimed from it", "stopped by its own TE", "reclaims it made")
#: GPU-hours its jobs paid to reclaims: lost, in grace and restoring (accounting's three costs)
PAID = ("gpu_seconds_lost", "gpu_seconds_grace", "gpu_seconds_restore")
PAID_HEADER = "GPU-h paid to reclaims"


def _at(entry: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    value: Any = entry
    for key in path:
        value = value[key]
    return value


def _value(raw: Any, scale: float) -> float:
    """A block's number as a cell: inf stays inf (no limit), None (an empty class) is NaN."""
    if raw is None:
        return math.nan
    if isinstance(raw, str):  # the summary writes an unlimited quota or borrow limit as "inf"
        return math.inf
    return float(raw) / scale


def queue_frame(summaries: Mapping[str, Mapping[str, Any]]) -> pd.DataFrame:
    """One row per (policy, queue), policies in order and queues in file order: settings, waits,
    slowdowns, usage and preemptions suffered and caused (per victim), from each run's summary."""
    rows = []
    for policy, summary in summaries.items():
        for name, entry in (summary.get("queues") or {}).items():
            row: dict[str, Any] = {"policy": policy, "queue": name}
            for header, path, scale in QUEUE_COLUMNS:
                row[header] = _value(_at(entry, path), scale)
            row[PAID_HEADER] = sum(float(entry[c]["reclaim"]) for c in PAID) / HOUR
            rows.append(row)
    frame = pd.DataFrame.from_records(rows)
    return frame.astype({c: int for c in COUNTS}) if len(frame) else frame


def queue_names(usage: pd.DataFrame) -> list[str]:
    """The queues of a usage frame (:func:`simcore.analysis.queue_metrics.usage_over_time`), in file order."""
    return list(dict.fromkeys(usage["queue"]))


def _pairs(text: str) -> dict[str, float]:
    """A ledger cell ``q=v;p=w`` as {q: v, p: w}; the split is at the last ``=`` (a name may hold one)."""
    out = {}
    for part in text.split(";") if text else []:
        name, _, value = part.rpartition("=")
        out[name] = float(value)
    return out


def ledger_rows(ledger: pd.DataFrame) -> list[dict[str, Any]]:
    """The ledger's rows (:func:`simcore.analysis.queue_metrics.ledger_frame`) as records: who gained
    (``queue``, ``job``, ``job_class``), who paid (``victims`` with their queues and GPUs) and each
    touched queue's running GPUs before and after the signals."""
    out = []
    for rec in ledger.to_dict("records"):
        victims = str(rec["victims"]).split(";") if rec["victims"] else []
        out.append(
            {
                "time": float(rec["time"]),
                "cause": str(rec["cause"]),
                "queue": str(rec["queue"]),
                "job": str(rec["job"]),
                "job_class": str(rec["job_class"]),
                "victims": victims,
                "victim_queues": str(rec["victim_queues"]).split(";") if victims else [],
                "victim_gpus": [float(g) for g in str(rec["victim_gpus"]).split(";")] if victims else [],
                "running_before": _pairs(str(rec["running_before"])),
                "running_after": _pairs(str(rec["running_after"])),
            }
        )
    return out


def paid_text(row: Mapping[str, Any]) -> str:
    """Who paid, in words: ``job 12 of nlp (8 GPUs), job 13 of nlp (4 GPUs)``."""
    return ", ".join(
        f"job {v} of {q} ({fmt.number(g)} GPUs)"
        for v, q, g in zip(row["victims"], row["victim_queues"], row["victim_gpus"], strict=True)
    )


def running_text(row: Mapping[str, Any]) -> str:
    """Each touched queue's running GPUs before -> after the signals: ``nlp 55 -> 47``."""
    before, after = row["running_before"], row["running_after"]
    return "; ".join(f"{q} {fmt.number(before[q])} -> {fmt.number(after.get(q, before[q]))}" for q in before)


def ledger_table(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The ledger as a table: when, why, who gained, who paid, the GPUs taken and the running GPUs."""
    header, when = instants("time", [r["time"] for r in rows])
    return pd.DataFrame(
        {
            header: when,
            "cause": [r["cause"] for r in rows],
            "gained: queue": [r["queue"] for r in rows],
            "gained: job": [r["job"] for r in rows],
            "class": [r["job_class"] for r in rows],
            "paid": [paid_text(r) for r in rows],
            "GPUs taken": [float(sum(r["victim_gpus"])) for r in rows],
            "running GPUs before -> after": [running_text(r) for r in rows],
        }
    )


def ledger_words(row: Mapping[str, Any]) -> str:
    """One ledger row in a sentence (the timeline's hover and the chosen row's caption)."""
    cause = "reclaimed its quota" if row["cause"] == "reclaim" else "took its own team's BE jobs (TE first)"
    return (
        f"At {fmt.clock(row['time'])}, {row['queue']}'s {row['job_class']} job {row['job']} {cause}: "
        f"{paid_text(row)} stopped."
    )


def _gpus(v: float) -> str:
    return "no limit" if math.isinf(v) else f"{fmt.number(v)} GPUs"


def queues_caption(spec: QueueSpec, own: bool) -> str:
    """The queues a run uses in one line (``own``: the workload's, else the sidebar's table)."""
    listed = "; ".join(
        f"{q.name}: quota {_gpus(q.gpu)}, borrow limit {_gpus(q.borrow_limit)}, weight {fmt.number(q.weight)}"
        for q in spec.queues
    )
    whose = "the workload's own" if own else "the sidebar's table"
    return f"Queues ({whose}): {listed}"
