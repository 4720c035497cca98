"""The plain path of the Markdown loader: files of headings and paragraphs only, read line by line.

Most of a large corpus's files are headings and paragraphs only. For them the block parser's reading is what a
line scan gives: each "# ..." line is a heading, each run of other non-blank lines a paragraph. A file is read
this way only when every line is blank (spaces at most), an ATX heading at the margin, or text that starts at
the margin with a letter or digit and is not an ordered list's marker; and when it has no tab and no NUL. Then
nothing in it can open a code block, fence, list, quote, HTML block, table, link reference, setext heading or
front matter, or end a paragraph except a blank line or a heading (every such construct starts its line with
an indent or a character other than a letter or digit). Any other file goes to markdown-it
(:mod:`.markdown_tokens`). Titles and paragraph texts are cut out of the lines as markdown-it's heading and
paragraph rules do, so summaries come from the same text through the same code (:mod:`.markdown_text`); the
result is the same :class:`~.markdown_sections.ParsedFile`, several times faster.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .markdown_sections import MAX_TITLE, Heading, ParsedFile, Section, first_text_line, trim
from .markdown_text import cut, sentence

try:  # how markdown-it trims a heading's and a paragraph's text; the plain path trims them the same way
    from markdown_it.common.utils import mdTrim
except ImportError:  # markdown-it-py 3 trims them with str.strip()

    def mdTrim(string: str) -> str:
        return string.strip()

__all__ = ["atx_title", "parse_plain"]

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
    """:func:`~.markdown_tokens.summary_of` for ``lines[start:stop]`` of a plain file: paragraphs only, each ended
    by a blank line."""
    i = start
    while i < stop:
        if not lines[i].strip(" "):
            i += 1
            continue
        end = i + 1
        while end < stop and lines[end].strip(" "):
            end += 1
        summary = sentence(mdTrim("\n".join(lines[i:end])))
        if summary:
            return summary
        i = end
    return ""


def parse_plain(text: str, lines: Sequence[str]) -> ParsedFile | None:
    """A plain file (see above) split as :func:`~.markdown_tokens.parse_by_tokens` splits it, or ``None`` when the
    file must go to markdown-it. ``lines``: ``text``'s :func:`~.markdown_sections.split_lines`."""
    if not _is_plain(text if "\r" not in text else "\n".join(lines)):
        return None
    starts = [i for i, line in enumerate(lines) if line.startswith("#")]
    end = starts[0] if starts else len(lines)
    preamble = Section(trim(lines, 0, end), _plain_summary(lines, 0, end))
    headings: list[Heading] = []
    for k, start in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        line = lines[start]
        title = atx_title(line)
        level = len(line) - len(line.lstrip("#"))
        section = Section(trim(lines, start + 1, stop), _plain_summary(lines, start + 1, stop))
        headings.append(Heading(level, cut(title, MAX_TITLE), len(title), start + 1, section))
    return ParsedFile(preamble, first_text_line(lines, 0, end), tuple(headings))
