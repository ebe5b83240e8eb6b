"""Validation: the per-value rules of every column, declared once as pydantic types, and the
cross-row rules (unique ids, times float64 can hold), reported as :class:`Problem` rows.

A file with bad rows is refused as a whole, or with ``drop_invalid`` the bad rows are left out
and listed exactly (:func:`refuse_or_drop`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Annotated, Any

import numpy as np
import pandas as pd
from pydantic import BeforeValidator, ConfigDict, Field, StringConstraints, TypeAdapter, ValidationError

from simcore.core.model import MAX_RESOURCE, MAX_TIME, clock_problems, format_limit
from simcore.workload import alibaba
from simcore.workload.problems import MAX_LISTED, Problem, RawTable, WorkloadError

# --- the schema: one place for every per-value rule -------------------------------------------


def no_bool(value: Any) -> Any:
    # pydantic would read true/false as 1/0; a boolean where a number belongs is a mistake.
    # (Readers turn JSON/Parquet booleans into text, so the fast all-Rust types below see none.)
    if isinstance(value, bool):
        raise ValueError("true/false is not a number")
    return value


def _blank_to_none(value: Any) -> Any:
    return None if isinstance(value, str) and not value.strip() else value


#: The most workers one job may have: far above any real gang (the public traces' largest use a
#: few thousand GPUs), low enough that workers x request stays exact in the simulator's units.
MAX_WORKERS = 1_000_000
_WORKERS_TEXT = re.compile(r"[0-9]+(?:\.0)?")


def workers_value(value: Any) -> int:
    """A ``workers`` cell (DESIGN-gangs point 2): empty means 1; otherwise digits, optionally
    followed by ``.0`` (``2.0`` is 2), at least 1. ``1e1``, ``+2``, ``1_0`` are refused: a count
    is written as a count."""
    return count_value(value, 1)


def count_value(value: Any, minimum: int) -> int:
    """A count cell read like ``workers`` (:func:`workers_value`), at least ``minimum``; empty is 1."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return 1
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON 2.0 or a float Parquet column: the number is whole
    text = str(value).strip()
    if not _WORKERS_TEXT.fullmatch(text):
        raise ValueError(f"must be a whole number >= 1 written as digits, optionally followed by .0 (got {text!r})")
    count = int(text.split(".")[0])
    if not minimum <= count <= MAX_WORKERS:
        raise ValueError(f"must be >= {minimum} and <= {MAX_WORKERS:,} (got {text!r})")
    return count


# Types validated entirely inside pydantic-core (no Python callback per value): 1M rows in ~1 s.
Text = Annotated[str, Field(min_length=1)]
OptionalText = Annotated[str | None, BeforeValidator(_blank_to_none)]
Seconds = Annotated[float, Field(ge=0, le=MAX_TIME, allow_inf_nan=False)]  # float64 is exact up to 2^53 s
Positive = Annotated[float, Field(gt=0, le=MAX_TIME, allow_inf_nan=False)]
Amount = Annotated[float, Field(ge=0, le=MAX_RESOURCE, allow_inf_nan=False)]  # cores, GiB or GPUs
JobClassText = Annotated[str, StringConstraints(strip_whitespace=True, to_upper=True, pattern=r"(?i)^\s*(te|be)\s*$")]

#: Column -> pydantic type with its constraints. The single declaration of the per-value rules.
JOB_SCHEMA: dict[str, Any] = {
    "job_id": Text,  # unique, checked across rows
    "submit_time": Seconds,  # seconds; with duration: see _time_problems
    "duration": Positive,  # seconds of run time when never interrupted
    "cpu": Amount,  # cores
    "mem_gb": Amount,  # GiB
    "gpu": Amount,  # GPUs (fractions allowed)
    "job_class": JobClassText,  # TE or BE, case-insensitive
    "user": OptionalText,
    "name": OptionalText,
    "queue": OptionalText,  # its team's queue (DESIGN rule 11), read as text: 1 stays "1"; empty: the default queue
    "workers": Annotated[int, BeforeValidator(workers_value)],  # the request columns are per worker
}
NODE_SCHEMA: dict[str, Any] = {"name": Text, "cpu": Amount, "mem_gb": Amount, "gpu": Amount}

_CONFIG = ConfigDict(coerce_numbers_to_str=True, str_strip_whitespace=True)


def _adapter(kind: Any) -> TypeAdapter[Any]:
    return TypeAdapter(list[kind], config=_CONFIG)  # type: ignore[valid-type]


# --- validation --------------------------------------------------------------------------------


def reason_text(err: Mapping[str, Any], column: str) -> str:
    """A short reason in words, with the offending value."""
    value = err.get("input")
    shown = repr(value) if not isinstance(value, str) or len(value) <= 40 else repr(value[:37] + "...")
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if value is None or kind == "missing":
        return "missing value"
    if kind in ("float_parsing", "float_type") and isinstance(value, str) and not value.strip():
        return "empty (a number is required)"
    if kind in ("float_parsing", "float_type"):
        return f"not a number: {shown}"
    if kind == "finite_number" or (kind.startswith(("greater_than", "less_than")) and _not_finite(value)):
        return f"must be a finite number (got {shown})"
    if kind == "greater_than":
        return f"must be > {ctx['gt']:g} (got {shown})"
    if kind == "greater_than_equal":
        return f"must be >= {ctx['ge']:g} (got {shown})"
    if kind == "less_than_equal" and ctx["le"] == MAX_TIME:
        return f"must be at most 2^53 s = {MAX_TIME:.0f}, where float64 times stop being exact (got {shown})"
    if kind == "less_than_equal":
        return f"must be <= {format_limit(ctx['le'])} (got {shown})"
    if kind == "string_pattern_mismatch" and column == "job_class":
        return f"must be TE or BE, case-insensitive (got {shown})"
    if kind == "string_too_short":
        return "empty (a non-empty text is required)"
    if kind == "value_error":
        return str(ctx.get("error", err["msg"]))
    return f"{err['msg']} (got {shown})"


def _not_finite(value: Any) -> bool:
    """NaN fails a bound check before the finiteness check; name the real problem."""
    try:
        return not math.isfinite(float(value))
    except (TypeError, ValueError, OverflowError):
        return False


def validate_columns(
    raw: RawTable,
    schema: Mapping[str, Any],
    required: Sequence[str],
    unique: str | None = None,
    check_times: bool = True,
) -> tuple[dict[str, list[Any]], list[tuple[int, Problem]]]:
    """Check ``raw`` against ``schema``: the parsed columns (bad values as None) and the problems
    as (row index, Problem), in row order. Missing required columns raise :class:`WorkloadError`.
    ``check_times``: ``submit_time`` and ``duration`` are the simulator's (a trace adapter whose
    columns of those names mean something else checks the jobs it makes instead)."""
    missing = [c for c in required if c not in raw.columns]
    if missing:
        found = ", ".join(c for c in raw.columns) or "none"
        hint = ""
        if alibaba.is_pod_header(raw.columns) or alibaba.is_node_header(raw.columns):
            hint = " (this looks like the Alibaba GPU trace: use --format alibaba, or --cluster-trace for a node list)"
        raise WorkloadError(
            f"{raw.source}: missing required column(s) {', '.join(missing)}; columns found: {found}{hint}"
        )
    problems = list(raw.problems)
    unreadable = {i for i, _ in raw.problems}  # rows refused as a whole: their values are not checked
    parsed: dict[str, list[Any]] = {}
    for column, kind in schema.items():
        if column not in raw.columns:
            continue
        values = raw.columns[column]
        try:
            parsed[column] = _adapter(kind).validate_python(values)
        except ValidationError as exc:
            out: list[Any] = [None] * len(values)
            bad: set[int] = set()
            for err in exc.errors():
                i = err["loc"][0]
                assert isinstance(i, int)
                bad.add(i)
                if i not in unreadable:
                    problems.append((i, Problem(raw.label(i), column, reason_text(err, column))))
            good = [i for i in range(len(values)) if i not in bad]
            ok = _adapter(kind).validate_python([values[i] for i in good])
            for i, v in zip(good, ok, strict=True):
                out[i] = v
            parsed[column] = out
    if check_times and "submit_time" in parsed and "duration" in parsed:
        problems.extend(_time_problems(parsed["submit_time"], parsed["duration"], raw))
    if unique is not None:
        problems.extend(duplicates(parsed[unique], raw, unique, {i for i, _ in problems}))
    problems.sort(key=lambda p: p[0])
    return parsed, problems


def _time_problems(submit_values: list[Any], duration_values: list[Any], raw: RawTable) -> list[tuple[int, Problem]]:
    """The rows :func:`~simcore.core.model.clock_problems` refuses: times float64 cannot hold.
    Rows with a refused value (None, so NaN here) are not checked again."""
    submit = np.array(submit_values, dtype=float)
    duration = np.array(duration_values, dtype=float)
    beyond, unseen = clock_problems(submit, duration)
    out = []
    for i in np.flatnonzero(beyond | unseen):
        if beyond[i]:
            why = (
                f"submit_time + duration = {submit[i] + duration[i]:.17g} s reaches 2^53 s = {MAX_TIME:.0f}, "
                "where float64 times stop being exact"
            )
        else:
            clock = max(submit[i], 1.0)
            why = (
                f"duration {float(duration[i])!r} s is below the clock's resolution at this submit time "
                f"(submit_time + duration == submit_time in float64; the resolution at {clock:g} s"
                f"{', used below 1 s,' if submit[i] < 1 else ''} is {np.spacing(clock):.3g} s)"
            )
        out.append((int(i), Problem(raw.label(int(i)), "duration", why)))
    return out


def duplicates(values: list[Any], raw: RawTable, column: str, bad: set[int]) -> list[tuple[int, Problem]]:
    """Later occurrences of a value already seen (on a row not refused for other reasons)."""
    series = pd.Series(values, dtype=object)
    usable = series.notna().to_numpy() & ~np.isin(np.arange(len(values)), list(bad))
    dup = np.zeros(len(values), dtype=bool)
    dup[usable] = series[usable].duplicated(keep="first").to_numpy()
    if not dup.any():
        return []
    first: dict[Any, int] = {}
    out = []
    for i in np.flatnonzero(usable):
        v = values[i]
        if dup[i]:
            out.append(
                (
                    int(i),
                    Problem(raw.label(int(i)), column, f"duplicate {column} {v!r} (first at {raw.label(first[v])})"),
                )
            )
        else:
            first.setdefault(v, int(i))
    return out


def refuse_or_drop(
    raw: RawTable, problems: list[tuple[int, Problem]], drop_invalid: bool, notes: list[str]
) -> tuple[np.ndarray, tuple[Problem, ...]]:
    """The mask of rows to keep, or :class:`WorkloadError` when rows are bad and not droppable."""
    n = len(raw)
    keep = np.ones(n, dtype=bool)
    keep[[i for i, _ in problems]] = False
    bad_rows = int(n - keep.sum())
    listed = [p for _, p in problems]
    if bad_rows and not drop_invalid:
        raise WorkloadError(
            f"{raw.source}: refused: {bad_rows} of {n} {raw.unit}s are invalid ({raw.row_convention}); nothing was simulated. "
            "Fix them, or drop invalid rows (--drop-invalid) to use only the valid ones.\n" + listing(listed),
            listed,
        )
    if bad_rows and keep.sum() == 0:
        raise WorkloadError(
            f"{raw.source}: all {n} {raw.unit}s are invalid; nothing left to simulate.\n" + listing(listed), listed
        )
    if bad_rows:
        notes.append(
            f"{raw.source}: dropped {bad_rows} invalid {raw.unit}s of {n} ({raw.row_convention}):\n" + listing(listed)
        )
    return keep, tuple(listed)


def listing(problems: Sequence[Problem]) -> str:
    """The problems as an error lists them: the first :data:`MAX_LISTED`, one per line, then a count of the rest."""
    lines = [f"  {p}" for p in problems[:MAX_LISTED]]
    if len(problems) > MAX_LISTED:
        lines.append(f"  ... and {len(problems) - MAX_LISTED} more problems")
    return "\n".join(lines)
