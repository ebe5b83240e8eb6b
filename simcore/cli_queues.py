"""The per-queue tables ``simcore run`` and ``simcore compare`` print with ``--queues``
(DESIGN-queues point 12), from the summary's ``queues`` block (:func:`simcore.metrics.queues_block`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from simcore import fmt

#: (header, width, the cell of a queue's entry): the columns both tables share
COLUMNS: tuple[tuple[str, int, Any], ...] = (
    ("quota", 6, lambda e: fmt.cell(e["gpu"]) if e["gpu"] != "inf" else "inf"),
    ("jobs", 6, lambda e: str(e["jobs"])),
    ("TE wait p95 s", 14, lambda e: fmt.cell(e["classes"]["TE"]["wait"]["p95"])),
    ("BE sd p50", 10, lambda e: fmt.cell(e["classes"]["BE"]["slowdown"]["p50"])),
    ("BE sd p95", 10, lambda e: fmt.cell(e["classes"]["BE"]["slowdown"]["p95"])),
    ("mean GPUs", 10, lambda e: fmt.cell(e["usage_mean"])),
    ("borrowed GPU-h", 15, lambda e: fmt.cell(e["gpu_seconds_above_quota"] / 3600)),
    ("reclaimed", 10, lambda e: str(e["preemptions_suffered"]["reclaim"])),
    ("reclaims", 9, lambda e: str(e["preemptions_caused"]["reclaim"])),
    ("TE-first", 9, lambda e: str(e["preemptions_suffered"]["te_first"])),
)
NOTE = (
    "reclaimed: its jobs preempted by other queues; reclaims: the other queues' jobs it preempted; "
    "TE-first: its BE jobs preempted by its own TE jobs; slowdown (sd) and wait per queue"
)


def _row(first: list[str], widths: list[int], entry: Mapping[str, Any]) -> str:
    cells = [f"{c:<{w}}" for c, w in zip(first, widths, strict=True)]
    return " ".join(cells + [f"{cell(entry):>{w}}" for _, w, cell in COLUMNS])


def _head(first: list[str], widths: list[int]) -> str:
    return " ".join([f"{c:<{w}}" for c, w in zip(first, widths, strict=True)] + [f"{h:>{w}}" for h, w, _ in COLUMNS])


def run_table(queues: Mapping[str, Mapping[str, Any]]) -> str:
    """One row per queue of one run."""
    width = max(8, *(len(q) for q in queues))
    lines = [_head(["queue"], [width])]
    lines += [_row([q], [width], e) for q, e in queues.items()]
    return "\n".join([*lines, NOTE])


def compare_table(by_policy: Mapping[str, Mapping[str, Mapping[str, Any]]], policy_width: int) -> str:
    """One row per queue and policy (queues in file order, policies in the compare's order)."""
    names = list(next(iter(by_policy.values())))
    width = max(8, *(len(q) for q in names))
    lines = [_head(["queue", "policy"], [width, policy_width])]
    for q in names:
        lines += [_row([q, label], [width, policy_width], queues[q]) for label, queues in by_policy.items()]
    return "\n".join([*lines, NOTE])
