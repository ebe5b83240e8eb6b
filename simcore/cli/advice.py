"""``simcore checkpoint-advice``: the checkpoint interval a policy's interruptions call for (:mod:`simcore.experiments.advisor`).

``simcore checkpoint-advice WORKLOAD --policy NAME [knobs] [--intervals LIST] [--json FILE]``:
WORKLOAD is a workload file (with the cluster options of ``run``) or a preset name (``paper``,
``demo``, ...: its own cluster, ``--seeds N`` seeds, ``--set`` taking its parameters too).
``--node-events FILE`` applies to either. Prints one row per interval, the best, Young/Daly's
optimum and whether they agree (else why not).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

from simcore.analysis.compare import parse_policy_spec
from simcore.cli import inputs, queues
from simcore.cli.common import add_set_option, knob_epilog, parse_assignments
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.knobs import KNOBS
from simcore.core.model import SimConfig
from simcore.experiments import advisor
from simcore.workload import presets
from simcore.workload.node_events import load_node_events

DEFAULT_SEEDS = 3
MAX_SEEDS = 1000  # each seed is a sweep of every interval: more would run for days


def add_checkpoint_advice(sub: Any, help: str) -> None:
    p = sub.add_parser(
        "checkpoint-advice",
        help=help,
        description="Run the workload with checkpoint periodic at each interval (every other knob as given, "
        "checkpoint_cost included) and compare the interval with the least BE p50 slowdown with Young/Daly's "
        "sqrt(2 x checkpoint_cost x M), M the measured mean run time between interruptions of BE jobs.",
        epilog=knob_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "workload", metavar="WORKLOAD", help=f"a workload file, or a preset name ({', '.join(presets.PRESETS)})"
    )
    inputs.add_workload_file_options(p)
    p.add_argument("--policy", default="fifo", help="policy name, optionally with knobs: fitgpp:P=1 (default fifo)")
    inputs.add_cluster_options(p)
    queues.add_queues_option(p)
    add_set_option(p)
    p.add_argument(
        "--intervals",
        metavar="LIST",
        help="checkpoint intervals in seconds, comma-separated "
        f"(default {','.join(f'{x:g}' for x in advisor.DEFAULT_INTERVALS)})",
    )
    p.add_argument(
        "--seeds",
        type=inputs.arg_type(inputs.positive(int, MAX_SEEDS)),
        default=DEFAULT_SEEDS,
        metavar="N",
        help=f"a preset: seeds 0 .. N-1 (default {DEFAULT_SEEDS}; 1 to {MAX_SEEDS})",
    )
    p.add_argument("--json", metavar="FILE", help="write the advice as JSON (fields: docs/cli.md)")
    p.set_defaults(func=cmd_advice)


def parse_intervals(text: str | None) -> list[float]:
    """``"600,1800,3600"`` -> seconds (:func:`simcore.experiments.advisor.parse_intervals`); the default list when None."""
    return list(advisor.DEFAULT_INTERVALS) if text is None else advisor.parse_intervals(text, "--intervals")


def _workloads(args: argparse.Namespace, sets: dict[str, str]) -> list:
    """(jobs, cluster, seed) per run: the file once (seed from --set, default 0), or each seed of a preset."""
    if Path(args.workload).exists() or args.workload not in presets.PRESETS:
        jobs, cluster = inputs.load_inputs(args)  # with --queues, the cluster is shared by them
        return [(jobs, cluster, int(sets.get("seed", 0)))]
    if args.seeds < 1:
        raise UserError("--seeds: must be at least 1")
    if inputs.cluster_given(args):
        raise UserError(f"{args.workload} is a preset: it brings its own cluster (--node-events applies to it)")
    if args.queues:
        raise UserError(f"--queues: {args.workload} is a preset: it brings its own queues (teams has)")
    params = {k: v for k, v in sets.items() if k not in KNOBS}
    out = []
    for seed in range(args.seeds):
        gen = presets.generate(args.workload, seed, params)
        cluster = gen.cluster
        if getattr(args, "node_events", None):
            cluster = cluster.with_node_events(load_node_events(args.node_events, cluster))
        out.append((gen.table, cluster, seed))
    return out


def cmd_advice(args: argparse.Namespace) -> int:
    sets = parse_assignments(args.knobs)
    try:
        base = SimConfig().with_knobs({k: v for k, v in sets.items() if k in KNOBS})
    except ValueError as e:
        raise UserError(str(e)) from None
    spec = parse_policy_spec(args.policy, base)
    intervals = parse_intervals(args.intervals)
    workloads = _workloads(args, sets)
    if spec.config.checkpoint_cost <= 0:
        print("note: checkpoint_cost is 0: every checkpoint is free, so the shortest interval is best", file=sys.stderr)
    advice = advisor.advise(workloads, spec.config, intervals)
    _print(advice, spec.label)
    if args.json:
        Path(args.json).write_text(json.dumps(advisor.as_json(advice, spec.label), indent=2, allow_nan=False) + "\n")
    return 0


def _print(advice: advisor.Advice, label: str) -> None:
    print(f"policy {label}, checkpoint_cost {advice.checkpoint_cost:g} s, {advice.runs} runs")
    print(f"{'interval s':>10} {'BE p50 sd':>10} {'BE p95 sd':>10} {'GPU-h lost':>11} {'interrupts':>11} {'M s':>10}")
    for row in advice.table.itertuples(index=False):
        mark = "  <- best" if row.interval == advice.best_interval else ""
        print(
            f"{row.interval:>10g} {fmt.cell(row.BE_slowdown_p50):>10} {fmt.cell(row.BE_slowdown_p95):>10} "
            f"{fmt.cell(row.gpu_hours_lost):>11} {row.interruptions:>11} "
            f"{fmt.cell(row.mean_time_between_interruptions):>10}{mark}"
        )
    m, yd = advice.mean_time_between_interruptions, advice.young_daly
    print(f"best interval found: {advice.best_interval:g} s")
    if math.isfinite(yd):
        print(
            f"Young/Daly: sqrt(2 x {advice.checkpoint_cost:g} x M) = {yd:.0f} s, M = {m:.0f} s of BE run per interruption"
        )
    else:
        print("Young/Daly: none (no BE job was interrupted)")
    if advice.agree:
        print("they agree: the best interval is the one swept nearest to Young/Daly's")
    else:
        print("they differ:")
        for why in advice.reasons:
            print(f"  - {why}")
