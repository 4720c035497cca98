"""How much of PageIndex's tree a PDF import holds: its node titles, their pages, and the time per page.

    PYTHONPATH=. .venv/bin/python bench/pdf_import.py [FIXTURES] [--pages N]

FIXTURES defaults to ../shared/fixtures/pageindex: each pdfs/NAME.pdf there with a NAME_structure.json (PageIndex's
tree, made with an LLM) is imported by ``explorer.corpora.pdf_corpus`` (no LLM), and the bench prints, per PDF:
whether the PDF has an outline, the share of PageIndex's titles the imported tree holds (compared without case,
numbering, punctuation or a final colon; a title also counts when one holds the other and the shorter has at least
12 letters), the share of the titles found whose first page agrees (exactly, and within one page; of our nodes with
that title, the nearest), and the import time per page (best of three). Where the PDF has an outline, the titles
its outline alone holds too (``outline only``: before the layout's headings fill its gaps) and the nodes either
way.

Then a big PDF: the largest fixture's pages repeated to ``--pages`` pages (default 1,000; its outline is not
copied, so its tree comes from the layout), written to a temporary folder and opened as a corpus (``load_corpus``:
pages read, headings, text, summaries, the index), once: the seconds it took (the target: at most 60 s) and the
CPU seconds (on a busy machine the wall time also counts other processes' turns).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from explorer.corpora.pdf_corpus import pdf_tree
from explorer.corpora.pdf_headings import numbering
from explorer.corpora.pdf_pages import read_pdf_text

FIXTURES = Path(__file__).resolve().parent.parent.parent / "shared" / "fixtures" / "pageindex"


def key(title: str) -> str:
    label = numbering(title)
    if label is not None:
        title = title[title.find(label) + len(label):].lstrip(".): ")
    return re.sub(r"[^0-9a-z]", "", title.casefold())


def nodes(tree: Any) -> list[dict[str, Any]]:
    out, stack = [], list(reversed(tree["structure"] if isinstance(tree, dict) else tree))
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.get("nodes") or []))
    return out


def held(theirs: list[dict[str, Any]], tree: Any) -> tuple[int, int, int]:
    """How many of PageIndex's titles the tree holds, and of those how many start on PageIndex's page, and within
    one page of it."""
    ours: dict[str, list[int]] = {}
    for node in nodes(tree):
        ours.setdefault(key(node["title"]), []).append(node["start_index"])
    count = exact = near = 0
    for node in theirs:
        start = node.get("start_index")
        page = found(key(node["title"]), ours, start)
        if page is None:
            continue
        count += 1
        exact += page == start
        near += isinstance(start, int) and abs(page - start) <= 1
    return count, exact, near


def share(count: int, total: int) -> str:
    return f"{count}/{total} {count * 100 // max(total, 1):3d}%"


def found(wanted: str, ours: dict[str, list[int]], page: object) -> int | None:
    """The first page of our node with this title (of those with it, the one nearest PageIndex's page)."""
    pages = ours.get(wanted) or [p for title, at in ours.items() for p in at
                                 if min(len(title), len(wanted)) >= 12 and (wanted in title or title in wanted)]
    if not pages:
        return None
    return min(pages, key=lambda at: abs(at - page)) if isinstance(page, int) else pages[0]


def big_pdf(source: Path, pages: int, folder: Path) -> Path:
    import pypdfium2 as pdfium

    original = pdfium.PdfDocument(source)
    made = pdfium.PdfDocument.new()
    while len(made) < pages:
        made.import_pages(original, list(range(min(len(original), pages - len(made)))))
    path = folder / f"big-{pages}.pdf"
    made.save(path)
    return path


def time_big(pdfs: list[Path], pages: int) -> None:
    from explorer.corpora import load_corpus

    with tempfile.TemporaryDirectory() as folder:
        path = big_pdf(max(pdfs, key=lambda p: p.stat().st_size), pages, Path(folder))
        started, cpu = time.perf_counter(), time.process_time()
        corpus = load_corpus(path)
        wall, used = time.perf_counter() - started, time.process_time() - cpu
    verdict = "met" if wall <= 60 else "NOT met"
    print(f"\n{pages:,}-page PDF opened as a corpus: {wall:.1f} s (target <= 60 s: {verdict}; CPU {used:.1f} s)"
          f", {sum(1 for _ in corpus.index.ids()):,} nodes, {wall * 1000 / pages:.1f} ms a page")


def main() -> int:
    parser = argparse.ArgumentParser(description="PDF import against PageIndex's trees, and a big PDF's time")
    parser.add_argument("fixtures", nargs="?", type=Path, default=FIXTURES)
    parser.add_argument("--pages", type=int, default=1000, help="pages of the big PDF (0: none)")
    args = parser.parse_args()
    fixtures = args.fixtures
    pdfs = sorted((fixtures / "pdfs").glob("*.pdf"))
    if not pdfs:
        print(f"no PDFs in {fixtures / 'pdfs'}", file=sys.stderr)
        return 2
    print(f"{'PDF':44} {'pages':>5} {'outline':>7} {'outline only':>13} {'titles held':>13} {'nodes':>9} "
          f"{'page =':>7} {'page ±1':>7} {'ms/page':>8}")
    outlined = [0, 0, 0]  # PageIndex's titles of the PDFs with an outline: held before, held after, of
    for pdf in pdfs:
        structure = fixtures / f"{pdf.stem}_structure.json"
        if not structure.is_file():
            continue
        theirs = [n for n in nodes(json.loads(structure.read_text(encoding="utf-8"))) if n.get("title")]
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            text = read_pdf_text(pdf)
            tree = pdf_tree(text, pdf)
            best = min(best, time.perf_counter() - started)
        count, exact, near = held(theirs, tree)
        before, alone = "", ""
        if text.outline:
            outline_only = pdf_tree(text, pdf, fill_outline=False)
            before = share(held(theirs, outline_only)[0], len(theirs))
            alone = f"{len(nodes(outline_only))}→"
            outlined = [outlined[0] + held(theirs, outline_only)[0], outlined[1] + count, outlined[2] + len(theirs)]
        print(f"{pdf.stem[:44]:44} {len(text.pages):5d} {'yes' if text.outline else 'no':>7} {before:>13} "
              f"{share(count, len(theirs)):>13} {alone + str(len(nodes(tree))):>9} "
              f"{exact * 100 // max(count, 1):6d}% {near * 100 // max(count, 1):6d}% "
              f"{best * 1000 / len(text.pages):8.1f}")
    if outlined[2]:
        verdict = "met" if outlined[1] * 100 >= 95 * outlined[2] else "NOT met"
        print(f"PDFs with an outline: {share(outlined[0], outlined[2])} of PageIndex's titles from the outline alone, "
              f"{share(outlined[1], outlined[2])} with the layout's headings in its gaps (target >= 95 %: {verdict})")
    if args.pages:
        time_big(pdfs, args.pages)
    return 0


if __name__ == "__main__":
    sys.exit(main())
