"""What the commands share: ``--set`` and the run's config, warnings, strict JSON files, and the knob
list under a command's help (the workload and cluster options are :mod:`simcore.cli.inputs`).

Every command module of :mod:`simcore.cli` imports this module, :mod:`simcore.cli.inputs` and
:mod:`simcore.cli.queues`, never another command's module (so does the ``report`` plugin,
dashboard/report/cli.py).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simcore.core import knobs
from simcore.core.errors import UserError
from simcore.core.knobs import split_assignment
from simcore.core.model import SimConfig
from simcore.core.queues import FITS_NO_NODE
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


def warn_unschedulable(ids: Sequence[str], reasons: Sequence[str] = ()) -> None:
    """List the jobs left out up front (rule 8), by reason when a run with queues gives them."""
    by_reason: dict[str, list[str]] = {}
    for i, x in enumerate(ids):
        by_reason.setdefault(reasons[i] if reasons else FITS_NO_NODE, []).append(x)
    for why, mine in by_reason.items():
        shown = ", ".join(mine[:20]) + (f", ... ({len(mine) - 20} more)" if len(mine) > 20 else "")
        what = "fit on no node" if why == FITS_NO_NODE else f"are {why}"
        print(f"warning: {len(mine)} job(s) {what} and were not simulated: {shown}", file=sys.stderr)


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


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``["jobs=10", "load=0.9"]`` -> ``{"jobs": "10", "load": "0.9"}``; a later value wins."""
    out: dict[str, str] = {}
    for item in items:
        pair = split_assignment(item)
        if pair is None:
            raise UserError(f"--set {item!r}: expected KEY=VALUE")
        out[pair[0]] = pair[1]
    return out
