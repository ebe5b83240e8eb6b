"""Every relative link in README.md, CHANGELOG.md, docs/*.md and docs/history/*.md resolves: the file
exists and, with an anchor, the target has a heading of that name. So does every ``docs/....md``
reference in the code's comments and docstrings (a moved section leaves no comment pointing nowhere).

Anchors are GitHub's: the heading in lower case, inline markup dropped, punctuation other than
``-`` and ``_`` removed, each space a ``-``, and ``-1``, ``-2``, ... appended to repeats. Links
inside code (fenced blocks, inline spans) are text, not links, and are not checked.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from helpers.paths import ROOT

#: docs/results/ is left out: its Markdown is a generated fragment of RESULTS.md, linking from there
DOCS = [
    ROOT / "README.md",
    ROOT / "CHANGELOG.md",
    *sorted((ROOT / "docs").glob("*.md")),
    *sorted((ROOT / "docs" / "history").glob("*.md")),
]

#: Links that can only resolve once other branches are merged: the target file is written on
#: another branch, or the link sits in a page another branch owns and still points at a README
#: section that moved. Listed ones are expected broken; once one resolves, the test asks for it to
#: be removed from here, so the list cannot outlive its reason.
AWAITING_MERGE = {}

_FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.MULTILINE | re.DOTALL)
_INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.DOTALL)
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t#]*$", re.MULTILINE)


def _prose(text: str) -> str:
    """The text with code blocks and code spans blanked, so links shown as code are not links."""
    return _INLINE_CODE.sub(" ", _FENCE.sub(" ", text))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link in a heading keeps its text
    text = text.replace("`", "").replace("*", "").lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor a Markdown file's headings define (repeats numbered as GitHub numbers them)."""
    seen: Counter[str] = Counter()
    out = set()
    for heading in _HEADING.findall(_FENCE.sub(" ", path.read_text(encoding="utf-8"))):
        base = slug(heading)
        out.add(base if seen[base] == 0 else f"{base}-{seen[base]}")
        seen[base] += 1
    return out


def links(path: Path) -> list[str]:
    """The targets of a file's links and images that point inside the repository."""
    found = _LINK.findall(_prose(path.read_text(encoding="utf-8")))
    return [t for t in found if not re.match(r"[a-z][a-z0-9+.-]*:", t, re.IGNORECASE)]


def problem(source: Path, target: str) -> str | None:
    """Why a link from ``source`` does not resolve, or None when it does."""
    file_part, _, anchor = target.partition("#")
    dest = (source.parent / file_part).resolve() if file_part else source
    if not dest.exists():
        return f"{file_part} does not exist"
    if anchor and dest.suffix == ".md" and anchor not in anchors(dest):
        return f"{file_part or source.name} has no heading with anchor #{anchor}"
    return None


def test_slug_follows_github() -> None:
    assert slug("Knobs") == "knobs"
    assert slug("Beyond the paper: min_runtime and fitdelay") == "beyond-the-paper-min_runtime-and-fitdelay"
    assert (
        slug("fitgpp: our reconstruction of the paper's approach") == "fitgpp-our-reconstruction-of-the-papers-approach"
    )
    assert slug("8. Beyond the paper: `fitdelay` and `min_runtime`") == "8-beyond-the-paper-fitdelay-and-min_runtime"
    assert slug("Knobs (`--set KEY=VALUE`, the same names)") == "knobs---set-keyvalue-the-same-names"


def test_links_skip_code_and_outside_addresses(tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_text(
        '# Top\n\n## Top\n\nsee [a](a.md#x), ![img](pic.png "t"), [web](https://e.org/x), `[no](code.md)`\n\n'
        "```\n[no](fenced.md)\n# not a heading\n```\n[self](#top-1)\n",
        encoding="utf-8",
    )
    assert links(page) == ["a.md#x", "pic.png", "#top-1"]
    assert anchors(page) == {"top", "top-1"}
    assert problem(page, "#top-1") is None
    assert problem(page, "#not-a-heading") == "p.md has no heading with anchor #not-a-heading"
    assert problem(page, "a.md#x") == "a.md does not exist"


@pytest.mark.parametrize("doc", DOCS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    name = str(doc.relative_to(ROOT))
    broken = {t: why for t in links(doc) if (why := problem(doc, t))}
    unexpected = {t: why for t, why in broken.items() if (name, t) not in AWAITING_MERGE}
    assert not unexpected, f"{name}: broken links {unexpected}"
    fixed = [t for (src, t) in AWAITING_MERGE if src == name and t not in broken]
    assert not fixed, f"{name}: {fixed} are no longer broken links: remove them from AWAITING_MERGE"
    awaited = [f"{t} ({AWAITING_MERGE[name, t]})" for t in broken]
    if awaited:
        pytest.xfail(f"{name}: links that resolve only after the merge: {awaited}")


#: a reference to a page of docs/ from code: ``docs/cli.md`` or ``docs/history/engine.md#a-heading``
_CODE_REF = re.compile(r"docs/[\w/.-]+?\.md(?:#[\w-]+)?")
CODE = sorted(
    p for d in ("simcore", "dashboard", "tests", "bench") for p in (ROOT / d).rglob("*.py") if p != Path(__file__)
)


def test_code_references_to_docs_resolve() -> None:
    refs = {(p, m) for p in CODE for m in _CODE_REF.findall(p.read_text(encoding="utf-8"))}
    assert len(refs) > 50  # the pattern still finds the code's references
    broken = {f"{p.relative_to(ROOT)}: {ref}": why for p, ref in refs if (why := problem(ROOT / "_", ref))}
    assert not broken, broken
