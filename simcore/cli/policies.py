"""``simcore policies``: every policy, one per line, with its help and its own knobs."""

from __future__ import annotations

import argparse

from simcore.cli.common import knob_epilog
from simcore.core import knobs
from simcore.policies import POLICIES, POLICY_HELP, POLICY_KNOBS


def cmd_policies(args: argparse.Namespace) -> int:
    """One line per policy: its name, its help and its own knobs (with their defaults)."""
    width = max(len(name) for name in POLICIES)
    for name in POLICIES:
        own = ", ".join(f"{k}={knobs.KNOBS[k].default_text()}" for k in POLICY_KNOBS[name]) or "none"
        print(f"{name:<{width}}  {POLICY_HELP[name]} [knobs: {own}]")
    return 0


def add_policies(sub: argparse._SubParsersAction, help: str) -> None:
    pol = sub.add_parser(
        "policies", help=help, epilog=knob_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    pol.set_defaults(func=cmd_policies)
