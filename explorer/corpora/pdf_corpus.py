"""A PDF as a corpus: its headings nested into a tree, each node holding the text of its span and a summary.

The tree is a PageIndex tree (the format a PDF's tree already has in this project, see :mod:`.pageindex`), so a
PDF opens as the tree ``reasoning-explorer import`` writes, and both load through the same reader:

- headings: the outline's where the PDF has one, with the layout's it leaves out filled in under the entries whose
  spans hold them, else the layout's (:mod:`.pdf_headings`); a PDF with neither is a node per page (``Page 3``);
- a node's span runs from its heading to the next heading at its level or above; its ``text`` is that span's text
  (running headers, footers and page numbers dropped); text before the first heading is a node of its own,
  ``Front matter``;
- ``start_index``/``end_index``: the pages of its span, counted from 1 as PageIndex counts them;
- ``summary``: extractive (:mod:`.summaries`), the sentences that best cover its text and its children's titles;
- ``node_id``: a slug of its title, numbering included (``1-2-dol-rulemaking``), unique in document order, so an
  import of the same PDF gives the same ids.

:func:`fill_pageindex` gives a PageIndex tree made elsewhere the text of its pages, and
:func:`read_pageindex_with_pdf` opens such a tree with its PDF (``--pdf``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .errors import CorpusError
from .files import decode_text, read_bytes
from .markdown_ids import Ids
from .model import Corpus, sha256_of_bytes
from .pageindex import build_pageindex
from .pdf_headings import Heading, layout_headings, outline_headings, with_layout_headings
from .pdf_pages import PdfText, read_pdf_text
from .progress import Progress, Stage, SummaryHook
from .summaries import extractive_summary

__all__ = ["FORMAT", "fill_pageindex", "pdf_tree", "read_pageindex_with_pdf", "read_pdf", "read_tree"]

FORMAT = "pdf"
FRONT_MATTER = "Front matter"


def read_pdf(path: Path, progress: Progress | None = None, summaries: SummaryHook | None = None) -> Corpus:
    """Load a PDF as a corpus (format ``"pdf"``); a :class:`CorpusError` with one line when it cannot be read.
    ``summaries``: what rewrites the tree's summaries before it is indexed (``--summaries``).

    ``sha256`` is the hash of the PDF's bytes, and of the summaries when ``summaries`` changed any: a walk or a kept
    run made on a model's summaries saw other offers than one made on the extractive ones, so a trace of one is
    refused on the other. Summaries left as they were (every request failed) hash as the plain PDF."""
    progress = progress or Progress(None)
    text = read_pdf_text(path, progress)
    tree = pdf_tree(text, path, progress)
    written: list[list[str]] | None = None
    if summaries is not None:
        extractive = _summaries(tree)
        summaries(tree, progress)
        written = _summaries(tree)
        if written == extractive:
            written = None
    corpus = build_pageindex(tree, path, text.data, progress)
    if written is None:
        return dataclasses.replace(corpus, format=FORMAT)
    said = json.dumps(written, ensure_ascii=False).encode("utf-8", "surrogatepass")
    return dataclasses.replace(corpus, format=FORMAT, sha256=sha256_of_bytes([text.data, b"\0summaries\0", said]))


def _summaries(tree: dict[str, Any]) -> list[list[str]]:
    """Each node's id and summary, in document order (what the offers show of a node besides its title)."""
    found: list[list[str]] = []
    stack: list[Any] = list(reversed(tree.get("structure") or []))
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            found.append([str(node.get("node_id", "")), str(node.get("summary") or "")])
            stack.extend(reversed(_children(node)))
    return found


def pdf_tree(text: PdfText, path: Path, progress: Progress | None = None, *, fill_outline: bool = True
             ) -> dict[str, Any]:
    """The PDF's tree as a PageIndex tree: ``{"doc_name": ..., "structure": [...]}``. ``fill_outline=False``: an
    outline's headings alone, without the layout's it lacks (the bench's before)."""
    progress = progress or Progress(None)
    if not text.outline:
        headings = layout_headings(text)
    elif fill_outline:
        headings = with_layout_headings(outline_headings(text), layout_headings(text))
    else:
        headings = outline_headings(text)
    if not headings:
        headings = [Heading(f"Page {page + 1}", 0, page, None) for page in range(len(text.pages)) if text.pages[page]]
    headings = _with_front_matter(text, headings)
    flat = _Flat(text)
    spans = [flat.position(h) for h in headings]
    progress.start(Stage.BUILDING, len(headings))
    ids = Ids()
    roots: list[dict[str, Any]] = []
    stack: list[tuple[int, dict[str, Any]]] = []
    nodes: list[tuple[dict[str, Any], int]] = []
    for number, heading in enumerate(headings):
        while stack and stack[-1][0] >= heading.level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        end = next((spans[later] for later in range(number + 1, len(headings))
                    if headings[later].level <= heading.level), flat.end)
        start = spans[number]
        node: dict[str, Any] = {
            "title": heading.title,
            "node_id": ids.allocate(heading.title, parent["node_id"] if parent else None),
            "start_index": heading.page + 1,
            "end_index": flat.last_page(start, end) + 1,
            "text": flat.text(start + (0 if heading.line is None else heading.lines), end),
        }
        (parent.setdefault("nodes", []) if parent else roots).append(node)
        stack.append((heading.level, node))
        nodes.append((node, number))
        progress.tick(number + 1)
    for node, _ in nodes:
        children = [child["title"] for child in node.get("nodes", ())]
        node["summary"] = extractive_summary(_without_titles(node["text"], children), title=node["title"],
                                             children=children)
    progress.finish(len(headings))
    return {"doc_name": text.title or path.name, "structure": roots}


def _with_front_matter(text: PdfText, headings: list[Heading]) -> list[Heading]:
    first = headings[0]
    before = list(_lines_before(text, first))
    if sum(len(line) for line in before) < 40:
        return headings
    top = min(h.level for h in headings)
    return [Heading(FRONT_MATTER, top, 0, None), *headings]


def _lines_before(text: PdfText, heading: Heading) -> Iterator[str]:
    for page in range(heading.page + 1):
        lines = text.pages[page]
        upto = len(lines) if page < heading.page else (heading.line or 0)
        for line in lines[:upto]:
            yield line.text


class _Flat:
    """The document's lines in one sequence, a heading's place in it, and the text between two places."""

    def __init__(self, text: PdfText) -> None:
        self.lines = [line for lines in text.pages for line in lines]
        self.page_starts: list[int] = []
        at = 0
        for lines in text.pages:
            self.page_starts.append(at)
            at += len(lines)
        self.end = at
        self.pages = len(text.pages)

    def position(self, heading: Heading) -> int:
        return self.page_starts[heading.page] + (heading.line or 0)

    def last_page(self, start: int, end: int) -> int:
        """The page of the span's last line (the start's page when the span holds no line)."""
        if end > start and end - 1 < len(self.lines):
            return self.lines[end - 1].page
        if start < len(self.lines):
            return self.lines[start].page
        return self.pages - 1

    def text(self, start: int, end: int) -> str:
        parts: list[str] = []
        page = None
        for line in self.lines[start:end]:
            if page is not None and line.page != page:
                parts.append("")
            parts.append(line.text)
            page = line.page
        return "\n".join(parts).strip()


def _without_titles(text: str, titles: list[str]) -> str:
    """The text with a blank line for each line that is one of the titles (numbered or not): a heading is no
    sentence of a summary, and it ends the sentence before it."""
    wanted = {key for key in ("".join(ch for ch in title.casefold() if ch.isalnum()) for title in titles) if key}
    if not wanted:
        return text
    kept = []
    for line in text.split("\n"):
        key = "".join(ch for ch in line.casefold() if ch.isalnum())
        # a title with at most _TITLE_LEAD characters before it (its numbering): a few set lookups a line, not one
        # comparison per title (a parent of 2,000 sections over 50,000 lines took 18 s)
        kept.append("" if any(key[lead:] in wanted for lead in range(min(_TITLE_LEAD, len(key) - 1) + 1)) else line)
    return "\n".join(kept)


_TITLE_LEAD = 8
"""How many letters or digits may come before a title on its line for the line to be that title (``1.2`` and the
like)."""


def fill_pageindex(tree: Any, text: PdfText, path: Path) -> int:
    """Give each node of a PageIndex tree (as ``json.load`` read it) the text of its ``start_index``…``end_index``
    pages, in place; returns how many nodes got text. A node with no pages, or pages past the PDF's last, is a
    CorpusError naming it."""
    roots = tree.get("structure") if isinstance(tree, dict) else tree
    if not isinstance(roots, list):
        raise CorpusError(path, "is not a PageIndex tree (no \"structure\" list); give a PageIndex tree JSON")
    filled = 0
    stack: list[Any] = list(reversed(roots))
    while stack:
        node = stack.pop()
        if not isinstance(node, dict):
            continue
        start, end = node.get("start_index"), node.get("end_index")
        if isinstance(start, int) and isinstance(end, int) and not isinstance(start, bool):
            if not 1 <= start <= end <= len(text.pages):
                raise CorpusError(path, f"node {node.get('node_id')!r}: pages {start}–{end} are not in the PDF "
                                        f"({len(text.pages)} pages); give the PDF this tree was made from")
            node["text"] = text.page_text(start - 1, end - 1)
            if not str(node.get("summary") or "").strip():
                children = [str(child.get("title", "")) for child in _children(node) if isinstance(child, dict)]
                title = str(node.get("title", ""))
                node["summary"] = extractive_summary(_without_titles(node["text"], [title, *children]), title=title,
                                                     children=children)
            filled += 1
        stack.extend(reversed(_children(node)))
    return filled


def _children(node: dict[str, Any]) -> list[Any]:
    """A node's ``nodes`` when they are a list (anything else is the PageIndex reader's to refuse, naming it)."""
    nodes = node.get("nodes")
    return nodes if isinstance(nodes, list) else []


def read_tree(path: Path) -> Any:
    """A PageIndex tree JSON as ``json`` reads it, or a CorpusError with the line and column of what is wrong."""
    data = read_bytes(path)
    try:
        return json.loads(decode_text(path, data))
    except json.JSONDecodeError as exc:
        raise CorpusError(path, f"malformed JSON: {exc.msg} (column {exc.colno}); fix the JSON there",
                          line=exc.lineno) from None
    except RecursionError:
        raise CorpusError(path, "JSON nested too deeply to read; flatten it") from None


def read_pageindex_with_pdf(path: Path, pdf: Path, progress: Progress | None = None) -> Corpus:
    """A PageIndex tree JSON opened with the PDF it was made from: each node's content is the text of its pages
    (format ``"pageindex"``; ``sha256`` covers both files)."""
    if path.suffix.lower() != ".json":
        raise CorpusError(path, f"--pdf gives a PageIndex tree (.json) its pages' text, and this is no .json; open "
                                f"{pdf} itself, or give the tree")
    progress = progress or Progress(None)
    text = read_pdf_text(pdf, progress)
    tree = read_tree(path)
    fill_pageindex(tree, text, path)
    return build_pageindex(tree, path, read_bytes(path) + text.data, progress)

