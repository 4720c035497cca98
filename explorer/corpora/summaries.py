"""An extractive summary, offline: the sentences of a text that best cover it and what lies under it.

Each word that is not a stop word weighs by how often the text uses it; the words of the node's title and of its
children's titles weigh more (the summary should say what is under the node). Sentences are then taken greedily,
each time the one that covers the most weight not yet covered for its length, until :data:`SUMMARY_CHARS` is
reached, and given in the order the text has them. A sentence too short to say anything (fewer than four words)
or made of no words is never taken. Markdown and PDF nodes are summarised alike.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["SUMMARY_CHARS", "extractive_summary", "sentences"]

SUMMARY_CHARS = 320
_LONGEST_SENTENCE = 400
_TITLE_WEIGHT = 3.0
_WORD = re.compile(r"[^\W_]{3,}")
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]?\s+(?=[\"'(\[]?[A-Z0-9])")
_STOP = frozenset(
    "the and for are but not you all any can had her was one our out has have this that with from they them then "
    "than their there these those which while what when where who whom will would shall should could may might "
    "must been being into onto upon also such each its it's his she him how why does did done per via more most "
    "other some only own same very just over under about above below after before again further once here both "
    "few nor too off between through during against because until within without whether".split()
)


def sentences(text: str) -> list[str]:
    """The text's sentences, spaces collapsed (a line break inside a sentence is a space)."""
    flat = " ".join(text.split())
    return [part.strip() for part in _SENTENCE_END.split(flat) if part.strip()] if flat else []


def _words(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.casefold()) if word not in _STOP]


def extractive_summary(text: str, *, title: str = "", children: Sequence[str] = (),
                       limit: int = SUMMARY_CHARS) -> str:
    """The sentences of ``text`` that best cover it, its ``title`` and its ``children``'s titles, within ``limit``
    characters (a single sentence longer than that is cut at a word, with ``…``); ``""`` when it has none."""
    candidates = [s for s in sentences(text) if len(s.split()) >= 4]
    candidates = [s for s in candidates if len(s) <= _LONGEST_SENTENCE] or candidates
    words_of = [set(_words(s)) for s in candidates]
    if not any(words_of):
        return ""
    weight: Counter[str] = Counter(_words(text))
    total = sum(weight.values()) or 1
    weights = {word: count / total for word, count in weight.items()}
    for word in _words(" ".join([title, *children])):
        weights[word] = weights.get(word, 0.0) + _TITLE_WEIGHT / max(1, len(children) + 1)
    chosen: list[int] = []
    covered: set[str] = set()
    used = 0
    while used < limit:
        best, best_score = -1, 0.0
        for index, sentence in enumerate(candidates):
            if index in chosen or (chosen and used + len(sentence) + 1 > limit):
                continue
            score = sum(weights.get(word, 0.0) for word in words_of[index] - covered) / math.sqrt(len(sentence))
            if score > best_score:
                best, best_score = index, score
        if best < 0:
            break
        chosen.append(best)
        covered |= words_of[best]
        used += len(candidates[best]) + 1
    summary = " ".join(candidates[index] for index in sorted(chosen))
    return _cut(summary, limit)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"
