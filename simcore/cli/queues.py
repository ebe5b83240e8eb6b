"""``--queues FILE`` on the command line (DESIGN rule 11): the option, the queues read and checked
against the workload, and the per-queue tables ``simcore run`` and ``simcore compare`` print
(DESIGN-queues point 12), from the summary's ``queues`` block (:func:`simcore.analysis.metrics.queues_block`)."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable
from simcore.core.queues import overcommit_warning
from simcore.workload import LoadedWorkload
from simcore.workload.queues import check_job_queues, load_queues, write_queues


def add_queues_option(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """``--queues FILE``: the teams sharing the cluster (DESIGN rule 11); returns it (as
    :func:`add_workload_file_options`)."""
    action = parser.add_argument(
        "--queues",
        metavar="FILE",
        help="queues file, CSV or YAML (queue, gpu, borrow_limit, weight): teams with GPU quotas that borrow "
        "idle GPUs and reclaim them by preemption (docs/policies.md#queues); every job's queue column must "
        "name one (no column or an empty cell: the queue 'default')",
    )
    return [action]


def queues_from_args(
    args: argparse.Namespace, jobs: LoadedWorkload | JobTable, cluster: ClusterSpec, notes: list[str]
) -> ClusterSpec:
    """`cluster` shared by the queues of ``--queues`` (unchanged without it), once every job's queue
    is checked to be there (an error names the workload row and the column ``queue``). Notes (amounts
    rounded) and the overcommit warning (``warning: ...``) are appended to `notes`."""
    path = getattr(args, "queues", None)
    if not path:
        return cluster
    loaded = load_queues(path)
    check_job_queues(loaded.spec, jobs, str(args.workload), str(path))
    notes.extend(loaded.notes)
    warning = overcommit_warning(loaded.spec, cluster)
    if warning:
        notes.append(f"warning: {warning}")
    return cluster.with_queues(loaded.spec)


QUEUES_OUT_HELP = "a preset with queues (teams): its queues file for --queues (default: beside --out, NAME.queues.csv)"


def write_preset_queues(cluster: ClusterSpec, args: argparse.Namespace) -> str:
    """Write a generated cluster's queues file (``--queues-out``); the ``--queues`` option to print, or ""."""
    if cluster.queues is None:
        if args.queues_out:
            raise UserError(f"--queues-out: preset {args.preset} has no queues (teams has)")
        return ""
    path = args.queues_out or str(Path(args.out).with_name(f"{Path(args.out).stem}.queues.csv"))
    write_queues(cluster.queues, path)
    print(f"wrote {path}: the preset's queues ({', '.join(cluster.queues.names)})")
    return f" --queues {path}"


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
