"""A best-first walk's frontier as the screen shows it, rebuilt from the changes its events say.

A best-first event carries what changed in the frontier (``joined``, ``left``), never the whole frontier, so the
state of a walk (:class:`~explorer.walks.state.WalkState`) keeps the frontier itself, applying each change as the
event comes: a heap with lazy removal, so a change costs the logarithm of the frontier's size and the best few are
read without sorting the rest. The order is the walk's: highest path score first, then the first to join.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable

from core import Frontier


class WaitingNodes:
    """The nodes waiting in a best-first walk's frontier, with their path scores.

    Entries of the heap are ``(-path score, order of joining, id)``; an id that left stays in the heap until it
    comes to the top (``_order`` holds the order of each id still waiting, so an entry whose order differs is dead).
    """

    __slots__ = ("_heap", "_joined", "_order")

    def __init__(self) -> None:
        self._heap: list[tuple[float, int, str]] = []
        self._order: dict[str, int] = {}
        self._joined = 0

    def __len__(self) -> int:
        return len(self._order)

    def __bool__(self) -> bool:
        return bool(self._order)

    def __eq__(self, other: object) -> bool:
        """The same nodes waiting, with the same path scores, in the same order (two states compare by it)."""
        if not isinstance(other, WaitingNodes):
            return NotImplemented
        return self.all() == other.all()

    __hash__ = None  # type: ignore[assignment]  # changes in place: no hash

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._order

    def change(self, joined: Frontier, left: Iterable[str]) -> None:
        """Apply one event's change: ``left`` leave (an id not waiting is ignored), then ``joined`` join in order
        (an id already waiting joins again, at its new score, behind the others)."""
        order = self._order
        for node_id in left:
            order.pop(node_id, None)
        heap = self._heap
        for node_id, score in joined:
            self._joined += 1
            order[node_id] = self._joined
            heapq.heappush(heap, (-score, self._joined, node_id))
        while heap and order.get(heap[0][2]) != heap[0][1]:  # the dead at the top go at once
            heapq.heappop(heap)
        if len(heap) > 2 * len(order) + 64:  # many dead inside: rebuild from the living
            self._heap = [entry for entry in heap if order.get(entry[2]) == entry[1]]
            heapq.heapify(self._heap)

    def best(self, count: int) -> Frontier:
        """The ``count`` best nodes waiting, best first, as ``(id, path score)`` pairs.

        Walks the heap from its top, best first, through a small heap of the entries seen: about ``count`` × log
        ``count`` steps (plus the dead entries met), whatever the frontier's size.
        """
        heap, order = self._heap, self._order
        found: list[tuple[str, float]] = []
        seen: list[tuple[tuple[float, int, str], int]] = [(heap[0], 0)] if heap else []
        while seen and len(found) < count:
            entry, place = heapq.heappop(seen)
            if order.get(entry[2]) == entry[1]:
                found.append((entry[2], -entry[0]))
            for child in (2 * place + 1, 2 * place + 2):
                if child < len(heap):
                    heapq.heappush(seen, (heap[child], child))
        return tuple(found)

    def all(self) -> Frontier:
        """Every node waiting, best first (what a best-first event's ``frontier`` gives)."""
        return self.best(len(self._order))

    def copy(self) -> WaitingNodes:
        """A copy that changes apart from this one."""
        twin = WaitingNodes()
        twin._heap, twin._order, twin._joined = list(self._heap), dict(self._order), self._joined
        return twin
