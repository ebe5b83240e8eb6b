"""Uploaded files to simulator inputs through :mod:`simcore.workload`; pure (no Streamlit).

Loader options are text (as they travel in the URL) and are parsed here; every problem,
in a file or in an option, ends as a :class:`UserError` whose message the page shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from simcore import alibaba
from simcore.errors import UserError
from simcore.model import ClusterSpec, JobTable
from simcore.workload import FORMATS, load_cluster, load_workload

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


UPLOAD_OPTIONS: tuple[Option, ...] = (
    Option(
        "format",
        "format",
        "auto",
        "auto = by extension, then content (an Alibaba pod list is recognised by its header)",
        FORMATS,
    ),
    Option(
        "bad_rows",
        "bad rows",
        "refuse",
        "refuse the file and list the problems, or drop the bad rows and list them",
        ("refuse", "drop"),
    ),
    Option(
        "class_map",
        "class map",
        "size",
        "size: TE when small and short (below); qos: BE pods -> BE, others -> TE",
        ("size", "qos"),
        True,
    ),
    Option("te_max_gpu", "TE max GPUs", "1", "size map: TE when at most this many GPUs ...", alibaba=True),
    Option("te_max_hours", "TE max hours", "1", "... and at most this many hours of run time", alibaba=True),
    Option(
        "gpu_accounting",
        "GPU accounting",
        "whole",
        "whole GPUs (num_gpu) or shared fractions (gpu_milli / 1000)",
        ("whole", "shared"),
        True,
    ),
    Option(
        "cpu_only",
        "CPU-only pods",
        "drop",
        "pods without GPUs are dropped (and counted) unless kept",
        ("drop", "keep"),
        True,
    ),
    Option(
        "window_start",
        "window start",
        "",
        "trace time in seconds, or days with a d suffix (137d); empty = 0",
        alibaba=True,
    ),
    Option("window_end", "window end", "", "trace time in seconds or days (d); empty = no end", alibaba=True),
    Option(
        "running",
        "pods running at the start",
        "include",
        "include them at t = 0 with their remaining time",
        ("include", "exclude"),
        True,
    ),
    Option(
        "compress",
        "compress arrivals",
        "1",
        "divide inter-arrival times by this factor (to load a smaller cluster)",
        alibaba=True,
    ),
)
UPLOAD_DEFAULTS: dict[str, str] = {o.name: o.default for o in UPLOAD_OPTIONS}


def read_workload_file(path: Path) -> tuple[JobTable, list[str]]:
    """A bundled workload file (canonical format) and the loader's notes."""
    loaded = load_workload(path)
    return loaded.table, list(loaded.notes)


def parse_workload_upload(file_name: str, content: bytes, options: Mapping[str, str]) -> tuple[JobTable, list[str]]:
    """Validate an uploaded workload; returns the jobs and the notes to show (dropped rows,
    ignored columns, the adapter's counts)."""
    opts = {**UPLOAD_DEFAULTS, **options}
    loaded = load_workload(
        content,
        name=file_name,
        fmt=opts["format"],
        drop_invalid=opts["bad_rows"] == "drop",
        alibaba_options=alibaba_options(opts),
    )
    return loaded.table, list(loaded.notes)


def alibaba_options(opts: Mapping[str, str]) -> alibaba.AlibabaOptions:
    def number(name: str) -> float:
        try:
            return float(opts[name])
        except ValueError:
            raise UserError(f"{_label(name)}: {opts[name]!r} is not a number") from None

    def time(name: str) -> float | None:
        text = opts[name].strip()
        return alibaba.parse_trace_time(text, _label(name)) if text else None

    return alibaba.AlibabaOptions(
        class_map=opts["class_map"],
        te_max_gpu=number("te_max_gpu"),
        te_max_hours=number("te_max_hours"),
        gpu_accounting=opts["gpu_accounting"],
        keep_cpu_only=opts["cpu_only"] == "keep",
        window_start=time("window_start"),
        window_end=time("window_end"),
        include_running=opts["running"] != "exclude",
        compress=number("compress"),
    )


def parse_cluster_upload(file_name: str, content: bytes) -> ClusterSpec:
    return load_cluster(content, name=file_name).cluster


def error_markdown(error: UserError) -> str:
    """A loader message as Markdown: the first line, then each listed problem as a bullet."""
    head, *rest = str(error).splitlines() or ["error"]
    items = [line.strip() for line in rest if line.strip()]
    return "\n".join([_escape(head), "", *(f"- {_escape(line)}" for line in items)]) if items else _escape(head)


def _label(name: str) -> str:
    return next(o.label for o in UPLOAD_OPTIONS if o.name == name)


def _escape(text: str) -> str:
    """Keep Markdown from reading file content (``*``, ``_``, ``$``, ...) as formatting."""
    return "".join("\\" + c if c in "\\`*_[]<>#|$~" else c for c in text)
