"""One Markdown file's structure, as either path of the loader reads it: the text before its first heading, and its
headings, each with its own section (:class:`ParsedFile`); and the line helpers both paths cut sections with."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

__all__ = ["MAX_TITLE", "Heading", "ParsedFile", "Section", "first_text_line", "split_lines", "trim"]

MAX_TITLE = 300
"""Headings longer than this are cut for their titles (and ``validate`` says so)."""

_LINE_BREAK = re.compile(r"\r\n|\r|\n")


class Section(NamedTuple):  # named tuples: a 100,000-heading load makes 200,000 of these
    """A heading's own text, or the text before the first heading: its content and its derived summary."""

    content: str
    """The section's lines, blank lines trimmed at both ends."""
    summary: str
    """Derived from the section's first block of prose ("" when it has none)."""


class Heading(NamedTuple):
    """A heading at the top level of the document, with its own section."""

    level: int
    title: str
    """As written, cut to MAX_TITLE characters."""
    length: int
    """The length of the heading's text as written."""
    line: int
    """1-based line of the heading's (first) text line."""
    section: Section


class ParsedFile(NamedTuple):
    """A file as either path reads it: the two must give equal values for a file both can read."""

    preamble: Section
    """The text before the first heading (all of it when there is none)."""
    preamble_line: int
    """1-based line where the preamble's text starts (1 when it is empty)."""
    headings: tuple[Heading, ...]
    description: str = ""
    """The front matter's own ``description:`` ("" when it has none): the file's summary, written by its author."""


def split_lines(text: str) -> list[str]:
    """``text``'s lines, broken where markdown-it breaks them: at ``\\r\\n``, ``\\r`` and ``\\n``."""
    # Not str.splitlines(): it also breaks at form feeds and U+2028, which would shift line numbers;
    # markdown-it breaks lines at these three, as we do.
    return _LINE_BREAK.split(text) if "\r" in text else text.split("\n")


def trim(lines: Sequence[str], start: int, end: int) -> str:
    """``lines[start:end]`` joined, blank lines at both ends dropped and trailing space removed."""
    while start < end and not lines[start].strip():
        start += 1
    while end > start and not lines[end - 1].strip():
        end -= 1
    return "\n".join(lines[start:end]).rstrip()


def first_text_line(lines: Sequence[str], start: int, end: int) -> int:
    """The 1-based number of the first line of ``lines[start:end]`` with text (``start + 1`` when none has)."""
    for i in range(start, end):
        if lines[i].strip():
            return i + 1
    return start + 1
