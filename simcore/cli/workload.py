"""``simcore convert`` and ``simcore generate``: a trace to the canonical workload CSV, a synthetic
workload from a preset."""

from __future__ import annotations

import argparse
import re

import numpy as np

from simcore.cli.common import parse_assignments
from simcore.cli.inputs import (
    add_cluster_options,
    add_workload_options,
    arg_type,
    cluster_from_args,
    cluster_given,
    number,
    workload_from_args,
)
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import MAX_SEED
from simcore.core.numtext import quoted
from simcore.workload import fits_empty_cluster, offered_load, presets, write_cluster_csv, write_workload

# --- convert -----------------------------------------------------------------------------------


def add_convert(subparsers: argparse._SubParsersAction, help: str) -> None:
    """``simcore convert TRACE --format alibaba [options] --out FILE.csv``."""
    parser = subparsers.add_parser(
        "convert",
        help=help,
        description="Read a workload or trace with the loader's validation and adapter options and write the canonical CSV. "
        "With cluster options it also prints the offered GPU load on that cluster.",
    )
    add_workload_options(parser, metavar="TRACE")
    parser.add_argument("--out", required=True, metavar="FILE.csv", help="canonical workload CSV to write")
    add_cluster_options(parser, node_events=False)
    parser.set_defaults(func=run_convert)


def run_convert(args: argparse.Namespace) -> int:
    table, notes = workload_from_args(args)
    cluster_notes: list[str] = []
    cluster = cluster_from_args(args, cluster_notes) if cluster_given(args) else None
    write_workload(table, args.out)
    for note in notes + cluster_notes:
        print(f"note: {note}")
    te = int(table.is_te.sum())
    print(f"wrote {args.out}: {len(table)} jobs ({te} TE, {len(table) - te} BE)")
    if cluster is not None:
        gpus = cluster.capacity_matrix()[:, 2].sum()
        print(
            f"offered GPU load on {len(cluster.nodes)} nodes ({gpus:g} GPUs): {fmt.load(offered_load(table, cluster))}"
        )
        wide = int(np.sum(~fits_empty_cluster(table, cluster)))
        if wide:
            print(f"note: {wide} jobs cannot be placed on this cluster even empty: a run reports them unschedulable")
    return 0


# --- generate ----------------------------------------------------------------------------------


def _presets_epilog() -> str:
    lines = ["presets and their parameters (override with --set NAME=VALUE; lists are comma-separated):"]
    for preset in presets.PRESETS.values():
        lines.append(f"\n  {preset.name}: {preset.description}")
        for p in preset.params.values():
            default = fmt.settings(p.default) if isinstance(p.default, tuple) else p.default
            lines.append(
                f"    {p.name:<16} {'(derived)' if default is None else default!s:<18} {p.help} [{p.range_text()}]"
            )
    return "\n".join(lines)


def add_generate(subparsers: argparse._SubParsersAction, help: str) -> None:
    """``simcore generate --preset NAME --seed N --out FILE [--set KEY=VALUE ...]``."""
    parser = subparsers.add_parser(
        "generate",
        help=help,
        description="Generate a synthetic workload (DESIGN.md section 7). Same preset, parameters and seed give the same bytes.",
        epilog=_presets_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--preset", required=True, choices=tuple(presets.PRESETS), help="preset name")
    parser.add_argument(
        "--seed", type=arg_type(_non_negative_int), default=0, help=f"random seed (default 0; 0 to {MAX_SEED})"
    )
    parser.add_argument("--out", required=True, metavar="FILE", help="workload CSV to write")
    parser.add_argument(
        "--set",
        dest="params",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override a preset parameter (repeatable), e.g. --set jobs=8000 --set be_gpu_w=0.3,0.3,0.25,0.15",
    )
    parser.add_argument(
        "--cluster-out", metavar="FILE", help="also write the preset's cluster as a node-list CSV (name,cpu,mem_gb,gpu)"
    )
    parser.set_defaults(func=run_generate)


def _non_negative_int(text: str) -> int:
    if not re.fullmatch(r"\s*[0-9]+\s*", text) or number(text, whole=True) > MAX_SEED:
        raise UserError(f"{quoted(text)} is not a whole number from 0 to {MAX_SEED}")
    return int(text)


def run_generate(args: argparse.Namespace) -> int:
    gen = presets.generate(args.preset, args.seed, parse_assignments(args.params))
    write_workload(gen.table, args.out)
    print(f"wrote {args.out}: {gen.summary()}")
    cap = gen.cluster.nodes[0].capacity
    if args.cluster_out:
        write_cluster_csv(gen.cluster, args.cluster_out)
        print(f"wrote {args.cluster_out}: the preset's cluster ({len(gen.cluster.nodes)} nodes)")
    print(
        f"cluster: --nodes {len(gen.cluster.nodes)} --node-cpu {cap.cpu:g} --node-mem-gb {cap.mem_gb:g} --node-gpu {cap.gpu:g}"
    )
    return 0
