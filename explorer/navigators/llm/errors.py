"""The one exception the LLM navigator raises, and the helpers that keep its message on one line."""

from __future__ import annotations

from typing import Final

from core import Transcript

QUOTE_CHARS: Final = 80


def one_line(text: str) -> str:
    """``text`` with every run of whitespace (newlines included) made one space."""
    return " ".join(text.split())


def quote(text: str, limit: int = QUOTE_CHARS) -> str:
    """The start of ``text`` on one line, in double quotes, for a message."""
    flat = one_line(text)
    return f'"{flat[:limit]}…"' if len(flat) > limit else f'"{flat}"'


class NavigatorHTTPError(RuntimeError):
    """Anything that went wrong asking the model: configuration, connection, HTTP status or an unusable answer.

    The message is one line, says what to check, names the URL (without credentials) and never
    holds the API key. ``status`` is the HTTP status when the server answered with an error,
    else ``None``. ``transcript`` is what was sent and what came back (SPEC "The navigator"),
    ``None`` when nothing was sent; the walk copies it onto its ``NavigatorFailed`` event.
    """

    def __init__(self, message: str, *, status: int | None = None, transcript: Transcript | None = None) -> None:
        super().__init__(one_line(message))
        self.status = status
        self.transcript = transcript
