"""A best-first walk's frontier, and the scores by which a navigator's answer joins it.

Under ``Policy.BEST_FIRST`` every node the navigator chose (or scored above
0) waits in one frontier, whatever its depth, and the walk enters the one
with the highest path score next: ``alpha`` × the node's own score + (1 −
``alpha``) × its parent's path score (a root's path score is its own score).
Among equal path scores, the node that joined first goes first.

Not part of ``core``'s API (``core.__all__``); the walk uses it and its
tests read it.
"""

from __future__ import annotations

from bisect import insort
from collections.abc import Mapping
from typing import NamedTuple

from .events import Frontier
from .path import NodePath


class Waiting(NamedTuple):
    """A node in the frontier: what the walk needs to enter it."""

    score: float
    """Its path score."""
    order: int
    """Minus its place in the order of joining: among equal scores, the first to join compares highest."""
    node_id: str
    parent: NodePath
    """The path down to the node whose offer it joined from (empty for a root)."""
    depth: int


class FrontierQueue:
    """The nodes waiting to be entered, best first: highest path score, then the first to join.

    Kept as a list sorted worst first, so the best is taken from its end.
    Each node joins at most once in a walk (a node is offered only when its
    parent is entered, and a node is entered once), so ``(score, order)`` is
    unique and no two entries ever compare past it.
    """

    __slots__ = ("_joined", "_snapshot", "_waiting")

    def __init__(self) -> None:
        self._waiting: list[Waiting] = []
        self._joined = 0
        self._snapshot: Frontier | None = ()

    def __len__(self) -> int:
        return len(self._waiting)

    def add(self, node_id: str, score: float, parent: NodePath, depth: int) -> None:
        """Let ``node_id`` join with path ``score``, after every node that joined before it."""
        self._joined += 1
        insort(self._waiting, Waiting(score, -self._joined, node_id, parent, depth))
        self._snapshot = None

    def pop(self) -> Waiting:
        """Take the best node out (``IndexError`` when empty)."""
        best = self._waiting.pop()
        self._snapshot = None
        return best

    def drain(self) -> list[Waiting]:
        """Take every node out, best first."""
        left = self._waiting[::-1]
        self._waiting.clear()
        self._snapshot = ()
        return left

    def snapshot(self) -> Frontier:
        """The frontier as events show it: ``(id, path score)`` pairs, best first (kept until it changes)."""
        found = self._snapshot
        if found is None:
            found = self._snapshot = tuple([(w.node_id, w.score) for w in reversed(self._waiting)])
        return found


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
