"""The sentence of an answer that best matches the query: what a presenting card shows when the whole answer does
not fit (``banks usually take 5 to 10 business days`` for "How long until I get my money back?", not the first
sentence, which only says where the money goes).

Sentences are matched by meaning with the bundled static embeddings (those of ``semantic:``; loaded once a
process, about half a second, and already loaded where the walk was semantic), and where they cannot be had, by
the query's content terms (those of ``lexical:``). A tie goes to the earlier sentence, so an answer whose first
sentence matches best reads from its start.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from ..navigators.embeddings import bundled_embeddings
from ..navigators.errors import NavigatorConfigError
from ..navigators.text_terms import terms

_STOP = re.compile(r"(?<=[.!?…。！？])([\"”')\]]*)(\s*)")
"""A full stop, question or exclamation mark (a closing quote or bracket kept with it) and the space after it."""
_WIDE_STOPS = frozenset("。！？")
"""Stops that end a sentence with no space after them (Chinese and Japanese text)."""
ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "no.", "mr.", "mrs.", "ms.", "dr.", "st.", "approx.",
                           "incl.", "art.", "sec.", "fig.", "p.", "pp."})
"""Words whose full stop ends no sentence."""
SCORED_CHARACTERS = 20_000
"""How much of an answer's text its sentences are looked for in: a long section's lead is near its start, and a
card is drawn on the screen's thread."""


@dataclass(frozen=True, slots=True)
class Lead:
    """The best-matching sentence of a text: where it starts (a character offset of the text) and its words."""

    start: int
    sentence: str
    number: int
    """1 for the first sentence."""


def sentences(text: str) -> list[tuple[int, str]]:
    """The sentences of ``text`` with the offset each starts at (one sentence: the whole text, stripped). A stop
    ends a sentence where a capital letter or a digit follows it after a space (any script's capital, ``Über``, or a
    letter of a script with no case),
    or where it is a wide stop (``。``), unless the word before it is an abbreviation (``e.g.``)."""
    found: list[tuple[int, str]] = []
    at = 0
    for stop in _STOP.finditer(text):
        end, after = stop.end(1), stop.end()
        following = text[after:after + 2].lstrip("\"“'([")[:1]
        wide = text[stop.start() - 1] in _WIDE_STOPS
        # A digit, a capital, or a letter of a script with no case (払) starts the next sentence.
        starts = following.isdigit() or (following.isalpha() and not following.islower())
        if not wide and (not stop.group(2) or not starts):
            continue
        if not wide and _word_before(text, stop.start()) in ABBREVIATIONS:
            continue
        _add(found, text, at, end)
        at = end
    _add(found, text, at, len(text))
    return found


def _add(found: list[tuple[int, str]], text: str, start: int, end: int) -> None:
    part = text[start:end]
    if part.strip():
        found.append((start + len(part) - len(part.lstrip()), part.strip()))


def _word_before(text: str, end: int) -> str:
    """The word that ends at ``end``, lower-cased, an opening bracket or quote left out (``(e.g.`` is ``e.g.``)."""
    words = text[max(0, end - 16):end].split()
    return words[-1].lstrip("([\"“'").lower() if words else ""


def _by_terms(query: str) -> Callable[[str], float]:
    wanted = set(terms(query))
    return lambda sentence: float(len(wanted & set(terms(sentence))))


def _by_meaning(query: str) -> Callable[[str], float] | None:
    try:
        embeddings = bundled_embeddings()
    except NavigatorConfigError:
        return None
    asked = embeddings.text(query)
    return lambda sentence: float(np.dot(asked, embeddings.text(sentence)))


def lead_sentence(text: str, query: str, *, score: Callable[[str], float] | None = None) -> Lead | None:
    """The sentence of ``text`` (of its first :data:`SCORED_CHARACTERS`) that best matches ``query`` (``None``: no
    text, or no content word in the query to match). ``score`` rates a sentence (higher is better); by default by
    meaning, else by the query's terms."""
    found = sentences(text[:SCORED_CHARACTERS])
    if not found or not terms(query):  # a query of stop words only matches nothing: no sentence leads
        return None
    rate = score or _by_meaning(query) or _by_terms(query)
    best = _best([rate(sentence) for _, sentence in found])
    start, sentence = found[best]
    return Lead(start, sentence, best + 1)


def _best(rates: Sequence[float]) -> int:
    """The index of the highest rate, the first of equals."""
    return max(range(len(rates)), key=lambda n: (rates[n], -n))
