"""Untrusted text (corpus titles, summaries, content, navigator output, file names) made safe to show.

Control characters (C0, DEL, C1), bidirectional overrides, invisible format
characters and lone surrogates (from a file name that is not UTF-8, or a
``\\ud800`` in a JSON file) are replaced by visible escapes such as
``\\x1b``, ``\\u202e`` or ``\\udcff``, so nothing from a corpus or a
navigator can move the cursor, retitle the terminal, reorder what a person
reads, or fail the writer that prints it. The result goes on screen as
``rich.text.Text``, never through markup; messages go out through
:func:`one_line` and JSON through :func:`json_text`.
"""

from __future__ import annotations

import json
import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # rich loads only with safe(): the trace writer and telemetry escape text without it
    from rich.style import Style
    from rich.text import Text

# C0 except tab/newline (handled by mode), DEL, C1, bidi embeddings/overrides/isolates, marks, zero-width and BOM,
# and lone surrogates (no UTF-8 encoder writes them).
_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
# What ``json.dumps(ensure_ascii=False)`` leaves raw of the above (it escapes C0 itself). These can only stand
# inside JSON strings, where ``\uXXXX`` means the same character.
_JSON_UNSAFE = re.compile("[\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]")
_SPACES = re.compile(r"[ \t\r\n]+")


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


def has_control(text: str) -> bool:
    """Whether ``text`` holds a character :func:`visible` escapes (a control, an invisible or a direction mark, a
    lone surrogate) or a tab or a line break: what a name that is read back and typed (a node id) must not hold."""
    return _UNSAFE.search(text) is not None or "\t" in text or "\n" in text


def one_line(message: str) -> str:
    """A message for stderr: runs of spaces, tabs and newlines made one space, every unsafe character escaped."""
    return visible(_SPACES.sub(" ", message).strip(" "))


def escape_json(text: str) -> str:
    """JSON text with C1, bidi, invisible format characters and lone surrogates written as ``\\uXXXX``.

    The document means the same (``json.loads`` gives back the same
    strings), but a terminal that shows it is never steered by it, and it
    encodes as UTF-8 whatever the strings held.
    """
    return _JSON_UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def json_text(data: Any, *, indent: int | None = None) -> str:
    """``data`` as JSON, readable (non-ASCII letters kept) and safe to print: see :func:`escape_json`; what JSON
    cannot hold is made JSON first (:func:`json_safe`)."""
    return escape_json(json.dumps(json_safe(data), ensure_ascii=False, indent=indent))


def json_safe(value: Any, depth: int = 0) -> Any:
    """``value`` as what JSON holds, for what a navigator hands back (its ``usage``): a number that is not finite
    (NaN, Infinity) is ``None``, a key is a string, a tuple is a list, and anything else (an object, a set, bytes)
    is its ``repr``; past 64 levels of nesting, the rest is its ``repr`` too. JSON's own ``NaN`` is no JSON: a
    trace holding it was refused as damaged by its own reader, and ``walk --json`` printed it."""
    if value is None or isinstance(value, bool | str | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if depth < 64:
        if isinstance(value, dict):
            return {k if isinstance(k, str) else repr(k): json_safe(v, depth + 1) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [json_safe(v, depth + 1) for v in value]
    return repr(value)


def clip(text: str, width: int) -> str:
    """At most ``width`` characters, ending with ``…`` when cut."""
    if width <= 0:
        return ""
    return text if len(text) <= width else text[: width - 1] + "…"


def clip_words(text: str, width: int) -> str:
    """At most ``width`` characters, cut at a space (ending with ``…``) rather than mid-word; a first word longer
    than ``width`` is cut as :func:`clip` cuts."""
    if len(text) <= width:
        return text
    cut = text[: width - 1].rstrip()
    space = cut.rfind(" ")
    return (cut[:space].rstrip() if space > 0 else cut) + "…"


def safe(text: str, style: str | Style = "", *, width: int | None = None, multiline: bool = False) -> Text:
    """A ``Text`` of untrusted ``text``: escaped, optionally clipped, never parsed as markup."""

    shown = visible(text, multiline=multiline)
    if width is not None:
        shown = clip(shown, width)
    return styled(shown, style)


def styled(text: str, style: str | Style = "") -> Text:
    """``text`` in ``style`` as a span, not as the ``Text``'s own style: what is appended to it later keeps its
    own style (a ``Text``'s own style colours all of it, appended text included)."""
    from rich.text import Text

    result = Text(text)
    if style and text:
        result.stylize(style)
    return result


def escape_unicode(text: str) -> str:
    """``text`` with every unsafe character (those :func:`visible` escapes; tab and newline are kept) written as
    ``\\uXXXX``, as a trace file's JSON shows it: for strings that leave the process with no text layer of their
    own to escape them in (an OTLP span's protobuf over HTTP). A JSON text stays JSON that means the same."""
    return _UNSAFE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
