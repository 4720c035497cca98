"""Loading a corpus by path: the reader chosen by what the path is (a folder, or a file's suffix)."""

from __future__ import annotations

import stat
from pathlib import Path

from .errors import CorpusError
from .files import check_corpus_path
from .model import Corpus
from .progress import CallbackFailed, Progress, ProgressCallback, SummaryHook, collector_paused

__all__ = ["JSON_SUFFIXES", "MARKDOWN_SUFFIXES", "PDF_SUFFIXES", "YAML_SUFFIXES", "load_corpus"]

YAML_SUFFIXES = (".yaml", ".yml")
JSON_SUFFIXES = (".json",)
MARKDOWN_SUFFIXES = (".md", ".markdown")
PDF_SUFFIXES = (".pdf",)


def load_corpus(
    path: str | Path, *, progress: ProgressCallback | None = None, follow_outside_links: bool = False,
    pdf: str | Path | None = None, summaries: SummaryHook | None = None,
) -> Corpus:
    """Load a corpus by path, choosing the reader by what the path is.

    ``.yaml``/``.yml``: the YAML corpus format; ``.json``: PageIndex tree
    JSON; ``.md``/``.markdown``: one Markdown file; ``.pdf``: a PDF, its tree
    built from its outline or its layout (:mod:`.pdf_corpus`); a folder: its Markdown
    files (symlinks leading out of the folder are skipped unless
    ``follow_outside_links``). Every failure is a :class:`CorpusError` with
    one clear line: a missing path, a path the file system refuses (too long,
    a NUL in it), something that is not a regular file or a folder (a FIFO, a
    device: never read), unreadable or malformed content.

    ``pdf``, with a PageIndex tree: the PDF it was made from, whose pages give
    each node its content (:func:`.pdf_corpus.read_pageindex_with_pdf`).

    ``summaries``, with a PDF: what writes its nodes' summaries in place of the extractive ones, given the tree
    before it is indexed (``--summaries``: an LLM's, :mod:`explorer.navigators.summary_writer`).

    ``progress``, when given, is called as ``progress(stage, done, total)``
    while the load runs (see :mod:`explorer.corpora.progress`). A
    ``KeyboardInterrupt`` propagates and leaves nothing behind.
    """
    path = Path(path)
    reporter = Progress(progress)
    try:
        with collector_paused():
            mode = check_corpus_path(path).st_mode
            if pdf is not None:
                from .pdf_corpus import read_pageindex_with_pdf

                return read_pageindex_with_pdf(path, Path(pdf), reporter)
            if stat.S_ISDIR(mode):
                from .markdown_corpus import read_markdown

                return read_markdown(path, progress=reporter, follow_outside_links=follow_outside_links)
            suffix = path.suffix.lower()
            if suffix in YAML_SUFFIXES:
                from .yaml_corpus import read_yaml_corpus

                return read_yaml_corpus(path, progress=reporter)
            if suffix in JSON_SUFFIXES:
                from .pageindex import read_pageindex

                return read_pageindex(path, progress=reporter)
            if suffix in MARKDOWN_SUFFIXES:
                from .markdown_corpus import read_markdown

                return read_markdown(path, progress=reporter)
            if suffix in PDF_SUFFIXES:
                from .pdf_corpus import read_pdf

                return read_pdf(path, progress=reporter, summaries=summaries)
            raise CorpusError(
                path,
                f"unknown corpus type {suffix or '(no suffix)'!r}; use .yaml/.yml, .json (PageIndex), .md "
                "or .pdf, or a folder",
            )
    except CallbackFailed as failed:
        raise failed.error from None
