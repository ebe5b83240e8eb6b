"""The ``simcore`` command line: run, compare, policies, generate, convert, sweep, reproduce, explain,
whatif, checkpoint-advice (and report, a plugin: :mod:`simcore.cli.plugins`).

One module per group of commands (:mod:`~simcore.cli.run`, :mod:`~simcore.cli.policies`,
:mod:`~simcore.cli.workload`, :mod:`~simcore.cli.sweep`, :mod:`~simcore.cli.whatif`,
:mod:`~simcore.cli.advice`), each importing what the commands share
(:mod:`~simcore.cli.common`, :mod:`~simcore.cli.inputs`) and never another command's module.
:func:`main` builds only the parser of the command asked for, so ``simcore --help`` imports no
command module and a command imports only what it uses (``bench/cli_imports.py`` measures it).
Every command builds the same frozen :class:`~simcore.core.model.SimConfig` from
``--set KEY=VALUE``. User errors print ``error: ...`` and exit 2; nothing prints a traceback for bad input.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from simcore.cli import plugins
from simcore.core.errors import UserError

#: command -> (its module in this package, its one-line help); the module's ``add_<command>(subparsers, help)`` adds it
COMMANDS: dict[str, tuple[str, str]] = {
    "run": ("run", "simulate one policy on a workload"),
    "compare": ("run", "several policies on one workload"),
    "policies": ("policies", "list every policy, one per line, with its help and its own knobs"),
    "generate": ("workload", "generate a synthetic workload from a preset (paper, demo, mmc)"),
    "convert": ("workload", "convert a trace (Alibaba GPU 2023, JSON, Parquet, CSV) to the canonical workload CSV"),
    "sweep": ("sweep", "run a grid of knobs x workload parameters x seeds x policies (local processes or Dask)"),
    "reproduce": ("sweep", "re-measure the paper's claim over many seeds and regimes and regenerate docs/RESULTS.md"),
    "explain": ("whatif", "one job's story and why it waited (the engine's own reasons)"),
    "whatif": ("whatif", "one job's counterfactual with one change, or when a described job would start"),
    "checkpoint-advice": (
        "advice",
        "sweep checkpoint_interval under one policy: the best interval beside Young/Daly's optimum",
    ),
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``simcore`` parser. Without ``command``, every command's complete parser (and every
    plugin's). With one, only that command's parser is complete and the others are listed by name
    and help, which imports only that command's module; a name that is no built-in command is
    looked up among the installed plugins."""
    parser = argparse.ArgumentParser(
        prog="simcore",
        description="Simulate TE/BE job scheduling with preemption on a GPU cluster (DESIGN.md).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name, (module, help) in COMMANDS.items():
        if command is None or command == name:
            getattr(importlib.import_module(f"simcore.cli.{module}"), f"add_{name.replace('-', '_')}")(sub, help)
        else:
            sub.add_parser(name, help=help, add_help=False)
    if command is None or (command and command not in COMMANDS):
        plugins.add_plugin_commands(sub)  # report, from the dashboard package when it is installed
    else:
        plugins.list_known_commands(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in argv if not a.startswith("-")), "")  # the parser has no option before it but -h
    args = build_parser(command).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"error: {e.strerror or e}: {e.filename}" if e.filename else f"error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
