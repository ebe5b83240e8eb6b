"""docs/knobs.md: its tables are generated from the metadata (:mod:`simcore.core.knobs`,
:mod:`simcore.workload.presets`) between markers; ``python -m simcore.cli.knobs_doc docs/knobs.md``
rewrites them in place, and tests/test_knobs.py fails while the file is stale.
"""

from __future__ import annotations

import sys
from pathlib import Path

from simcore.core.knobs import KNOBS
from simcore.workload.presets import params_markdown_table


def markdown_table() -> str:
    """The knob table of docs/knobs.md, generated from :data:`KNOBS`."""

    def code(text: str) -> str:
        return f"`{text}`"

    lines = ["| knob | type | default | allowed | used by | meaning |", "|---|---|---|---|---|---|"]
    for k in KNOBS.values():
        allowed = k.range.text() if k.range else ", ".join(map(code, k.choices))
        used = k.scope if isinstance(k.used_by, str) else ", ".join(map(code, k.used_by))
        default = k.default_text() + (f" ({k.default_note})" if k.default_note else "")
        kind = {"int": "integer", "float": "number", "choice": "choice"}[k.kind] + (f" ({k.unit})" if k.unit else "")
        lines.append(f"| {code(k.name)} | {kind} | {default} | {allowed} | {used} | {k.meaning} |")
    return "\n".join(lines) + "\n"


#: docs/knobs.md holds these generated sections between their markers; the rest is prose
DOC_SECTIONS = ("knobs", "generator parameters")


def doc_section(name: str) -> str:
    """The generated text of one section of docs/knobs.md."""
    return markdown_table() if name == "knobs" else params_markdown_table()


def regenerate_doc(text: str) -> str:
    """``text`` (docs/knobs.md) with every generated section replaced by its current version."""
    for name in DOC_SECTIONS:
        begin, end = f"<!-- generated: {name} -->\n", f"<!-- end generated: {name} -->"
        head, found, rest = text.partition(begin)
        _, found_end, tail = rest.partition(end)
        if not (found and found_end):
            raise ValueError(f"docs/knobs.md: the markers of the generated section {name!r} are missing")
        text = head + begin + doc_section(name) + end + tail
    return text


def main(argv: list[str] | None = None) -> int:
    """``python -m simcore.cli.knobs_doc [docs/knobs.md]``: regenerate the tables of that file in place."""
    path = Path((argv if argv is not None else sys.argv[1:] or ["docs/knobs.md"])[0])
    path.write_text(regenerate_doc(path.read_text()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
