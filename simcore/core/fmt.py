"""Numbers and durations as text: the one format of RESULTS.md, the CLI tables and the dashboard's prose.

- a value: three significant digits (``0.0123``, ``4.56``, ``1.23e+04``); a table cell: a count as it is;
- a percent change: signed, one decimal (``-96.6%``); a share (a fraction): ``45.3%``; tenths: ``1234.5``; an offered load: ``0.873``;
- a duration: seconds below 2 minutes, minutes below 2 hours, hours below a day, then days and whole
  hours (``45 s``, ``12.5 min``, ``20.0 h``, ``2 d 3 h``): whole seconds (two digits below one), one
  decimal in minutes and hours;
- an instant of a run: ``day 2 03:04:05.25`` (day 1 starts at t = 0), as the Gantt's axis reads it;
- an estimate: ``mean [lo, hi]``, its interval in the mean's format (the spread is named where it is shown);
- a setting as typed (``0.8``, ``30``, ``inf``), a list of them comma-separated; a size in bytes (``1.5 MB``);
- a dashboard table's number: three significant digits, at most three decimals (:func:`short`); a column of
  durations in one unit (:func:`duration_unit`); GPU time in GPU-hours (:func:`gpu_hours`).

A missing value (None or NaN) reads :data:`MISSING`, everywhere: CLI tables, the dashboard, the study. The study's document is the reference: its bytes must not
move, so a change here is a change of docs/RESULTS.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

MISSING = "n/a"  # the one symbol for a missing value
MINUTE, HOUR, DAY = 60.0, 3600.0, 86400.0
#: Below these a duration is shown in the next smaller unit (so 90 s stays seconds, 90 min minutes).
SECONDS_BELOW, MINUTES_BELOW = 2 * MINUTE, 2 * HOUR


def number(x: float | None) -> str:
    """Three significant digits: 0.000357, 4.09, 270, 2.7e+06."""
    return MISSING if x is None or math.isnan(x) else f"{x:.3g}"


def cell(x: object) -> str:
    """A table cell: a float as :func:`number`, a count or text as it is, None as :data:`MISSING`."""
    return number(x) if x is None or isinstance(x, float) else str(x)


def signed(x: float | None) -> str:
    """A signed difference with one decimal: +18.0, -0.4."""
    return MISSING if x is None or math.isnan(x) else f"{x:+.1f}"


def pct(x: float | None) -> str:
    """A percent change: +18.0%, -96.6%."""
    return MISSING if x is None or math.isnan(x) else f"{signed(x)}%"


def tenths(x: float | None) -> str:
    """One decimal, for a column that names its unit (``lost work (h)``: 1234.5), as durations show hours."""
    return MISSING if x is None or math.isnan(x) else f"{x:.1f}"


def load(x: float) -> str:
    """An offered load (work offered / capacity over the arrival span): three decimals, 0.873."""
    return MISSING if math.isnan(x) else f"{x:.3f}"


def share(x: float | None) -> str:
    """A fraction as a percent with one decimal: 0.4531 -> 45.3%."""
    return MISSING if x is None or math.isnan(x) else f"{x:.1%}"


def megabytes(n: int) -> str:
    """A byte count as messages write it: "10.0 MB (10000000 bytes)"."""
    return f"{n / 1e6:.1f} MB ({n} bytes)"


def duration(seconds: float) -> str:
    """A duration in the unit that reads best: 0.25 s, 45 s, 12.5 min, 20.0 h, 2 d 3 h (a sign is kept)."""
    if math.isnan(seconds):
        return MISSING
    size = abs(seconds)
    if 0 < size < 1:  # whole seconds would read as no time at all
        return f"{seconds:.2g} s"
    if size < SECONDS_BELOW or math.isinf(size):
        return f"{seconds:.0f} s"
    if size < MINUTES_BELOW:
        return f"{seconds / MINUTE:.1f} min"
    if round(size / HOUR, 1) < 24:  # "24.0 h" would be a day
        return f"{seconds / HOUR:.1f} h"
    days, hours = divmod(round(size / HOUR), 24)
    sign = "-" if seconds < 0 else ""
    return f"{sign}{days} d {hours} h" if hours else f"{sign}{days} d"


#: A column of durations is shown in the largest unit its median reaches at least twice (as :func:`duration`).
UNITS = (("d", DAY), ("h", HOUR), ("min", MINUTE), ("s", 1.0))
#: ... and in a larger unit while its largest value reaches this many of it (no 100,000 s above a day).
COLUMN_MOST = 1000.0


def duration_unit(seconds: Iterable[float]) -> tuple[str, float]:
    """The unit (name, seconds) for a column of durations: 2 d and more in days, then hours from
    2 h, minutes from 2 min, seconds below, by the median of the non-zero finite values; then the next
    larger unit while the largest value reaches :data:`COLUMN_MOST` in it (a column of short waits with
    one of two days reads in minutes, not 172800 s)."""
    finite = sorted(abs(x) for x in seconds if math.isfinite(x) and x != 0)
    median = finite[len(finite) // 2] if finite else 0.0
    at = next((i for i, (_, size) in enumerate(UNITS) if median >= 2 * size), len(UNITS) - 1)
    while at > 0 and finite and finite[-1] >= COLUMN_MOST * UNITS[at][1]:
        at -= 1
    return UNITS[at]


def short(x: float) -> float:
    """A number as a table shows it: three significant digits and at most three decimals (13.4573 -> 13.5,
    1.0319 -> 1.03, 0.0667 -> 0.067, 1152544 -> 1150000), still a number, so a column of them sorts."""
    if not math.isfinite(x):
        return x
    return round(float(f"{x:.3g}"), 3) + 0.0  # + 0.0: no "-0"


def figure(x: float | None) -> str:
    """:func:`short` as text, without an exponent: ``13.5``, ``0.067``, ``1,150,000``."""
    if x is None or math.isnan(x):
        return MISSING
    value = short(x)
    if math.isinf(value) or value.is_integer():
        return f"{value:,.0f}"
    return f"{value:,.3f}".rstrip("0")


def gpu_hours(gpu_seconds: float) -> str:
    """GPU time in GPU-hours, as :func:`figure` shows it: 240 GPU-seconds -> ``0.067 GPU-h``."""
    return f"{figure(gpu_seconds / HOUR)} GPU-h"


def tick(x: float) -> str:
    """A log axis' tick label: 0.5, 1, 20, 1,000, 20,000 (no exponent below a billion)."""
    return f"{x:,.0f}" if 1 <= x < 1e9 else f"{x:g}"


def clock(t: float) -> str:
    """``t`` (seconds from the start) as ``day d hh:mm:ss``, fractions of a second kept (``05.25``)."""
    days, rest = divmod(float(t), 86400.0)
    hours, rest = divmod(rest, HOUR)
    minutes, seconds = divmod(rest, MINUTE)
    sec = f"{seconds:06.3f}".rstrip("0").rstrip(".") if seconds % 1 else f"{int(seconds):02d}"
    return f"day {int(days) + 1} {int(hours):02d}:{int(minutes):02d}:{sec.zfill(2)}"


def setting(value: object) -> str:
    """A knob or grid value as typed: 0.8, 30, inf, on_preempt (no trailing .0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


def settings(values: Iterable[object]) -> str:
    """A list of settings, comma-separated: 0.5,0.3,0.2."""
    return ",".join(setting(v) for v in values)


def estimate(
    mean: float,
    lo: float,
    hi: float,
    value: Callable[[float], str] = number,
    bound: Callable[[float], str] | None = None,
) -> str:
    """``mean [lo, hi]`` (``bound`` formats the interval, ``value`` by default); the mean alone without an
    interval (one replicate); :data:`MISSING` without a mean."""
    if not math.isfinite(mean):
        return MISSING
    if not math.isfinite(lo):
        return value(mean)
    each = bound or value
    return f"{value(mean)} [{each(lo)}, {each(hi)}]"


def pct_estimate(mean: float, lo: float, hi: float) -> str:
    """A percent change with its interval: ``+18.0% [+12.1, +23.9]``."""
    return estimate(mean, lo, hi, pct, signed)


def half_width(mean: float, lo: float, hi: float) -> str:
    """``mean ± half-width`` for a narrow text table (``4.09 ± 2.4``)."""
    if not math.isfinite(mean):
        return MISSING
    if not math.isfinite(hi):
        return number(mean)
    return f"{number(mean)} ± {(hi - lo) / 2:.2g}"
