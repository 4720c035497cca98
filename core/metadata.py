"""Document metadata: a read-only mapping that costs a corpus little memory.

A corpus of a million nodes holds a million metadata mappings, nearly all
with the same few keys in the same order (id, parent, source, title,
summary and the corpus's own). A ``dict`` per node, behind a read-only
proxy, costs about 310 bytes each; most of it repeats the same keys and an
oversized hash table. :class:`FrozenMetadata` keeps each mapping's values in
a tuple and shares one *layout* (key to position) between every mapping
with the same keys in the same order: about 140 bytes for seven keys.

It behaves as a read-only ``Mapping[str, Any]``: lookups, ``get``, ``in``,
iteration in insertion order, ``len``, ``keys``/``values``/``items``,
equality with any mapping (a ``dict`` included), ``copy()`` to a plain
``dict``, pickling. It has no way to change a value; like a ``dict`` or a
``mappingproxy``, it is not hashable.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any, Final

# Layouts by their keys, shared by every mapping with those keys in that order. A corpus has a handful;
# past this many distinct key orders (a corpus whose nodes each name their own keys) a mapping gets a
# layout of its own instead: as correct, only less shared, and the table cannot grow without bound.
_MAX_SHARED_LAYOUTS: Final = 4096
_layouts: dict[tuple[Any, ...], dict[Any, int]] = {}
# (id of a layout, keys added) -> (that layout, kept alive so its id is not reused; the layout with the keys added)
_extensions: dict[tuple[int, tuple[str, ...]], tuple[dict[Any, int], dict[Any, int]]] = {}


def _plain_text(keys: tuple[Any, ...]) -> bool:
    """Whether every key is exactly a ``str``: only such layouts are shared. Keys of other types may equal
    one another across types (``1 == True``, a ``str`` subclass and its text), and a shared layout would then
    hand one mapping another's keys."""
    for key in keys:  # noqa: SIM110 - a loop, not all() over a generator: it runs for every new layout
        if type(key) is not str:
            return False
    return True


def _layout_of(keys: tuple[Any, ...]) -> dict[Any, int]:
    found = _layouts.get(keys)
    if found is not None:
        return found
    layout = {key: position for position, key in enumerate(keys)}
    if len(_layouts) < _MAX_SHARED_LAYOUTS and _plain_text(keys):
        layout = _layouts.setdefault(keys, layout)  # two threads at once: both keep the same one
    return layout


class FrozenMetadata(Mapping[str, Any]):
    """A read-only copy of a mapping, stored as a shared key layout and a tuple of values.

    ``FrozenMetadata(mapping)`` copies ``mapping`` (shallowly: its keys and
    values are kept, not copied); a later change to ``mapping`` changes
    nothing here. An instance given to :meth:`of` is returned as it is,
    since nothing can change it.
    """

    __slots__ = ("_layout", "_values")

    _layout: dict[Any, int]
    _values: tuple[Any, ...]

    def __init__(self, mapping: Mapping[str, Any] | None = None) -> None:
        source: Mapping[str, Any] = {} if mapping is None else mapping
        if type(source) is not dict:
            source = dict(source)  # one pass over any mapping (or iterable of pairs), in its order
        self._layout = _layout_of(tuple(source))
        self._values = tuple(source.values())

    @classmethod
    def of(cls, mapping: Mapping[str, Any]) -> FrozenMetadata:
        """``mapping`` itself when it is already a ``FrozenMetadata``; otherwise a frozen copy of it."""
        if isinstance(mapping, FrozenMetadata):
            return mapping
        return cls(mapping)

    @classmethod
    def from_values(cls, keys: tuple[str, ...], values: tuple[Any, ...]) -> FrozenMetadata:
        """The mapping of ``keys[i]`` to ``values[i]``, built without a dict in between (for loaders).

        Raises ``ValueError`` when the lengths differ or a key repeats.
        """
        layout = _layout_of(keys)
        if len(layout) != len(values) or len(keys) != len(values):
            raise ValueError(f"{len(keys)} keys for {len(values)} values, or a key given twice: {keys!r}")
        made = cls.__new__(cls)
        made._layout = layout
        made._values = values
        return made

    @classmethod
    def maker(cls, keys: tuple[str, ...]) -> Callable[[tuple[Any, ...]], FrozenMetadata]:
        """A function from a tuple of values, one per key in ``keys`` (unchecked), to its mapping.

        For a loader that makes many mappings of one shape: the layout is
        found once, here (``ValueError`` when a key repeats), not per mapping.
        """
        layout = _layout_of(keys)
        if len(layout) != len(keys):
            raise ValueError(f"a key given twice: {keys!r}")
        new = object.__new__

        def make(values: tuple[Any, ...]) -> FrozenMetadata:
            made: FrozenMetadata = new(cls)
            made._layout = layout
            made._values = values
            return made

        return make

    def extended(self, keys: tuple[str, ...], values: tuple[Any, ...]) -> FrozenMetadata:
        """A copy with ``keys[i]`` set to ``values[i]``, as ``dict.update`` would: a new key goes after the
        others, a key it has already keeps its place, a key given twice keeps its last value. The walk adds
        three keys to every landed node's. ``ValueError`` when the lengths differ."""
        if len(keys) != len(values):
            raise ValueError(f"{len(keys)} keys for {len(values)} values: {keys!r}")
        layout = self._layout
        found = _extensions.get((id(layout), keys))
        if found is not None and found[0] is layout:
            wider = found[1]
        else:
            wider = _layout_of((*layout, *keys))
            if len(wider) != len(layout) + len(keys):  # a key it has, or one given twice
                merged = self.copy()
                merged.update(zip(keys, values, strict=True))
                return FrozenMetadata(merged)
            if len(_extensions) < _MAX_SHARED_LAYOUTS and _plain_text(keys):
                _extensions[(id(layout), keys)] = (layout, wider)
        made: FrozenMetadata = object.__new__(FrozenMetadata)
        made._layout = wider
        made._values = (*self._values, *values)
        return made

    def __getitem__(self, key: str) -> Any:
        return self._values[self._layout[key]]

    def get(self, key: str, default: Any = None) -> Any:
        position = self._layout.get(key)
        return default if position is None else self._values[position]

    def pair(self, first: str, second: str, default: Any = None) -> tuple[Any, Any]:
        """``(get(first, default), get(second))`` in one call, for a loop that runs once per node."""
        layout, values = self._layout, self._values
        at, other = layout.get(first), layout.get(second)
        return (default if at is None else values[at]), (None if other is None else values[other])

    def __contains__(self, key: object) -> bool:
        return key in self._layout

    def __iter__(self) -> Iterator[str]:
        return iter(self._layout)

    def __len__(self) -> int:
        return len(self._values)

    def copy(self) -> dict[str, Any]:
        """A plain, changeable ``dict`` with the same items in the same order (as ``mappingproxy.copy()``)."""
        return dict(zip(self._layout, self._values, strict=False))  # as long as each other, by construction

    def __eq__(self, other: object) -> bool:
        if type(other) is FrozenMetadata and other._layout is self._layout:
            return self._values == other._values
        if isinstance(other, Mapping):
            return self.copy() == dict(other)
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # a mapping of values that may change is not hashable

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenMetadata, (self.copy(),))

    def __repr__(self) -> str:
        return f"FrozenMetadata({self.copy()!r})"
