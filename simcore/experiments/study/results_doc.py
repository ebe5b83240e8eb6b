"""The one writer of docs/RESULTS.md: the whole document (``simcore reproduce``,
:mod:`simcore.experiments.study.run`) or one of its sections put in place, refreshed from that
section's own rows (``python -m simcore.experiments.study.accounting_doc``, ``... .gangs``, ``... .teams``)."""

from __future__ import annotations

from pathlib import Path

#: a section goes before this heading when the document has no section of its heading yet
BEFORE = "## Reproduce"


def write(doc: Path, text: str) -> None:
    """The whole document."""
    doc.write_text(text, encoding="utf-8")


def splice(doc: str, section: str) -> str:
    """``doc`` with ``section`` (whose first line is its ``## `` heading) in place of the section of
    that heading, else before "## Reproduce", else at the end."""
    heading = section.split("\n", 1)[0]
    start = doc.find(heading + "\n")
    if start >= 0:
        end = doc.find("\n## ", start + len(heading))
        return doc[:start] + section.rstrip("\n") + "\n\n" + (doc[end + 1 :] if end >= 0 else "")
    at = doc.find(BEFORE)
    if at < 0:
        return doc.rstrip("\n") + "\n\n" + section
    return doc[:at] + section.rstrip("\n") + "\n\n" + doc[at:]


def put_section(doc: Path, section: str) -> None:
    """``section`` written into the document ``doc`` (:func:`splice`)."""
    write(doc, splice(doc.read_text(encoding="utf-8"), section))
