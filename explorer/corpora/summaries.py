"""An extractive summary, offline: the sentences of a text that best cover it and what lies under it.

Each word that is not a stop word weighs by how often the text uses it; the words of its children's titles weigh
more (the summary should say what is under the node), those of its own title less (it is shown beside the
summary). Sentences are then taken greedily, each time the one that covers the most weight not yet covered for its
length, the first ones of the text weighing more (a text says what it is about first), until half of
:data:`SUMMARY_CHARS` is filled (never past the whole) or the best one left covers less than half what the first
did; they are given in the order the text has them. A text that fits whole, of a node with no children, has no
choice to make: its first sentences are taken, up to half the room. A sentence too short to say anything (fewer
than four words), or one that leads in to what follows (ending with ``:``), is never taken: a text with no other
gives ``""``. Markdown and PDF nodes are summarised alike.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence

__all__ = ["SUMMARY_CHARS", "extractive_summary", "sentences"]

SUMMARY_CHARS = 320
_LONGEST_SENTENCE = 400
_TITLE_WEIGHT = 1.0  # a word of a child's title weighs as much more as the text's most used word weighs
_LEAD = 1.5  # the first sentences weigh more: a text says what it is about first (2.5 times, then 1.75...)
_WORTH = 0.5  # a further sentence is taken only if it covers at least this share of what the first one did
_WORD = re.compile(r"[^\W_]{3,}")
_FEWEST_WORDS = 4
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
# A sentence's end: its mark, a closing quote or bracket, then spaces; it ends there when a capital or a digit
# (perhaps after an opening quote or bracket) follows, which is checked outside the pattern (lookarounds cost).
_SENTENCE_END = re.compile(r"[.!?][\"')\]]?\s+")
_OPENING = "\"'([“‘"
_STOP = frozenset(
    "the and for are but not you all any can had her was one our out has have this that with from they them then "
    "than their there these those which while what when where who whom will would shall should could may might "
    "must been being into onto upon also such each its it's his she him how why does did done per via more most "
    "other some only own same very just over under about above below after before again further once here both "
    "few nor too off between through during against because until within without whether".split()
)


def sentences(text: str) -> list[str]:
    """The text's sentences, spaces collapsed (a line break inside a sentence is a space); a blank line ends a
    sentence (a paragraph, a list item, a page)."""
    found: list[str] = []
    for paragraph in _PARAGRAPH_BREAK.split(text) if "\n" in text else (text,):
        flat = paragraph.strip() if "  " not in paragraph and "\n" not in paragraph and "\t" not in paragraph \
            else " ".join(paragraph.split())
        start = 0
        for end in _SENTENCE_END.finditer(flat):
            after = end.end()
            following = flat[after + 1] if flat[after:after + 1] in _OPENING else flat[after:after + 1]
            if following.isupper() or following.isdigit():
                found.append(flat[start:end.end()].rstrip())
                start = after
        if start < len(flat):
            found.append(flat[start:])
    return [sentence for sentence in found if sentence]


def _words(text: str) -> list[str]:
    return [word for word in _WORD.findall(text.casefold()) if word not in _STOP]


def _says_something(sentence: str) -> bool:
    """Four words, among its first eight, that start with a letter or a digit (not ``##``, ``-``, ``|``), and not a
    lead-in to what follows it (``Here is the CSS file:``)."""
    if sentence.endswith(":") or sentence.count(" ") < _FEWEST_WORDS - 1:
        return False
    first = sentence.split(None, _FEWEST_WORDS)
    if len(first) >= _FEWEST_WORDS and first[0][0].isalnum() and first[1][0].isalnum() and first[2][0].isalnum() \
            and first[3][0].isalnum():  # most sentences: four words first
        return True
    return len([token for token in sentence.split(None, 2 * _FEWEST_WORDS) if token[0].isalnum()]) >= _FEWEST_WORDS


def extractive_summary(text: str, *, title: str = "", children: Sequence[str] = (),
                       limit: int = SUMMARY_CHARS) -> str:
    """The sentences of ``text`` that best cover it, its ``title`` and its ``children``'s titles, within ``limit``
    characters (a single sentence longer than that is cut at a word, with ``…``); ``""`` when it has none."""
    if len(text) <= limit and not children:  # all of it fits and nothing under it to cover: the first sentences
        return _first(text, limit)
    candidates = [s for s in sentences(text) if _says_something(s)]
    if len(candidates) <= 1:
        return _cut(candidates[0], limit) if candidates else ""
    short = [s for s in candidates if len(s) <= _LONGEST_SENTENCE]
    candidates = short or candidates
    listed = [_words(s) for s in candidates]
    words_of = [set(words) for words in listed]
    weight: Counter[str] = Counter()
    for words in listed:
        weight.update(words)
    total = sum(weight.values()) or 1
    weights = {word: count / total for word, count in weight.items()}
    bonus = _TITLE_WEIGHT * max(weights.values(), default=0.0)
    for word in _words(" ".join(children)):
        weights[word] = weights.get(word, 0.0) + bonus
    for word in _words(title):  # shown beside the summary: a sentence that only repeats it says little
        if word in weights:
            weights[word] *= 0.5
    chosen: list[int] = []
    covered: set[str] = set()
    used, first_score = 0, 0.0
    while used < limit // 2:  # half the room filled is enough: a summary is read at a glance
        best, best_score = -1, 0.0
        for index, sentence in enumerate(candidates):
            if index in chosen or (chosen and used + len(sentence) + 1 > limit):
                continue
            score = (sum(map(weights.__getitem__, words_of[index] - covered)) / math.sqrt(len(sentence))
                     * (1 + _LEAD / (1 + index)))
            if score > best_score:
                best, best_score = index, score
        if best < 0 or (chosen and best_score < _WORTH * first_score):
            break
        first_score = first_score or best_score
        chosen.append(best)
        covered |= words_of[best]
        used += len(candidates[best]) + 1
    summary = " ".join(candidates[index] for index in sorted(chosen))
    return _cut(summary, limit)


def _first(text: str, limit: int) -> str:
    """The text's first sentences that say something, up to half of ``limit``."""
    taken, used = [], 0
    for sentence in sentences(text):
        if _says_something(sentence):
            taken.append(sentence)
            used += len(sentence) + 1
            if used >= limit // 2:
                break
    return _cut(" ".join(taken), limit)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    cut = text[: limit - 1].rsplit(" ", 1)[0]
    return cut.rstrip(" ,;:") + "…"
