"""Fields that may be quoted, as ``--force`` and a model id's options write them.

A field is bare (the text up to the next stop character, spaces around it dropped) or in double quotes, which
hold it exactly, with ``""`` for a quote inside: ``"a=b"``, ``" pad "``, ``"prompts/a,b.txt"``. One reader and
one writer, so a force (``"a=b"=x``) and a model id (``local:smollm2@system="a,b.txt"``) read the same way.
"""

from __future__ import annotations

QUOTE = '"'


class QuoteError(ValueError):
    """A quoted field that does not read: the quote opened at ``opened`` (0-based) is never closed (``after`` is
    ``None``), or the closing quote is followed by ``after``, which is not a stop character."""

    def __init__(self, opened: int, after: str | None) -> None:
        super().__init__(f"the quote at character {opened + 1} is never closed" if after is None
                         else f"{after!r} after the quoted text at character {opened + 1}")
        self.opened = opened
        self.after = after


def read_field(text: str, at: int, stops: str) -> tuple[str, bool, int]:
    """The field of ``text`` from ``at``: ``(field, quoted, where it ended)``; it ends at a character of ``stops``
    (or the end). Bare, it is the text up to there, spaces around it dropped; in quotes, exactly what they hold.
    :class:`QuoteError` for a quote never closed, or text after the closing quote."""
    while at < len(text) and text[at].isspace():
        at += 1
    if at < len(text) and text[at] == QUOTE:
        opened, at, held = at, at + 1, []
        while True:
            close = text.find(QUOTE, at)
            if close < 0:
                raise QuoteError(opened, None)
            held.append(text[at:close])
            if text[close + 1:close + 2] == QUOTE:  # "" is a quote inside
                held.append(QUOTE)
                at = close + 2
                continue
            at = close + 1
            break
        while at < len(text) and text[at].isspace():
            at += 1
        if at < len(text) and text[at] not in stops:
            raise QuoteError(opened, text[at])
        return "".join(held), True, at
    end = at
    while end < len(text) and text[end] not in stops:
        end += 1
    return text[at:end].strip(), False, end


def needs_quotes(field: str, specials: str) -> bool:
    """Whether ``field`` must be quoted to read back whole: it is empty, has spaces around it, starts with a
    quote, or holds a character of ``specials``."""
    return (not field or field != field.strip() or field.startswith(QUOTE)
            or any(character in field for character in specials))


def quoted(field: str) -> str:
    """``field`` in double quotes, a quote inside doubled: what :func:`read_field` reads back as ``field``."""
    return QUOTE + field.replace(QUOTE, QUOTE * 2) + QUOTE
