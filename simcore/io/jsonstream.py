"""JSON read one list item at a time, so that a cap on job records stops the parser as soon as
the file passes it, before the rest of a large file has become Python objects.

:func:`first_value` parses the first JSON value of a text as :func:`json.loads` would, except
that a top-level list, or the ``jobs`` list of a top-level object, is read item by item with
:meth:`json.JSONDecoder.raw_decode`: :class:`TooManyItems` is raised at item ``max_items + 1``.
Errors carry the positions of :class:`json.JSONDecodeError` in the whole text.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SPACE = re.compile(r"[ \t\n\r]*")


class TooManyItems(Exception):
    """A job list longer than the cap."""


def first_value(text: str, max_items: int) -> tuple[Any, bool]:
    """The first JSON value of ``text``, and whether anything follows it (then the text may be
    JSON Lines). Raises :class:`json.JSONDecodeError`, :class:`RecursionError` (nested too
    deeply), :class:`ValueError` (a number too long) or :class:`TooManyItems`."""
    decoder = json.JSONDecoder()
    start = _skip(text, 0)
    value: Any
    if text.startswith("[", start):
        value, end = _list(decoder, text, start, max_items)
    elif text.startswith("{", start):
        value, end = _object(decoder, text, start, max_items)
    else:
        value, end = decoder.raw_decode(text, start)
    return value, _skip(text, end) < len(text)


def _list(decoder: json.JSONDecoder, text: str, pos: int, max_items: int) -> tuple[list[Any], int]:
    """The list that opens at ``text[pos]`` and the position after it."""
    items: list[Any] = []
    pos = _skip(text, pos + 1)
    if text.startswith("]", pos):
        return items, pos + 1
    while True:
        if len(items) == max_items:
            raise TooManyItems
        item, pos = decoder.raw_decode(text, pos)
        items.append(item)
        pos = _skip(text, pos)
        if text.startswith("]", pos):
            return items, pos + 1
        if not text.startswith(",", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        pos = _skip(text, pos + 1)


def _object(decoder: json.JSONDecoder, text: str, pos: int, max_items: int) -> tuple[dict[str, Any], int]:
    """The object that opens at ``text[pos]`` (its ``jobs`` list read by :func:`_list`) and the
    position after it."""
    obj: dict[str, Any] = {}
    pos = _skip(text, pos + 1)
    if text.startswith("}", pos):
        return obj, pos + 1
    while True:
        if not text.startswith('"', pos):
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, pos)
        key, pos = decoder.raw_decode(text, pos)
        pos = _skip(text, pos)
        if not text.startswith(":", pos):
            raise json.JSONDecodeError("Expecting ':' delimiter", text, pos)
        pos = _skip(text, pos + 1)
        if key == "jobs" and text.startswith("[", pos):
            obj[key], pos = _list(decoder, text, pos, max_items)
        else:
            obj[key], pos = decoder.raw_decode(text, pos)
        pos = _skip(text, pos)
        if text.startswith("}", pos):
            return obj, pos + 1
        if not text.startswith(",", pos):
            raise json.JSONDecodeError("Expecting ',' delimiter", text, pos)
        pos = _skip(text, pos + 1)


def _skip(text: str, pos: int) -> int:
    """The position of the first non-whitespace character from ``pos`` on."""
    return _SPACE.match(text, pos).end()  # type: ignore[union-attr]
