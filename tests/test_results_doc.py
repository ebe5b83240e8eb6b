"""RESULTS.md has one writer (simcore/experiments/study/results_doc.py): the whole document, or one
section put in place by its heading, as the accounting and gang sections are refreshed."""

from __future__ import annotations

from simcore.experiments.study import accounting_doc, gangs, results_doc

DOC = "# R\n\n## 8. x\n\ntext\n\n## Reproduce\n\nrun\n"


def test_a_section_goes_before_reproduce_then_replaces_itself():
    for heading in (accounting_doc.HEADING, gangs.HEADING):
        once = results_doc.splice(DOC, heading + "\n\nA\n")
        assert once == f"# R\n\n## 8. x\n\ntext\n\n{heading}\n\nA\n\n## Reproduce\n\nrun\n"
        assert results_doc.splice(once, heading + "\n\nB\n") == once.replace("\nA\n", "\nB\n")


def test_two_sections_keep_each_other_and_a_document_without_reproduce_grows_at_its_end():
    both = results_doc.splice(results_doc.splice(DOC, gangs.HEADING + "\n\nG\n"), accounting_doc.HEADING + "\n\nA\n")
    assert (
        both.index("## 8. x")
        < both.index(gangs.HEADING)
        < both.index(accounting_doc.HEADING)
        < both.index("## Reproduce")
    )
    again = results_doc.splice(both, gangs.HEADING + "\n\nG2\n")
    assert again == both.replace("\nG\n", "\nG2\n")
    assert results_doc.splice("# R\n\ntext\n", "## 9. s\n\nS\n") == "# R\n\ntext\n\n## 9. s\n\nS\n"
    # a heading that only starts another one's is not that section
    assert (
        results_doc.splice("# R\n\n## 9. sx\n\nold\n", "## 9. s\n\nS\n") == "# R\n\n## 9. sx\n\nold\n\n## 9. s\n\nS\n"
    )


def test_put_section_writes_the_file(tmp_path):
    doc = tmp_path / "RESULTS.md"
    results_doc.write(doc, DOC)
    results_doc.put_section(doc, gangs.HEADING + "\n\nG\n")
    assert doc.read_text(encoding="utf-8") == results_doc.splice(DOC, gangs.HEADING + "\n\nG\n")
