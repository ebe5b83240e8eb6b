"""The ``simcore`` command line: run, compare, generate, convert, sweep, reproduce, explain, whatif (and report, a plugin).

Every subcommand builds the same frozen :class:`SimConfig` from ``--set KEY=VALUE``. User
errors print ``error: ...`` and exit 2; nothing prints a traceback for bad input.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from simcore import (
    accounting,
    cli_plugins,
    cli_queues,
    cli_sweep,
    cli_whatif,
    cli_workload,
    fmt,
    gantt,
    knobs,
    queue_metrics,
    units,
)
from simcore.bound import BOUND_LABEL, run_bound
from simcore.compare import compare_results, parse_policy_list, parse_policy_spec, run_policies
from simcore.csvsafe import write_csv
from simcore.engine import simulate
from simcore.errors import UserError
from simcore.metrics import flat_summary, summarize, trio
from simcore.model import SimConfig
from simcore.policies import POLICIES, POLICY_HELP, POLICY_KNOBS
from simcore.queues import FITS_NO_NODE


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
    knobs = cli_workload.parse_assignments(args.knobs)
    try:
        return SimConfig(policy=policy).with_knobs(knobs)
    except ValueError as e:
        raise UserError(str(e)) from None


def load_inputs(args: argparse.Namespace):
    """The workload and the cluster of ``args`` (shared by the queues of ``--queues``, when given)."""
    loaded, notes = cli_workload.loaded_workload_from_args(args)
    jobs = loaded.table
    cluster = cli_workload.cluster_from_args(args)
    cluster = cli_queues.queues_from_args(args, loaded, cluster, notes)
    for note in notes:
        print(note if note.startswith("warning: ") else f"note: {note}", file=sys.stderr)
    rounding = units.rounding_note(jobs.request, cluster.capacity_matrix())
    if rounding:
        print(f"note: {rounding}", file=sys.stderr)
    return jobs, cluster


def warn_unschedulable(ids: Sequence[str], reasons: Sequence[str] = ()) -> None:
    """List the jobs left out up front (rule 8), by reason when a run with queues gives them."""
    by_reason: dict[str, list[str]] = {}
    for i, x in enumerate(ids):
        by_reason.setdefault(reasons[i] if reasons else FITS_NO_NODE, []).append(x)
    for why, mine in by_reason.items():
        shown = ", ".join(mine[:20]) + (f", ... ({len(mine) - 20} more)" if len(mine) > 20 else "")
        what = "fit on no node" if why == FITS_NO_NODE else f"are {why}"
        print(f"warning: {len(mine)} job(s) {what} and were not simulated: {shown}", file=sys.stderr)


def _write_json(path: str, data: Any) -> None:
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


def cmd_run(args: argparse.Namespace) -> int:
    spec = parse_policy_spec(args.policy, config_from_args(args))
    jobs, cluster = load_inputs(args)
    if args.ledger_out and cluster.queues is None:
        raise UserError("--ledger-out lists the preemptions between queues: give --queues FILE too")
    result = simulate(jobs, cluster, spec.config, record_decisions=bool(args.decisions_out))
    warn_unschedulable(result.unschedulable, result.unschedulable_reasons)
    summary = summarize(result)
    if args.jobs_out:
        write_csv(result.jobs_frame, args.jobs_out)
    if args.events_out:
        write_csv(result.events_frame, args.events_out)
    if args.summary_json:
        _write_json(args.summary_json, summary)
    if args.gantt_out:
        write_csv(gantt.segments(result)[gantt.GANTT_COLUMNS], args.gantt_out)
    if args.decisions_out:  # JSON escapes every text itself: no CSV-style escaping applies
        records = accounting.annotated_decisions(result)
        Path(args.decisions_out).write_text("".join(json.dumps(d, allow_nan=False) + "\n" for d in records))
    if args.ledger_out:
        write_csv(queue_metrics.ledger_frame(result), args.ledger_out)
    c = summary["classes"]
    print(
        f"policy {spec.label}: {c['all']['count']} jobs ({c['TE']['count']} TE, {c['BE']['count']} BE) "
        f"on {len(cluster.nodes)} nodes in {summary['wall_seconds']:.2f} s"
    )
    print(
        f"{'class':<5} {'count':>6} {'slowdown p50':>13} {'p95':>9} {'p99':>9} {'wait mean s':>12} {'wait p95 s':>11}"
    )
    for name in ("TE", "BE", "all"):
        s, w = c[name]["slowdown"], c[name]["wait"]
        print(
            f"{name:<5} {c[name]['count']:>6} {fmt.cell(s['p50']):>13} {fmt.cell(s['p95']):>9} "
            f"{fmt.cell(s['p99']):>9} {fmt.cell(w['mean']):>12} {fmt.cell(w['p95']):>11}"
        )
    print(
        f"preemptions {summary['preemptions']}, lost work {summary['lost_work']:.0f} s, "
        f"GPU utilisation {fmt.cell(summary['gpu_utilization'])}, makespan {summary['makespan']:.0f} s"
    )
    if "queues" in summary:
        print(cli_queues.run_table(summary["queues"]))
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    specs = parse_policy_list(args.policies, config_from_args(args))
    labels = [s.label for s in specs]
    if args.baseline not in labels:
        raise UserError(f"--baseline {args.baseline!r} is not in --policies ({', '.join(labels)})")
    jobs, cluster = load_inputs(args)
    results = run_policies(jobs, cluster, specs)
    first = next(iter(results.values()))
    unschedulable = first.unschedulable
    warn_unschedulable(unschedulable, first.unschedulable_reasons)
    out = compare_results(results, args.baseline)
    rows = list(labels)
    if args.bound:  # a reference row beside the policies, never one of them
        results[BOUND_LABEL] = run_bound(jobs, cluster, config_from_args(args), unschedulable)
        bound = summarize(results[BOUND_LABEL])
        base = out["policies"][args.baseline]
        out["bound"] = {"label": BOUND_LABEL, "summary": bound, "vs_baseline": trio(bound, base)}
        rows.append(BOUND_LABEL)
    summaries = {**out["policies"], **({BOUND_LABEL: out["bound"]["summary"]} if args.bound else {})}
    versus = {**out["vs_baseline"], **({BOUND_LABEL: out["bound"]["vs_baseline"]} if args.bound else {})}
    width = max(8, *(len(x) for x in labels), len(_row_label(BOUND_LABEL)) if args.bound else 0)
    print(f"{len(jobs)} jobs on {len(cluster.nodes)} nodes; trio in % vs {args.baseline}")
    head = (
        f"{'policy':<{width}} {'TE p95 sd':>10} {'BE p50 sd':>10} {'BE p95 sd':>10} {'TE p95 %':>9} "
        f"{'BE p50 %':>9} {'BE p95 %':>9} {'preempt':>8} {'GPU util':>9} {'wall s':>7}"
    )
    print(head)
    flat = {label: flat_summary(results[label], summaries[label]) for label in rows}
    for label in rows:
        f, t = flat[label], versus[label]
        print(
            f"{_row_label(label):<{width}} {fmt.cell(f['TE_slowdown_p95']):>10} {fmt.cell(f['BE_slowdown_p50']):>10} "
            f"{fmt.cell(f['BE_slowdown_p95']):>10} {fmt.pct(t['TE_p95_slowdown_pct']):>9} "
            f"{fmt.pct(t['BE_p50_slowdown_pct']):>9} {fmt.pct(t['BE_p95_slowdown_pct']):>9} "
            f"{f['preemptions']:>8} {fmt.cell(f['gpu_utilization']):>9} "
            f"{summaries[label]['wall_seconds']:>7.2f}"
        )
    if args.accounting:
        print()
        print(accounting_table(flat, width))
    if cluster.queues is not None:
        print()
        print(cli_queues.compare_table({label: out["policies"][label]["queues"] for label in labels}, width))
    if args.json:
        _write_json(args.json, out)
    return 0


def _row_label(label: str) -> str:
    return f"{label} (bound)" if label == BOUND_LABEL else label


#: the accounting table's columns: flat field -> header
ACCOUNTING_COLUMNS = {
    "preemption_decisions": "decisions",
    "gpu_seconds_lost": "lost GPU-s",
    "gpu_seconds_grace": "grace GPU-s",
    "gpu_seconds_restore": "restore GPU-s",
    "evicted_share": "evicted",
    "excess_gpus": "excess GPUs",
    "wasted_preemptions": "wasted",
    "repreempted": "repreempted",
}


def accounting_table(flat: dict[str, dict[str, Any]], width: int) -> str:
    """``compare --accounting``: one row per policy (and the bound) of its preemption accounting."""
    head = f"{'accounting':<{width}} " + " ".join(f"{h:>13}" for h in ACCOUNTING_COLUMNS.values())
    lines = [head]
    for label, f in flat.items():
        cells = [fmt.cell(f[k]) for k in ACCOUNTING_COLUMNS]
        lines.append(f"{_row_label(label):<{width}} " + " ".join(f"{c:>13}" for c in cells))
    return "\n".join(lines)


def cmd_policies(args: argparse.Namespace) -> int:
    """One line per policy: its name, its help and its own knobs (with their defaults)."""
    width = max(len(name) for name in POLICIES)
    for name in POLICIES:
        own = ", ".join(f"{k}={knobs.KNOBS[k].default_text()}" for k in POLICY_KNOBS[name]) or "none"
        print(f"{name:<{width}}  {POLICY_HELP[name]} [knobs: {own}]")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="simcore",
        description="Simulate TE/BE job scheduling with preemption on a GPU cluster (DESIGN.md).",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    fmt = argparse.RawDescriptionHelpFormatter

    run = sub.add_parser("run", help="simulate one policy on a workload", epilog=knob_epilog(), formatter_class=fmt)
    cli_workload.add_workload_options(run)
    run.add_argument("--policy", default="fifo", help="policy name, optionally with knobs: fitgpp:P=1 (default fifo)")
    cli_workload.add_cluster_options(run)
    add_set_option(run)
    run.add_argument("--jobs-out", metavar="FILE", help="write the per-job CSV")
    run.add_argument("--events-out", metavar="FILE", help="write the events CSV")
    run.add_argument("--summary-json", metavar="FILE", help="write the summary JSON")
    run.add_argument(
        "--gantt-out", metavar="FILE", help="write the Gantt segments CSV (one row per job segment per GPU lane)"
    )
    run.add_argument(
        "--decisions-out",
        metavar="FILE",
        help="write the decision records, one JSON object per line (every ask for victims)",
    )
    cli_queues.add_queues_option(run)
    run.add_argument(
        "--ledger-out",
        metavar="FILE.csv",
        help="with --queues: write the preemption ledger, one row per decision: who paid (the victims and their "
        "queues) and who gained, with each queue's usage before and after",
    )
    run.set_defaults(func=cmd_run)

    cmp_ = sub.add_parser("compare", help="several policies on one workload", epilog=knob_epilog(), formatter_class=fmt)
    cli_workload.add_workload_options(cmp_)
    cmp_.add_argument(
        "--policies",
        default="fifo,priority,k8s,fitgpp",
        help="comma-separated policies, each optionally with knobs (fitgpp:P=1:s=4)",
    )
    cmp_.add_argument("--baseline", default="fifo", help="the policy the trio is measured against (default fifo)")
    cli_workload.add_cluster_options(cmp_)
    add_set_option(cmp_)
    cmp_.add_argument("--json", metavar="FILE", help="write the compare JSON")
    cmp_.add_argument(
        "--accounting",
        action="store_true",
        help="also print the preemption accounting of each policy (GPU-seconds lost, grace, restore, "
        "evicted share, excess GPUs, wasted and repreempted; docs/policies.md)",
    )
    cli_queues.add_queues_option(cmp_)
    cmp_.add_argument(
        "--bound",
        action="store_true",
        help=f"add the pooled bound {BOUND_LABEL!r} as a reference row: the same jobs on one node with "
        "the cluster's resources, k8s, grace = restore = 0, on_preempt (not a policy)",
    )
    cmp_.set_defaults(func=cmd_compare)

    pol = sub.add_parser(
        "policies",
        help="list every policy, one per line, with its help and its own knobs",
        epilog=knob_epilog(),
        formatter_class=fmt,
    )
    pol.set_defaults(func=cmd_policies)

    cli_workload.add_generate_command(sub)
    cli_workload.add_convert_command(sub)
    cli_sweep.add_sweep_command(sub)
    cli_sweep.add_reproduce_command(sub)
    cli_whatif.add_whatif_commands(sub)  # explain, whatif
    cli_plugins.add_plugin_commands(sub)  # report, from the dashboard package when it is installed
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
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
