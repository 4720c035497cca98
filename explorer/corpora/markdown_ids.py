"""Node ids for Markdown: slugs of the heading text (or of a file or folder name), unique in document order.

Lowercase letters and digits joined by hyphens, accents dropped, at most 80
characters. When a slug is already taken the parent's id is prefixed
(``linux-usage``), then ``-2``, ``-3``... are added.
"""

from __future__ import annotations

import re
import unicodedata

from .markdown_text import plain_text

__all__ = ["MAX_SLUG", "Ids", "slugify"]

MAX_SLUG = 80
_NOT_WORD = re.compile(r"[\W_]+")
# Every ASCII byte that is not a lowercase letter or a digit, as a space (what _NOT_WORD replaces, for ASCII).
_ASCII_SLUG = bytes(c if chr(c).isascii() and (chr(c).islower() or chr(c).isdigit()) else 32 for c in range(256))


def slugify(text: str) -> str:
    """An id-friendly slug: lowercase letters and digits joined by hyphens (``"section"`` when none)."""
    bare = plain_text(text)
    if bare.isascii() and len(bare) <= MAX_SLUG:  # most titles: one pass through a byte table, no pattern
        return "-".join(bare.lower().encode("ascii").translate(_ASCII_SLUG).decode("ascii").split()) or "section"
    if not bare.isascii():
        # Accents dropped so "Café" is "cafe"; NFC afterwards recomposes scripts such as Hangul.
        decomposed = unicodedata.normalize("NFKD", bare)
        bare = unicodedata.normalize("NFC", "".join(c for c in decomposed if not unicodedata.combining(c)))
    slug = _NOT_WORD.sub("-", bare.lower()).strip("-")
    if len(slug) > MAX_SLUG:
        slug = slug[:MAX_SLUG]
        if "-" in slug:
            slug = slug.rsplit("-", 1)[0]
    return slug or "section"


class Ids:
    """Unique ids in document order: the slug, else the parent's id then the slug, then -2, -3..."""

    def __init__(self) -> None:
        self._used: set[str] = set()
        # The next number to try per base: without it, the thousandth "Examples" would probe 999 taken ids.
        self._next: dict[str, int] = {}

    def allocate(self, text: str, parent: str | None) -> str:
        slug = slugify(text)
        candidate = slug
        if candidate in self._used and parent is not None:
            candidate = f"{parent}-{slug}"
        if candidate in self._used:
            base, n = candidate, self._next.get(candidate, 2)
            while f"{base}-{n}" in self._used:
                n += 1
            self._next[base] = n + 1
            candidate = f"{base}-{n}"
        self._used.add(candidate)
        return candidate
