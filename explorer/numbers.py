"""The one parser of whole numbers a person types: on the command line, sent to ``serve``, and in the explorer's
prompts (a visit budget, a depth limit, how many walks)."""

from __future__ import annotations

from .safe_text import clip


def whole(text: str, minimum: int, maximum: int, what: str = "a whole number") -> int:
    """``text`` as a whole number from ``minimum`` to ``maximum``, or a :class:`ValueError` whose message says which
    bound it broke: the one parser of numbers typed on the command line and sent to ``serve``. ASCII digits only
    (``int`` takes ``'²'``-like characters, and 5,000-digit numbers only to fail or to be absurd).

    ``what`` names the kind of number in the messages; a kind of its own (``"a port number"``) is said with its
    range: ``0 is not a port number (1-65535)``."""
    digits = text.strip()
    body = digits[1:] if digits[:1] in ("+", "-") else digits
    if not (body.isascii() and body.isdigit()):
        raise ValueError(f"{clip(text, 40)!r} is not {what}")
    negative = digits[:1] == "-" and body.strip("0") != ""
    value = int(digits) if len(body) <= 12 else None  # a 13-digit number is past every bound here
    if value is not None and minimum <= value <= maximum:
        return value
    if what != "a whole number":
        raise ValueError(f"{clip(digits, 20)} is not {what} ({minimum}-{maximum})")
    if negative or (value is not None and value < minimum):
        raise ValueError(f"{clip(digits, 20)} must be at least {minimum:,}")
    raise ValueError(f"{clip(digits, 20)} must be at most {maximum:,}")
