"""The one parser of whole numbers: typed on the command line or in the explorer's prompts (a visit budget, a
depth limit, how many walks), sent to ``serve`` by a client, read from the environment, and written in a model
id's options (``@ctx=4096``)."""

from __future__ import annotations

from .safe_text import clip


def counted(count: int, noun: str, *, grouped: bool = False) -> str:
    """``1 question``, ``41 questions``: ``count`` and ``noun``, the plural when the count is not one; ``grouped``:
    the count in groups of three (``100,000 nodes``)."""
    figure = f"{count:,}" if grouped else str(count)
    return f"{figure} {noun}" if count == 1 else f"{figure} {noun}s"


class TooLarge(ValueError):
    """A whole number above the maximum (``serve`` takes the maximum for it; everything else, an error)."""


def whole(text: str, minimum: int, maximum: int, what: str = "a whole number") -> int:
    """``text`` as a whole number from ``minimum`` to ``maximum``, or a :class:`ValueError` whose message says which
    bound it broke (:class:`TooLarge` when it is above ``maximum``). ASCII digits only (``int`` takes
    ``'²'``-like and ``'٣'``-like characters, ``'1_000'``, and 5,000-digit numbers only to fail or to be absurd).

    ``what`` names the kind of number in the messages; a kind of its own (``"a port number"``) is said with its
    range: ``0 is not a port number (1-65535)``. A caller with a message of its own (a model id's option, an
    environment variable) catches the error and says it its way."""
    digits = text.strip()
    body = digits[1:] if digits[:1] in ("+", "-") else digits
    if not (body.isascii() and body.isdigit()):
        raise ValueError(f"{clip(text, 40)!r} is not {what}")
    negative = digits[:1] == "-" and body.strip("0") != ""
    # A number with more digits than the maximum has (and a few leading zeros) is past it: never read whole.
    value = int(digits) if len(body) <= max(12, len(str(maximum)) + 1) else None
    if value is not None and minimum <= value <= maximum:
        return value
    below = negative or (value is not None and value < minimum)
    if what != "a whole number":
        raise (ValueError if below else TooLarge)(f"{clip(digits, 20)} is not {what} ({minimum}-{maximum})")
    if below:
        raise ValueError(f"{clip(digits, 20)} must be at least {minimum:,}")
    raise TooLarge(f"{clip(digits, 20)} must be at most {maximum:,}")
