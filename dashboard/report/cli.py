"""``simcore report``: the plugin behind the entry point ``simcore.commands: report`` (pyproject.toml).

It runs the policies as the Explore page's report button does (:func:`dashboard.report.gather.runs_and_records`:
the runs, then the decision records of the preemptive ones) and writes the report of
:mod:`dashboard.report.builder`.
"""

from __future__ import annotations

import argparse
import hashlib
import shlex
from collections.abc import Sequence
from pathlib import Path

from dashboard.report import gather
from dashboard.report.builder import ReportInput, build_report
from simcore.analysis.compare import parse_policy_list
from simcore.cli import inputs
from simcore.cli.common import add_set_option, config_from_args, knob_epilog, warn_unschedulable
from simcore.core.errors import UserError

DEFAULT_POLICIES = "fifo,priority,k8s,fitgpp"


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``report`` to the ``simcore`` subcommands."""
    p = sub.add_parser(
        "report",
        help="several policies on one workload, written as one self-contained HTML file",
        epilog=knob_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    inputs.add_workload_options(p)
    p.add_argument(
        "--policies",
        default=DEFAULT_POLICIES,
        help="comma-separated policies, each optionally with knobs (fitgpp:P=1:s=4)",
    )
    p.add_argument("--baseline", default="fifo", help="the policy the trio is measured against (default fifo)")
    inputs.add_cluster_options(p)
    add_set_option(p)
    p.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write")
    p.set_defaults(func=lambda args: cmd_report(args, p))


def command_of(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str:
    """The ``simcore report`` command of ``args``: the workload, then every option not at its default."""
    words = ["simcore", "report"]
    for action in parser._actions:
        value = getattr(args, action.dest, None)
        if (
            isinstance(action, argparse._HelpAction)
            or value is None
            or value == action.default
            and action.option_strings
        ):
            continue
        if not action.option_strings:
            words.append(str(value))
        elif isinstance(action, argparse._StoreTrueAction):
            words.append(action.option_strings[-1])
        elif isinstance(value, list):
            for item in value:
                words += [action.option_strings[-1], str(item)]
        else:
            words += [action.option_strings[-1], str(value)]
    return shlex.join(words)


def report_input(args: argparse.Namespace, command: str) -> ReportInput:
    """Run the scenario of ``args`` and gather what its report shows."""
    specs = parse_policy_list(args.policies, config_from_args(args))
    labels = [s.label for s in specs]
    if args.baseline not in labels:
        raise UserError(f"--baseline {args.baseline!r} is not in --policies ({', '.join(labels)})")
    jobs, cluster = inputs.load_inputs(args)
    configs = {s.label: s.config for s in specs}
    runs, records = gather.runs_and_records(jobs, cluster, configs, _quiet)
    warn_unschedulable(runs[args.baseline].summary["unschedulable"])
    return ReportInput(
        title=Path(args.workload).name,
        command=command,
        checksum=hashlib.sha256(Path(args.workload).read_bytes()).hexdigest(),
        jobs=jobs,
        cluster=cluster,
        configs=configs,
        baseline=args.baseline,
        runs=runs,
        seed_flats=[{p: r.flat for p, r in runs.items()}],
        records=records,
    )


def _quiet(fraction: float) -> None:
    """No progress display on the command line: runs of a report take seconds."""


def cmd_report(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    html = build_report(report_input(args, command_of(parser, args)))
    Path(args.out).write_text(html, encoding="utf-8")
    print(f"wrote {args.out} ({len(html.encode()) / 1e6:.2f} MB)")
    return 0


def report_command(local: str, cluster: Sequence[str] = ()) -> str:
    """The ``simcore report`` command for the Explore page's local command(s) (its last line is
    a ``simcore compare``; a ``simcore sweep`` over several seeds is kept as it is). ``cluster``:
    the cluster options to add when that line names no cluster (an uploaded cluster file)."""
    *steps, last = local.split("\n")
    words = shlex.split(last)
    if words[:2] != ["simcore", "compare"]:
        return local
    rest = words[2:]
    if not any(w in ("--cluster", "--cluster-trace", "--nodes") for w in rest):
        rest = [rest[0], *cluster, *rest[1:]]
    return "\n".join([*steps, shlex.join(["simcore", "report", *rest, "--out", "report.html"])])
