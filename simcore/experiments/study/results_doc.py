"""The one writer of docs/RESULTS.md: the whole document (``simcore reproduce``,
:mod:`simcore.experiments.study.run`) or one of its sections put in place, refreshed from that
section's own rows (``python -m simcore.experiments.study.accounting_doc``, ``... .gangs``, ``... .teams``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import pandas as pd

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


def section_main(
    argv: Sequence[str] | None, name: str, what: str, section: Callable[[pd.DataFrame], str], description: str | None
) -> int:
    """``python -m simcore.experiments.study.<module>``: the section of the rows ``rows_<name>.parquet``
    (``--results``) put into the document (``--doc``); an error naming the sweep to run when the rows are missing."""
    from simcore.io.parquet_read import read_frame

    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--results", default="docs/results", help="where the rows are")
    parser.add_argument("--doc", default="docs/RESULTS.md", help="the document the section is put into")
    args = parser.parse_args(argv)
    rows_path = Path(args.results) / f"rows_{name}.parquet"
    if not rows_path.exists():
        grid_path = Path(args.results) / f"grid_{name}.yaml"
        print(f"error: {rows_path} not found: run simcore sweep {grid_path} --out {rows_path}", file=sys.stderr)
        return 2
    doc = Path(args.doc)
    put_section(doc, section(read_frame(rows_path)))
    print(f"wrote the {what} section of {doc}")
    return 0
