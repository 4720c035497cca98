"""The hierarchy: documents linked by parent ids into an ordered forest."""

from __future__ import annotations

import gc
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Final

from .documents import HierarchyMetadata, RetrievedDocument
from .errors import HierarchyError
from .metadata import FrozenMetadata
from .views import NodeViews

_NO_IDS: Final[tuple[str, ...]] = ()
_MAX_NAMED: Final = 10


def _name_ids(ids: Iterable[str]) -> str:
    """Name ids in a message: sorted, at most ten, then how many more."""
    ordered = sorted(ids)
    shown = ", ".join(repr(i) for i in ordered[:_MAX_NAMED])
    more = len(ordered) - _MAX_NAMED
    return shown + (f" and {more} more" if more > 0 else "")


def node_id_of(document: RetrievedDocument) -> str:
    """The hierarchy id of a document: ``metadata[HierarchyMetadata.ID]``, else ``document.id``.

    Raises :class:`HierarchyError` when that id is not a string or is blank.
    """
    raw = document.metadata.get(HierarchyMetadata.ID, document.id)
    if not isinstance(raw, str):
        raise HierarchyError(
            f"document {document.id!r} has {HierarchyMetadata.ID} {raw!r} ({type(raw).__name__}); "
            "hierarchy ids must be strings"
        )
    if not raw.strip():
        raise HierarchyError(f"document {document.id!r} has a blank hierarchy id; give every node an id")
    return raw


def parent_id_of(document: RetrievedDocument) -> str | None:
    """The parent id of a document, or ``None`` for a root (absent, ``None`` or ``""``)."""
    raw = document.metadata.get(HierarchyMetadata.PARENT_ID)
    if raw is None or raw == "":
        return None
    if not isinstance(raw, str):
        raise HierarchyError(
            f"document {document.id!r} has {HierarchyMetadata.PARENT_ID} {raw!r} "
            f"({type(raw).__name__}); parent ids must be strings"
        )
    return raw


class HierarchyIndex:
    """An ordered forest of documents, checked once when built.

    A node's id is ``metadata[HierarchyMetadata.ID]`` or, where that key is
    absent, ``document.id``. A node whose ``HierarchyMetadata.PARENT_ID`` is
    absent, ``None`` or ``""`` is a root. Children and roots keep the order in
    which the documents were given.

    Building raises :class:`HierarchyError` (a ``ValueError``) naming the
    offending ids for a blank or non-string id, a duplicate id, an unknown
    parent, or nodes that no root reaches (a cycle). Nothing here recurses per
    level, so arbitrarily deep chains load.

    Lookups by an unknown id: ``get`` returns ``None``; ``index[id]``,
    ``children``, ``parent`` and ``depth`` raise ``KeyError`` naming the id.

    The index never changes once built. What navigators are shown of its
    nodes (:meth:`node_views`) is built on first use and kept here, shared by
    every strategy and walk over the index.
    """

    __slots__ = ("_children", "_depth", "_documents", "_node_views", "_root_ids", "_roots")

    def __init__(self, documents: Iterable[RetrievedDocument]) -> None:
        # Building allocates millions of small acyclic objects; full cyclic collections during
        # the build find nothing and cost seconds at a million nodes.
        collecting = gc.isenabled()
        gc.disable()
        try:
            self._build(documents)
        finally:
            if collecting:
                gc.enable()

    def _build(self, documents: Iterable[RetrievedDocument]) -> None:
        docs: dict[str, RetrievedDocument] = {}
        parents: list[str | None] = []  # of each node in ``docs``, in the same order
        duplicates: set[str] = set()
        id_key, parent_key = HierarchyMetadata.ID, HierarchyMetadata.PARENT_ID
        add_parent = parents.append
        for document in documents:
            # node_id_of and parent_id_of, inlined for the usual case: this loop runs once per node.
            metadata = document.metadata
            if type(metadata) is FrozenMetadata:
                layout, values = metadata._layout, metadata._values  # pair(), without a call per node
                at, above = layout.get(id_key), layout.get(parent_key)
                node_id = document.id if at is None else values[at]
                parent = None if above is None else values[above]
            else:
                node_id, parent = metadata.get(id_key, document.id), metadata.get(parent_key)
            if type(node_id) is not str or not node_id.strip():
                node_id = node_id_of(document)  # raises, saying what is wrong with it
            if node_id in docs:  # before the parent is checked: a duplicate is the error to name
                duplicates.add(node_id)
                continue
            if parent is not None and (type(parent) is not str or not parent):
                parent = parent_id_of(document)  # None for "", or raises
            docs[node_id] = document
            add_parent(parent)
        if duplicates:
            raise HierarchyError(f"duplicate node ids: {_name_ids(duplicates)}; every id must be unique")

        roots: list[RetrievedDocument] = []
        root_ids: list[str] = []
        child_ids: dict[str, list[str]] = {}
        unknown: dict[str, str] = {}
        for (node_id, document), parent in zip(docs.items(), parents, strict=True):
            if parent is None:
                roots.append(document)
                root_ids.append(node_id)
                continue
            children = child_ids.get(parent)
            if children is not None:
                children.append(node_id)
            elif parent in docs:
                child_ids[parent] = [node_id]
            else:
                unknown[node_id] = parent
        if unknown:
            pairs = sorted(unknown.items())
            named = ", ".join(f"{child!r} (parent {parent!r})" for child, parent in pairs[:_MAX_NAMED])
            more = len(pairs) - _MAX_NAMED
            raise HierarchyError(
                f"unknown parent ids for nodes {named}" + (f" and {more} more" if more > 0 else "")
            )

        # Every node must be reached from a root, else its parents form a cycle. Counted breadth-first, level by
        # level (no recursion, so depth is unbounded), in C-level iteration: nothing is stored per node here.
        reached = 0
        level: list[str] = root_ids
        while level:
            reached += len(level)
            level = list(chain.from_iterable(filter(None, map(child_ids.get, level))))
        if reached != len(docs):
            found: set[str] = set()
            level = root_ids
            while level:
                found.update(level)
                level = list(chain.from_iterable(filter(None, map(child_ids.get, level))))
            stranded = [node_id for node_id in docs if node_id not in found]
            raise HierarchyError(
                f"nodes not reachable from any root (a cycle of parent ids): {_name_ids(stranded)}"
            )

        # A node's parent is not kept apart: its document says it (checked above), and a million nodes
        # spare a dict of a million entries.
        self._documents = docs
        self._children = {key: tuple(value) for key, value in child_ids.items()}
        self._roots = tuple(roots)
        self._root_ids = tuple(root_ids)
        self._depth: dict[str, int] = {}  # filled as depths are asked for (see depth())
        self._node_views: dict[tuple[str, str], NodeViews] = {}

    @classmethod
    def merge(cls, indexes: Iterable[HierarchyIndex]) -> HierarchyIndex:
        """One index holding the nodes of several, in order; a shared id is a :class:`HierarchyError`."""
        parts = list(indexes)
        seen: set[str] = set()
        shared: set[str] = set()
        for part in parts:
            for node_id in part._documents:
                if node_id in seen:
                    shared.add(node_id)
                seen.add(node_id)
        if shared:
            raise HierarchyError(f"node ids found in more than one hierarchy: {_name_ids(shared)}")
        return cls(doc for part in parts for doc in part._documents.values())

    def roots(self, sources: Iterable[str] | None = None) -> tuple[RetrievedDocument, ...]:
        """The roots in order; with ``sources``, only those whose ``SOURCE`` metadata is among them.

        A single string is taken as one source name, not as a sequence of letters.
        """
        if sources is None:
            return self._roots
        wanted = {sources} if isinstance(sources, str) else set(sources)
        return tuple(r for r in self._roots if r.metadata.get(HierarchyMetadata.SOURCE) in wanted)

    def root_ids(self, sources: Iterable[str] | None = None) -> tuple[str, ...]:
        """The ids of :meth:`roots`, in the same order."""
        if sources is None:
            return self._root_ids
        return tuple(node_id_of(root) for root in self.roots(sources))

    def children(self, node_id: str) -> tuple[RetrievedDocument, ...]:
        """The children of ``node_id`` in order (empty for a leaf)."""
        documents = self._documents
        return tuple(documents[child] for child in self.child_ids(node_id))

    def child_ids(self, node_id: str) -> tuple[str, ...]:
        """The ids of the children of ``node_id`` in order (empty for a leaf)."""
        found = self._children.get(node_id)
        if found is not None:
            return found
        self._require(node_id)
        return _NO_IDS

    def has_children(self, node_id: str) -> bool:
        """Whether ``node_id`` has at least one child."""
        if node_id in self._children:
            return True
        self._require(node_id)
        return False

    def get(self, node_id: str) -> RetrievedDocument | None:
        """The document with this id, or ``None``."""
        return self._documents.get(node_id)

    def parent(self, node_id: str) -> RetrievedDocument | None:
        """The parent document, or ``None`` for a root."""
        parent = parent_id_of(self[node_id])
        return None if parent is None else self._documents[parent]

    def depth(self, node_id: str) -> int:
        """Levels below the top: a root has depth 0.

        Worked out on first asking, up the parents to the nearest node whose
        depth is known, and kept for the node and every one on the way (so
        asking for every node's depth costs one step per node in all): a
        million-node index spares a dict of a million depths nobody reads.
        """
        known = self._depth
        found = known.get(node_id)
        if found is not None:
            return found
        self._require(node_id)
        documents = self._documents
        climbed: list[str] = []
        current: str | None = node_id
        while current is not None and current not in known:
            climbed.append(current)
            current = parent_id_of(documents[current])
        depth = -1 if current is None else known[current]
        for passed in reversed(climbed):
            depth += 1
            known[passed] = depth
        return depth

    def path(self, node_id: str) -> tuple[str, ...]:
        """The ids from the root down to ``node_id`` (inclusive)."""
        documents = self._documents
        self._require(node_id)
        ids: list[str] = []
        current: str | None = node_id
        while current is not None:
            ids.append(current)
            current = parent_id_of(documents[current])
        ids.reverse()
        return tuple(ids)

    def node_views(self, title_key: str, summary_key: str) -> NodeViews:
        """The views and offers of this index's nodes with titles and summaries read from these metadata keys.

        One table per pair of keys, kept on the index, so every strategy over
        it (and every walk of each) builds a node's view and its children's
        offer once. See :mod:`core.views`.
        """
        keys = (title_key, summary_key)
        found = self._node_views.get(keys)
        if found is None:
            made = NodeViews(self._documents, self._children, self._root_ids, title_key, summary_key)
            found = self._node_views.setdefault(keys, made)
        return found

    def ids(self) -> Iterator[str]:
        """Every node id, in the order the documents were given."""
        return iter(self._documents)

    def _require(self, node_id: str) -> None:
        if node_id not in self._documents:
            raise KeyError(f"no node with id {node_id!r} in this hierarchy")

    def __getitem__(self, node_id: str) -> RetrievedDocument:
        self._require(node_id)
        return self._documents[node_id]

    def __contains__(self, node_id: object) -> bool:
        return node_id in self._documents

    def __len__(self) -> int:
        return len(self._documents)

    def __iter__(self) -> Iterator[RetrievedDocument]:
        return iter(self._documents.values())

    def __repr__(self) -> str:
        return f"HierarchyIndex({len(self._documents)} nodes, {len(self._roots)} roots)"
