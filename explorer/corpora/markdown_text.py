"""Markdown's inline text as plain words, and what summaries and titles are made of: a paragraph's first sentence,
text cut at a word.

The plain text is Markdown's, as the inline parser reads it: links and
images keep their text, code its characters, emphasis and HTML go. Both
paths of the loader (:mod:`.markdown_tokens`, :mod:`.markdown_plain`) make
summaries through :func:`sentence`, so they read a paragraph alike.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from markdown_it import MarkdownIt
from markdown_it.token import Token

__all__ = ["MAX_SUMMARY", "SUMMARY_SCAN", "cut", "plain_text", "sentence"]

MAX_SUMMARY = 300
# Only this much of a first paragraph is looked at: the summary is at most 300 characters.
SUMMARY_SCAN = 4000

_SENTENCE_END = re.compile(r"[.!?](?=\s|$)")
# Characters that may start inline syntax that changes the plain text (entities, emphasis, strikethrough,
# links, images, autolinks, HTML, escapes, code); text without any of them reads as it is written.
_INLINE_SYNTAX = re.compile(r"[&*_~\[<\\`]")

_INLINE = MarkdownIt("commonmark").enable(["strikethrough"])


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


def sentence(paragraph: str) -> str:
    """A paragraph's first sentence in plain text, else its first line; ``""`` when it has no text."""
    plain = plain_text(paragraph[:SUMMARY_SCAN])
    if not plain:
        return ""
    end = _SENTENCE_END.search(plain)
    return cut(plain[: end.end()] if end else plain_text(paragraph[:SUMMARY_SCAN].split("\n", 1)[0]))


def cut(text: str, limit: int = MAX_SUMMARY) -> str:
    """``text`` cut to ``limit`` characters, at a word when one ends in the second half, with an ellipsis."""
    if len(text) <= limit:
        return text
    head = text[: limit - 1]
    space = head.rfind(" ")
    if space >= limit // 2:
        head = head[:space]  # end at a word when one ends in the second half
    return head.rstrip() + "…"
