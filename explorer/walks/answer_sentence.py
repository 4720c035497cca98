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

_SENTENCE_END = re.compile(r"(?<=[.!?…])([\"”')\]]*)\s+(?=[\"“'(\[]?[A-Z0-9])")
"""Where one sentence ends and the next begins: a full stop, question or exclamation mark (a closing quote or
bracket kept with it), space, and a capital or a digit (so ``e.g. the`` does not split), unless the word before
is an abbreviation (:data:`ABBREVIATIONS`)."""
ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "no.", "mr.", "mrs.", "ms.", "dr.", "st.", "approx.",
                           "incl.", "art.", "sec.", "fig.", "p.", "pp."})
"""Words whose full stop ends no sentence."""


@dataclass(frozen=True, slots=True)
class Lead:
    """The best-matching sentence of a text: where it starts (a character offset of the text) and its words."""

    start: int
    sentence: str
    number: int
    """1 for the first sentence."""


def sentences(text: str) -> list[tuple[int, str]]:
    """The sentences of ``text`` with the offset each starts at (one sentence: the whole text, stripped)."""
    found: list[tuple[int, str]] = []
    at = 0
    ends = [match.end(1) for match in _SENTENCE_END.finditer(text)
            if _word_before(text, match.start()) not in ABBREVIATIONS]
    for end in (*ends, len(text)):
        part = text[at:end]
        if part.strip():
            found.append((at + len(part) - len(part.lstrip()), part.strip()))
        at = end
    return found


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
    """The sentence of ``text`` that best matches ``query`` (``None``: no text, or no query to match). ``score``
    rates a sentence (higher is better); by default by meaning, else by the query's terms."""
    found = sentences(text)
    if not found or not query.strip():
        return None
    rate = score or _by_meaning(query) or _by_terms(query)
    best = _best([rate(sentence) for _, sentence in found])
    start, sentence = found[best]
    return Lead(start, sentence, best + 1)


def _best(rates: Sequence[float]) -> int:
    """The index of the highest rate, the first of equals."""
    return max(range(len(rates)), key=lambda n: (rates[n], -n))
