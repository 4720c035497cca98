"""A PDF's pages as lines of text with their look (size, weight, place), its outline, and what cannot be read.

Read with pypdfium2 (PDFium; Apache-2.0/BSD-3-Clause): it opens a 400-page PDF and extracts every page's text in
under a second, and it gives each character's font weight and box, which the layout headings need. Each line
carries the height of its tallest letters among the first few (a font size that holds for Type 3 fonts too, whose
nominal size is meaningless), whether it is bold, and where on the page it sits.

Running headers and footers (a line near the top or bottom of the page whose text, digits aside, recurs on many
pages) and page numbers are dropped here, so neither a node's content nor the headings see them.

Every failure is a :class:`~.errors.CorpusError` with one line: not a PDF, damaged, encrypted, no pages, or no text
at all (a scanned PDF: run OCR on it first).
"""

from __future__ import annotations

import ctypes
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from .errors import CorpusError
from .files import read_bytes, read_start
from .progress import Progress, Stage

__all__ = ["OutlineEntry", "PdfLine", "PdfText", "read_pdf_text"]

# Letters measured per line for its size: enough to pass a drop cap or a bullet, few enough to stay cheap.
_MEASURED = 8
# Where the %PDF- mark must be: PDFium, as Acrobat, finds it within the first kilobyte.
_HEAD = 1024
# A line this close to the top or bottom (share of the page's height) may be a running header or footer.
_MARGIN = 0.1
_PAGE_NUMBER = re.compile(r"(?i)^(page\s+)?(\d+|[ivxlcdm]+)(\s*(of|/)\s*\d+)?$|^[-–—]\s*\d+\s*[-–—]$")
# Ligatures that old TeX fonts map to control characters (OT1 encoding), and PDFium's mark of a hyphen at a line end.
_LIGATURES = str.maketrans({"\x0b": "ff", "\x0c": "fi", "\x0d": "fl", "\x0e": "ffi", "\x0f": "ffl", "\ufffe": "",
                            "\t": " ", "\x02": ""})
_FORCE_BOLD = 1 << 18
_ITALIC = 1 << 6


@dataclass(frozen=True, slots=True)
class PdfLine:
    """One line of a page: its text (spaces collapsed), its size in points, bold or not, how far down the page
    it sits (0 the top, 1 the bottom), and italic or not (its first letter's font says both)."""

    page: int
    text: str
    size: float
    bold: bool
    down: float
    italic: bool = False


@dataclass(frozen=True, slots=True)
class OutlineEntry:
    """One bookmark: its title, its depth (0 at the top) and the page it leads to (0-based; ``None``: nowhere)."""

    title: str
    level: int
    page: int | None


@dataclass(frozen=True)
class PdfText:
    """What a PDF says: its title (metadata), its outline, and each page's lines (headers and footers dropped)."""

    title: str
    outline: tuple[OutlineEntry, ...]
    pages: tuple[tuple[PdfLine, ...], ...]
    data: bytes

    def page_text(self, first: int, last: int) -> str:
        """The text of pages ``first`` to ``last`` (0-based, both in), a line each line, a blank line between
        pages."""
        first, last = max(first, 0), min(last, len(self.pages) - 1)
        return "\n\n".join("\n".join(line.text for line in self.pages[i]) for i in range(first, last + 1)).strip()


def read_pdf_text(path: Path, progress: Progress | None = None) -> PdfText:
    """The PDF's text, outline and lines, or a CorpusError naming what is wrong with it."""
    progress = progress or Progress(None)
    if b"%PDF-" not in read_start(path, _HEAD):  # a 2 GB file that is no PDF is refused by its first kilobyte
        raise CorpusError(path, "is not a PDF (it does not start with %PDF-); give a .pdf file")
    data = read_bytes(path, progress)
    if b"%PDF-" not in data[:_HEAD]:  # it changed since its start was read
        raise CorpusError(path, "is not a PDF (it does not start with %PDF-); give a .pdf file")
    try:
        document = pdfium.PdfDocument(data)
    except pdfium.PdfiumError as exc:
        raise CorpusError(path, _why_not_opened(exc, data)) from None
    try:
        count = len(document)
        if count == 0:
            raise CorpusError(path, "has no pages; give a PDF with pages of text")
        progress.start(Stage.PAGES, count)
        pages = []
        for index in range(count):
            pages.append(_page_lines(document, index))
            progress.tick(index + 1)
        progress.finish(count)
        outline = _outline(document)
        title = _metadata_title(document)
    except pdfium.PdfiumError as exc:
        raise CorpusError(path, f"is damaged ({exc}); repair it (e.g. print it to a new PDF) and try again") from None
    finally:
        document.close()
    cleaned = _without_running_lines(pages)
    if not any(cleaned):
        raise CorpusError(path, "holds no text (a scanned PDF?); run OCR on it first (e.g. ocrmypdf) and try again")
    return PdfText(title, outline, cleaned, data)


_PAGE_TREE = re.compile(rb"/Type\s*/Pages\b")
_NO_COUNT = re.compile(rb"/Count\s+0\b")
_DICTIONARY_SCAN = 4096
"""How far after a page tree's ``/Type /Pages`` its ``/Count`` is looked for (up to the dictionary's ``>>``)."""


def _no_pages(data: bytes) -> bool:
    """A page tree in ``data`` says ``/Count 0`` before its dictionary ends: each is looked at within a few kilobytes,
    so a damaged file of a million page trees costs one pass."""
    for found in _PAGE_TREE.finditer(data):
        window = data[found.end():found.end() + _DICTIONARY_SCAN]
        closed = window.find(b">>")
        if _NO_COUNT.search(window if closed < 0 else window[:closed]):
            return True
    return False


def _why_not_opened(exc: pdfium.PdfiumError, data: bytes) -> str:
    # PDFium's last error outlives the call that set it (a load that fails without setting one reports the
    # previous failure's), so the bytes confirm what it says.
    code = getattr(exc, "err_code", None)
    if code in (pdfium_c.FPDF_ERR_PASSWORD, pdfium_c.FPDF_ERR_SECURITY) and b"/Encrypt" in data:
        return "is encrypted (it needs a password); save a copy without a password and try again"
    if _no_pages(data):
        return "has no pages; give a PDF with pages of text"
    return "is damaged or not a PDF PDFium can read; repair it (e.g. print it to a new PDF) and try again"


def _page_lines(document: pdfium.PdfDocument, index: int) -> list[PdfLine]:
    page = document[index]
    try:
        height = float(page.get_height()) or 1.0
        textpage = page.get_textpage()
        try:
            return list(_lines(textpage, index, height))
        finally:
            textpage.close()
    finally:
        page.close()


def _lines(textpage: pdfium.PdfTextPage, index: int, height: float) -> list[PdfLine]:
    count = textpage.count_chars()
    text = textpage.get_text_range(0, count) if count else ""
    raw = textpage.raw
    if len(text) != count:  # the range left characters out: read them one by one, so each index is its character
        text = "".join(chr(pdfium_c.FPDFText_GetUnicode(raw, i)) for i in range(count))
    lines, start, box = [], 0, pdfium_c.FS_RECTF()
    for line in text.split("\r\n"):
        end = start + len(line)
        clean = " ".join(line.translate(_LIGATURES).split())
        if clean:
            size, bold, italic, top, measured = 0.0, False, False, None, 0
            for position in range(start, end):
                if not line[position - start].isalnum():
                    continue
                if not pdfium_c.FPDFText_GetLooseCharBox(raw, position, box):
                    continue
                size = max(size, box.top - box.bottom)
                top = box.top if top is None else max(top, box.top)
                if measured == 0:
                    bold, italic = _look(raw, position)
                measured += 1
                if measured >= _MEASURED:
                    break
            down = 1.0 - (top / height) if top is not None else 0.5
            lines.append(PdfLine(index, clean, round(size, 1), bold, min(max(down, 0.0), 1.0), italic))
        start = end + 2
    return lines


_NAME = ctypes.create_string_buffer(128)


def _look(raw: object, position: int) -> tuple[bool, bool]:
    """Bold, italic: by the font's weight, flags and name (``Calibri-Bold``, ``CMBX12``, ``Times-Italic``)."""
    flags = ctypes.c_int()
    pdfium_c.FPDFText_GetFontInfo(raw, position, _NAME, len(_NAME), ctypes.byref(flags))
    name = _NAME.value.decode("latin-1").lower()
    bold = (pdfium_c.FPDFText_GetFontWeight(raw, position) >= 600 or bool(flags.value & _FORCE_BOLD)
            or any(word in name for word in ("bold", "black", "heavy", "cmbx")))
    italic = bool(flags.value & _ITALIC) or "italic" in name or "oblique" in name
    return bold, italic


def _outline(document: pdfium.PdfDocument) -> tuple[OutlineEntry, ...]:
    entries = []
    for bookmark in document.get_toc(max_depth=16):
        title = " ".join(bookmark.get_title().translate(_LIGATURES).split())
        destination = bookmark.get_dest()
        page = destination.get_index() if destination is not None else None
        if title:
            entries.append(OutlineEntry(title, bookmark.level, page if page is not None and page >= 0 else None))
    return tuple(entries)


def _metadata_title(document: pdfium.PdfDocument) -> str:
    try:
        return " ".join(str(document.get_metadata_value("Title")).split())
    except (pdfium.PdfiumError, KeyError, ValueError):
        return ""


def _running_key(text: str) -> str:
    return re.sub(r"\d+", "#", text.casefold())


def _without_running_lines(pages: list[list[PdfLine]]) -> tuple[tuple[PdfLine, ...], ...]:
    """Pages without page numbers and without lines near the edge that recur, digits aside, on many pages."""
    seen: Counter[str] = Counter()
    for lines in pages:
        seen.update({_running_key(line.text) for line in lines if line.down < _MARGIN or line.down > 1 - _MARGIN})
    recurring = max(3, len(pages) // 4)
    running = {key for key, times in seen.items() if times >= recurring}
    return tuple(
        tuple(line for line in lines
              if not ((line.down < _MARGIN or line.down > 1 - _MARGIN)
                      and (_PAGE_NUMBER.match(line.text) or _running_key(line.text) in running)))
        for lines in pages
    )
