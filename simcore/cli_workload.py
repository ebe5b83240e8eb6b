"""Command-line glue for workloads and clusters, used by :mod:`simcore.cli`.

``add_workload_options`` / ``workload_from_args`` (the workload file: format, bad-row policy,
size cap, Alibaba adapter options), ``add_cluster_options`` / ``cluster_from_args`` (the
cluster: ``--nodes`` shorthand, a cluster file or the Alibaba node list) and the ``convert``
and ``generate`` subcommands. Errors are :class:`~simcore.errors.UserError` for the CLI to print.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

import numpy as np

from simcore import alibaba, cli_queues, fmt, presets, traces
from simcore.csvsafe import escape_cell, write_rows
from simcore.errors import UserError
from simcore.knobs import split_assignment
from simcore.model import MAX_RESOURCE, MAX_SEED, ClusterSpec, JobTable, format_limit
from simcore.workload import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    FORMATS,
    MAX_NODES,
    LoadedWorkload,
    Problem,
    fits_empty_cluster,
    load_cluster,
    load_workload,
    offered_load,
    write_cluster_csv,
    write_workload,
)

DEFAULT_NODES, DEFAULT_NODE_CPU, DEFAULT_NODE_MEM_GB, DEFAULT_NODE_GPU = 16, 64.0, 512.0, 8.0
ALIBABA_DEFAULTS = alibaba.AlibabaOptions()  # the Alibaba options' defaults are the adapter's


def _arg_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a parser that raises UserError (argparse prints the message)."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except UserError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def parse_byte_size(text: str) -> int:
    """``200000000``, ``200MB``, ``50M``, ``1G`` (decimal units) -> bytes."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgG]?)[bB]?\s*", text)
    if not match:
        raise UserError(f"{text!r} is not a size (bytes, or with K/M/G such as 50M)")
    return int(float(match.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[match.group(2).lower()])


def _positive(kind: type, maximum: float | None = None) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise UserError(f"{text!r} is not a {'whole number' if kind is int else 'number'}") from None
        if not value > 0 or value == float("inf"):
            raise UserError(f"{text!r} must be > 0")
        if maximum is not None and value > maximum:
            raise UserError(f"{text!r} is above the limit of {format_limit(maximum)}")
        return value

    return parse


def _time(option: str) -> Callable[[str], float]:
    return lambda text: alibaba.parse_trace_time(text, option)


# --- workload ----------------------------------------------------------------------------------


def add_workload_options(parser: argparse.ArgumentParser, metavar: str = "WORKLOAD") -> None:
    """The positional workload file (``args.workload``) and the options for reading it."""
    parser.add_argument(
        "workload",
        metavar=metavar,
        help="workload file: CSV, JSON records, Parquet, the Alibaba pod list or a gang trace",
    )
    add_workload_file_options(parser)


def add_workload_file_options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The options for reading ``args.workload`` (format, bad rows, limits, adapters); returns
    them, so a command whose workload file is optional can refuse them without one."""
    before = len(parser._actions)
    group = parser.add_argument_group("workload file")
    group.add_argument(
        "--format",
        choices=FORMATS,
        default="auto",
        help="workload format (default auto: by extension, then content; a trace's header selects its adapter)",
    )
    group.add_argument(
        "--drop-invalid",
        action="store_true",
        help="simulate only the valid rows and report every dropped row and why (default: refuse the whole file)",
    )
    group.add_argument(
        "--dropped-out", metavar="FILE", help="with --drop-invalid: write the dropped rows (row, column, reason) as CSV"
    )
    group.add_argument(
        "--max-bytes",
        type=_arg_type(parse_byte_size),
        default=DEFAULT_MAX_BYTES,
        metavar="SIZE",
        help=f"refuse files larger than this (default {DEFAULT_MAX_BYTES // 10**6}M; K/M/G suffixes allowed)",
    )
    group.add_argument(
        "--max-rows",
        type=_arg_type(_positive(int)),
        default=DEFAULT_MAX_ROWS,
        metavar="N",
        help=f"refuse files with more rows (records) than this, counted while reading (default {DEFAULT_MAX_ROWS:,})",
    )
    ali = parser.add_argument_group("Alibaba GPU trace 2023 adapter (pod list)")
    ali.add_argument(
        "--class-map",
        choices=("size", "qos"),
        default=ALIBABA_DEFAULTS.class_map,
        help="size (default): TE = at most --te-max-gpu GPUs and at most --te-max-hours, else BE; qos: QoS BE -> BE, other QoS -> TE",
    )
    ali.add_argument(
        "--te-max-gpu",
        type=float,
        default=ALIBABA_DEFAULTS.te_max_gpu,
        help=f"size class map: most GPUs of a TE job (default {ALIBABA_DEFAULTS.te_max_gpu:g})",
    )
    ali.add_argument(
        "--te-max-hours",
        type=float,
        default=ALIBABA_DEFAULTS.te_max_hours,
        help=f"size class map: longest run of a TE job, hours (default {ALIBABA_DEFAULTS.te_max_hours:g})",
    )
    ali.add_argument(
        "--gpu-accounting",
        choices=("whole", "shared"),
        default=ALIBABA_DEFAULTS.gpu_accounting,
        help="whole (default): num_gpu GPUs; shared: gpu_milli/1000 of a GPU when num_gpu = 1",
    )
    ali.add_argument(
        "--keep-cpu-only", action="store_true", help="keep CPU-only pods (num_gpu = 0; dropped and counted by default)"
    )
    ali.add_argument(
        "--window-start",
        type=_arg_type(_time("--window-start")),
        metavar="T",
        help="trace time where the workload starts, seconds or days with a d suffix (137d); shifted to 0",
    )
    ali.add_argument(
        "--window-end",
        type=_arg_type(_time("--window-end")),
        metavar="T",
        help="pods created at or after T are left out",
    )
    ali.add_argument(
        "--no-include-running",
        dest="include_running",
        action="store_false",
        help="leave out pods running at the window start (default: include them at t=0 with their remaining time)",
    )
    ali.add_argument(
        "--compress",
        type=_arg_type(_positive(float)),
        default=ALIBABA_DEFAULTS.compress,
        metavar="K",
        help=f"divide inter-arrival times by K to load a smaller cluster (default {ALIBABA_DEFAULTS.compress:g})",
    )
    ali.add_argument(
        "--max-duration",
        type=_arg_type(_time("--max-duration")),
        metavar="T",
        help="leave out pods that ran longer than T (seconds, or days with a d suffix)",
    )
    add_trace_options(parser)
    return parser._actions[before:]


def add_trace_options(parser: argparse.ArgumentParser) -> None:
    """The gang-trace adapters' class map; the Alibaba group's size thresholds, --keep-cpu-only and
    --compress apply to them too."""
    gang = parser.add_argument_group(
        "gang trace adapters (spot2026, helios, acme, pai2020)",
        "--te-max-gpu (counted over all workers), --te-max-hours, --keep-cpu-only and --compress apply too",
    )
    gang.add_argument(
        "--trace-class-map",
        choices=("job_type", "size"),
        help="job_type (spot2026's default): HP -> TE, Spot -> BE; size (the others' only map): as --class-map size",
    )


def trace_options_from_args(args: argparse.Namespace) -> traces.TraceOptions:
    return traces.TraceOptions(
        class_map=args.trace_class_map,
        te_max_gpu=args.te_max_gpu,
        te_max_hours=args.te_max_hours,
        keep_cpu_only=args.keep_cpu_only,
        compress=args.compress,
    )


def alibaba_options_from_args(args: argparse.Namespace) -> alibaba.AlibabaOptions:
    """The adapter's options from the Alibaba group above (its destinations are the option names)."""
    return alibaba.options_from_values({name: getattr(args, name) for name in alibaba.OPTION_NAMES})


def workload_from_args(args: argparse.Namespace, data: bytes | None = None) -> tuple[JobTable, list[str]]:
    """Load ``args.workload`` with the options of :func:`add_workload_options` (from ``data``,
    its bytes already read, when given: a sweep checksums exactly the bytes it loads).

    Returns the jobs and the notes to show (what was adapted, ignored or dropped).
    Raises :class:`~simcore.workload.WorkloadError` (a UserError) for a file it refuses."""
    loaded, notes = loaded_workload_from_args(args, data)
    return loaded.table, notes


def loaded_workload_from_args(args: argparse.Namespace, data: bytes | None = None) -> tuple[LoadedWorkload, list[str]]:
    """:func:`workload_from_args` with the loader's whole result (its jobs' row numbers too)."""
    loaded = load_workload(
        args.workload if data is None else data,
        name=None if data is None else str(args.workload),
        fmt=args.format,
        drop_invalid=args.drop_invalid,
        max_bytes=args.max_bytes,
        max_rows=args.max_rows,
        alibaba_options=alibaba_options_from_args(args),
        trace_options=trace_options_from_args(args),
    )
    notes = list(loaded.notes)
    if args.dropped_out:
        _write_dropped(loaded.dropped, args.dropped_out)
        notes.append(f"dropped rows written to {args.dropped_out} ({len(loaded.dropped)} problems)")
    return loaded, notes


def _write_dropped(dropped: tuple[Problem, ...], path: str) -> None:
    rows = ((p.row, escape_cell(p.column), escape_cell(p.reason)) for p in dropped)
    write_rows(path, ["row", "column", "reason"], rows)


# --- cluster -----------------------------------------------------------------------------------


def add_cluster_options(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """``--nodes`` shorthand, ``--cluster FILE``, or ``--cluster-trace FILE`` (Alibaba node list);
    returns them (as :func:`add_workload_file_options`)."""
    before = len(parser._actions)
    group = parser.add_argument_group(
        "cluster",
        f"default: {DEFAULT_NODES} nodes x ({DEFAULT_NODE_CPU:g} CPU, {DEFAULT_NODE_MEM_GB:g} GiB, {DEFAULT_NODE_GPU:g} GPU), "
        "named n0 .. n15",
    )
    group.add_argument(
        "--nodes",
        type=_arg_type(_positive(int, MAX_NODES)),
        help=f"number of identical nodes n0 .. n(N-1) (default {DEFAULT_NODES}; 1 to {MAX_NODES})",
    )
    limit = f"0 to {format_limit(MAX_RESOURCE)}"
    group.add_argument("--node-cpu", type=float, help=f"CPU cores per node (default {DEFAULT_NODE_CPU:g}; {limit})")
    group.add_argument(
        "--node-mem-gb", type=float, help=f"memory per node, GiB (default {DEFAULT_NODE_MEM_GB:g}; {limit})"
    )
    group.add_argument("--node-gpu", type=float, help=f"GPUs per node (default {DEFAULT_NODE_GPU:g}; {limit})")
    group.add_argument(
        "--cluster",
        metavar="FILE",
        help="cluster file: YAML/JSON pools (nodes: [{count, cpu, mem_gb, gpu, name}]) or node-list CSV",
    )
    group.add_argument("--cluster-trace", metavar="FILE", help="Alibaba GPU trace 2023 node list as the cluster")
    group.add_argument("--gpu-nodes-only", action="store_true", help="--cluster-trace: keep only nodes with GPUs")
    group.add_argument(
        "--gpu-per-node", type=float, metavar="G", help="--cluster-trace: keep only nodes with exactly G GPUs (e.g. 8)"
    )
    group.add_argument(
        "--first-n",
        type=_arg_type(_positive(int)),
        metavar="N",
        help="--cluster-trace: keep the first N nodes (after the filters)",
    )
    return parser._actions[before:]


def cluster_from_args(args: argparse.Namespace, notes: list[str] | None = None) -> ClusterSpec:
    """The cluster chosen by :func:`add_cluster_options`. Notes about a trace node list are
    appended to ``notes`` when given, else printed to stderr."""
    shorthand = [args.nodes, args.node_cpu, args.node_mem_gb, args.node_gpu]
    files = [f for f in (args.cluster, args.cluster_trace) if f]
    if len(files) > 1 or (files and any(v is not None for v in shorthand)):
        raise UserError("choose one cluster: --cluster FILE, --cluster-trace FILE, or the --nodes/--node-* shorthand")
    trace_only = args.gpu_nodes_only or args.gpu_per_node is not None or args.first_n is not None
    if trace_only and not args.cluster_trace:
        raise UserError("--gpu-nodes-only, --gpu-per-node and --first-n apply to --cluster-trace only")
    if files:
        loaded = load_cluster(
            files[0],
            gpu_nodes_only=args.gpu_nodes_only,
            first_n=args.first_n,
            gpu_per_node=args.gpu_per_node,
        )
        if notes is None:
            for note in loaded.notes:
                print(f"note: {note}", file=sys.stderr)
        else:
            notes.extend(loaded.notes)
        return loaded.cluster
    values = [
        DEFAULT_NODES if args.nodes is None else args.nodes,
        DEFAULT_NODE_CPU if args.node_cpu is None else args.node_cpu,
        DEFAULT_NODE_MEM_GB if args.node_mem_gb is None else args.node_mem_gb,
        DEFAULT_NODE_GPU if args.node_gpu is None else args.node_gpu,
    ]
    for option, value in zip(("--node-cpu", "--node-mem-gb", "--node-gpu"), values[1:], strict=True):
        if not (0 <= value <= MAX_RESOURCE):
            raise UserError(f"{option}: {value:g} must be a finite number >= 0 and <= {format_limit(MAX_RESOURCE)}")
    return ClusterSpec.uniform(int(values[0]), *values[1:])


def _cluster_given(args: argparse.Namespace) -> bool:
    return any(
        v is not None
        for v in (args.nodes, args.node_cpu, args.node_mem_gb, args.node_gpu, args.cluster, args.cluster_trace)
    )


# --- convert -----------------------------------------------------------------------------------


def add_convert_command(subparsers: Any) -> None:
    """``simcore convert TRACE --format alibaba [options] --out FILE.csv``."""
    parser = subparsers.add_parser(
        "convert",
        help="convert a trace (Alibaba GPU 2023, JSON, Parquet, CSV) to the canonical workload CSV",
        description="Read a workload or trace with the loader's validation and adapter options and write the canonical CSV. "
        "With cluster options it also prints the offered GPU load on that cluster.",
    )
    add_workload_options(parser, metavar="TRACE")
    parser.add_argument("--out", required=True, metavar="FILE.csv", help="canonical workload CSV to write")
    add_cluster_options(parser)
    parser.set_defaults(func=run_convert)


def run_convert(args: argparse.Namespace) -> int:
    table, notes = workload_from_args(args)
    cluster_notes: list[str] = []
    cluster = cluster_from_args(args, cluster_notes) if _cluster_given(args) else None
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


def add_generate_command(subparsers: Any) -> None:
    """``simcore generate --preset NAME --seed N --out FILE [--set KEY=VALUE ...]``."""
    parser = subparsers.add_parser(
        "generate",
        help="generate a synthetic workload from a preset (paper, demo, mmc)",
        description="Generate a synthetic workload (DESIGN.md section 7). Same preset, parameters and seed give the same bytes.",
        epilog=_presets_epilog(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--preset", required=True, choices=tuple(presets.PRESETS), help="preset name")
    parser.add_argument(
        "--seed", type=_arg_type(_non_negative_int), default=0, help=f"random seed (default 0; 0 to {MAX_SEED})"
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
    parser.add_argument("--queues-out", metavar="FILE", help=cli_queues.QUEUES_OUT_HELP)
    parser.set_defaults(func=run_generate)


def _non_negative_int(text: str) -> int:
    if not re.fullmatch(r"\s*[0-9]+\s*", text) or int(text) > MAX_SEED:
        raise UserError(f"{text!r} is not a whole number from 0 to {MAX_SEED}")
    return int(text)


def parse_assignments(items: list[str]) -> dict[str, str]:
    """``["jobs=10", "load=0.9"]`` -> ``{"jobs": "10", "load": "0.9"}``; a later value wins."""
    out: dict[str, str] = {}
    for item in items:
        pair = split_assignment(item)
        if pair is None:
            raise UserError(f"--set {item!r}: expected KEY=VALUE")
        out[pair[0]] = pair[1]
    return out


def run_generate(args: argparse.Namespace) -> int:
    gen = presets.generate(args.preset, args.seed, parse_assignments(args.params))
    write_workload(gen.table, args.out)
    print(f"wrote {args.out}: {gen.summary()}")
    cap = gen.cluster.nodes[0].capacity
    if args.cluster_out:
        write_cluster_csv(gen.cluster, args.cluster_out)
        print(f"wrote {args.cluster_out}: the preset's cluster ({len(gen.cluster.nodes)} nodes)")
    queues = cli_queues.write_preset_queues(gen.cluster, args)
    print(
        f"cluster: --nodes {len(gen.cluster.nodes)} --node-cpu {cap.cpu:g} --node-mem-gb {cap.mem_gb:g} "
        f"--node-gpu {cap.gpu:g}{queues}"
    )
    return 0
