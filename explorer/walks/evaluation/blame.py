"""Whose fault a miss was (:class:`Blame`): the map, the navigator, or nobody's clear signal, judged at the miss's
first wrong turn by an independent judge (:mod:`explorer.navigators.judge`); and where a flat search ranks the
expected node (:func:`flat_rank`).

The rule (:func:`blame_of`), at the offer where the navigator turned away from
the expected branch ``e``: the judge ranks the candidates offered twice, by what
the navigator was shown (title and summary) and by what lies beneath each (the
content of its subtree), and standardises both scores within the offer.

* ``map-hid`` (at ``e``): what lies beneath ``e`` ranks it above what its title
  and summary rank it, by more than any chosen branch's summary outran its own
  content;
* ``map-misled`` (at a chosen ``x`` shown above ``e``): ``x``'s title and
  summary rank it above its content, by more than ``e``'s map hid it;
* either needs a gap of at least :data:`GAP` standard deviations (a map that
  tells its branches apart about as well as their content does is no culprit);
* ``navigator``: no such gap, and what it was shown ranked ``e`` first;
* ``no-signal``: no such gap, and what it was shown did not rank ``e`` first
  (the question or its expected ids may be wrong).

A miss a limit or an end made (the budget, the depth limit, a failure, a
cancel, ids never offered, a walk that went past the expected node) keeps its
own reason: its kind says which, its words are the miss's.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from ...navigators.judge import EmbeddingJudge, Judge
from ..audit import audit
from .misses import Miss, MissReason

__all__ = ["GAP", "Blame", "BlameKind", "blame_of", "flat_rank", "flat_words", "ordinal"]

GAP = 0.5
"""How far (in standard deviations of the offer's scores) the map must part from the content to be blamed."""
FIT_WEIGHT = 2.0
"""How much a suspect's audit fit (standardised within the offer: a map that fits its own subtree worse than its
siblings' do) adds to the gap, so that of two suspects the one whose map is the worse is blamed."""
_fits: weakref.WeakKeyDictionary[Judge, dict[str, float]] = weakref.WeakKeyDictionary()


class BlameKind(StrEnum):
    """A verdict's kind, as ``eval --json``'s ``blame.kind`` writes it."""

    MAP_HID = "map-hid"
    MAP_MISLED = "map-misled"
    NAVIGATOR = "navigator"
    NO_SIGNAL = "no-signal"
    BUDGET = "budget"
    DEPTH = "depth"
    FAILURE = "failure"
    CANCELLED = "cancelled"
    NEVER_OFFERED = "never-offered"
    WENT_PAST = "went-past"

    @property
    def words(self) -> str:
        """The verdict's short words, for a table's cell and the summary's counts."""
        return _WORDS[self]

    @property
    def short(self) -> str:
        """Its shortest words (``map hid it``), for a table's narrow cell."""
        return _WORDS[self].removeprefix("the ")


_WORDS = {BlameKind.MAP_HID: "the map hid it", BlameKind.MAP_MISLED: "the map misled",
          BlameKind.NAVIGATOR: "the navigator erred", BlameKind.NO_SIGNAL: "no signal",
          BlameKind.BUDGET: "budget", BlameKind.DEPTH: "depth limit", BlameKind.FAILURE: "navigator failed",
          BlameKind.CANCELLED: "cancelled", BlameKind.NEVER_OFFERED: "id never offered",
          BlameKind.WENT_PAST: "went past it"}
_OWN_REASON = {MissReason.BUDGET: BlameKind.BUDGET, MissReason.DEPTH: BlameKind.DEPTH,
               MissReason.FAILED: BlameKind.FAILURE, MissReason.CANCELLED: BlameKind.CANCELLED,
               MissReason.NEVER_OFFERED: BlameKind.NEVER_OFFERED, MissReason.WENT_PAST: BlameKind.WENT_PAST}


@dataclass(frozen=True)
class Blame:
    """A miss's verdict: its ``kind``, the ``node`` at fault (``None``: none named) and what it ``says`` (plain:
    node ids and titles are corpus text, pass it through ``safe_text``)."""

    kind: BlameKind
    node: str | None
    says: str

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind.value, "node": self.node, "says": self.says}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Blame:
        """A verdict as :meth:`to_json` wrote it; ``ValueError`` saying which field is not one."""
        try:
            kind = BlameKind(str(data.get("kind")))
        except ValueError:
            raise ValueError(f"blame kind {data.get('kind')!r} is none this explorer knows") from None
        node, says = data.get("node"), data.get("says")
        if not (node is None or isinstance(node, str)) or not isinstance(says, str):
            raise ValueError("the blame's node or words are not text")
        return cls(kind, node, says)


def ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``22nd``."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _standard(scores: Sequence[float]) -> list[float]:
    mean = sum(scores) / len(scores)
    spread = (sum((s - mean) ** 2 for s in scores) / len(scores)) ** 0.5
    return [(s - mean) / spread if spread > 1e-12 else 0.0 for s in scores]


def _ranks(scores: Sequence[float]) -> list[int]:
    """Each score's rank (0: the best; ties in the offer's order)."""
    order = sorted(range(len(scores)), key=lambda i: (-scores[i], i))
    ranks = [0] * len(scores)
    for rank, i in enumerate(order):
        ranks[i] = rank
    return ranks


def blame_of(miss: Miss, query: str, judge: Judge, navigator: str) -> Blame:
    """The verdict on ``miss`` (a walk of ``query`` with navigator ``navigator``) by ``judge`` (see the module)."""
    own = _OWN_REASON.get(miss.reason)
    if own is not None:
        return Blame(own, None, miss.sentence())
    index, expected = judge.index, miss.missed
    if expected is None or expected not in index:
        return Blame(BlameKind.NEVER_OFFERED, None, miss.sentence())
    offered = list(index.child_ids(miss.node) if miss.node is not None else index.root_ids())
    if expected not in offered or len(offered) < 2:
        return Blame(BlameKind.NO_SIGNAL, None, f"no signal: {expected!r} was the only way on")
    shown, below = judge.shown(query, offered), judge.beneath(query, offered)
    z_shown, z_below = _standard(shown), _standard(below)
    r_shown, r_below = _ranks(shown), _ranks(below)
    at = {node: i for i, node in enumerate(offered)}
    e = at[expected]
    unfit = _standard([-f for f in _fit_of(judge, offered)])
    suspects: list[tuple[float, BlameKind, str]] = []
    if r_shown[e] > 0:
        suspects.append((z_below[e] - z_shown[e] + FIT_WEIGHT * unfit[e], BlameKind.MAP_HID, expected))
    for chosen in miss.chose:
        x = at.get(chosen)
        if x is not None and r_shown[x] < r_shown[e] and r_below[x] > r_shown[x]:
            suspects.append((z_shown[x] - z_below[x] + FIT_WEIGHT * unfit[x], BlameKind.MAP_MISLED, chosen))
    count = len(offered)
    same = " (the judge is the navigator's own scoring: this says only whether the map or the walk was at " \
           "fault)" if judge.same_as(navigator) else ""
    where = "the roots" if miss.node is None else repr(judge.corpus.title_of(miss.node))
    best = max(suspects, key=lambda s: s[0], default=None)
    if best is not None and best[0] >= GAP:
        _, kind, node = best
        if kind is BlameKind.MAP_HID:
            return Blame(kind, node, _hid_words(judge, query, node, where, r_shown[e], r_below[e], count) + same)
        x = at[node]
        return Blame(kind, node,
                     f"the map misled: at {where}, the title and summary of {judge.corpus.title_of(node)!r} rank it "
                     f"{ordinal(r_shown[x] + 1)} of {count} for the query, but what lies beneath it only "
                     f"{ordinal(r_below[x] + 1)}: its summary promises what its content does not hold{same}")
    if r_shown[e] == 0:
        chose = ", ".join(repr(c) for c in miss.chose) or "nothing"
        return Blame(BlameKind.NAVIGATOR, None,
                     f"the navigator erred: at {where}, what it was shown ranks {judge.corpus.title_of(expected)!r} "
                     f"1st of {count} (its content {ordinal(r_below[e] + 1)}), and it chose {chose}{same}")
    return Blame(BlameKind.NO_SIGNAL, None,
                 f"no signal: at {where}, neither what was shown ({ordinal(r_shown[e] + 1)} of {count}) nor the "
                 f"content beneath ({ordinal(r_below[e] + 1)}) points to {judge.corpus.title_of(expected)!r}; the "
                 f"question or its expected ids may be wrong{same}")


def _fit_of(judge: Judge, nodes: Sequence[str]) -> list[float]:
    """Each node's audit fit (:func:`~explorer.walks.audit.audit`: 0 the worst map of the corpus), audited once
    per judge; 1 for every node when the judge cannot audit (it is not the embeddings)."""
    if not isinstance(judge, EmbeddingJudge):
        return [1.0] * len(nodes)
    fits = _fits.get(judge)
    if fits is None:
        fits = _fits[judge] = {f.id: f.fit for f in audit(judge)}
    return [fits.get(node, 1.0) for node in nodes]


def _hid_words(judge: Judge, query: str, node: str, where: str, shown: int, below: int, count: int) -> str:
    """``the map hid it: …``: which sentence beneath matched, and the words of it the title and summary lack."""
    from ...navigators.text_terms import terms

    title, summary = judge.shown_text(node)
    sentence = judge.sentence(query, node)
    said = set(terms(f"{title} {summary}"))
    asked = set(terms(query))
    lacking = [t for t in dict.fromkeys(terms(sentence)) if t not in said]
    wanted = [t for t in lacking if t in asked] or lacking[:5]
    words = (f"; its title and summary do not say {', '.join(wanted)}" if wanted
             else "; its title and summary hold none of that sentence's words") if sentence else ""
    matched = f" (\"{sentence}\")" if sentence else ""
    return (f"the map hid it: at {where}, what lies beneath {title!r} ranks it {ordinal(below + 1)} of {count} for "
            f"the query{matched}, but its title and summary only {ordinal(shown + 1)}{words}")


def flat_rank(judge: Judge, query: str, expected: Sequence[str]) -> int | None:
    """Where a flat search (every node by its own title, summary and content, no tree) ranks the first expected
    node it meets (1: first); ``None`` when no expected id is in the corpus."""
    wanted = set(expected)
    for rank, (node, _) in enumerate(judge.flat(query), start=1):
        if node in wanted:
            return rank
    return None


def flat_words(rank: int | None, nodes: int) -> str:
    """``a flat search finds it 2nd: the walk lost it`` (in its first 3), else ``a flat search does not find it
    either (it ranks it 40th of 133)``; ``""`` for no rank."""
    if rank is None:
        return ""
    if rank <= 3:
        return f"a flat search finds it {ordinal(rank)}: the walk lost it"
    return f"a flat search does not find it either (it ranks it {ordinal(rank)} of {nodes:,})"
