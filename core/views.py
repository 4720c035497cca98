"""What a navigator is shown of an index's nodes, built once per node per index.

A walk shows the navigator a node's children as :class:`NodeView` objects
(id, title, summary). Those views, and what each offer ships (the candidate
views, the offered ids, the characters of title and summary), depend only on
the index and on which metadata keys hold the title and the summary, so they
are built the first time a node is needed and kept on the index
(:meth:`HierarchyIndex.node_views`): every strategy over that index, and every
walk of each, shares them. An index never changes after it is built, so
nothing here is ever stale; a strategy that reads its titles or summaries from
other keys gets a table of its own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from .documents import HierarchyMetadata, RetrievedDocument
from .navigator import NodeView


class Offer:
    """One offer as a walk makes it: the children of ``current`` (or the roots, ``current`` ``None``).

    ``ids`` and ``views`` are the candidates in order, ``offered`` the same
    ids as a set (to check the navigator's answer), ``chars`` the characters
    of title and summary shipped: the current node's and every candidate's.
    Built once per node per :class:`NodeViews`; never mutated.
    """

    __slots__ = ("chars", "current", "ids", "offered", "views")

    def __init__(self, current: NodeView | None, ids: tuple[str, ...], views: tuple[NodeView, ...]) -> None:
        self.current = current
        self.ids = ids
        self.views = views
        self.offered = frozenset(ids)
        chars = sum([len(v.title) + len(v.summary) for v in views])
        if current is not None:
            chars += len(current.title) + len(current.summary)
        self.chars = chars

    def __repr__(self) -> str:
        where = "the roots" if self.current is None else f"the children of {self.current.id!r}"
        return f"Offer({where}: {len(self.ids)} candidates, {self.chars} chars)"


_ALL_ROOTS: Final = None


class NodeViews:
    """The views and offers of one index's nodes under one pair of title/summary keys.

    Absent ``title_key``, a node's title is its id; absent ``summary_key``,
    its summary is ``""``; a value that is not a string is shown as
    ``str(value)``. Get one from :meth:`HierarchyIndex.node_views`, which
    keeps one per pair of keys. Safe to share between threads: two threads
    that build the same view at once build equal ones, and either is kept.
    """

    __slots__ = ("_children", "_documents", "_offers", "_root_ids", "_root_offers", "_views", "summary_key",
                 "title_key")

    def __init__(
        self,
        documents: Mapping[str, RetrievedDocument],
        children: Mapping[str, tuple[str, ...]],
        root_ids: tuple[str, ...],
        title_key: str,
        summary_key: str,
    ) -> None:
        # The index's own mappings, not the index: no reference cycle keeps a large index alive.
        self._documents = documents
        self._children = children
        self._root_ids = root_ids
        self.title_key = title_key
        self.summary_key = summary_key
        self._views: dict[str, NodeView] = {}
        self._offers: dict[str, Offer] = {}
        self._root_offers: dict[tuple[str, ...] | None, Offer] = {}

    def view(self, node_id: str) -> NodeView:
        """What a navigator sees of ``node_id``; ``KeyError`` naming it when the index has no such node."""
        found = self._views.get(node_id)
        if found is not None:
            return found
        document = self._documents.get(node_id)
        if document is None:
            raise KeyError(f"no node with id {node_id!r} in this hierarchy")
        metadata = document.metadata
        title = metadata.get(self.title_key)
        summary = metadata.get(self.summary_key)
        view = NodeView(node_id, node_id if title is None else str(title), "" if summary is None else str(summary))
        return self._views.setdefault(node_id, view)

    def children(self, node_id: str) -> Offer | None:
        """The offer of ``node_id``'s children, or ``None`` for a leaf (``KeyError`` for an unknown id)."""
        found = self._offers.get(node_id)
        if found is not None:
            return found
        ids = self._children.get(node_id)
        if ids is None:
            self.view(node_id)  # raises for an unknown id
            return None
        offer = Offer(self.view(node_id), ids, tuple(map(self.view, ids)))
        return self._offers.setdefault(node_id, offer)

    def roots(self, sources: tuple[str, ...] | None = _ALL_ROOTS) -> Offer | None:
        """The offer of the roots (only those whose ``SOURCE`` is in ``sources``, when given), or ``None``."""
        found = self._root_offers.get(sources)
        if found is not None:
            return found
        if sources is None:
            ids = self._root_ids
        else:
            wanted = set(sources)
            documents = self._documents
            ids = tuple(i for i in self._root_ids if documents[i].metadata.get(HierarchyMetadata.SOURCE) in wanted)
        if not ids:
            return None
        offer = Offer(None, ids, tuple(map(self.view, ids)))
        return self._root_offers.setdefault(sources, offer)

    def __repr__(self) -> str:
        return (f"NodeViews(title {self.title_key!r}, summary {self.summary_key!r}: {len(self._views)} views, "
                f"{len(self._offers) + len(self._root_offers)} offers)")
