"""Markdown corpora: one file, whose headings make the tree, or a folder of files.

Markdown is read by ``markdown-it-py`` (CommonMark, with GFM tables and
strikethrough) and its block tokens, whose line numbers say where each
heading and section is; YAML front matter is read by ``mdit-py-plugins``
(:mod:`.markdown_tokens`). A file of nothing but ATX headings and paragraphs
of prose (each line blank, a heading at the margin, or text starting at the
margin with a letter or digit; no tabs) is read line by line instead, which
gives the same reading several times faster (:mod:`.markdown_plain`); any
other file goes to markdown-it.

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

Ids are slugs of the heading text (or of the file or folder name;
:mod:`.markdown_ids`): lowercase letters and digits joined by hyphens,
accents dropped, at most 80 characters. When a slug is already taken the parent's id is prefixed
(``linux-usage``), then ``-2``, ``-3``... are added; ids are given in
document order, so the same input always gives the same ids.

Summaries are the document's own where it wrote one: a file's front matter
``description:`` is its node's summary (metadata ``summaryDerived: false``).
Otherwise they are extractive (:mod:`.summaries`, as for PDFs): the sentences
of the node's prose that best cover it and its children's titles, within 300
characters (a section of at most 300 characters has no choice to make: its
first sentences, up to half that, whatever lies under it; only longer
sections are summarised again once their children are known). Prose is
the section's paragraphs, list items and quotes as plain text
(:mod:`.markdown_prose`): code, HTML, headings, tables and markup-only lines
(mkdocs admonition markers ``!!!``, snippet includes ``--8<--``,
``{% include %}``) are left out. A section whose prose has no sentence of four
words or more takes its first paragraph of prose instead; one with no prose
at all, the first sentence of its first block (of a list, quote or table, its
first item's first line), never a markup-only line; each cut to 300
characters. Derived summaries carry metadata ``summaryDerived: true``.

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

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from core import HierarchyIndex, RetrievedDocument

from .errors import CorpusError
from .files import read_text
from .markdown_folder import FolderScan
from .markdown_ids import Ids, slugify
from .markdown_plain import atx_title, parse_plain
from .markdown_prose import is_markup, prose
from .markdown_sections import MAX_TITLE, Heading, ParsedFile, Section, split_lines
from .markdown_text import MAX_SUMMARY, cut, plain_text
from .markdown_tokens import derive_summary, parse_by_tokens
from .model import HEADING_LENGTH, Corpus, make_document, sha256_of_bytes
from .progress import CallbackFailed, Progress, Stage
from .summaries import extractive_summary

# The reader, and the parts of it a caller (or a test holding the plain path to markdown-it's reading) imports from
# here, where they were written before the loader was split by idea.
__all__ = [
    "FORMAT",
    "MAX_TITLE",
    "Heading",
    "ParsedFile",
    "Section",
    "atx_title",
    "derive_summary",
    "parse_by_tokens",
    "parse_plain",
    "plain_text",
    "read_markdown",
    "slugify",
    "split_lines",
]

FORMAT = "markdown"

SUMMARY_DERIVED = "summaryDerived"
FILE = "file"
LINE = "line"
LEVEL = "level"
FOLDER = "folder"
UNTITLED = "(untitled)"


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


def _parse(text: str) -> ParsedFile:
    """Split a file into the text before its first heading and its headings with their own sections."""
    lines = split_lines(text)
    parsed = parse_plain(text, lines)
    return parsed if parsed is not None else parse_by_tokens(text, lines)


# ---------------------------------------------------------------------------------------------------------------
# Building the corpus


@dataclass(slots=True)
class _Chosen:
    """A node whose prose is longer than a summary: its summary is chosen again, once its children are known, to
    cover their titles too (its document is then made again)."""

    position: int
    parent: str | None
    title: str
    section: Section
    metadata: dict[str, Any]
    children: list[str] = field(default_factory=list)


def summarise(section: Section, title: str, children: Sequence[str] = ()) -> str:
    """The sentences of the section's prose that best cover it and its children's titles; its first paragraph when
    it has no sentence to take, the first block's summary when it has no prose (a heading in a quote), never a
    markup-only line (``!!!``)."""
    text = prose(section.content)
    if not text:
        return "" if is_markup(section.summary) else section.summary
    return (extractive_summary(text, title=title, children=children, limit=MAX_SUMMARY)
            or cut(text.split("\n\n", 1)[0]))


@dataclass
class _Builder:
    source: str
    record_lines: bool
    """Whether ``lines`` is kept: only for one file, where a line number alone says where a node is."""
    progress: Progress
    ids: Ids = field(default_factory=Ids)
    documents: list[RetrievedDocument] = field(default_factory=list)
    lines: dict[str, int] = field(default_factory=dict)
    chosen: dict[str, _Chosen] = field(default_factory=dict)

    def add(
        self,
        name: str,
        parent: str | None,
        title: str,
        section: Section,
        metadata: dict[str, Any],
        line: int | None,
        written: str = "",
    ) -> str:
        node_id = self.ids.allocate(name, parent)
        metadata[SUMMARY_DERIVED] = not written
        if parent is not None and parent in self.chosen:
            self.chosen[parent].children.append(title)
        if not written and len(section.content) > MAX_SUMMARY:
            self.chosen[node_id] = _Chosen(len(self.documents), parent, title, section, metadata)
        self.documents.append(
            make_document(
                node_id,
                source=self.source,
                parent=parent,
                title=title,
                summary=written or summarise(section, title),
                content=section.content,
                metadata=metadata,
            )
        )
        if line is not None and self.record_lines:
            self.lines[node_id] = line
        return node_id

    def finished(self) -> list[RetrievedDocument]:
        """The documents, the summaries of long nodes with children chosen again to cover their titles."""
        for node_id, node in self.chosen.items():
            if node.children:
                self.documents[node.position] = make_document(
                    node_id, source=self.source, parent=node.parent, title=node.title,
                    summary=summarise(node.section, node.title, node.children), content=node.section.content,
                    metadata=node.metadata,
                )
        self.chosen.clear()
        return self.documents

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
        node_id = self.add(name, parent, title, section, metadata, None, parsed.description)
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
            parsed.description,
        )
    builder.add_headings(parsed.headings, None, path.name)
    progress.finish(len(builder.documents))
    title = next((h.title for h in parsed.headings if h.level == 1 and h.title), path.stem)
    with progress.whole(Stage.INDEXING):
        index = HierarchyIndex(builder.finished())
    return Corpus(path, FORMAT, path.stem, title, index, sha256_of_bytes([data]), builder.lines)


# ---------------------------------------------------------------------------------------------------------------
# A folder


def _read_folder(
    path: Path, progress: Progress, follow_outside_links: bool, parse: Callable[[str], ParsedFile] = _parse
) -> Corpus:
    # parse: how each file is read (read_markdown with by_tokens: parse_by_tokens).
    scan = FolderScan(path, progress, follow_outside_links)
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
        index = HierarchyIndex(builder.finished())
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
