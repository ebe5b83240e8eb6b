"""``simcore run`` and ``simcore compare``: one policy on a workload, several side by side (the trio
against a baseline, the accounting, the pooled bound)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from simcore.analysis import accounting, gantt, queue_metrics
from simcore.analysis.accounting import ACCOUNTING_COLUMNS
from simcore.analysis.bound import BOUND_LABEL, run_bound
from simcore.analysis.compare import compare_results, parse_policy_list, parse_policy_spec, run_policies
from simcore.analysis.metrics import flat_summary, slowdowns, summarize, trio
from simcore.cli import queues
from simcore.cli.common import (
    add_set_option,
    config_from_args,
    knob_epilog,
    warn_unschedulable,
    write_json,
)
from simcore.cli.inputs import add_cluster_options, add_workload_options, load_inputs
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.result import SimResult
from simcore.engine import simulate
from simcore.io.csvsafe import write_csv
from simcore.io.runcsv import write_run_csvs
from simcore.io.runparquet import is_parquet, write_run_parquet


def cmd_run(args: argparse.Namespace) -> int:
    spec = parse_policy_spec(args.policy, config_from_args(args))
    jobs, cluster = load_inputs(args)
    if args.ledger_out and cluster.queues is None:
        raise UserError("--ledger-out lists the preemptions between queues: give --queues FILE too")
    result = simulate(jobs, cluster, spec.config, record_decisions=bool(args.decisions_out))
    warn_unschedulable(result.unschedulable, result.unschedulable_reasons)
    summary = write_outputs(result, args)
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
    if "downtime" in summary:  # a run with down time (rule 12)
        down, cause = summary["downtime"], summary["downtime"]["interruptions"]
        print(
            f"drains {cause['drain']['count']}, failures {cause['failure']['count']}, "
            f"node-hours down {fmt.cell(down['node_hours_down'])}"
        )
    if "queues" in summary:  # a run with queues (rule 11)
        print(queues.run_table(summary["queues"]))
    return 0


def write_outputs(result: SimResult, args: argparse.Namespace) -> dict[str, Any]:
    """Write the files ``run`` was asked for (jobs, events, summary, Gantt, decisions); return the summary."""
    summary = summarize(result)
    jobs_csv, events_csv = (None if p is None or is_parquet(p) else p for p in (args.jobs_out, args.events_out))
    if jobs_csv or events_csv:
        write_run_csvs(result, jobs_csv, events_csv)
    jobs_pq, events_pq = (p if p is not None and is_parquet(p) else None for p in (args.jobs_out, args.events_out))
    if jobs_pq or events_pq:  # by extension (.parquet, .pq): the same columns, typed, a row group at a time
        write_run_parquet(result, jobs_pq, events_pq)
    if args.summary_json:
        write_json(args.summary_json, summary)
    if args.gantt_out:
        write_csv(gantt.segments(result)[gantt.GANTT_COLUMNS], args.gantt_out)
    if args.decisions_out:  # JSON escapes every text itself: no CSV-style escaping applies
        records = accounting.annotated_decisions(result) if result.decisions else []  # no records: nothing to account
        Path(args.decisions_out).write_text("".join(json.dumps(d, allow_nan=False) + "\n" for d in records))
    if args.ledger_out:
        write_csv(queue_metrics.ledger_frame(result), args.ledger_out)
    return summary


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
        out["bound"] = {"label": BOUND_LABEL, "summary": bound, "vs_baseline": trio(slowdowns(bound), slowdowns(base))}
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
        print(queues.compare_table({label: out["policies"][label]["queues"] for label in labels}, width))
    if args.json:
        write_json(args.json, out)
    return 0


def _row_label(label: str) -> str:
    return f"{label} (bound)" if label == BOUND_LABEL else label


def accounting_table(flat: dict[str, dict[str, Any]], width: int) -> str:
    """``compare --accounting``: one row per policy (and the bound) of its preemption accounting."""
    head = f"{'accounting':<{width}} " + " ".join(f"{h:>13}" for h in ACCOUNTING_COLUMNS.values())
    lines = [head]
    for label, f in flat.items():
        cells = [fmt.cell(f[k]) for k in ACCOUNTING_COLUMNS]
        lines.append(f"{_row_label(label):<{width}} " + " ".join(f"{c:>13}" for c in cells))
    return "\n".join(lines)


def add_run(sub: argparse._SubParsersAction, help: str) -> None:
    run = sub.add_parser("run", help=help, epilog=knob_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter)
    add_workload_options(run)
    run.add_argument("--policy", default="fifo", help="policy name, optionally with knobs: fitgpp:P=1 (default fifo)")
    add_cluster_options(run)
    add_set_option(run)
    run.add_argument("--jobs-out", metavar="FILE", help="write the per-job CSV (Parquet when FILE ends in .parquet)")
    run.add_argument("--events-out", metavar="FILE", help="write the events CSV (Parquet when FILE ends in .parquet)")
    run.add_argument("--summary-json", metavar="FILE", help="write the summary JSON")
    run.add_argument(
        "--gantt-out", metavar="FILE", help="write the Gantt segments CSV (one row per job segment per GPU lane)"
    )
    run.add_argument(
        "--decisions-out",
        metavar="FILE",
        help="write the decision records, one JSON object per line (every ask for victims)",
    )
    queues.add_queues_option(run)
    run.add_argument(
        "--ledger-out",
        metavar="FILE.csv",
        help="with --queues: write the preemption ledger, one row per decision: who paid (the victims and their "
        "queues) and who gained, with each queue's usage before and after",
    )
    run.set_defaults(func=cmd_run)


def add_compare(sub: argparse._SubParsersAction, help: str) -> None:
    cmp_ = sub.add_parser(
        "compare", help=help, epilog=knob_epilog(), formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_workload_options(cmp_)
    cmp_.add_argument(
        "--policies",
        default="fifo,priority,k8s,fitgpp",
        help="comma-separated policies, each optionally with knobs (fitgpp:P=1:s=4)",
    )
    cmp_.add_argument("--baseline", default="fifo", help="the policy the trio is measured against (default fifo)")
    add_cluster_options(cmp_)
    add_set_option(cmp_)
    cmp_.add_argument("--json", metavar="FILE", help="write the compare JSON")
    cmp_.add_argument(
        "--accounting",
        action="store_true",
        help="also print the preemption accounting of each policy (GPU-seconds lost, grace, restore, "
        "evicted share, excess GPUs, wasted and repreempted; docs/policies.md)",
    )
    queues.add_queues_option(cmp_)
    cmp_.add_argument(
        "--bound",
        action="store_true",
        help=f"add the pooled bound {BOUND_LABEL!r} as a reference row: the same jobs on one node with "
        "the cluster's resources, k8s, grace = restore = 0, on_preempt (not a policy)",
    )
    cmp_.set_defaults(func=cmd_compare)
