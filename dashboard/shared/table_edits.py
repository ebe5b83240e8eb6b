"""The sidebar's editable tables (``st.data_editor`` with ``num_rows="dynamic"``) as rows of text cells.

A table the scenario keeps (the node-events table, the queues table) is drawn as an editor over its
rows; the editor's ``on_change`` applies its edits (:func:`apply_edits`) to the rows it was drawn
from, and a table whose rows changed is drawn as a new editor (:func:`editor_key`), holding no edits
of the old one, so the rows the session keeps are the one truth. A cell is text, as typed: the
table's own reader checks it, naming its row and column.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from typing import Any

from dashboard.shared.keys import Family, Key
from simcore.core.knobs import to_text


def cell(value: Any) -> str:
    """A cell as text: empty for a missing value, a number as :func:`simcore.core.knobs.to_text` writes it."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float | int) and not isinstance(value, bool):
        return to_text(float(value))
    return str(value).strip()


def apply_edits(rows: Sequence[Sequence[str]], edits: Mapping[str, Any], columns: Sequence[str]) -> list[list[str]]:
    """``rows`` (cells in the order of ``columns``) with a ``st.data_editor``'s edits: ``edited_rows`` by
    position, then ``deleted_rows`` by position, then ``added_rows`` at the end; an unknown column or
    position is ignored."""
    out = [list(r) for r in rows]
    for i, changes in (edits.get("edited_rows") or {}).items():
        for column, value in changes.items():
            if 0 <= int(i) < len(out) and column in columns:
                out[int(i)][list(columns).index(column)] = cell(value)
    gone = {int(i) for i in edits.get("deleted_rows") or ()}
    out = [r for i, r in enumerate(out) if i not in gone]
    out += [[cell(added.get(c)) for c in columns] for added in edits.get("added_rows") or ()]
    return out


def editor_key(family: Family[dict[str, Any]], content: str) -> Key[dict[str, Any]]:
    """The key of the editor drawn over a table of this ``content`` (its text): a new table is a new
    editor, so an old editor's edits are never applied twice."""
    return family(hashlib.sha256(content.encode()).hexdigest()[:12])
