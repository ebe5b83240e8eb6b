"""What "a number a person can read" means in the tests (issue 33): one set of checks for the text a page
shows, applied to AppTest's elements and to what Chromium draws.

- no number with more than three decimals (``13.4573``, ``1.0319``);
- no raw seconds above a day (``1152544 s``, or a column headed ``(s)`` holding more than 86,400);
- no code a visitor cannot read: a wait reason's code (``no_room``) or a limit's name (``max_computations``,
  ``run_seconds``), which the pages say in words.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence

DAY = 86_400.0
#: a number written with four decimals or more (not part of an address such as 127.0.0.1 or of a word)
MANY_DECIMALS = re.compile(r"(?<![\w.:/])-?\d[\d,]*\.\d{4,}(?![\d.])")
#: a count of seconds: "1152544 s", "86,401 seconds", "240 GPU-seconds"
SECONDS = re.compile(r"(?<![\w.])(\d[\d,]*(?:\.\d+)?)\s*(?:s|sec|seconds|GPU-seconds)\b")


def codes() -> set[str]:
    """The codes no visitor text may show: the wait reasons' (but those that are also a knob's name, which
    the knob labels show on purpose: "minimum run before preemption (min_runtime, s)") and the limits' names."""
    from dashboard.shared.demo import MEANING
    from simcore.analysis.whatif import WAIT_REASONS
    from simcore.core.knobs import KNOBS

    return {c for c in WAIT_REASONS if c not in KNOBS} | {name for name in MEANING if "_" in name}


def text_problems(texts: Iterable[str], where: str = "") -> list[str]:
    """Every place in ``texts`` that breaks a rule of this module, with its context."""
    found: list[str] = []
    forbidden = codes()
    for text in texts:
        for m in MANY_DECIMALS.finditer(text):
            found.append(f"{where}: more than 3 decimals {m.group(0)!r} in {_around(text, m)!r}")
        for m in SECONDS.finditer(text):
            if float(m.group(1).replace(",", "")) > DAY:
                found.append(f"{where}: raw seconds above a day {m.group(0)!r} in {_around(text, m)!r}")
        for code in forbidden:
            if re.search(rf"(?<![\w.]){re.escape(code)}(?!\w)", text):
                found.append(f"{where}: the code {code!r} in {text[:160]!r}")
    return found


def table_problems(columns: Mapping[str, Sequence[object]], where: str = "") -> list[str]:
    """A table's problems: its headers and cells as :func:`text_problems`; a column headed in seconds that
    holds more than a day; a number with more than three decimals."""
    found = text_problems(columns, f"{where} header")
    for header, cells in columns.items():
        numbers = [float(c) for c in cells if isinstance(c, int | float) and not isinstance(c, bool)]
        numbers += [_number(c) for c in cells if isinstance(c, str) and _number(c) is not None]  # type: ignore[misc]
        if re.search(r"\((s|seconds)\)", header) and any(abs(x) > DAY for x in numbers if math.isfinite(x)):
            found.append(f"{where}: column {header!r} holds raw seconds above a day: {max(numbers)}")
        for x in numbers:
            if math.isfinite(x) and abs(round(x, 3) - x) > 1e-9 * max(1.0, abs(x)):
                found.append(f"{where}: column {header!r} holds {x!r}, more than 3 decimals")
                break
        found += text_problems([c for c in cells if isinstance(c, str)], f"{where} column {header!r}")
    return found


def _number(text: str) -> float | None:
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return None


def _around(text: str, m: re.Match[str]) -> str:
    return text[max(m.start() - 40, 0) : m.end() + 40]
