"""Numbers and durations as text: the one format of RESULTS.md, the CLI tables and the dashboard's prose.

- a value: three significant digits (``0.0123``, ``4.56``, ``1.23e+04``);
- a percent change: signed, one decimal (``-96.6%``);
- a duration: seconds below 2 minutes, minutes below 2 hours, hours above (``45 s``, ``12.5 min``,
  ``30.0 h``, also beyond a day): whole seconds (two digits below one), one decimal otherwise;
- an estimate: ``mean [lo, hi]``, its interval in the mean's format (the spread is named where it is shown).

A missing value (NaN) reads :data:`MISSING`. The study's document is the reference: its bytes must not
move, so a change here is a change of docs/RESULTS.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

MISSING = "n/a"
MINUTE, HOUR = 60.0, 3600.0
#: Below these a duration is shown in the next smaller unit (so 90 s stays seconds, 90 min minutes).
SECONDS_BELOW, MINUTES_BELOW = 2 * MINUTE, 2 * HOUR


def number(x: float) -> str:
    """Three significant digits: 0.000357, 4.09, 270, 2.7e+06."""
    return MISSING if math.isnan(x) else f"{x:.3g}"


def signed(x: float) -> str:
    """A signed difference with one decimal: +18.0, -0.4."""
    return MISSING if math.isnan(x) else f"{x:+.1f}"


def pct(x: float) -> str:
    """A percent change: +18.0%, -96.6%."""
    return MISSING if math.isnan(x) else f"{signed(x)}%"


def duration(seconds: float) -> str:
    """A duration in the unit that reads best: 0.25 s, 45 s, 12.5 min, 30.0 h (a sign is kept)."""
    if math.isnan(seconds):
        return MISSING
    size = abs(seconds)
    if 0 < size < 1:  # whole seconds would read as no time at all
        return f"{seconds:.2g} s"
    if size < SECONDS_BELOW or math.isinf(size):
        return f"{seconds:.0f} s"
    if size < MINUTES_BELOW:
        return f"{seconds / MINUTE:.1f} min"
    return f"{seconds / HOUR:.1f} h"


DAY = 24 * HOUR
#: A column of durations is shown in the largest unit its median reaches at least twice (as :func:`duration`).
UNITS = (("d", DAY), ("h", HOUR), ("min", MINUTE), ("s", 1.0))


def duration_unit(seconds: Sequence[float]) -> tuple[str, float]:
    """The unit (name, seconds) for a column of durations: 2 d and more in days, then hours from
    2 h, minutes from 2 min, seconds below; by the median of the non-zero finite values."""
    finite = sorted(abs(x) for x in seconds if math.isfinite(x) and x != 0)
    median = finite[len(finite) // 2] if finite else 0.0
    return next(((name, size) for name, size in UNITS if median >= 2 * size), UNITS[-1])


def tick(x: float) -> str:
    """A log axis' tick label: 0.5, 1, 20, 1,000, 20,000 (no exponent below a billion)."""
    return f"{x:,.0f}" if 1 <= x < 1e9 else f"{x:g}"


def setting(value: object) -> str:
    """A knob or grid value as typed: 0.8, 30, inf, on_preempt (no trailing .0)."""
    return f"{value:g}" if isinstance(value, float) else str(value)


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
