"""Visitor text (job ids, node names, file names, policy labels) as plain text in the report.

:func:`text` escapes what the report writes into its own HTML. The figures escape the visitor
text they are built from themselves (:func:`dashboard.shared.plain.chart_text`), so the report
gives them the raw runs: escaping here too would show ``&amp;lt;`` (``tests/test_report.py``).
"""

from __future__ import annotations

import html


def text(value: object) -> str:
    """``value`` as HTML text (element content or a quoted attribute) that shows exactly its characters."""
    return html.escape(str(value), quote=True)
