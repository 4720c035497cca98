"""The markdown-it path of the Markdown loader: any file read by the block parser's tokens, whose line numbers say
where each heading and section is; and summaries derived from those tokens (:func:`derive_summary`).

CommonMark, with GFM tables and strikethrough; YAML front matter is read by
``mdit-py-plugins``, TOML front matter (``+++``) by a rule of ours. Only the
block structure is parsed for a file: inline syntax is parsed on demand, for
a summary's first sentence and for ids (:mod:`.markdown_text`), never for
whole sections.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock
from markdown_it.token import Token
from mdit_py_plugins.front_matter import front_matter_plugin

from .markdown_prose import description
from .markdown_sections import MAX_TITLE, Heading, ParsedFile, Section, first_text_line, split_lines, trim
from .markdown_text import SUMMARY_SCAN, cut, plain_text, sentence

__all__ = ["derive_summary", "parse_by_tokens"]

_TASK_MARKER = re.compile(r"\[[ xX]\]\s+")
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


def parse_by_tokens(text: str, lines: Sequence[str] | None = None) -> ParsedFile:
    """A file split into the text before its first heading and its headings with their own sections, by
    markdown-it's block tokens: any Markdown. ``lines``: ``text``'s :func:`~.markdown_sections.split_lines`, when the
    caller has them already."""
    if lines is None:
        lines = split_lines(text)
    tokens = _BLOCKS.parse(text)
    n = len(tokens)
    first = 0  # the first line after front matter
    written = ""
    if n and tokens[0].type == "front_matter" and tokens[0].map is not None:
        first = tokens[0].map[1]
        written = description(tokens[0].content)
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
    preamble = Section(trim(lines, first, end), _summary_of(tokens, 0, found[0][4] - 3 if found else n))
    headings: list[Heading] = []
    for k, (level, title, start, after, token_start) in enumerate(found):
        stop, token_stop = (found[k + 1][2], found[k + 1][4] - 3) if k + 1 < len(found) else (len(lines), n)
        section = Section(trim(lines, after, stop), _summary_of(tokens, token_start, token_stop))
        headings.append(Heading(level, cut(title, MAX_TITLE), len(title), start + 1, section))
    return ParsedFile(preamble, first_text_line(lines, first, end), tuple(headings), written)


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
            summary = sentence(tokens[i + 1].content)
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
                return cut(candidate)
            i = j + 1
            continue
        i += 1
    return ""


def _first_item(tokens: Sequence[Token], j: int, kind: str) -> str:
    """The first item of a list, quote or table, as plain text: its first line (a table: its first row)."""
    if kind == "table_open":
        cells: list[str] = []
        while j < len(tokens) and tokens[j].type != "tr_close":
            if tokens[j].type == "inline":
                cells.append(plain_text(tokens[j].content[:SUMMARY_SCAN]))
            j += 1
        return " | ".join(cell for cell in cells if cell)
    line = tokens[j].content[:SUMMARY_SCAN].split("\n", 1)[0]
    if kind != "blockquote_open":
        line = _TASK_MARKER.sub("", line, count=1) if line.startswith("[") else line
    return plain_text(line)


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
