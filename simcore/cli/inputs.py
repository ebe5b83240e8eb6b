"""The workload and cluster options every command that reads a workload shares (shared by the commands).

``add_workload_options`` / ``workload_from_args`` (the workload file: format, bad-row policy,
size cap, Alibaba adapter options), ``add_cluster_options`` / ``cluster_from_args`` (the
cluster: ``--nodes`` shorthand, a cluster file or the Alibaba node list), and ``--set``'s
``KEY=VALUE`` items. Errors are :class:`~simcore.core.errors.UserError` for the CLI to print.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable
from typing import Any

from simcore.cli.queues import queues_from_args
from simcore.core import units
from simcore.core.errors import UserError
from simcore.core.model import MAX_RESOURCE, ClusterSpec, JobTable, format_limit
from simcore.core.numtext import parse_number, quoted
from simcore.io.csvsafe import write_columns
from simcore.workload import (
    DEFAULT_MAX_BYTES,
    DEFAULT_MAX_ROWS,
    FORMATS,
    MAX_NODES,
    LoadedWorkload,
    Problem,
    alibaba,
    load_cluster,
    load_workload,
    traces,
)
from simcore.workload.node_events import load_node_events

DEFAULT_NODES, DEFAULT_NODE_CPU, DEFAULT_NODE_MEM_GB, DEFAULT_NODE_GPU = 16, 64.0, 512.0, 8.0
ALIBABA_DEFAULTS = alibaba.AlibabaOptions()  # the Alibaba options' defaults are the adapter's


def arg_type(parse: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse type from a parser that raises UserError (argparse prints the message)."""

    def convert(text: str) -> Any:
        try:
            return parse(text)
        except UserError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return convert


def number(text: str, whole: bool = False) -> Any:
    """:func:`~simcore.core.numtext.parse_number`, its refusal as a UserError."""
    try:
        return parse_number(text, whole)
    except ValueError as exc:
        raise UserError(str(exc)) from None


NUMBER = arg_type(number)  # an option's number; where it is used, its range is checked


def parse_byte_size(text: str) -> int:
    """``200000000``, ``200MB``, ``50M``, ``1G`` (decimal units) -> bytes."""
    match = re.fullmatch(r"\s*([0-9]+(?:\.[0-9]+)?)\s*([kKmMgG]?)[bB]?\s*", text)
    if not match:
        raise UserError(f"{quoted(text)} is not a size (bytes, or with K/M/G such as 50M)")
    return int(number(match.group(1)) * {"": 1, "k": 10**3, "m": 10**6, "g": 10**9}[match.group(2).lower()])


def positive(kind: type, maximum: float | None = None) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        value = number(text, whole=kind is int)
        if not value > 0 or value == float("inf"):
            raise UserError(f"{quoted(text)} must be > 0")
        if maximum is not None and value > maximum:
            raise UserError(f"{quoted(text)} is above the limit of {format_limit(maximum)}")
        return kind(value)

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
        type=arg_type(parse_byte_size),
        default=DEFAULT_MAX_BYTES,
        metavar="SIZE",
        help=f"refuse files larger than this (default {DEFAULT_MAX_BYTES // 10**6}M; K/M/G suffixes allowed)",
    )
    group.add_argument(
        "--max-rows",
        type=arg_type(positive(int)),
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
        type=NUMBER,
        default=ALIBABA_DEFAULTS.te_max_gpu,
        help=f"size class map: most GPUs of a TE job (default {ALIBABA_DEFAULTS.te_max_gpu:g})",
    )
    ali.add_argument(
        "--te-max-hours",
        type=NUMBER,
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
        type=arg_type(_time("--window-start")),
        metavar="T",
        help="trace time where the workload starts, seconds or days with a d suffix (137d); shifted to 0",
    )
    ali.add_argument(
        "--window-end",
        type=arg_type(_time("--window-end")),
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
        type=arg_type(positive(float)),
        default=ALIBABA_DEFAULTS.compress,
        metavar="K",
        help=f"divide inter-arrival times by K to load a smaller cluster (default {ALIBABA_DEFAULTS.compress:g})",
    )
    ali.add_argument(
        "--max-duration",
        type=arg_type(_time("--max-duration")),
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
    gang.add_argument(
        "--trace-queue-map",
        metavar="COLUMN",
        help="the trace column that names each job's queue (DESIGN rule 11): by default helios' vc and spot2026's "
        "job_type (HP and Spot as two queues); also helios' and acme's user, spot2026's organization; none: no "
        "queues. The traces state no quotas: give them with --queues",
    )


def trace_options_from_args(args: argparse.Namespace) -> traces.TraceOptions:
    return traces.TraceOptions(
        class_map=args.trace_class_map,
        te_max_gpu=args.te_max_gpu,
        te_max_hours=args.te_max_hours,
        keep_cpu_only=args.keep_cpu_only,
        compress=args.compress,
        queue_map=args.trace_queue_map,
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
    import numpy as np  # only when rows were dropped: the module stays free of numpy for --help

    fields = {
        "row": [p.row for p in dropped],
        "column": [p.column for p in dropped],
        "reason": [p.reason for p in dropped],
    }
    write_columns(path, {name: np.array(values, dtype=object) for name, values in fields.items()})


# --- cluster -----------------------------------------------------------------------------------


def add_cluster_options(parser: argparse.ArgumentParser, node_events: bool = True) -> list[argparse.Action]:
    """``--nodes`` shorthand, ``--cluster FILE``, or ``--cluster-trace FILE`` (Alibaba node list), and
    with `node_events` (a command that runs a scenario) ``--node-events FILE``; returns them (as
    :func:`add_workload_file_options`)."""
    before = len(parser._actions)
    group = parser.add_argument_group(
        "cluster",
        f"default: {DEFAULT_NODES} nodes x ({DEFAULT_NODE_CPU:g} CPU, {DEFAULT_NODE_MEM_GB:g} GiB, {DEFAULT_NODE_GPU:g} GPU), "
        "named n0 .. n15",
    )
    group.add_argument(
        "--nodes",
        type=arg_type(positive(int, MAX_NODES)),
        help=f"number of identical nodes n0 .. n(N-1) (default {DEFAULT_NODES}; 1 to {MAX_NODES})",
    )
    limit = f"0 to {format_limit(MAX_RESOURCE)}"
    group.add_argument("--node-cpu", type=NUMBER, help=f"CPU cores per node (default {DEFAULT_NODE_CPU:g}; {limit})")
    group.add_argument(
        "--node-mem-gb", type=NUMBER, help=f"memory per node, GiB (default {DEFAULT_NODE_MEM_GB:g}; {limit})"
    )
    group.add_argument("--node-gpu", type=NUMBER, help=f"GPUs per node (default {DEFAULT_NODE_GPU:g}; {limit})")
    group.add_argument(
        "--cluster",
        metavar="FILE",
        help="cluster file: YAML/JSON pools (nodes: [{count, cpu, mem_gb, gpu, name}]) or node-list CSV",
    )
    group.add_argument("--cluster-trace", metavar="FILE", help="Alibaba GPU trace 2023 node list as the cluster")
    group.add_argument("--gpu-nodes-only", action="store_true", help="--cluster-trace: keep only nodes with GPUs")
    group.add_argument(
        "--gpu-per-node", type=NUMBER, metavar="G", help="--cluster-trace: keep only nodes with exactly G GPUs (e.g. 8)"
    )
    group.add_argument(
        "--first-n",
        type=arg_type(positive(int)),
        metavar="N",
        help="--cluster-trace: keep the first N nodes (after the filters)",
    )
    if node_events:
        group.add_argument(
            "--node-events",
            metavar="FILE",
            help="down windows of the nodes (DESIGN rule 12): a CSV with columns node, start, end, kind "
            "(kind failure or maintenance; docs/policies.md, Failures and maintenance)",
        )
    return parser._actions[before:]


def cluster_from_args(args: argparse.Namespace, notes: list[str] | None = None) -> ClusterSpec:
    """The cluster chosen by :func:`add_cluster_options`, with the down windows of ``--node-events``.
    Notes about a trace node list are appended to ``notes`` when given, else printed to stderr."""
    cluster = _nodes_from_args(args, notes)
    events = getattr(args, "node_events", None)
    return cluster if events is None else cluster.with_node_events(load_node_events(events, cluster))


def _nodes_from_args(args: argparse.Namespace, notes: list[str] | None) -> ClusterSpec:
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


def cluster_given(args: argparse.Namespace) -> bool:
    return any(
        v is not None
        for v in (args.nodes, args.node_cpu, args.node_mem_gb, args.node_gpu, args.cluster, args.cluster_trace)
    )


def load_inputs(args: argparse.Namespace) -> tuple[JobTable, ClusterSpec]:
    """The workload and cluster of the options above, the cluster shared by the queues of ``--queues``
    when given (:mod:`simcore.cli.queues`); their notes go to stderr."""
    loaded, notes = loaded_workload_from_args(args)
    jobs = loaded.table
    for note in notes:
        print(f"note: {note}", file=sys.stderr)
    notes = []
    cluster = queues_from_args(args, loaded, cluster_from_args(args), notes)
    for note in notes:  # the queues file's notes, and its overcommit warning
        print(note if note.startswith("warning: ") else f"note: {note}", file=sys.stderr)
    rounding = units.rounding_note(jobs.request, cluster.capacity_matrix())
    if rounding:
        print(f"note: {rounding}", file=sys.stderr)
    return jobs, cluster
