"""What the commands share: ``--set`` and the run's config, the workload and cluster loaded with
their notes, warnings, strict JSON files, and the knob list under a command's help.

Every command module of :mod:`simcore.cli` imports this module and :mod:`simcore.cli.inputs`,
never another command's module (so does the ``report`` plugin, dashboard/report/cli.py).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simcore.cli.inputs import cluster_from_args, parse_assignments, workload_from_args
from simcore.core import knobs, units
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable, SimConfig
from simcore.policies import POLICY_HELP


def knob_epilog() -> str:
    lines = ["knobs for --set KEY=VALUE (the table with types and policies: docs/knobs.md):", *knobs.help_lines()]
    lines += ["", "policies:"] + [f"  {k:<9} {v}" for k, v in POLICY_HELP.items()]
    lines += ["", "fitgpp is our reconstruction of the paper's approach (arXiv 1902.01613), not its exact algorithm."]
    return "\n".join(lines)


def add_set_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set",
        dest="knobs",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="set a policy or mechanics knob (repeatable; see the list below)",
    )


def config_from_args(args: argparse.Namespace, policy: str = "fifo") -> SimConfig:
    knobs = parse_assignments(args.knobs)
    try:
        return SimConfig(policy=policy).with_knobs(knobs)
    except ValueError as e:
        raise UserError(str(e)) from None


def load_inputs(args: argparse.Namespace) -> tuple[JobTable, ClusterSpec]:
    """The workload and cluster of the options of :mod:`simcore.cli.inputs`; their notes go to stderr."""
    jobs, notes = workload_from_args(args)
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    cluster = cluster_from_args(args)
    rounding = units.rounding_note(jobs.request, cluster.capacity_matrix())
    if rounding:
        print(f"note: {rounding}", file=sys.stderr)
    return jobs, cluster


def warn_unschedulable(ids: Sequence[str]) -> None:
    if ids:
        shown = ", ".join(ids[:20]) + (f", ... ({len(ids) - 20} more)" if len(ids) > 20 else "")
        print(f"warning: {len(ids)} job(s) fit on no node and were not simulated: {shown}", file=sys.stderr)


def write_json(path: str, data: Any) -> None:
    """Strict JSON (no NaN or Infinity, which JSON does not have): a non-finite number is a
    clear error naming the field, and nothing is written."""
    try:
        text = json.dumps(data, indent=2, allow_nan=False) + "\n"
    except ValueError:
        raise UserError(
            f"{path}: not written: {_non_finite(data) or 'a value'} is not a finite number, which JSON cannot hold "
            "(please report this with the command that produced it)"
        ) from None
    Path(path).write_text(text)


def _non_finite(data: Any, where: str = "") -> str | None:
    """The path (``classes.TE.slowdown.p95``) of the first non-finite number in ``data``."""
    if isinstance(data, float) and not math.isfinite(data):
        return where or "the value"
    items = data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, list) else ()
    for key, value in items:
        found = _non_finite(value, f"{where}.{key}" if where else str(key))
        if found:
            return found
    return None
