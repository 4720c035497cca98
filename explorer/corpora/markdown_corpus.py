"""Markdown corpora: one file, whose headings make the tree, or a folder of files.

Markdown is read by ``markdown-it-py`` (CommonMark, with GFM tables and
strikethrough) and its block tokens, whose line numbers say where each
heading and section is; YAML front matter is read by ``mdit-py-plugins``.
A file of nothing but ATX headings and paragraphs of prose (each line blank,
a heading at the margin, or text starting at the margin with a letter or
digit; no tabs) is read line by line instead, which gives the same reading
several times faster; any other file goes to markdown-it.

One file
    Headings at the top level of the document make the tree: ATX (``#`` to
    ``######``) and setext (text underlined with ``===`` or ``---``); a
    heading inside a list or a quote, a fenced or indented code block or an
    HTML block is not one. A heading's parent is the nearest preceding
    heading of a lower level, so an ``###`` right under a ``#`` is its child.
    A heading's content is its own section: the lines up to the next heading
    of any level, with blank lines trimmed at both ends (inner indentation is
    kept, so code stays code). Titles are the heading text as written
    (closing ``#``s removed; a setext heading's lines joined by spaces). A
    heading longer than 300 characters is cut, at a word, for its title and
    its node gets metadata ``headingLength`` (the length as written), which
    ``validate`` reports. YAML (``---``) or TOML (``+++``) front matter at the
    very top is skipped, as static site generators do.

    Text before the first heading becomes a first root node titled after the
    file (its stem, e.g. ``guide``): it is what the file says about itself,
    and the stem names it the same way a folder names a file's node. A file
    with no heading at all is that one node. An empty file is an error.

A folder
    The folder is a node, and so is every Markdown file and every subfolder
    holding some, under its folder's node, sorted together by name
    (case-insensitively), so ``01-intro.md``, ``02-setup/``, ``03-usage.md``
    keep the author's order. A file's node is titled with the file's stem and
    holds the text before its first heading; its headings go under it. A
    file whose first heading is its only level-1 heading lends that heading's
    title and content to the file node instead (after any text before it),
    and the heading itself is not a node: one level, not two. A folder's
    ``README.md`` (else ``index.md``; any case, ``.markdown`` too) is what the
    folder says about itself: it is read the same way into the folder's node
    (which is otherwise titled with the folder's name), its headings under
    it, and is not a node of its own. Hidden files and folders are ignored; a
    folder reached twice (a symlink loop) is read once. A symlink that leads
    out of the folder is not followed (unless asked, with
    ``follow_outside_links``): its file or folder is left out, and
    ``Corpus.notes`` says so. Only regular files are read: a FIFO or a device
    named ``*.md`` is passed over.

Ids are slugs of the heading text (or of the file or folder name): lowercase
letters and digits joined by hyphens, accents dropped, at most 80
characters. When a slug is already taken the parent's id is prefixed
(``linux-usage``), then ``-2``, ``-3``... are added; ids are given in
document order, so the same input always gives the same ids.

Summaries are derived, not written: the first sentence of the node's first
paragraph (up to ``.``, ``!`` or ``?`` followed by a space or the end; a
paragraph with no such end gives its first line); of a list, quote or table
that comes first, its first item's first line. Headings, code, HTML blocks
and thematic breaks are passed over. The text is Markdown's plain text
(emphasis, code and link syntax gone, as the inline parser reads it), cut to
300 characters. Every node has metadata ``summaryDerived: true``.

Metadata: ``file`` (the path relative to the folder, or the file's name) and
``line`` (1-based, the heading's line; ``1`` for a file node without a lent
heading) on file and heading nodes, ``level`` on heading nodes, ``folder``
(relative, ``.`` for the top) on folder nodes. ``Corpus.lines`` is filled for
a single file only, where one file gives the lines a meaning.

The corpus's title is a file's first level-1 heading (else its stem) or the
folder's name; its source is the stem or the folder's name. A folder's
``sha256`` covers every Markdown file read, in sorted order of relative path:
``path NUL length NUL`` then the bytes, so moving text between files changes it.

Everything here is linear in the size of the input: the parser's, and our
own passes over its tokens and lines; only the first 4,000 characters of a
paragraph are read for its summary, and titles are cut before they are
turned into ids.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from core import HierarchyIndex, RetrievedDocument

from . import read_text
from .errors import CorpusError
from .model import HEADING_LENGTH, Corpus, make_document, sha256_of_bytes
from .progress import CallbackFailed, Progress, Stage

try:  # how markdown-it trims a heading's and a paragraph's text; the plain path trims them the same way
    from markdown_it.common.utils import mdTrim
except ImportError:  # markdown-it-py 3 trims them with str.strip()

    def mdTrim(string: str) -> str:
        return string.strip()

FORMAT = "markdown"
SUFFIXES = (".md", ".markdown")
# Checked in this order: a README is what a folder says about itself on GitHub, index.md on doc sites.
FOLDER_CONTENT_NAMES = ("readme.md", "readme.markdown", "index.md", "index.markdown")

SUMMARY_DERIVED = "summaryDerived"
FILE = "file"
LINE = "line"
LEVEL = "level"
FOLDER = "folder"

MAX_SUMMARY = 300
MAX_TITLE = 300
"""Headings longer than this are cut for their titles (and ``validate`` says so)."""
# Only this much of a first paragraph is looked at: the summary is at most 300 characters.
_SUMMARY_SCAN = 4000
MAX_SLUG = 80
UNTITLED = "(untitled)"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_NOT_WORD = re.compile(r"[\W_]+")
# Every ASCII byte that is not a lowercase letter or a digit, as a space (what _NOT_WORD replaces, for ASCII).
_ASCII_SLUG = bytes(c if chr(c).isascii() and (chr(c).islower() or chr(c).isdigit()) else 32 for c in range(256))
_TASK_MARKER = re.compile(r"\[[ xX]\]\s+")
# Characters that may start inline syntax that changes the plain text (entities, emphasis, strikethrough,
# links, images, autolinks, HTML, escapes, code); text without any of them reads as it is written.
_INLINE_SYNTAX = re.compile(r"[&*_~\[<\\`]")

_SKIPPED_BLOCKS = frozenset({"fence", "code_block", "html_block", "hr", "front_matter"})
_CONTAINERS = {"bullet_list_open", "ordered_list_open", "blockquote_open", "table_open"}


def _toml_front_matter(md: MarkdownIt) -> None:
    """TOML front matter (``+++`` ... ``+++``) at the very top, as Hugo writes it, read as front matter."""

    def rule(state: StateBlock, start: int, end: int, silent: bool) -> bool:
        if start != 0 or state.src[state.bMarks[0] : state.eMarks[0]].rstrip() != "+++":
            return False
        line = 1
        while line < end:
            if state.src[state.bMarks[line] : state.eMarks[line]].rstrip() == "+++":
                break
            line += 1
        else:
            return False  # never closed: not front matter
        if not silent:
            token = state.push("front_matter", "", 0)
            token.markup = "+++"
            token.block = True
            token.map = [0, line + 1]
        state.line = line + 1
        return True

    md.block.ruler.before("table", "toml_front_matter", rule)


# Block structure only: titles and sections come from block tokens; inline syntax is parsed on demand,
# for a summary's first sentence and for ids, never for whole sections.
_BLOCKS = MarkdownIt("commonmark").use(front_matter_plugin).use(_toml_front_matter).enable(["table"])
_BLOCKS.disable(["inline", "text_join"])
_INLINE = MarkdownIt("commonmark").enable(["strikethrough"])


def read_markdown(
    path: Path, *, progress: Progress | None = None, follow_outside_links: bool = False, by_tokens: bool = False
) -> Corpus:
    """Load a Markdown file, or a folder of them, as a corpus (format ``"markdown"``).

    See the module's docstring for how headings, files and folders become
    nodes. Raises :class:`CorpusError` for a file that cannot be read or is
    not UTF-8 (naming the file), an empty file, or a folder without Markdown
    files; anything unexpected also comes out as a :class:`CorpusError`.
    With ``by_tokens`` every file is read by markdown-it's tokens, never the
    plain path: slower, and the reading the plain path must give (a test holds
    it to that).
    """
    path = Path(path)
    progress = progress or Progress(None)
    parse = parse_by_tokens if by_tokens else _parse
    try:
        if path.is_dir():
            return _read_folder(path, progress, follow_outside_links, parse)
        return _read_file(path, progress, parse)
    except (CorpusError, CallbackFailed):
        raise
    except Exception as exc:  # a bug of ours must still be one clear line, never a traceback
        raise CorpusError(
            path, f"cannot load this Markdown: {type(exc).__name__}: {exc}; please report this file"
        ) from None


# ---------------------------------------------------------------------------------------------------------------
# One file's structure


class Section(NamedTuple):  # named tuples: a 100,000-heading load makes 200,000 of these
    """The text under a heading (or before the first one), and the summary derived from it."""

    content: str
    """The section's lines, blank lines trimmed at both ends."""
    summary: str
    """Derived from the section's first block of prose ("" when it has none)."""


class Heading(NamedTuple):
    """One top-level heading of a file, with its own section."""

    level: int
    title: str
    """As written, cut to MAX_TITLE characters."""
    length: int
    """The length of the heading's text as written."""
    line: int
    """1-based line of the heading's (first) text line."""
    section: Section


class ParsedFile(NamedTuple):
    """One file's structure: the text before its first heading, and its headings in order."""

    preamble: Section
    """The text before the first heading (all of it when there is none)."""
    preamble_line: int
    """1-based line where the preamble's text starts (1 when it is empty)."""
    headings: tuple[Heading, ...]


def split_lines(text: str) -> list[str]:
    """``text``'s lines, broken where markdown-it breaks them: at ``\\n``, ``\\r\\n`` and ``\\r``."""
    # Not str.splitlines(): it also breaks at form feeds and U+2028, which would shift line numbers.
    return _LINE_BREAK.split(text) if "\r" in text else text.split("\n")


def _trim(lines: Sequence[str], start: int, end: int) -> str:
    """``lines[start:end]`` joined, blank lines at both ends dropped and trailing space removed."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]).rstrip()


def _first_text_line(lines: Sequence[str], start: int, end: int) -> int:
    for i in range(start, end):
        if lines[i].strip():
            return i + 1
    return start + 1


def _parse(text: str) -> ParsedFile:
    """Split a file into the text before its first heading and its headings with their own sections."""
    lines = split_lines(text)
    parsed = parse_plain(text, lines)
    return parsed if parsed is not None else parse_by_tokens(text, lines)


def parse_by_tokens(text: str, lines: Sequence[str] | None = None) -> ParsedFile:
    """A file's structure as markdown-it's block tokens give it: any Markdown (``lines``: its
    :func:`split_lines`, when already split)."""
    if lines is None:
        lines = split_lines(text)
    tokens = _BLOCKS.parse(text)
    n = len(tokens)
    first = 0  # the first line after front matter
    if n and tokens[0].type == "front_matter" and tokens[0].map is not None:
        first = tokens[0].map[1]
    # (level, title, first line index, index after the heading's lines, index of the first token after it)
    found: list[tuple[int, str, int, int, int]] = []
    for i in [i for i, token in enumerate(tokens) if token.type == "heading_open" and token.level == 0]:
        token = tokens[i]
        title = tokens[i + 1].content
        if token.markup in ("=", "-"):
            title = " ".join(part.strip() for part in title.split("\n"))
        line_map = token.map or (0, 0)
        found.append((int(token.tag[1]), title, line_map[0], line_map[1], i + 3))
    end = found[0][2] if found else len(lines)
    preamble = Section(_trim(lines, first, end), _summary_of(tokens, 0, found[0][4] - 3 if found else n))
    headings: list[Heading] = []
    for k, (level, title, start, after, token_start) in enumerate(found):
        stop, token_stop = (found[k + 1][2], found[k + 1][4] - 3) if k + 1 < len(found) else (len(lines), n)
        section = Section(_trim(lines, after, stop), _summary_of(tokens, token_start, token_stop))
        headings.append(Heading(level, _cut(title, MAX_TITLE), len(title), start + 1, section))
    return ParsedFile(preamble, _first_text_line(lines, first, end), tuple(headings))


# ---------------------------------------------------------------------------------------------------------------
# Plain files, read line by line
#
# Most of a large corpus's files are headings and paragraphs only. For them the block parser's reading is what a
# line scan gives: each "# ..." line is a heading, each run of other non-blank lines a paragraph. A file is read
# this way only when every line is blank (spaces at most), an ATX heading at the margin, or text that starts at
# the margin with a letter or digit and is not an ordered list's marker; and when it has no tab and no NUL. Then
# nothing in it can open a code block, fence, list, quote, HTML block, table, link reference, setext heading or
# front matter, or end a paragraph except a blank line or a heading (every such construct starts its line with
# an indent or a character other than a letter or digit). Any other file goes to markdown-it. Titles and
# paragraph texts are cut out of the lines as markdown-it's heading and paragraph rules do, so summaries come
# from the same text through the same code.

# A line that keeps a file off the plain path: not blank, not an ATX heading, not text starting at the margin
# with a letter or digit (an ordered list's "1." or "1)" marker excepted).
_NOT_PLAIN_LINE = re.compile(r"^(?! *$|#{1,6}(?: |$)|(?![0-9]+[.)](?: |$))[^\W_])", re.MULTILINE)


def _is_plain(text: str) -> bool:
    """Whether every line of ``text`` (lines broken at ``\\n`` only) is one the plain path reads as markdown-it does."""
    return "\t" not in text and "\0" not in text and _NOT_PLAIN_LINE.search(text) is None


def atx_title(line: str) -> str:
    """An ATX heading line's text, as markdown-it's heading rule cuts it (closing ``#``s go with a space before)."""
    pos = len(line) - len(line.lstrip("#"))
    end = len(line.rstrip(" "))
    bare = max(pos, len(line[:end].rstrip("#")))
    if bare > pos and line[bare - 1] == " ":
        end = bare
    return mdTrim(line[pos:end])


def _plain_summary(lines: Sequence[str], start: int, stop: int) -> str:
    """:func:`_summary_of` for ``lines[start:stop]`` of a plain file: paragraphs only, each ended by a blank line."""
    i = start
    while i < stop:
        if not lines[i].strip(" "):
            i += 1
            continue
        end = i + 1
        while end < stop and lines[end].strip(" "):
            end += 1
        summary = _sentence(mdTrim("\n".join(lines[i:end])))
        if summary:
            return summary
        i = end
    return ""


def parse_plain(text: str, lines: Sequence[str]) -> ParsedFile | None:
    """A plain file's structure (see above) read line by line, as :func:`parse_by_tokens` reads it; ``None`` when
    the file is not plain and must go to markdown-it (``lines``: its :func:`split_lines`)."""
    if not _is_plain(text if "\r" not in text else "\n".join(lines)):
        return None
    starts = [i for i, line in enumerate(lines) if line.startswith("#")]
    end = starts[0] if starts else len(lines)
    preamble = Section(_trim(lines, 0, end), _plain_summary(lines, 0, end))
    headings: list[Heading] = []
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        line = lines[start]
        title = atx_title(line)
        level = len(line) - len(line.lstrip("#"))
        section = Section(_trim(lines, start + 1, stop), _plain_summary(lines, start + 1, stop))
        headings.append(Heading(level, _cut(title, MAX_TITLE), len(title), start + 1, section))
    return ParsedFile(preamble, _first_text_line(lines, 0, end), tuple(headings))


# ---------------------------------------------------------------------------------------------------------------
# Summaries and ids


def _summary_of(tokens: Sequence[Token], start: int, stop: int) -> str:
    """The summary of the blocks ``tokens[start:stop]``: see :func:`derive_summary`."""
    i = start
    while i < stop:
        token = tokens[i]
        kind = token.type
        if token.level != 0 or kind in _SKIPPED_BLOCKS:
            i += 1
            continue
        if kind == "paragraph_open":
            summary = _sentence(tokens[i + 1].content)
            if summary:
                return summary
            i += 3
            continue
        if kind == "heading_open":
            i += 3
            continue
        if kind in _CONTAINERS:
            close = kind.replace("_open", "_close")
            j = i + 1
            candidate = ""
            while j < stop and not (tokens[j].level == 0 and tokens[j].type == close):
                if not candidate and tokens[j].type == "inline":
                    candidate = _first_item(tokens, j, kind)
                j += 1
            if candidate:
                return _cut(candidate)
            i = j + 1
            continue
        i += 1
    return ""


def _sentence(paragraph: str) -> str:
    """A paragraph's first sentence in plain text, else its first line; ``""`` when it has no text."""
    plain = plain_text(paragraph[:_SUMMARY_SCAN])
    if not plain:
        return ""
    end = _SENTENCE_END.search(plain)
    return _cut(plain[: end.end()] if end else plain_text(paragraph[:_SUMMARY_SCAN].split("\n", 1)[0]))


def _first_item(tokens: Sequence[Token], j: int, kind: str) -> str:
    """The first item of a list, quote or table, as plain text: its first line (a table: its first row)."""
    if kind == "table_open":
        cells: list[str] = []
        while j < len(tokens) and tokens[j].type != "tr_close":
            if tokens[j].type == "inline":
                cells.append(plain_text(tokens[j].content[:_SUMMARY_SCAN]))
            j += 1
        return " | ".join(cell for cell in cells if cell)
    line = tokens[j].content[:_SUMMARY_SCAN].split("\n", 1)[0]
    if kind != "blockquote_open":
        line = _TASK_MARKER.sub("", line, count=1) if line.startswith("[") else line
    return plain_text(line)


def plain_text(text: str) -> str:
    """Markdown inline text as plain words: links and images keep their text, code its characters,
    emphasis and HTML go; whitespace collapsed."""
    if _INLINE_SYNTAX.search(text) is None:
        return " ".join(text.split())
    pieces: list[str] = []
    for token in _INLINE.parseInline(text):
        _plain_pieces(token.children or (), pieces)
    return " ".join("".join(pieces).split())


def _plain_pieces(tokens: Iterable[Token], pieces: list[str]) -> None:
    for token in tokens:
        kind = token.type
        if kind in ("text", "text_special", "code_inline"):
            pieces.append(token.content)
        elif kind in ("softbreak", "hardbreak"):
            pieces.append(" ")
        elif kind == "image":
            if token.children:
                _plain_pieces(token.children, pieces)
            else:
                pieces.append(token.content)


def _cut(text: str, limit: int = MAX_SUMMARY) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1]
    space = cut.rfind(" ")
    if space >= limit // 2:
        cut = cut[:space]  # end at a word when one ends in the second half
    return cut.rstrip() + "…"


def derive_summary(text: str) -> str:
    """A one-sentence summary derived from Markdown text (``""`` when it has no prose).

    The first block of prose: headings, fenced or indented code, HTML blocks
    and thematic breaks are passed over. Of a paragraph the first sentence,
    up to ``.``, ``!`` or ``?`` followed by whitespace or the end, else its
    first line; of a list, quote or table its first item's first line. The
    result is plain text (inline syntax as the parser reads it) of at most
    300 characters.
    """
    tokens = _BLOCKS.parse(text)
    return _summary_of(tokens, 0, len(tokens))


def slugify(text: str) -> str:
    """An id-friendly slug: lowercase letters and digits joined by hyphens (``"section"`` when none)."""
    bare = plain_text(text)
    if bare.isascii() and len(bare) <= MAX_SLUG:  # most titles: one pass through a byte table, no pattern
        return "-".join(bare.lower().encode("ascii").translate(_ASCII_SLUG).decode("ascii").split()) or "section"
    if not bare.isascii():
        # Accents dropped so "Café" is "cafe"; NFC afterwards recomposes scripts such as Hangul.
        decomposed = unicodedata.normalize("NFKD", bare)
        bare = unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))
    slug = _NOT_WORD.sub("-", bare.lower()).strip("-")
    if len(slug) > MAX_SLUG:
        slug = slug[:MAX_SLUG]
        if "-" in slug:
            slug = slug.rsplit("-", 1)[0]
    return slug or "section"


class _Ids:
    """Unique ids in document order: the slug, else the parent's id then the slug, then -2, -3..."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        # The next number to try per base: without it, the thousandth "Examples" would probe 999 taken ids.
        self._next: dict[str, int] = {}

    def allocate(self, text: str, parent: str | None) -> str:
        slug = slugify(text)
        candidate = slug
        if candidate in self._used and parent is not None:
            candidate = f"{parent}-{slug}"
        if candidate in self._used:
            base, n = candidate, self._next.get(candidate, 2)
            while f"{base}-{n}" in self._used:
                n += 1
            self._next[base] = n + 1
            candidate = f"{base}-{n}"
        self._used.add(candidate)
        return candidate


# ---------------------------------------------------------------------------------------------------------------
# Building the corpus


@dataclass
class _Builder:
    source: str
    record_lines: bool
    """Whether ``lines`` is kept: only for one file, where a line number alone says where a node is."""
    progress: Progress
    ids: _Ids = field(default_factory=_Ids)
    documents: list[RetrievedDocument] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)

    def add(
        self,
        name: str,
        parent: str | None,
        title: str,
        section: Section,
        metadata: dict[str, Any],
        line: int | None,
    ) -> str:
        node_id = self.ids.allocate(name, parent)
        metadata[SUMMARY_DERIVED] = True
        self.documents.append(
            make_document(
                node_id,
                source=self.source,
                parent=parent,
                title=title,
                summary=section.summary,
                content=section.content,
                metadata=metadata,
            )
        )
        if line is not None and self.record_lines:
            self.lines[node_id] = line
        return node_id

    def add_headings(self, headings: Iterable[Heading], parent: str | None, file: str) -> None:
        stack: list[tuple[int, str]] = []  # (level, id) of the open headings, outermost first
        for heading in headings:
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            title = heading.title or UNTITLED
            metadata: dict[str, Any] = {FILE: file, LINE: heading.line, LEVEL: heading.level}
            if heading.length > MAX_TITLE:
                metadata[HEADING_LENGTH] = heading.length
            node_id = self.add(
                title, stack[-1][1] if stack else parent, title, heading.section, metadata, heading.line
            )
            stack.append((heading.level, node_id))
            self.progress.tick(len(self.documents))

    def add_file(
        self, parsed: ParsedFile, name: str, title: str, parent: str | None, metadata: dict[str, Any], file: str
    ) -> str:
        """A file's node (or its folder's) and its headings under it; a sole level-1 heading that comes
        first lends its title and section to the node."""
        headings = parsed.headings
        section, line = parsed.preamble, 1
        lends = bool(headings) and headings[0].level == 1 and sum(h.level == 1 for h in headings) == 1
        if lends:
            lent, headings = headings[0], headings[1:]
            title, line = lent.title or UNTITLED, lent.line
            content = "\n\n".join(part for part in (section.content, lent.section.content) if part)
            section = Section(content, section.summary or lent.section.summary)
            if lent.length > MAX_TITLE:
                metadata[HEADING_LENGTH] = lent.length
        metadata.update({FILE: file, LINE: line})
        # The id comes from the file (or folder) name, not the lent title: names are unique within a folder
        # and stable.
        node_id = self.add(name, parent, title, section, metadata, None)
        self.add_headings(headings, node_id, file)
        return node_id


def _read_file(path: Path, progress: Progress, parse: Callable[[str], ParsedFile] = _parse) -> Corpus:
    # parse: how the text is read (read_markdown with by_tokens: parse_by_tokens).
    text, data = read_text(path, progress)
    with progress.whole(Stage.PARSING):
        parsed = parse(text)
    del text
    if not parsed.headings and not parsed.preamble.content:
        raise CorpusError(path, "the file is empty: no headings and no text; write some Markdown")
    builder = _Builder(path.stem, record_lines=True, progress=progress)
    progress.start(Stage.BUILDING, len(parsed.headings) + bool(parsed.preamble.content))
    if parsed.preamble.content:
        builder.add(
            path.stem,
            None,
            path.stem,
            parsed.preamble,
            {FILE: path.name, LINE: parsed.preamble_line},
            parsed.preamble_line,
        )
    builder.add_headings(parsed.headings, None, path.name)
    progress.finish(len(builder.documents))
    title = next((h.title for h in parsed.headings if h.level == 1 and h.title), path.stem)
    with progress.whole(Stage.INDEXING):
        index = HierarchyIndex(builder.documents)
    return Corpus(path, FORMAT, path.stem, title, index, sha256_of_bytes([data]), builder.lines)


# ---------------------------------------------------------------------------------------------------------------
# A folder


@dataclass
class _Entry:
    path: Path
    rel: str
    parent: int | None
    is_folder: bool
    children: list[int] = field(default_factory=list)
    content_file: Path | None = None
    kept: bool = False


def _is_markdown(name: str) -> bool:
    return name.lower().endswith(SUFFIXES)


class _Scan:
    """Every folder and Markdown file under ``root`` (hidden ones left out), parents before their children."""

    def __init__(self, root: Path, progress: Progress, follow_outside_links: bool) -> None:
        self.root = root
        self.real_root = root.resolve()
        self.progress = progress
        self.follow_outside_links = follow_outside_links
        self.notes: list[str] = []
        self.entries = [_Entry(root, ".", None, True)]
        self.files = 0

    def run(self) -> list[_Entry]:
        entries = self.entries
        seen = {self.real_root}
        reals = {0: self.real_root}  # each folder's real path, to tell where its symlinks lead
        pending = [0]
        self.progress.start(Stage.SCANNING)
        while pending:  # an explicit stack: folder depth is bounded only by the file system
            index = pending.pop()
            folder = entries[index]
            try:
                with os.scandir(folder.path) as listing:
                    children = sorted(
                        (entry for entry in listing if not entry.name.startswith(".")),
                        key=lambda entry: (entry.name.casefold(), entry.name),
                    )
            except OSError as exc:
                raise CorpusError(folder.path, f"cannot list this folder: {exc.strerror or exc}") from None
            files: dict[str, os.DirEntry[str]] = {}
            folders: dict[str, Path] = {}
            for child in children:
                real = reals[index] / child.name
                if child.is_symlink():
                    followed = self.follow(child, reals[index])
                    if followed is None:
                        continue
                    real = followed
                if _is_markdown(child.name) and child.is_file():
                    files[child.name] = child
                elif child.is_dir():
                    if real in seen:
                        continue  # reached through a symlink already: read each folder once
                    seen.add(real)
                    folders[child.name] = real
            content = next(
                (f for name in FOLDER_CONTENT_NAMES for f in files.values() if f.name.casefold() == name), None
            )
            folder.content_file = Path(content.path) if content is not None else None
            for child in children:
                child_path = Path(child.path)
                if child.name in folders:
                    folder.children.append(len(entries))
                    pending.append(len(entries))
                    reals[len(entries)] = folders[child.name]
                    entries.append(_Entry(child_path, self.rel(child_path), index, True))
                elif child.name in files and files[child.name] is not content:
                    folder.children.append(len(entries))
                    entries.append(_Entry(child_path, self.rel(child_path), index, False))
            self.files += len(files)
            self.progress.tick(len(entries))
        self.progress.finish(len(entries))
        # Children always come after their parent in the list, so walking it backwards settles each
        # subfolder before its parent: a folder is kept when it has a content file or a kept child.
        for entry in reversed(entries):
            entry.kept = entry.kept or not entry.is_folder or entry.content_file is not None
            if entry.kept and entry.parent is not None:
                entries[entry.parent].kept = True
        return entries

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def follow(self, child: os.DirEntry[str], real_folder: Path) -> Path | None:
        """Where a symlink leads, or ``None`` when it is broken, loops, or leads out of the folder."""
        try:
            real = (real_folder / child.name).resolve(strict=True)
        except (OSError, RuntimeError):
            return None  # a broken or looping symlink: nothing to read there
        if self.follow_outside_links or real == self.real_root or real.is_relative_to(self.real_root):
            return real
        if _is_markdown(child.name) or child.is_dir():
            self.notes.append(
                f"{self.rel(Path(child.path))} is a symlink out of the folder (to {real}); left out"
            )
        return None


def _read_folder(
    path: Path, progress: Progress, follow_outside_links: bool, parse: Callable[[str], ParsedFile] = _parse
) -> Corpus:
    # parse: how each file is read (read_markdown with by_tokens: parse_by_tokens).
    scan = _Scan(path, progress, follow_outside_links)
    entries = scan.run()
    if not entries[0].kept:
        raise CorpusError(
            path, "no Markdown files (.md) in this folder or its subfolders; give a folder with .md files, or one file"
        )
    name = path.resolve().name or "corpus"
    builder = _Builder(name, record_lines=False, progress=Progress(None))
    read: dict[str, bytes] = {}
    files = 0
    progress.start(Stage.READING, scan.files)
    pending: list[tuple[int, str | None]] = [(0, None)]
    while pending:  # depth first, in sorted order, so ids are given in document order
        position, parent = pending.pop()
        entry = entries[position]
        if entry.is_folder:
            title = name if entry.parent is None else entry.path.name
            metadata: dict[str, Any] = {FOLDER: entry.rel}
            if entry.content_file is None:
                node_id = builder.add(title, parent, title, Section("", ""), metadata, None)
            else:
                # What the folder says about itself, read into the folder's node as a file's is.
                content_rel = scan.rel(entry.content_file)
                parsed = _read_one(entry.content_file, content_rel, read, parse)
                node_id = builder.add_file(parsed, title, title, parent, metadata, content_rel)
                files += 1
            pending.extend((child, node_id) for child in reversed(entry.children) if entries[child].kept)
        else:
            parsed = _read_one(entry.path, entry.rel, read, parse)
            builder.add_file(parsed, entry.path.stem, entry.path.stem, parent, {}, entry.rel)
            files += 1
        progress.tick(files)
    progress.finish(files)
    digest = sha256_of_bytes(_digest_chunks(read))
    with progress.whole(Stage.INDEXING):
        index = HierarchyIndex(builder.documents)
    return Corpus(path, FORMAT, name, name, index, digest, notes=tuple(scan.notes))


def _read_one(path: Path, rel: str, read: dict[str, bytes], parse: Callable[[str], ParsedFile]) -> ParsedFile:
    text, data = read_text(path)
    read[rel] = data
    return parse(text)


def _digest_chunks(read: dict[str, bytes]) -> Iterable[bytes]:
    """Each file's relative path and bytes, sorted by path; lengths keep one file's end from passing for another's."""
    for rel in sorted(read):
        data = read[rel]
        # surrogateescape: a file name that is not valid UTF-8 still hashes, as the bytes the OS gave.
        yield f"{rel}\0{len(data)}\0".encode("utf-8", "surrogateescape")
        yield data
