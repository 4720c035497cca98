"""A PDF's headings: from its outline (bookmarks) where it has one, else from the layout of its lines.

Outline: each bookmark is a heading at its depth, on the page its destination names; its line on that page is
found by its title (a heading whose line is not found starts at the top of its page).

Layout: a line is a heading when it is short, holds letters, does not end like a sentence (nor lead dots to a page
number, as a table of contents does), and stands out: larger
than the body text, or bold, or in capitals, or italic and a few words, or numbered (``1.``, ``1.2``, ``A.``,
``IV.``, ``Article 7``, ``Chapter 3``, ``Appendix B``) at the body's size. Its level comes from its look: the larger,
then the bold, then the one in capitals, then the less deeply numbered, the higher; at most :data:`MAX_LEVELS`
levels. In a document numbered ``1``, ``1.2``, ``1.2.3``, the numbering gives the level, and a numbered list inside
a chapter (``1.`` again, smaller than the chapters) is no heading.

Both: an outline often leaves headings out (of PageIndex's titles for a 2023 annual report, its outline holds 49 of
76). :func:`with_layout_headings` adds the layout's headings the outline lacks, each under the outline entry whose
span it falls in (the last entry before it), nested by their look below it; a layout heading whose title is an
outline entry's or part of one (numbering, case and punctuation aside: a line of a wrapped title, a table of
contents' entry), that sits on an entry's own line, or that stands out only by its italics or a lone number (a
footnote's), or whose next line is the next heading at its level or above (a line of a title block), is no new
heading.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from .pdf_pages import PdfLine, PdfText

__all__ = ["MAX_LEVELS", "Heading", "layout_headings", "numbering", "outline_headings", "with_layout_headings"]

MAX_LEVELS = 4
_NUMBERED = re.compile(
    r"^(?P<label>(?:(?:article|section|chapter|part|appendix|annex|schedule)\s+[0-9A-Z]+[.:]?"
    r"|\d{1,3}(?:\.\d{1,3})*\.?|[A-Z][.)]|[IVXL]{1,6}[.)]))\s+(?P<rest>\S.*)$",
    re.IGNORECASE,
)
_MAX_WORDS = 14
_LEADER = re.compile(r"\.{4,}|…{2,}|(?:\. ){3,}")  # a table of contents' dots to a page number
_MAX_CHARS = 120


@dataclass(frozen=True, slots=True)
class Heading:
    """A heading: its title, its level (0 the top), its page (0-based) and its line on that page (``None``: the
    page's top), how many lines it takes, and whether it stands out from the body text (larger, bold, in capitals,
    or numbered otherwise than by a lone number: not by its italics or a footnote's number; the layout's headings
    that fill an outline's gaps)."""

    title: str
    level: int
    page: int
    line: int | None
    lines: int = 1
    stands_out: bool = True


def numbering(title: str) -> str | None:
    """The numbering a title starts with (``1.2``, ``A``, ``IV``, ``Article 7``), without its final dot, or
    ``None``."""
    match = _NUMBERED.match(title)
    if match is None:
        return None
    label = match["label"].rstrip(".):")
    return label if label[:1].isalnum() else None


def _key(text: str) -> str:
    return "".join(ch for ch in text.casefold() if ch.isalnum())


def outline_headings(text: PdfText) -> list[Heading]:
    """The outline's entries as headings, each on its line where its title is found on its page."""
    headings: list[Heading] = []
    page = 0
    for entry in text.outline:
        page = entry.page if entry.page is not None and entry.page < len(text.pages) else page
        headings.append(Heading(entry.title, entry.level, page, _line_of(entry.title, text.pages[page])))
    return headings


def with_layout_headings(outline: list[Heading], layout: list[Heading]) -> list[Heading]:
    """The outline's headings, in its order, with the layout's that it lacks put in its gaps (see the module's
    docstring). Layout headings before the outline's first entry are at its top level; an entry placed after a later
    one (an outline out of page order) takes none."""
    if not outline or not layout:
        return outline
    titles = "\n".join(_title_key(h.title) for h in outline)
    places = {(h.page, h.line) for h in outline}
    extra = [h for h in layout if h.stands_out and (h.page, h.line) not in places and _title_key(h.title) not in titles]
    if not extra:
        return outline
    top = min(h.level for h in outline)
    ends = [(1 << 62, 0)] * len(outline)  # each entry's gap ends at the first place of an entry after it
    for number in range(len(outline) - 2, -1, -1):
        ends[number] = min(ends[number + 1], _place(outline[number + 1]))
    lead = [h for h in extra if _place(h) < _place(outline[0])]
    merged = _nested(lead, top)
    at = len(lead)  # the next extra heading not yet placed
    for entry, end in zip(outline, ends, strict=True):
        merged.append(entry)
        start = _place(entry)
        while at < len(extra) and _place(extra[at]) <= start:
            at += 1  # behind this entry: an outline out of page order; it stays out
        gap = []
        while at < len(extra) and _place(extra[at]) < end:
            gap.append(extra[at])
            at += 1
        merged.extend(_nested(gap, entry.level + 1))
    added = {id(h) for h in merged} - {id(h) for h in outline}
    following = [*merged[1:], None]
    return [h for h, after in zip(merged, following, strict=True) if id(h) not in added or not _empty(h, after)]


def _empty(heading: Heading, following: Heading | None) -> bool:
    """A heading whose next line is the next heading, at its level or above: a line of a title block, no section."""
    return (following is not None and heading.line is not None and following.level <= heading.level
            and following.page == heading.page and following.line == heading.line + heading.lines)


def _place(heading: Heading) -> tuple[int, int]:
    return heading.page, -1 if heading.line is None else heading.line


def _title_key(title: str) -> str:
    label = numbering(title)
    if label is not None and title.startswith(label):
        title = title[len(label):]
    return _key(title)


def _nested(headings: list[Heading], level: int) -> list[Heading]:
    """Headings given levels from ``level`` down, the highest of them at ``level``, the others as far below it as
    their look puts them."""
    if not headings:
        return []
    highest = min(h.level for h in headings)
    return [Heading(h.title, level + h.level - highest, h.page, h.line, h.lines) for h in headings]


def _line_of(title: str, lines: tuple[PdfLine, ...]) -> int | None:
    wanted = _key(title)[:40]
    if not wanted:
        return None
    for index, line in enumerate(lines):
        here = _key(line.text)
        if here and (here.startswith(wanted) or (len(here) >= 8 and wanted.startswith(here))):
            return index
    return None


def _body_size(text: PdfText) -> float:
    sizes: Counter[float] = Counter()
    for lines in text.pages:
        for line in lines:
            if line.size > 0:
                sizes[round(line.size)] += len(line.text)
    return float(sizes.most_common(1)[0][0]) if sizes else 0.0


def _could_be_heading(line: PdfLine) -> bool:
    words = line.text.split()
    return (
        0 < len(words) <= _MAX_WORDS
        and len(line.text) <= _MAX_CHARS
        and sum(ch.isalpha() for ch in line.text) >= 2
        and not line.text.endswith((",", ";", "-"))
        and (line.text[0].isupper() or line.text[0].isdigit())
        and _LEADER.search(line.text) is None
    )


@dataclass(frozen=True, slots=True)
class _Candidate:
    page: int
    line: int
    title: str
    style: tuple[float, bool, bool, int]
    lines: int = 1


def layout_headings(text: PdfText) -> list[Heading]:
    """Headings found by how lines look, nested by level (see the module's docstring)."""
    body = _body_size(text)
    candidates: list[_Candidate] = []
    for page, lines in enumerate(text.pages):
        for index, line in enumerate(lines):
            style = _style(line, body)
            if style is not None:
                candidates.append(_Candidate(page, index, line.text, style))
    candidates = _merged_wrapped(candidates)
    if sum(c.style[3] >= 2 for c in candidates) >= 3:
        return _by_numbering(candidates, body)
    styles = sorted({c.style for c in candidates}, key=lambda s: (-s[0], not s[1], not s[2], s[3]))
    level_of = {style: min(rank, MAX_LEVELS - 1) for rank, style in enumerate(styles)}
    return [Heading(c.title, level_of[c.style], c.page, c.line, c.lines, _stands_out(c, body))
            for c in candidates]


def _stands_out(candidate: _Candidate, body: float) -> bool:
    """Larger than the body, bold, in capitals, or numbered otherwise than by a lone number (``1.2``, ``A.``,
    ``Article 7``: a footnote is a lone number)."""
    size, bold, capitals, _ = candidate.style
    label = numbering(candidate.title)
    return size > body or bold or capitals or (label is not None and not label.isdigit())


def _by_numbering(candidates: list[_Candidate], body: float) -> list[Heading]:
    """In a document numbered ``1``, ``1.2``, ``1.2.3``, the numbering gives the level (a look varies more than a
    number does); a heading without a dotted number is at the top when it is as large as the chapters, else one
    below the top. A single number not past the last chapter's, smaller than the chapters, is an item of a numbered
    list (``1. Print the label`` in chapter 2), no heading."""
    chapters = sorted(c.style[0] for c in candidates if c.style[3] == 1 and _dotted(c.title))
    chapter_size = chapters[len(chapters) // 2] if chapters else 0.0
    headings = []
    last_chapter = 0
    for c in candidates:
        level = 0 if c.style[0] >= chapter_size else 1
        if _dotted(c.title):
            level = min(c.style[3] - 1, MAX_LEVELS - 1)
            if c.style[3] == 1:
                number = int(str(numbering(c.title)))
                if number <= last_chapter and c.style[0] < chapter_size:
                    continue  # "1. Print the label" inside chapter 2, smaller than the chapters: a list, no chapter
                last_chapter = number
        headings.append(Heading(c.title, level, c.page, c.line, c.lines, _stands_out(c, body)))
    return headings


def _dotted(title: str) -> bool:
    label = numbering(title)
    return label is not None and label.replace(".", "").isdigit()


def _style(line: PdfLine, body: float) -> tuple[float, bool, bool, int] | None:
    if not _could_be_heading(line):
        return None
    label = numbering(line.text)
    depth = label.count(".") + 1 if label is not None else 0
    bigger = body > 0 and line.size >= body * 1.15
    ends_like_a_sentence = line.text.endswith(".") and not line.text.endswith("..")
    if ends_like_a_sentence and label is None:
        return None
    words = len(line.text.split())
    if bigger or (line.bold and (label is not None or words <= 10)):
        return (round(line.size) if bigger else body, line.bold, _capitals(line.text), depth)
    if (line.italic and words <= 6 and not line.text.endswith((".", ":", ")")))\
            or (_capitals(line.text) and words <= 8 and sum(ch.isalpha() for ch in line.text) >= 6):
        return (body, False, _capitals(line.text), depth)
    if label is not None and depth >= 1 and len(line.text.split()) <= 10 and not ends_like_a_sentence \
            and (body <= 0 or line.size >= body * 0.9) and _title_after(line.text):
        return (body, line.bold, _capitals(line.text), depth)
    return None


def _capitals(text: str) -> bool:
    letters = [ch for ch in text if ch.isalpha()]
    return len(letters) >= 4 and all(ch.isupper() for ch in letters)


def _title_after(text: str) -> bool:
    match = _NUMBERED.match(text)
    rest = match["rest"] if match else ""
    return rest[:1].isupper() and sum(ch.isalpha() for ch in rest) >= 3


def _merged_wrapped(candidates: list[_Candidate]) -> list[_Candidate]:
    """A heading wrapped over two lines of one look, one after the other, is one heading."""
    merged: list[_Candidate] = []
    for candidate in candidates:
        last = merged[-1] if merged else None
        if (last is not None and last.page == candidate.page and candidate.line == last.line + 1
                and last.style[:3] == candidate.style[:3] and numbering(candidate.title) is None
                and not last.title.endswith(":") and len(last.title) + len(candidate.title) <= _MAX_CHARS):
            merged[-1] = _Candidate(last.page, last.line, f"{last.title} {candidate.title}", last.style, last.lines + 1)
        else:
            merged.append(candidate)
    return merged
