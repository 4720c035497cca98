"""Untrusted text (corpus titles, summaries, content, navigator output) made safe to show.

Control characters (C0, DEL, C1), bidirectional overrides and invisible
format characters are replaced by visible escapes such as ``\\x1b`` or
``\\u202e``, so nothing from a corpus or a navigator can move the cursor,
retitle the terminal or reorder what a person reads. The result goes on
screen as ``rich.text.Text``, never through markup.
"""

from __future__ import annotations

import re

from rich.style import Style
from rich.text import Text

# C0 except tab/newline (handled by mode), DEL, C1, bidi embeddings/overrides/isolates, marks, zero-width and BOM.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: str, *, multiline: bool = False) -> str:
    """``text`` with every unsafe character escaped.

    Single-line (the default, for labels): newlines become ``⏎`` and tabs a
    space. ``multiline`` keeps newlines and expands tabs to four spaces.
    """
    text = _UNSAFE.sub(_escape, text)
    if multiline:
        return text.replace("\r\n", "\n").replace("\t", "    ")
    return text.replace("\r\n", "\n").replace("\n", "⏎").replace("\t", " ")


def clip(text: str, width: int) -> str:
    """At most ``width`` characters, ending with ``…`` when cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def safe(text: str, style: str | Style = "", *, width: int | None = None, multiline: bool = False) -> Text:
    """A ``Text`` of untrusted ``text``: escaped, optionally clipped, never parsed as markup."""
    shown = visible(text, multiline=multiline)
    if width is not None:
        shown = clip(shown, width)
    return Text(shown, style=style)
