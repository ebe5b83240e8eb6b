"""Visitor text (link parameters, file names, job ids, loader messages) shown as plain text,
in Markdown (:func:`md`) and in Plotly figures (:func:`chart_text`).

Streamlit renders toasts, captions, alerts and labels as Markdown, where ``![i](http://...)``
loads a remote image and ``[x](http://...)``, a bare ``http://`` or ``www.`` address becomes a
link. :func:`md` backslash-escapes every ASCII punctuation character, which CommonMark always
reads as the literal character: no link, image, emphasis, HTML, math or Streamlit directive
(``:material/...:``, ``:red[...]``) can form from the text. GitHub-flavoured autolinks are
found after parsing, in the unescaped text, so text that could hold one (``://``, ``www.``,
``@``, ``mailto:``) is put in a code span instead, where nothing is interpreted. Static text
written by the project is never passed through it, so its own Markdown still works.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable

_PUNCTUATION = frozenset(string.punctuation)
_AUTOLINK = re.compile(r"://|www\.|@|mailto:|xmpp:", re.IGNORECASE)


def md(text: object) -> str:
    """``text`` (one line) as Markdown that renders as exactly these characters."""
    text = str(text).replace("\n", " ")
    if _AUTOLINK.search(text):
        return code_span(text)
    return "".join("\\" + c if c in _PUNCTUATION else c for c in text)


def code_span(text: str) -> str:
    """``text`` as an inline code span: a fence longer than any run of backticks inside it."""
    fence = "`" * (max((len(run) for run in re.findall("`+", text)), default=0) + 1)
    pad = " " if text[:1] in ("`", " ") or text[-1:] in ("`", " ") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


# Plotly draws text, hover labels, tick labels, legend names and titles through a subset of
# HTML (<a href>, <b>, <span style>, <br>, ...) and decodes &lt; &gt; &amp;: with these three
# replaced a visitor's text shows as exactly its characters and never forms a tag.
_CHART_ENTITIES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;"})


def chart_text(value: object) -> str:
    """``value`` as text for a Plotly figure that shows as exactly these characters."""
    return str(value).translate(_CHART_ENTITIES)


def chart_texts(values: Iterable[object]) -> list[str]:
    """:func:`chart_text` of each value (a column of ids or node names)."""
    return [chart_text(v) for v in values]
