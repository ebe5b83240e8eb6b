"""Uploaded files to simulator inputs through :mod:`simcore.workload`; pure (no Streamlit).

Loader options are text (as they travel in the URL) and are parsed by simcore's parsers (the Alibaba options by
:func:`simcore.workload.alibaba.options_from_values`, as on the command line); every problem,
in a file or in an option, ends as a :class:`UserError` whose message the page shows.
Uploads are held to the limits of :func:`dashboard.shared.demo.limits` (the demo ones when
``SIMCORE_DEMO=1``), each checked before or while the file is parsed; a refusal names the
file, the limit and the ``simcore`` command that runs the file on one's own machine.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from dashboard.shared.demo import Limits, limits
from simcore.core import fmt
from simcore.core.errors import UserError
from simcore.core.model import ClusterSpec, JobTable
from simcore.core.numtext import parse_number
from simcore.workload import (
    FORMATS,
    MAX_POOLS,
    LimitExceeded,
    WorkloadError,
    alibaba,
    load_cluster,
    load_workload,
    traces,
)

WORKLOAD_TYPES = ("csv", "json", "jsonl", "parquet", "txt")
CLUSTER_TYPES = ("yaml", "yml", "json", "csv")


@dataclass(frozen=True)
class Option:
    """A loader option as the sidebar shows it; ``choices`` empty means free text."""

    name: str
    label: str
    default: str
    help: str
    choices: tuple[str, ...] = ()
    alibaba: bool = False  # only meaningful for the Alibaba pod trace
    flag: str = ""  # the same option of `simcore compare`
    toggle: bool = False  # the flag takes no value: given when the option differs from its default


UPLOAD_OPTIONS: tuple[Option, ...] = (
    Option(
        "format",
        "format",
        "auto",
        "auto = by extension, then content (an Alibaba pod list or a gang trace is recognised by its header)",
        FORMATS,
        flag="--format",
    ),
    Option(
        "bad_rows",
        "bad rows",
        "refuse",
        "refuse the file and list the problems, or drop the bad rows and list them",
        ("refuse", "drop"),
        flag="--drop-invalid",
        toggle=True,
    ),
    Option(
        "class_map",
        "class map",
        "size",
        "size: TE when small and short (below); qos: BE pods -> BE, others -> TE",
        ("size", "qos"),
        True,
        "--class-map",
    ),
    Option(
        "trace_class_map",
        "gang trace class map",
        "default",
        "spot2026 (default job_type): HP -> TE, Spot -> BE; size: TE when small and short (below), "
        "the only map of helios, acme and pai2020",
        ("default", "job_type", "size"),
        True,
        "--trace-class-map",
    ),
    Option(
        "te_max_gpu",
        "TE max GPUs",
        "1",
        "size map: TE when at most this many GPUs ...",
        alibaba=True,
        flag="--te-max-gpu",
    ),
    Option(
        "te_max_hours",
        "TE max hours",
        "1",
        "... and at most this many hours of run time",
        alibaba=True,
        flag="--te-max-hours",
    ),
    Option(
        "gpu_accounting",
        "GPU accounting",
        "whole",
        "whole GPUs (num_gpu) or shared fractions (gpu_milli / 1000)",
        ("whole", "shared"),
        True,
        "--gpu-accounting",
    ),
    Option(
        "cpu_only",
        "CPU-only pods",
        "drop",
        "pods without GPUs are dropped (and counted) unless kept",
        ("drop", "keep"),
        True,
        "--keep-cpu-only",
        True,
    ),
    Option(
        "window_start",
        "window start",
        "",
        "trace time in seconds, or days with a d suffix (137d); empty = 0",
        alibaba=True,
        flag="--window-start",
    ),
    Option(
        "window_end",
        "window end",
        "",
        "trace time in seconds or days (d); empty = no end",
        alibaba=True,
        flag="--window-end",
    ),
    Option(
        "running",
        "pods running at the start",
        "include",
        "include them at t = 0 with their remaining time",
        ("include", "exclude"),
        True,
        "--no-include-running",
        True,
    ),
    Option(
        "compress",
        "compress arrivals",
        "1",
        "divide inter-arrival times by this factor (to load a smaller cluster)",
        alibaba=True,
        flag="--compress",
    ),
)
UPLOAD_DEFAULTS: dict[str, str] = {o.name: o.default for o in UPLOAD_OPTIONS}


def read_workload_file(path: Path) -> tuple[JobTable, list[str]]:
    """A bundled workload file (canonical format) and the loader's notes."""
    loaded = load_workload(path)
    return loaded.table, list(loaded.notes)


class UploadedFile(Protocol):
    """What the pages get from ``st.file_uploader``: a name, a size and the bytes."""

    name: str
    size: int

    def getvalue(self) -> bytes: ...


def upload_content(file: UploadedFile, kind: str = "workload") -> tuple[str, bytes]:
    """The name and bytes of an uploaded ``kind`` ("workload" or "cluster") file; its size is
    checked against the upload limit before its bytes are copied."""
    lim = limits()
    if file.size > lim.upload_bytes:
        found = f"the file is {fmt.megabytes(file.size)}"
        command = workload_command(file.name, {}) if kind == "workload" else cluster_command(file.name)
        raise _refusal(lim, LimitExceeded(file.name, found, "byte", lim.upload_bytes), command)
    return file.name, file.getvalue()


def parse_workload_upload(file_name: str, content: bytes, options: Mapping[str, str]) -> tuple[JobTable, list[str]]:
    """Validate an uploaded workload within the upload limits (bytes, parsed rows, jobs); returns
    the jobs and the notes to show (dropped rows, ignored columns, the adapter's counts)."""
    opts = {**UPLOAD_DEFAULTS, **options}
    lim = limits()
    try:
        loaded = load_workload(
            content,
            name=file_name,
            fmt=opts["format"],
            drop_invalid=opts["bad_rows"] == "drop",
            max_bytes=lim.upload_bytes,
            max_rows=lim.upload_rows,
            alibaba_options=alibaba_options(opts),
            trace_options=trace_options(opts),
        )
    except LimitExceeded as exc:
        raise _refusal(lim, exc, workload_command(file_name, opts)) from None
    except WorkloadError as exc:  # the loader speaks of `simcore compare` flags: say where the sidebar has them
        raise WorkloadError(in_dashboard_words(str(exc)), exc.problems) from None
    except UserError as exc:  # a bad trace option
        raise UserError(in_dashboard_words(str(exc))) from None
    jobs = len(loaded.table)
    workers = int(loaded.table.workers.sum())  # type: ignore[union-attr]  # a gang counts once per worker
    if workers > lim.max_jobs:  # rows dropped as invalid or by an adapter do not count
        found = f"{jobs:,} valid jobs" + (f" with {workers:,} workers" if workers != jobs else "")
        over = LimitExceeded(file_name, found, "job", lim.max_jobs)
        raise _refusal(lim, over, workload_command(file_name, opts))
    return loaded.table, [in_dashboard_words(note) for note in loaded.notes]


_FLAG = re.compile(r"(--[a-z][a-z-]*)(?: ([\w.]+))?")
_OTHER_FLAGS = {"--cluster-trace": "“Cluster: upload a node list”"}


def in_dashboard_words(message: str) -> str:
    """A loader message with each ``simcore`` flag it names replaced by the sidebar setting that
    does the same (``--drop-invalid`` -> “bad rows: drop” in the sidebar, ``--format alibaba`` ->
    “format: alibaba” in the sidebar)."""
    options = {o.flag: o for o in UPLOAD_OPTIONS}

    def words(match: re.Match[str]) -> str:
        flag, value = match.group(1), match.group(2)
        option = options.get(flag)
        if option is None:
            return _OTHER_FLAGS.get(flag, flag) + (f" {value}" if value else "")
        where = "Trace options" if option.alibaba else "the sidebar"
        if option.toggle:  # the flag stands for the choice that is not the default
            choice = next(c for c in option.choices if c != option.default)
            return f"“{option.label}: {choice}” in {where}" + (f" {value}" if value else "")
        if value in option.choices:
            return f"“{option.label}: {value}” in {where}"
        return f"“{option.label}” in {where}" + (f" {value}" if value else "")

    return _FLAG.sub(words, message)


def workload_command(file_name: str, options: Mapping[str, str]) -> str:
    """The ``simcore compare`` command that runs an uploaded workload on one's own machine, with
    the loader options that differ from their defaults."""
    return shlex.join(["simcore", "compare", file_name, *loader_flags(options)])


def loader_flags(options: Mapping[str, str]) -> list[str]:
    """The ``simcore`` loader options (``--format``, ``--drop-invalid``, ...) of the sidebar's choices that
    differ from their defaults."""
    opts = {**UPLOAD_DEFAULTS, **options}
    words: list[str] = []
    for option in UPLOAD_OPTIONS:
        if opts[option.name] != option.default:
            words += [option.flag] if option.toggle else [option.flag, opts[option.name]]
    return words


def cluster_command(file_name: str) -> str:
    return shlex.join(["simcore", "compare", "WORKLOAD.csv", "--cluster", file_name])


def _refusal(lim: Limits, over: LimitExceeded, command: str) -> WorkloadError:
    """The loader's refusal in the dashboard's words: its limit, and the command without it."""
    where = "this public demo's" if lim.demo else "the dashboard's"
    return WorkloadError(
        f"{over.source}: {over.found}, above {where} limit of {over.amount()}. Run it on your own machine: {command}"
    )


def _number(opts: Mapping[str, str], name: str) -> float:
    try:
        return float(parse_number(opts[name]))
    except ValueError as exc:
        label = next(o.label for o in UPLOAD_OPTIONS if o.name == name)
        raise UserError(f"{label}: {exc}") from None


def trace_options(opts: Mapping[str, str]) -> traces.TraceOptions:
    """The gang-trace adapters' options from the sidebar (the size map's thresholds, CPU-only jobs
    and compression are the Alibaba options' own fields)."""
    return traces.TraceOptions(
        class_map=None if opts["trace_class_map"] == "default" else opts["trace_class_map"],
        te_max_gpu=_number(opts, "te_max_gpu"),
        te_max_hours=_number(opts, "te_max_hours"),
        keep_cpu_only=opts["cpu_only"] == "keep",
        compress=_number(opts, "compress"),
    )


#: Sidebar options of the gang-trace adapters only (not the Alibaba adapter's).
_TRACE_ONLY = frozenset({"trace_class_map"})

#: The sidebar's choices that stand for an adapter flag: option -> (the adapter's name, the flag's value).
_FLAGS = {
    "cpu_only": ("keep_cpu_only", lambda text: text == "keep"),
    "running": ("include_running", lambda text: text != "exclude"),
}


def alibaba_options(opts: Mapping[str, str]) -> alibaba.AlibabaOptions:
    """The adapter's options from the sidebar's text, parsed by simcore's one parser
    (:func:`simcore.workload.alibaba.options_from_values`); a bad value is named by its sidebar label."""
    values: dict[str, object] = {}
    labels: dict[str, str] = {}
    for option in (o for o in UPLOAD_OPTIONS if o.alibaba and o.name not in _TRACE_ONLY):
        name, value = option.name, opts[option.name]
        if name in _FLAGS:
            name, as_flag = _FLAGS[name]
            values[name] = as_flag(value)
        else:
            values[name] = value
        labels[name] = option.label
    return alibaba.options_from_values(values, label=labels.__getitem__)


def parse_cluster_upload(file_name: str, content: bytes) -> ClusterSpec:
    """Validate an uploaded cluster file within the upload limits (bytes, pools, nodes)."""
    lim = limits()
    try:
        return load_cluster(
            content,
            name=file_name,
            max_bytes=lim.upload_bytes,
            max_nodes=lim.max_nodes,
            max_pools=min(MAX_POOLS, lim.max_nodes),  # every pool holds at least one node
        ).cluster
    except LimitExceeded as exc:
        raise _refusal(lim, exc, cluster_command(file_name)) from None
