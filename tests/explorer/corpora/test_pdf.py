"""A PDF as a corpus: the outline's tree, the layout's headings, each node's text and summary, and every bad PDF
refused in one line. The PDFs are made by the tests (pdf_maker); the published ones are read where present."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core import HierarchyMetadata
from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.pdf_headings import numbering

from .pdf_maker import Bookmark, Line, make_pdf

SHARED = Path(os.environ.get("REASONING_EXPLORER_SHARED") or Path(__file__).resolve().parents[3].parent / "shared")
SHARED_PDFS = SHARED / "fixtures" / "pageindex" / "pdfs"

BILLING = [Line("1 Billing", 16, True),
           Line("Invoices are sent on the first day of every month."),
           Line("Each invoice lists the plan and the seats in use.")]
REFUNDS = [Line("1.1 Refunds", 13, True),
           Line("A refund is paid within ten days of the request."),
           Line("Refunds go back to the card that paid the invoice.")]
SHIPPING = [Line("2 Shipping", 16, True),
            Line("Parcels leave the warehouse every weekday at noon."),
            Line("Tracking numbers are emailed when the parcel leaves.")]


def outline_pdf(tmp_path: Path) -> Path:
    return make_pdf(tmp_path / "handbook.pdf", [BILLING, REFUNDS, SHIPPING],
                    outline=(Bookmark("1 Billing", 0, (Bookmark("1.1 Refunds", 1),)), Bookmark("2 Shipping", 2)),
                    headers="Acme handbook, page {n}", page_numbers=True)


def shape(corpus_path: Path) -> list[tuple[str, str | None, str, int, int]]:
    corpus = load_corpus(corpus_path)
    rows = []
    for node_id in corpus.index.ids():
        metadata = corpus.index[node_id].metadata
        rows.append((node_id, metadata.get(HierarchyMetadata.PARENT_ID), corpus.title_of(node_id),
                     metadata["startPage"], metadata["endPage"]))
    return rows


def test_outline_becomes_the_tree_with_page_ranges(tmp_path: Path) -> None:
    path = outline_pdf(tmp_path)
    assert shape(path) == [
        ("1-billing", None, "1 Billing", 1, 2),
        ("1-1-refunds", "1-billing", "1.1 Refunds", 2, 2),
        ("2-shipping", None, "2 Shipping", 3, 3),
    ]
    assert load_corpus(path).format == "pdf"


def test_node_text_is_its_span_without_running_headers_or_page_numbers(tmp_path: Path) -> None:
    corpus = load_corpus(outline_pdf(tmp_path))
    assert corpus.index["1-1-refunds"].content == (
        "A refund is paid within ten days of the request.\nRefunds go back to the card that paid the invoice.")
    assert corpus.index["1-billing"].content == (
        "Invoices are sent on the first day of every month.\nEach invoice lists the plan and the seats in use.\n\n"
        "1.1 Refunds\nA refund is paid within ten days of the request.\n"
        "Refunds go back to the card that paid the invoice.")


def test_summary_is_sentences_of_the_node_that_cover_its_children(tmp_path: Path) -> None:
    corpus = load_corpus(outline_pdf(tmp_path))
    summary = corpus.summary_of("1-billing")
    assert "Refunds go back to the card that paid the invoice." in summary
    assert all(sentence.strip() + "." in corpus.index["1-billing"].content.replace("\n", " ")
               for sentence in summary.split(".") if sentence.strip())
    assert corpus.summary_of("2-shipping").startswith("Parcels leave the warehouse")


def test_layout_headings_nest_by_size_weight_and_numbering(tmp_path: Path) -> None:
    pages = [
        [Line("Employee Handbook", 22, True), Line("This handbook says how the company pays and ships."),
         *BILLING[:1], Line("Invoices are sent on the first day of every month.")],
        [*REFUNDS], [Line("1.2 Credits", 13, True), Line("Credits are kept for a year on the account.")],
        [*SHIPPING],
    ]
    path = make_pdf(tmp_path / "layout.pdf", pages, page_numbers=True)
    assert [(i, p, t) for i, p, t, _, _ in shape(path)] == [
        ("employee-handbook", None, "Employee Handbook"),
        ("1-billing", "employee-handbook", "1 Billing"),
        ("1-1-refunds", "1-billing", "1.1 Refunds"),
        ("1-2-credits", "1-billing", "1.2 Credits"),
        ("2-shipping", "employee-handbook", "2 Shipping"),
    ]


def test_layout_headings_fill_what_the_outline_leaves_out(tmp_path: Path) -> None:
    """The outline names the chapters only: the sections the layout finds go under the chapter whose pages hold
    them, nested by their look (a lettered one at the body's size too); the contents page's heading comes first, no
    chapter comes twice, and a line that stands out by a lone number (a footnote) is no section."""
    contents = [Line("Contents", 16, True), Line("1 Billing, page 2"), Line("2 Shipping, page 4")]
    cards = [*REFUNDS, Line("Card refunds", 11, True), Line("A card refund shows on the next statement."),
             Line("12 See the terms of the bank"), Line("A. Disputes"),
             Line("A disputed charge is held until it is settled."), Line("Late fees", 11, True), Line("A late fee is added after thirty days.")]
    path = make_pdf(tmp_path / "gaps.pdf", [contents, BILLING, cards, SHIPPING],
                    outline=(Bookmark("1 Billing", 1), Bookmark("2 Shipping", 3)), page_numbers=True)
    assert shape(path) == [
        ("contents", None, "Contents", 1, 1),
        ("1-billing", None, "1 Billing", 2, 3),
        ("1-1-refunds", "1-billing", "1.1 Refunds", 3, 3),
        ("card-refunds", "1-1-refunds", "Card refunds", 3, 3),
        ("a-disputes", "1-1-refunds", "A. Disputes", 3, 3),
        ("late-fees", "1-1-refunds", "Late fees", 3, 3),
        ("2-shipping", None, "2 Shipping", 4, 4),
    ]
    corpus = load_corpus(path)
    assert corpus.index["card-refunds"].content == ("A card refund shows on the next statement.\n"
                                                    "12 See the terms of the bank")
    assert corpus.index["1-billing"].content.endswith("A late fee is added after thirty days.")


def test_a_pdf_with_no_headings_is_a_node_per_page(tmp_path: Path) -> None:
    lines = [Line("plain words run on and on here without any end in sight"), Line("and more of them follow")]
    path = make_pdf(tmp_path / "plain.pdf", [lines, lines])
    assert [(i, t, s) for i, _, t, s, _ in shape(path)] == [("page-1", "Page 1", 1), ("page-2", "Page 2", 2)]


def test_the_same_pdf_gives_the_same_ids(tmp_path: Path) -> None:
    first = load_corpus(outline_pdf(tmp_path)).index.ids()
    assert list(first) == list(load_corpus(outline_pdf(tmp_path)).index.ids())


@pytest.mark.parametrize(("title", "label"), [
    ("1. Scope", "1"), ("1.2 Terms", "1.2"), ("A. Background", "A"), ("Article 7 Duties", "Article 7"),
    ("IV. Remedies", "IV"), ("Appendix B: Files", "Appendix B"), ("Scope of work", None),
])
def test_numbering_of_a_heading(title: str, label: str | None) -> None:
    assert numbering(title) == label


def bad(tmp_path: Path, name: str, data: bytes) -> str:
    path = tmp_path / name
    path.write_bytes(data)
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    return str(caught.value)


def test_encrypted_pdf_is_one_line(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "locked.pdf", [BILLING], encrypted=True)
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == (f"{path}: is encrypted (it needs a password); save a copy without a password and "
                                 "try again")


def test_scanned_pdf_without_text_is_one_line(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "scan.pdf", [[], []])
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == (f"{path}: holds no text (a scanned PDF?); run OCR on it first (e.g. ocrmypdf) and "
                                 "try again")


def test_zero_page_pdf_is_one_line(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "empty.pdf", [])
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{path}: has no pages; give a PDF with pages of text"


def test_damaged_pdf_is_one_line(tmp_path: Path) -> None:
    whole = make_pdf(tmp_path / "whole.pdf", [BILLING]).read_bytes()
    message = bad(tmp_path, "damaged.pdf", whole[:40] + b"\x00garbage" * 20)
    assert message == (f"{tmp_path / 'damaged.pdf'}: is damaged or not a PDF PDFium can read; repair it (e.g. print "
                       "it to a new PDF) and try again")


def test_non_pdf_is_one_line(tmp_path: Path) -> None:
    assert bad(tmp_path, "notes.pdf", b"# just Markdown\n") == (
        f"{tmp_path / 'notes.pdf'}: is not a PDF (it does not start with %PDF-); give a .pdf file")


def shared_pdf(name: str) -> Path:
    path = SHARED_PDFS / name
    if not path.is_file():
        pytest.skip(f"no shared PDF {path}")
    return path


def unnumbered(title: str) -> str:
    label = numbering(title)
    return title[len(label):].lstrip(".): ") if label and title.startswith(label) else title


def test_published_pdf_outline_holds_pageindex_titles() -> None:
    pdf = shared_pdf("Regulation_Best_Interest_Interpretive_release.pdf")
    structure = json.loads((SHARED_PDFS.parent / "Regulation_Best_Interest_Interpretive_release_structure.json")
                           .read_text(encoding="utf-8"))
    corpus = load_corpus(pdf)
    ours = {unnumbered(corpus.title_of(node_id)) for node_id in corpus.index.ids()}
    theirs, stack = [], list(structure["structure"])
    while stack:
        node = stack.pop()
        theirs.append(node["title"])
        stack.extend(node.get("nodes") or [])
    assert len(theirs) == 9 and sum(title in ours for title in theirs) >= 8
    assert all(corpus.index[node_id].content for node_id in corpus.index.ids())


def test_a_pdf_load_reports_its_pages_as_it_reads_them(tmp_path: Path) -> None:
    path = make_pdf(tmp_path / "long.pdf", [BILLING, REFUNDS, SHIPPING] * 40)
    seen: list[tuple[str, int, int | None]] = []
    load_corpus(path, progress=lambda stage, done, total: seen.append((stage, done, total)))
    pages = [(done, total) for stage, done, total in seen if stage == "reading pages"]
    assert pages[0] == (0, 120) and pages[-1] == (120, 120)
    assert [done for done, _ in pages] == sorted(done for done, _ in pages) and len(pages) > 10
    assert next(stage for stage, _, _ in seen if stage != "reading pages") == "reading"  # the file's bytes first
    assert seen[-1][0] == "indexing"


def test_a_table_of_contents_lines_are_no_headings(tmp_path: Path) -> None:
    contents = [Line("Contents", 16, True), Line("1 Billing .................... 2"),
                Line("2 Shipping ................... 3")]
    path = make_pdf(tmp_path / "toc.pdf", [contents, BILLING, SHIPPING])
    assert [(i, t, s) for i, _, t, s, _ in shape(path)] == [
        ("contents", "Contents", 1), ("1-billing", "1 Billing", 2), ("2-shipping", "2 Shipping", 3)]


def test_a_large_file_that_is_no_pdf_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "archive.pdf"
    with path.open("wb") as handle:  # 64 MB, sparse: a file that is large, and no PDF
        handle.truncate(64 << 20)
    seen: list[tuple[str, int, int | None]] = []
    with pytest.raises(CorpusError) as caught:
        load_corpus(path, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert str(caught.value) == f"{path}: is not a PDF (it does not start with %PDF-); give a .pdf file"
    assert seen == []  # its first kilobyte said so: not one megabyte of it was read


def test_a_numbered_list_in_a_section_is_no_chapter(tmp_path: Path) -> None:
    steps = [Line("2.1 Returns", 13, True), Line("A parcel comes back in three steps."),
             Line("1. Print the label from the order"), Line("the customer received by email."),
             Line("2. Pack the goods in the same box"), Line("they came in, sealed with tape.")]
    path = make_pdf(tmp_path / "numbered.pdf", [BILLING, REFUNDS, SHIPPING, steps,
                                                [Line("2.2 Tracking", 13, True), *SHIPPING[2:]]])
    assert [(i, p) for i, p, _, _, _ in shape(path)] == [
        ("1-billing", None), ("1-1-refunds", "1-billing"), ("2-shipping", None), ("2-1-returns", "2-shipping"),
        ("2-2-tracking", "2-shipping"),
    ]


def test_a_damaged_pdf_of_many_page_trees_is_refused_in_one_pass(tmp_path: Path) -> None:
    # 200,000 '/Type/Pages' and no '>>': the look for '/Count 0' after each ran to the file's end (hours)
    message = bad(tmp_path, "trees.pdf", b"%PDF-1.4\n" + b"/Type/Pages " * 200_000)
    assert message == (f"{tmp_path / 'trees.pdf'}: is damaged or not a PDF PDFium can read; repair it (e.g. print "
                       "it to a new PDF) and try again")
