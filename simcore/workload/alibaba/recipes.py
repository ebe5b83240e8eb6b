"""Text to adapter options, the trace's parameters as a sweep source, and the study's recipes A and B.

:func:`options_from_values` is the one way from loose values (text from a grid file, a URL or a
form, or numbers argparse already converted) to :class:`~simcore.workload.alibaba.adapter.AlibabaOptions`:
each caller keeps its own names for the options in error messages (``--window-start`` on the
command line, ``window_start`` in a grid file) but the parsing and the checks are these.

As a sweep source (``alibaba: DIR``) the trace directory holds :data:`POD_FILE` and
:data:`NODE_FILE`; a point's workload parameters are :data:`SOURCE_PARAMS` (the adapter's
options, ``window_days`` instead of an end time, and the cluster cut from the node list); the sweep
loads them (:mod:`simcore.experiments.sweep.tasks`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import fields
from typing import Any

from simcore.core.errors import UserError
from simcore.core.numtext import parse_number
from simcore.workload.alibaba.adapter import DAY, AlibabaOptions, parse_trace_time

POD_FILE = "openb_pod_list_default.csv"
NODE_FILE = "openb_node_list_gpu_node.csv"
TRACE_END_DAY = 149.34  # last timestamp of the pod list (12902960 s)

#: The adapter's options by kind of value (every field of AlibabaOptions is in exactly one).
TIME_OPTIONS = ("window_start", "window_end", "max_duration")
NUMBER_OPTIONS = ("te_max_gpu", "te_max_hours", "compress")
FLAG_OPTIONS = ("keep_cpu_only", "include_running")
TEXT_OPTIONS = ("class_map", "gpu_accounting")
OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(AlibabaOptions))


def cli_flag(option: str) -> str:
    """``window_start`` -> ``--window-start``: how the command line (and the adapter's checks) name an option."""
    return "--" + option.replace("_", "-")


def options_from_values(values: Mapping[str, Any], label: Callable[[str], str] = cli_flag) -> AlibabaOptions:
    """Adapter options from values under the adapter's own names (those not given keep their defaults).

    Times are seconds or days with a ``d`` suffix (``"137d"``), numbers are numbers or their
    text, flags are booleans, 0/1 or true/false; None or blank text means "not set" for a time.
    A bad value raises :class:`UserError` naming the option as ``label`` spells it."""
    unknown = [k for k in values if k not in OPTION_NAMES]
    if unknown:
        raise UserError(f"unknown Alibaba option(s) {', '.join(unknown)} (known: {', '.join(OPTION_NAMES)})")
    out: dict[str, Any] = {}
    for name, value in values.items():
        if name in TIME_OPTIONS:
            out[name] = _time(value, label(name))
        elif name in NUMBER_OPTIONS:
            out[name] = _number(value, label(name))
        elif name in FLAG_OPTIONS:
            out[name] = _flag(value, label(name))
        else:
            out[name] = str(value)
    return AlibabaOptions(**out)


def _time(value: Any, label: str) -> float | None:
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return _number(value, label)
    return parse_trace_time(value, label)


def _number(value: Any, label: str) -> float:
    try:
        return float(parse_number(value))
    except ValueError as exc:
        raise UserError(f"{label}: {exc}") from None


def _flag(value: Any, label: str) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes"):
        return True
    if text in ("0", "false", "no"):
        return False
    raise UserError(f"{label}: {value!r} is not 0 or 1")


# --- the trace as a sweep source ---------------------------------------------------------------

#: Workload parameters of the ``alibaba`` sweep source and their defaults (None = not set).
SOURCE_PARAMS: dict[str, Any] = {
    "window_start": 0,  # trace time: seconds, or days with a d suffix ("137d")
    "window_days": None,  # window length in days (None = to the end of the trace)
    "max_duration": None,  # leave out pods that ran longer: seconds or "1d"
    "compress": 1.0,  # divide arrival times by this
    "include_running": 1,  # pods running at the window start enter at t = 0 (1) or not (0)
    "class_map": "size",
    "te_max_gpu": 1.0,
    "te_max_hours": 1.0,
    "gpu_accounting": "whole",
    "nodes": 8,  # the first N nodes of the trace's node list with gpu_per_node GPUs
    "gpu_per_node": 8,
}

#: Recipes A and B of the workloads issue (trace README: loaded small clusters, whole GPUs).
RECIPES: dict[str, dict[str, Any]] = {
    "A": {"window_start": "137d", "nodes": 7},
    "B": {"window_start": "115d", "max_duration": "1d", "nodes": 8, "compress": 8.09},
}
RECIPE_DOC = {
    "A": "the last 12.3 days of the trace (from day 137, pods already running at day 137 enter at t = 0 with "
    "their remaining time), real time, on the first 7 of the trace's 8-GPU nodes (offered GPU load about 0.87)",
    "B": "GPU pods from day 115 on that ran at most one day, arrival times divided by k = 8.09 "
    "(= 0.9 x 8 x 8 / 7.12: offered load about 0.9 on average) on the first 8 of the trace's 8-GPU nodes, "
    "cut into consecutive windows of equal length",
}


def recipe_b_windows(count: int, first_day: float = 115.0) -> list[str]:
    """Start days of ``count`` equal consecutive windows from ``first_day`` to the trace's end."""
    length = (TRACE_END_DAY - first_day) / count
    return [f"{first_day + i * length:.4g}d" for i in range(count)]


def recipe_b_window_days(count: int, first_day: float = 115.0) -> float:
    return round((TRACE_END_DAY - first_day) / count, 4)


def source_params(params: Mapping[str, Any]) -> tuple[AlibabaOptions, int, float, dict[str, Any]]:
    """(adapter options, nodes, GPUs per node, every parameter with its default filled in) for
    the sweep source's workload parameters; errors start with ``alibaba source:``."""
    unknown = [k for k in params if k not in SOURCE_PARAMS]
    if unknown:
        raise UserError(
            f"alibaba source: unknown parameter(s) {', '.join(unknown)} (known: {', '.join(SOURCE_PARAMS)})"
        )
    p = {**SOURCE_PARAMS, **params}
    adapter = {k: v for k, v in p.items() if k in OPTION_NAMES}
    try:
        if p["window_days"] is not None:
            start = _time(p["window_start"], "window_start") or 0.0
            adapter["window_end"] = start + _number(p["window_days"], "window_days") * DAY
        options = options_from_values(adapter, label=str)
        nodes, per_node = int(p["nodes"]), float(p["gpu_per_node"])
    except (TypeError, ValueError) as e:  # UserError is a ValueError
        raise UserError(f"alibaba source: {e}") from None
    if nodes < 1:
        raise UserError(f"alibaba source: nodes {nodes} must be at least 1")
    resolved = {k: (str(v) if k in ("window_start", "max_duration") and v is not None else v) for k, v in p.items()}
    return options, nodes, per_node, resolved
