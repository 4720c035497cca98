"""Node paths that share structure, so extending one costs the same at any depth."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Final, overload

_new: Final = object.__new__


class NodePath(Sequence[str]):
    """An immutable root-first sequence of node ids, built by :meth:`child` in O(1).

    Paths down one branch share their prefix, so a walk 20,000 levels deep
    spends no more per visit than a shallow one. A ``NodePath`` equals the
    tuple of the same ids (and hashes like it); ``tuple(path)`` materialises it.
    """

    __slots__ = ("_id", "_len", "_parent")

    def __init__(self, ids: Sequence[str] = ()) -> None:
        parent: NodePath | None = None
        for node_id in ids[:-1]:
            parent = NodePath._link(parent, node_id)
        if ids:
            self._parent: NodePath | None = parent
            self._id: str | None = ids[-1]
            self._len: int = len(ids)
        else:
            self._parent = None
            self._id = None
            self._len = 0

    @staticmethod
    def _link(parent: NodePath | None, node_id: str) -> NodePath:
        path = NodePath.__new__(NodePath)
        path._parent = parent if parent is not None and parent._len else None
        path._id = node_id
        path._len = 1 + (parent._len if parent is not None else 0)
        return path

    def child(self, node_id: str) -> NodePath:
        """This path extended by one id."""
        path = _new(NodePath)  # _link, written out: this runs once per step of every walk
        length = self._len
        path._parent = self if length else None
        path._id = node_id
        path._len = length + 1
        return path

    @property
    def last(self) -> str | None:
        """The last id (the node the path leads to), or ``None`` for the empty path."""
        return self._id

    @property
    def parent(self) -> NodePath:
        """This path without its last id."""
        return self._parent if self._parent is not None else EMPTY_PATH

    def __len__(self) -> int:
        return self._len

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_tuple())

    def to_tuple(self) -> tuple[str, ...]:
        """The ids as a tuple, root first."""
        ids: list[str] = []
        node: NodePath | None = self
        while node is not None and node._id is not None:
            ids.append(node._id)
            node = node._parent
        ids.reverse()
        return tuple(ids)

    @overload
    def __getitem__(self, index: int) -> str: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[str, ...]: ...

    def __getitem__(self, index: int | slice) -> str | tuple[str, ...]:
        if isinstance(index, int) and index == -1 and self._id is not None:
            return self._id
        return self.to_tuple()[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, NodePath):
            if self is other:
                return True
            return self._len == other._len and self.to_tuple() == other.to_tuple()
        if isinstance(other, tuple):
            return self.to_tuple() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self.to_tuple())

    def __repr__(self) -> str:
        return f"NodePath({self.to_tuple()!r})"

    def __str__(self) -> str:
        return " > ".join(self.to_tuple())


EMPTY_PATH: Final = NodePath()
