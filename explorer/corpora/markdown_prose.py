"""A Markdown section's prose, for its summary: its paragraphs and list items as plain text, markup-only lines left
out, and a front matter's own ``description:``.

Left out: fenced code (```` ``` ```` / ``~~~``) and indented code, HTML (a line starting with ``<``), headings,
tables, thematic breaks, mkdocs admonition and details markers (``!!! tip "Added in 0.13"``, ``??? note``, ``///``),
snippet includes (``--8<--``, ``{% include %}``, ``{!file!}``), link reference definitions and attribute lists
(``{: .class}``). A quote's text is prose, its ``>`` gone. An admonition's indented body is prose and stays
(dedented), as a list item's text does.
"""

from __future__ import annotations

import re

from .markdown_text import plain_text

__all__ = ["PROSE_SCAN", "description", "is_markup", "prose"]

PROSE_SCAN = 6000
"""Only this much prose is gathered: a summary is 300 characters, and a huge section must not cost more."""

_MARKUP_ONLY = re.compile(
    r"^\s*(?:!!!|\?\?\?\+?|///|--8<--|\{%|\{!|\{:|<|\||#|\[[^\]]+\]:\s|(?:[-*_]\s*){3,}$|=+$)"
)
# The first characters of a line that may start something other than a paragraph's text (a list, a quote, code,
# HTML, a marker...); a line starting with a digit (``1.``: a list?) takes the long way too.
_MARKUP_FIRST = frozenset(" \t<!?/{#|>*+`~=_[-0123456789")
_REFERENCE = re.compile(r"\[([^\]\n]+)\]\[[^\]\n]*\]")  # [text][ref] (mkdocstrings' links): its text
_BLANK_LINE = re.compile(r"\n\s*\n")
_QUOTE = re.compile(r"^(?:\s{0,3}>\s?)+")
_FENCE = re.compile(r"^\s*(```|~~~)")
_LIST_MARK = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+(?:\[[ xX]\]\s+)?")


def prose(markdown: str) -> str:
    """The section's prose as plain text, paragraphs apart by a blank line, at most :data:`PROSE_SCAN` characters."""
    if "\n" not in markdown and markdown[:1] not in _MARKUP_FIRST:  # one line of prose: most sections of a big corpus
        return plain_text(_unreferenced(markdown[:PROSE_SCAN]))
    if not any(line and line[0] in _MARKUP_FIRST for line in markdown.split("\n")):  # prose, nothing else
        return "\n\n".join(plain_text(_unreferenced(part))
                             for part in _BLANK_LINE.split(markdown[:PROSE_SCAN]) if part.strip())
    paragraphs: list[str] = []
    current: list[str] = []
    fence: str | None = None
    size = 0

    def close() -> None:
        nonlocal size
        if current:
            text = plain_text(_unreferenced(" ".join(current)))
            if text:
                paragraphs.append(text)
                size += len(text)
            current.clear()

    html_until: str | None = None  # inside an HTML block: what ends it ("" a blank line, "-->" a comment's end)
    for raw in markdown.split("\n"):
        if fence is not None:
            if raw.strip().startswith(fence):
                fence = None
            continue
        if html_until is not None:
            if (html_until and html_until in raw) or (not html_until and not raw.strip()):
                html_until = None
            continue
        line = _QUOTE.sub("", raw)
        opening = _FENCE.match(line)
        if opening:
            close()
            fence = opening.group(1)
            continue
        if line.lstrip().startswith("<"):
            close()
            comment = line.lstrip().startswith("<!--")
            if not (comment and "-->" in line):
                html_until = "-->" if comment else ""
            continue
        item = _LIST_MARK.match(line)
        if item:
            close()
            line = line[item.end():]
        if not line.strip() or _MARKUP_ONLY.match(line):
            close()
            continue
        if not item and line.startswith(("    ", "\t")) and not current and not _reads_as_prose(line):
            continue  # indented code
        current.append(line.strip())
        if size >= PROSE_SCAN:
            break
    close()
    return "\n\n".join(paragraphs)[:PROSE_SCAN]


def _unreferenced(text: str) -> str:
    return _REFERENCE.sub(r"\1", text) if "][" in text else text


def is_markup(line: str) -> bool:
    """A line that is markup only (``!!! tip``, ``--8<--``...), never prose."""
    return _MARKUP_ONLY.match(line) is not None


def _reads_as_prose(line: str) -> bool:
    """An indented line that reads as prose (an admonition's body, a list item's next paragraph): a letter first,
    words after."""
    text = line.strip()
    return bool(text) and text[0].isalpha() and " " in text and not text.endswith((";", "{", "}", ")"))


def description(front_matter: str) -> str:
    """A front matter's ``description:`` (quotes removed, spaces collapsed), or ``""``: its value on its line and on
    the indented lines after it (a folded ``>`` or literal ``|`` block, a plain value wrapped), read line by line, so a
    long line costs its length, and an empty value takes no other key."""
    lines = front_matter.split("\n")
    for number, line in enumerate(lines):
        if not line.startswith("description:"):
            continue
        value = line[len("description:"):].strip()
        if value[:1] in (">", "|") and not value[1:].strip("+-0123456789"):  # a block: its lines are the value
            value = ""
        parts = [value]
        for following in lines[number + 1:]:
            if following.strip() and not following[:1].isspace():  # the next key
                break
            parts.append(following.strip())
        value = " ".join(" ".join(parts).split())
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        return " ".join(value.split())
    return ""
