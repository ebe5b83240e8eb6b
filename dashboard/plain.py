"""Visitor text (link parameters, file names, job ids, loader messages) shown as plain text.

Streamlit renders toasts, captions, alerts and labels as Markdown, where ``![i](http://...)``
loads a remote image and ``[x](http://...)``, a bare ``http://`` or ``www.`` address becomes a
link. :func:`md` backslash-escapes every ASCII punctuation character, which CommonMark always
reads as the literal character: no link, image, autolink, emphasis, HTML, math or Streamlit
directive (``:material/...:``, ``:red[...]``) can form from the text. Static text written by
the project is never passed through it, so its own Markdown still works.
"""

from __future__ import annotations

import string

_PUNCTUATION = frozenset(string.punctuation)


def md(text: object) -> str:
    """``text`` as Markdown that renders as exactly these characters."""
    return "".join("\\" + c if c in _PUNCTUATION else c for c in str(text))


def md_lines(text: object) -> str:
    """Like :func:`md`, keeping the line breaks (each line its own paragraph line)."""
    return "  \n".join(md(line) for line in str(text).splitlines() or [""])
