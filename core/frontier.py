"""A best-first walk's frontier, the record of how it changed, and the scores by which a navigator's answer joins it.

Under ``Policy.BEST_FIRST`` every node the navigator chose (or scored above
0) waits in one frontier, whatever its depth, and the walk enters the one
with the highest path score next: ``alpha`` × the node's own score + (1 −
``alpha``) × its parent's path score (a root's path score is its own score).
Among equal path scores, the node that joined first goes first.

The queue (:class:`FrontierQueue`) is a binary heap: joining and leaving
cost the logarithm of the frontier's size. Events do not copy the frontier:
each says what changed (the pairs that joined, the ids that left) and keeps a
mark in the walk's :class:`FrontierLog`, which gives the frontier after that
event when asked (:meth:`FrontierLog.at`). What a walk keeps grows with the
changes, not with visits × the frontier's size.

:class:`FrontierLog` and :data:`Frontier` are what the events module needs
(it sits above this one); the queue and :func:`joining` are the best-first
walk's. Not part of ``core``'s API (``core.__all__``) apart from
:data:`Frontier`; the walk uses it and its tests read it.
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_right
from collections.abc import Iterable, Mapping
from typing import NamedTuple, TypeAlias

from .path import NodePath

Frontier: TypeAlias = tuple[tuple[str, float], ...]
"""A best-first walk's frontier, or a change to it: ``(id, path score)`` pairs.

A whole frontier is best first; ties in path score are in the order the nodes
joined (the first to join is entered first). Empty in every event of a
depth-first walk.
"""


class FrontierLog:
    """Every node that joined one walk's frontier, when it joined and when it left: the frontier at any mark.

    A mark counts the changes recorded so far (:meth:`record` returns the
    next one). The frontier at mark ``m`` holds the nodes that joined at or
    before ``m`` and had not left by ``m``, best first. A node joins and
    leaves once in a walk, so the log holds each node once, in the order of
    joining; what it says of a mark never changes once the mark is given out.
    """

    __slots__ = ("_ids", "_index", "_joined_at", "_left_at", "_marks", "_scores")

    _NEVER = 2**62
    """The mark of a node that has not left."""

    def __init__(self) -> None:
        self._ids: list[str] = []
        self._scores = array("d")
        self._joined_at = array("q")
        self._left_at = array("q")
        self._index: dict[str, int] = {}
        self._marks = 0

    def __len__(self) -> int:
        """How many nodes ever joined."""
        return len(self._ids)

    @property
    def marks(self) -> int:
        """The last mark given out (0: none)."""
        return self._marks

    def record(self, joined: Iterable[tuple[str, float]] = (), left: Iterable[str] = ()) -> int:
        """Note one event's change (``left`` before ``joined``); returns that event's mark.

        An id that leaves must be waiting, and an id that joins must not be
        (``ValueError`` naming it: only a damaged record breaks this).
        """
        self._marks += 1
        mark = self._marks
        for node_id in left:
            place = self._index.pop(node_id, None)
            if place is None:
                raise ValueError(f"{node_id!r} left the frontier without waiting in it")
            self._left_at[place] = mark
        for node_id, score in joined:
            if node_id in self._index:
                raise ValueError(f"{node_id!r} joined the frontier while waiting in it")
            self._index[node_id] = len(self._ids)
            self._ids.append(node_id)
            self._scores.append(score)
            self._joined_at.append(mark)
            self._left_at.append(self._NEVER)
        return mark

    def at(self, mark: int) -> Frontier:
        """The frontier after the event given ``mark``: ``(id, path score)`` pairs, best first, ties by joining.

        Made when asked, from the nodes that joined up to the mark (a scan and a sort): for one event's frontier.
        Whoever follows a walk event by event keeps the frontier from the changes instead, as the explorer does.
        """
        ids, scores, left_at = self._ids, self._scores, self._left_at
        end = bisect_right(self._joined_at, mark)  # joined at or before the mark: a prefix, in joining order
        waiting = [i for i in range(end) if left_at[i] > mark]
        waiting.sort(key=lambda i: -scores[i])  # stable: equal scores keep the order of joining
        return tuple([(ids[i], scores[i]) for i in waiting])


class Waiting(NamedTuple):
    """A node in the frontier: what the walk needs to enter it."""

    rank: float
    """Minus its path score: the heap's smallest is the best."""
    order: int
    """Its place in the order of joining: among equal scores, the first to join comes first."""
    node_id: str
    parent: NodePath
    """The path down to the node whose offer it joined from (empty for a root)."""
    depth: int

    @property
    def score(self) -> float:
        """Its path score."""
        return -self.rank


class FrontierQueue:
    """The nodes waiting to be entered, best first: highest path score, then the first to join.

    A binary heap of :class:`Waiting` (``heapq``): joining and taking the
    best cost the logarithm of its size. Each node joins at most once in a
    walk (a node is offered only when its parent is entered, and a node is
    entered once), so ``(rank, order)`` is unique and no two entries ever
    compare past it. Every change is noted in :attr:`log`.
    """

    __slots__ = ("_joined", "_waiting", "log")

    def __init__(self) -> None:
        self._waiting: list[Waiting] = []
        self._joined = 0
        self.log = FrontierLog()

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, node_id: str, score: float, parent: NodePath, depth: int) -> None:
        """Let ``node_id`` join with path ``score``, after every node that joined before it (not yet logged)."""
        self._joined += 1
        heapq.heappush(self._waiting, Waiting(-score, self._joined, node_id, parent, depth))

    def pop(self) -> Waiting:
        """Take the best node out (``IndexError`` when empty; not yet logged)."""
        return heapq.heappop(self._waiting)

    def drain(self) -> list[Waiting]:
        """Take every node out, best first (not logged: the walk has ended)."""
        left = sorted(self._waiting)
        self._waiting.clear()
        return left

    def best(self, count: int) -> list[Waiting]:
        """The ``count`` best nodes waiting, best first, left in place."""
        return heapq.nsmallest(count, self._waiting)


def joining(
    selected: tuple[str, ...], offered: frozenset[str], scores: Mapping[str, float] | None
) -> list[tuple[str, float]]:
    """The ids an answer adds to the frontier, each with its own score, in the order they join.

    ``selected`` is the answer's ids without duplicates, in the navigator's
    order, and ``scores`` the counted scores (:func:`core.navigator.counted_scores`). First
    the selected ids that were offered, in the navigator's order, each with
    its score, or, unscored, with the score of its place among the selected
    ids: the i-th of n (from 0) scores (n − i) / n, where n counts every
    selected id, one that was not offered included (the navigator ranked it
    there). Then every other offered id scored above 0, in the order offered.
    So among equal path scores the navigator's own choices go first.
    """
    count = len(selected)
    joined: list[tuple[str, float]] = []
    for place, node_id in enumerate(selected):
        if node_id in offered:
            score = scores.get(node_id) if scores is not None else None
            joined.append((node_id, (count - place) / count if score is None else score))
    if scores is not None:
        chosen = set(selected)
        joined.extend((node_id, score) for node_id, score in scores.items() if score > 0 and node_id not in chosen)
    return joined
