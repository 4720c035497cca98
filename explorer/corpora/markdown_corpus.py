"""Markdown corpora: one file, whose headings make the tree, or a folder of files.

One file
    ATX headings (``#`` to ``######``) and setext headings (text underlined
    with ``===`` or ``---``) make the tree, except inside fenced code blocks
    (```` ``` ```` / ``~~~``) and HTML comments. A heading's parent is the nearest
    preceding heading of a lower level, so an ``###`` right under a ``#`` is
    its child. A heading's content is its own section: the lines up to the
    next heading of any level, with blank lines trimmed at both ends (inner
    indentation is kept, so code stays code). Titles are the heading text as
    written (closing ``#``s removed). YAML (``---``) or TOML (``+++``) front
    matter at the very top is skipped, as static site generators do.

    Text before the first heading becomes a first root node titled after the
    file (its stem, e.g. ``guide``): it is what the file says about itself,
    and the stem names it the same way a folder names a file's node. A file
    with no heading at all is that one node. An empty file is an error.

A folder
    The folder is the root node, titled with its name; its content is its
    ``README.md`` (else ``index.md``; any case, ``.markdown`` too) and that
    file is then not a node of its own. Every other Markdown file and every
    subfolder holding some is a node under its folder's, sorted together by
    name (case-insensitively), so ``01-intro.md``, ``02-setup/``,
    ``03-usage.md`` keep the author's order. A file's node is titled with the
    file's stem and holds the text before its first heading; its headings go
    under it. A file whose first heading is its only level-1 heading lends that
    heading's title and content to the file node instead (after any text before
    it), and the heading itself is not a node: one level, not two. Hidden
    files and folders are ignored; a folder reached twice (a symlink loop) is
    read once.

Ids are slugs of the heading text (or of the file or folder name): lowercase
letters and digits joined by hyphens, accents dropped, at most 80
characters. When a slug is already taken the parent's id is prefixed
(``linux-usage``), then ``-2``, ``-3``... are added; ids are given in
document order, so the same input always gives the same ids.

Summaries are derived, not written: the first sentence of the node's first
paragraph (up to ``.``, ``!`` or ``?`` followed by a space or the end; a
paragraph with no such end gives its first line; a list, quote or table gives
its first item), with emphasis, code and link syntax stripped, cut to 300
characters. Every node has metadata ``summaryDerived: true``.

Metadata: ``file`` (the path relative to the folder, or the file's name) and
``line`` (1-based, the heading's line; ``1`` for a file node without a lent
heading) on file and heading nodes, ``level`` on heading nodes, ``folder``
(relative, ``.`` for the top) on folder nodes. ``Corpus.lines`` is filled for
a single file only, where one file gives the lines a meaning.

The corpus's title is a file's first level-1 heading (else its stem) or the
folder's name; its source is the stem or the folder's name. A folder's
``sha256`` covers every Markdown file read, in sorted order of relative path:
``path NUL length NUL`` then the bytes, so moving text between files changes it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import HierarchyIndex, RetrievedDocument

from . import read_text
from .errors import CorpusError
from .model import Corpus, make_document, sha256_of_bytes

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
# Only this much of a first paragraph is looked at: the summary is at most 300 characters, and the
# inline-syntax patterns must not run over a megabyte-long paragraph.
_SUMMARY_SCAN = 4000
MAX_SLUG = 80
UNTITLED = "(untitled)"

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_ATX = re.compile(r"^ {0,3}(#{1,6})(?=[ \t]|$)(.*)$")
_ATX_CLOSING = re.compile(r"(?:^|[ \t]+)#+$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})(.*)$")
_SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
_THEMATIC = re.compile(r"^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$")
# Starts of blocks that are not paragraphs (list items, quotes, table rows) and so cannot be setext text.
_BLOCK_START = re.compile(r"^ {0,3}(?:[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$)|>|\|)")
_INDENTED = re.compile(r"^(?: {4}|\t)")
_COMMENT = re.compile(r"^ {0,3}<!--")
_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
_NOT_WORD = re.compile(r"[\W_]+")


def read_markdown(path: Path) -> Corpus:
    """Load a Markdown file, or a folder of them, as a corpus (format ``"markdown"``).

    See the module's docstring for how headings, files and folders become
    nodes. Raises :class:`CorpusError` for a file that cannot be read or is
    not UTF-8 (naming the file), an empty file, or a folder without Markdown
    files; anything unexpected also comes out as a :class:`CorpusError`.
    """
    path = Path(path)
    try:
        if path.is_dir():
            return _read_folder(path)
        return _read_file(path)
    except CorpusError:
        raise
    except Exception as exc:  # a bug of ours must still be one clear line, never a traceback
        raise CorpusError(
            path, f"cannot load this Markdown: {type(exc).__name__}: {exc}; please report this file"
        ) from None


# ---------------------------------------------------------------------------------------------------------------
# One file's structure


@dataclass(frozen=True, slots=True)
class _Heading:
    level: int
    title: str
    line: int
    """1-based line of the heading's (first) text line."""
    content: str


@dataclass(frozen=True, slots=True)
class _Parsed:
    preamble: str
    """The text before the first heading (all of it when there is none), blank lines trimmed."""
    preamble_line: int
    """1-based line where the preamble's text starts (1 when it is empty)."""
    headings: tuple[_Heading, ...]


def _lines(text: str) -> list[str]:
    # Not str.splitlines(): it also breaks at form feeds and U+2028, which would shift line numbers.
    return _LINE_BREAK.split(text)


def _front_matter_end(lines: list[str]) -> int:
    """The index of the first line after front matter at the very top (0 when there is none)."""
    if not lines:
        return 0
    opening = lines[0].rstrip()
    closers = {"---": ("---", "..."), "+++": ("+++",)}.get(opening)
    if closers is None:
        return 0
    for i in range(1, len(lines)):
        if lines[i].rstrip() in closers:
            return i + 1
    return 0  # never closed: a thematic break, not front matter


def _trim(lines: list[str]) -> str:
    """The lines joined, blank lines at both ends dropped and trailing space removed."""
    start, end = 0, len(lines)
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]).rstrip()


def _first_text_line(lines: list[str], start: int, end: int) -> int:
    for i in range(start, end):
        if lines[i].strip():
            return i + 1
    return start + 1


def _atx_title(rest: str) -> str:
    return _ATX_CLOSING.sub("", rest.strip()).strip()


def _opens_fence(line: str) -> tuple[str, int] | None:
    match = _FENCE.match(line)
    if match is None:
        return None
    marker = match.group(1)
    if marker[0] == "`" and "`" in match.group(2):
        return None  # a backtick fence's info string may not hold backticks: this is inline code
    return marker[0], len(marker)


def _closes_fence(line: str, fence: tuple[str, int]) -> bool:
    stripped = line.strip()
    char, length = fence
    return len(line) - len(line.lstrip(" ")) <= 3 and len(stripped) >= length and stripped == char * len(stripped)


def _opens_comment(line: str) -> bool | None:
    """``None`` when the line does not start an HTML comment; else whether the comment goes on past it."""
    if not _COMMENT.match(line):
        return None
    return "-->" not in line[line.index("<!--") + 4 :]


def _parse(text: str) -> _Parsed:
    """Split a file into the text before its first heading and its headings with their own sections.

    A line scanner, not a full CommonMark parser: it tracks fenced code, HTML
    comments and paragraphs (for setext headings), which is what decides where
    headings are; everything else is content.
    """
    lines = _lines(text)
    first = _front_matter_end(lines)
    # (level, title, first line index, index after the heading's lines)
    found: list[tuple[int, str, int, int]] = []
    fence: tuple[str, int] | None = None
    in_comment = False
    run: str | None = None  # None between blocks, "para" in a paragraph, "other" in a list, quote or code
    para_start = 0
    for i in range(first, len(lines)):
        line = lines[i]
        if fence is not None:
            if _closes_fence(line, fence):
                fence = None
            continue
        if in_comment:
            in_comment = "-->" not in line
            continue
        if not line.strip():
            run = None
            continue
        setext = _SETEXT.match(line) if run == "para" else None
        if setext is not None:
            title = " ".join(part.strip() for part in lines[para_start:i])
            found.append((1 if setext.group(1)[0] == "=" else 2, title, para_start, i + 1))
            run = None
            continue
        opened = _opens_fence(line)
        if opened is not None:
            fence, run = opened, None
            continue
        atx = _ATX.match(line)
        if atx is not None:
            found.append((len(atx.group(1)), _atx_title(atx.group(2)), i, i + 1))
            run = None
            continue
        comment = _opens_comment(line)
        if comment is not None:
            in_comment, run = comment, "other"
            continue
        if _THEMATIC.match(line):
            run = None
        elif run == "para":
            if _BLOCK_START.match(line):
                run = "other"  # a list or quote interrupts the paragraph; what follows is not setext text
        elif run is None:
            if _BLOCK_START.match(line) or _INDENTED.match(line):
                run = "other"
            else:
                run, para_start = "para", i
    end = found[0][2] if found else len(lines)
    headings: list[_Heading] = []
    for k, (level, title, start, after) in enumerate(found):
        stop = found[k + 1][2] if k + 1 < len(found) else len(lines)
        headings.append(_Heading(level, title, start + 1, _trim(lines[after:stop])))
    return _Parsed(_trim(lines[first:end]), _first_text_line(lines, first, end), tuple(headings))


# ---------------------------------------------------------------------------------------------------------------
# Summaries and ids


# (pattern, replacement group) pairs, applied in order; a group of 0 removes the match.
_LINKS = (
    (re.compile(r"!\[([^\]]*)\]\([^)]*\)"), 1),  # image: its alt text
    (re.compile(r"!?\[([^\]]*)\]\[[^\]]*\]"), 1),  # reference link or image
    (re.compile(r"\[([^\]]+)\]\([^)]*\)"), 1),  # inline link: its text
    (re.compile(r"<((?:https?|mailto|ftp):[^>\s]+)>"), 1),  # autolink: the address
    (re.compile(r"</?[A-Za-z][^>]*>"), 0),  # HTML tag
)
_EMPHASIS = (
    (re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1"), 2),
    (re.compile(r"\*(?=\S)(.+?)(?<=\S)\*"), 1),
    (re.compile(r"(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"), 1),
    (re.compile(r"~~(?=\S)(.+?)(?<=\S)~~"), 1),
    (re.compile(r"\\([!-/:-@\[-`{-~])"), 1),  # backslash escape
)
_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_LINK_CHARS = frozenset("[<")
_EMPHASIS_CHARS = frozenset("*_~\\")


def _substitute(text: str, rules: tuple[tuple[re.Pattern[str], int], ...]) -> str:
    for pattern, group in rules:
        text = pattern.sub(_keep(group), text)
    return text


def _keep(group: int) -> Callable[[re.Match[str]], str]:
    """A replacement keeping one group of the match (0: nothing); a function, so no template is parsed per call."""
    if group == 0:
        return lambda match: ""
    return lambda match: match.group(group)


def _strip_inline(text: str) -> str:
    """Markdown inline syntax lightly removed: images and links keep their text, emphasis and code their words."""
    # Most titles and sentences hold no markup at all: skip the patterns for them (a 100,000-heading file).
    if not _LINK_CHARS.isdisjoint(text):
        text = _substitute(text, _LINKS)
    if "`" not in text:
        return " ".join(_strip_emphasis(text).split())
    # Code spans keep their text untouched: `__init__` must not lose its underscores as if bold.
    pieces: list[str] = []
    last = 0
    for match in _CODE_SPAN.finditer(text):
        pieces.append(_strip_emphasis(text[last : match.start()]))
        pieces.append(match.group(2).strip())
        last = match.end()
    pieces.append(_strip_emphasis(text[last:]))
    return " ".join("".join(pieces).split())


def _strip_emphasis(text: str) -> str:
    return _substitute(text, _EMPHASIS) if not _EMPHASIS_CHARS.isdisjoint(text) else text


def _strip_block_marker(line: str) -> str:
    line = re.sub(r"^\s*(?:>\s?)+", "", line)
    line = re.sub(r"^\s*(?:[-+*]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?", "", line)
    return line.strip().strip("|").strip()


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

    The first block of prose: headings, fenced or indented code, HTML comments
    and thematic breaks are passed over. Of a paragraph (its lines joined) the
    first sentence, up to ``.``, ``!`` or ``?`` followed by whitespace or the
    end, else its first line; of a list, quote or table its first item. Inline
    syntax is lightly stripped; the result is at most 300 characters.
    """
    lines = _lines(text)
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        i += 1
        if not line.strip() or _ATX.match(line) or _THEMATIC.match(line) or _SETEXT.match(line):
            continue
        fence = _opens_fence(line)
        if fence is not None:
            while i < n and not _closes_fence(lines[i], fence):
                i += 1
            i += 1
            continue
        comment = _opens_comment(line)
        if comment is not None:
            if comment:
                while i < n and "-->" not in lines[i]:
                    i += 1
                i += 1
            continue
        if _INDENTED.match(line):
            continue  # indented code
        if _BLOCK_START.match(line):
            candidate = _strip_inline(_strip_block_marker(line))
            if candidate:
                return _cut(candidate)
            continue
        paragraph = [line]
        size = len(line)
        heading = False
        while i < n and size < _SUMMARY_SCAN:
            following = lines[i]
            if not following.strip() or _ATX.match(following) or _BLOCK_START.match(following):
                break
            if _SETEXT.match(following):
                heading = True  # the paragraph was a setext heading's text, not prose
                i += 1
                break
            if _THEMATIC.match(following) or _opens_fence(following) or _COMMENT.match(following):
                break
            paragraph.append(following)
            size += len(following)
            i += 1
        if heading:
            continue
        joined = _strip_inline(" ".join(part.strip() for part in paragraph)[:_SUMMARY_SCAN])
        if not joined:
            continue
        end = _SENTENCE_END.search(joined)
        return _cut(joined[: end.end()] if end else _strip_inline(paragraph[0][:_SUMMARY_SCAN]))
    return ""


def slugify(text: str) -> str:
    """An id-friendly slug: lowercase letters and digits joined by hyphens (``"section"`` when none)."""
    bare = _strip_inline(text)
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
    ids: _Ids = field(default_factory=_Ids)
    documents: list[RetrievedDocument] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)

    def add(
        self, name: str, parent: str | None, title: str, content: str, metadata: dict[str, Any], line: int | None
    ) -> str:
        node_id = self.ids.allocate(name, parent)
        metadata[SUMMARY_DERIVED] = True
        self.documents.append(
            make_document(
                node_id,
                source=self.source,
                parent=parent,
                title=title,
                summary=derive_summary(content),
                content=content,
                metadata=metadata,
            )
        )
        if line is not None and self.record_lines:
            self.lines[node_id] = line
        return node_id

    def add_headings(self, headings: Iterable[_Heading], parent: str | None, file: str) -> None:
        stack: list[tuple[int, str]] = []  # (level, id) of the open headings, outermost first
        for heading in headings:
            while stack and stack[-1][0] >= heading.level:
                stack.pop()
            title = heading.title or UNTITLED
            node_id = self.add(
                title,
                stack[-1][1] if stack else parent,
                title,
                heading.content,
                {FILE: file, LINE: heading.line, LEVEL: heading.level},
                heading.line,
            )
            stack.append((heading.level, node_id))


def _read_file(path: Path) -> Corpus:
    text, data = read_text(path)
    parsed = _parse(text)
    if not parsed.headings and not parsed.preamble:
        raise CorpusError(path, "the file is empty: no headings and no text; write some Markdown")
    builder = _Builder(path.stem, record_lines=True)
    if parsed.preamble:
        builder.add(
            path.stem,
            None,
            path.stem,
            parsed.preamble,
            {FILE: path.name, LINE: parsed.preamble_line},
            parsed.preamble_line,
        )
    builder.add_headings(parsed.headings, None, path.name)
    title = next((h.title for h in parsed.headings if h.level == 1 and h.title), path.stem)
    index = HierarchyIndex(builder.documents)
    return Corpus(path, FORMAT, path.stem, title, index, sha256_of_bytes([data]), builder.lines)


@dataclass
class _Entry:
    path: Path
    rel: str
    parent: int | None
    is_folder: bool
    children: list[int] = field(default_factory=list)
    content_file: Path | None = None
    kept: bool = False


def _is_markdown(path: Path) -> bool:
    return path.suffix.lower() in SUFFIXES


def _scan(root: Path) -> list[_Entry]:
    """Every folder and Markdown file under ``root`` (hidden ones left out), parents before their children."""
    entries = [_Entry(root, ".", None, True)]
    seen = {root.resolve()}
    pending = [0]
    while pending:  # an explicit stack: folder depth is bounded only by the file system
        index = pending.pop()
        folder = entries[index]
        try:
            listing = [child for child in folder.path.iterdir() if not child.name.startswith(".")]
        except OSError as exc:
            raise CorpusError(folder.path, f"cannot list this folder: {exc.strerror or exc}") from None
        listing.sort(key=lambda child: (child.name.casefold(), child.name))
        files = [child for child in listing if _is_markdown(child) and child.is_file()]
        markdown = set(files)
        folder.content_file = next(
            (f for name in FOLDER_CONTENT_NAMES for f in files if f.name.casefold() == name), None
        )
        for child in listing:
            rel = child.relative_to(root).as_posix()
            if child.is_dir():
                try:
                    real = child.resolve()
                except (OSError, RuntimeError):
                    continue  # a broken or looping symlink: nothing to read there
                if real in seen:
                    continue  # reached through a symlink already: read each folder once
                seen.add(real)
                folder.children.append(len(entries))
                pending.append(len(entries))
                entries.append(_Entry(child, rel, index, True))
            elif child in markdown and child != folder.content_file:
                folder.children.append(len(entries))
                entries.append(_Entry(child, rel, index, False))
    # Children always come after their parent in the list, so walking it backwards settles each
    # subfolder before its parent: a folder is kept when it has a content file or a kept child.
    for entry in reversed(entries):
        entry.kept = entry.kept or not entry.is_folder or entry.content_file is not None
        if entry.kept and entry.parent is not None:
            entries[entry.parent].kept = True
    return entries


def _read_folder(path: Path) -> Corpus:
    entries = _scan(path)
    if not entries[0].kept:
        raise CorpusError(
            path, "no Markdown files (.md) in this folder or its subfolders; give a folder with .md files, or one file"
        )
    name = path.resolve().name or "corpus"
    builder = _Builder(name, record_lines=False)
    read: dict[str, bytes] = {}
    pending: list[tuple[int, str | None]] = [(0, None)]
    while pending:  # depth first, in sorted order, so ids are given in document order
        index, parent = pending.pop()
        entry = entries[index]
        if entry.is_folder:
            metadata: dict[str, Any] = {FOLDER: entry.rel}
            content = ""
            if entry.content_file is not None:
                text, data = read_text(entry.content_file)
                content_rel = entry.content_file.relative_to(path).as_posix()
                read[content_rel] = data
                content = _folder_text(text)
                metadata.update({FILE: content_rel, LINE: 1})
            title = name if entry.parent is None else entry.path.name
            node_id = builder.add(title, parent, title, content, metadata, None)
            pending.extend((child, node_id) for child in reversed(entry.children) if entries[child].kept)
        else:
            text, data = read_text(entry.path)
            read[entry.rel] = data
            _add_file(builder, entry, _parse(text), parent)
    digest = sha256_of_bytes(_digest_chunks(read))
    return Corpus(path, FORMAT, name, name, HierarchyIndex(builder.documents), digest)


def _folder_text(text: str) -> str:
    """A folder's content file as the folder's content: all of it, front matter left out."""
    lines = _lines(text)
    return _trim(lines[_front_matter_end(lines) :])


def _add_file(builder: _Builder, entry: _Entry, parsed: _Parsed, parent: str | None) -> None:
    headings = parsed.headings
    title, content, line = entry.path.stem, parsed.preamble, 1
    lends = bool(headings) and headings[0].level == 1 and sum(h.level == 1 for h in headings) == 1
    if lends:
        lent, headings = headings[0], headings[1:]
        title, line = lent.title or UNTITLED, lent.line
        content = "\n\n".join(part for part in (parsed.preamble, lent.content) if part)
    # The id comes from the file name, not the lent title: file names are unique within a folder and stable.
    node_id = builder.add(entry.path.stem, parent, title, content, {FILE: entry.rel, LINE: line}, None)
    builder.add_headings(headings, node_id, entry.rel)


def _digest_chunks(read: dict[str, bytes]) -> Iterable[bytes]:
    """Each file's relative path and bytes, sorted by path; lengths keep one file's end from passing for another's."""
    for rel in sorted(read):
        data = read[rel]
        # surrogateescape: a file name that is not valid UTF-8 still hashes, as the bytes the OS gave.
        yield f"{rel}\0{len(data)}\0".encode("utf-8", "surrogateescape")
        yield data
