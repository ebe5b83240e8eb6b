"""Numbers from text: the one reader of a number someone writes (a ``--set`` or ``--grid`` value,
a dashboard link, a form, a generator parameter), and the one way a message quotes what it read.

Whole numbers written as digits are read exactly (a float would round seeds above 2^53); a number
too large for any range is refused with a message that says so, rather than read as ``inf`` (what
Python's ``float`` makes of 400 nines) or converted until Python gives up: every such case is a
``ValueError`` whose text names the value, shortened, and why.
"""

from __future__ import annotations

import math
import re
from typing import Any

#: digits beyond which a whole number is refused unread: more than any range allows (the largest,
#: a seed, has 19), far fewer than Python's limit on converting text to int (4,300)
MAX_DIGITS = 30
#: how many characters of a value a message quotes
SHOWN = 60

_DIGITS = re.compile(r"[+-]?[0-9]+")
_INF = re.compile(r"[+-]?(inf|infinity)", re.IGNORECASE)


def quoted(value: Any) -> str:
    """``value`` as a message quotes it: its repr, or for a long one its start (and a text's length:
    ``'999999999999'... (400 characters)``; ``an integer of 400 digits``)."""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**SHOWN:
        return f"an integer of {math.floor(math.log10(abs(value))) + 1} digits"
    text = repr(value)
    if len(text) <= SHOWN:
        return text
    start = str(value)[: SHOWN // 2]
    return f"{start!r}... ({len(str(value))} characters)" if isinstance(value, str) else f"{start}..."


def parse_number(value: Any, whole: bool = False) -> int | float:
    """The number ``value`` (text, or a number) writes: an int when ``whole`` (``12``, ``1e3``,
    ``2.0``), else a float (``inf`` and ``nan`` as written). ``ValueError`` saying why otherwise:
    not a (whole) number, more than :data:`MAX_DIGITS` digits, or beyond the largest float."""
    kind = "whole number" if whole else "number"
    if isinstance(value, bool):
        raise ValueError(f"{quoted(value)} is not a {kind}")
    if isinstance(value, int):
        if abs(value) >= 10**MAX_DIGITS:
            raise ValueError(f"{quoted(value)} is too large for any setting")
        return value if whole else float(value)
    if isinstance(value, float):
        number = value
    else:
        text = str(value).strip()
        digits = len(text.lstrip("+-"))
        if _DIGITS.fullmatch(text):
            if digits > MAX_DIGITS:
                raise ValueError(f"a number of {digits} digits is too large for any setting")
            if whole:
                return int(text)  # exact: a float would round seeds above 2^53
        try:
            number = float(text)
        except ValueError:
            raise ValueError(f"{quoted(value)} is not a {kind}") from None
        if math.isinf(number) and not _INF.fullmatch(text):
            raise ValueError(f"{quoted(value)} is beyond the largest number a float holds (1.8e308)")
    if not whole:
        return number
    if not number.is_integer():
        raise ValueError(f"{quoted(value)} is not a {kind}")
    return int(number)
