"""Walks saved in files, listed from their headers and read whole only when they are needed.

A folder of 10,000 recorded traces, or a span file of 10,000 walks, opens as the session's walk list from what the
list and the walk chooser show: each walk's header (its query, settings, corpus, when it was made) and where the
rest is. A :class:`SavedWalk` reads the rest (the trace's events, or the span walk rebuilt on its corpus) when its
walk is first shown, stepped or compared (:class:`~explorer.walks.walk_list.Walk`). A trace already read is a saved
walk too (:meth:`explorer.trace.Trace.read`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol, TypeVar

from ..trace import Trace, TraceHeader, read_trace
from ..walk_settings import WalkSettings

__all__ = ["SavedWalk", "TraceFile", "in_session_order", "resumed_settings"]


class SavedWalk(Protocol):
    """A walk in a file: its header at hand, the rest read by :meth:`read`."""

    @property
    def path(self) -> Path: ...

    @property
    def header(self) -> TraceHeader: ...

    def read(self) -> Trace:
        """The whole walk; a ``ValueError`` of one line (naming the file, the line and what to do) when it cannot
        be read."""
        ...


@dataclass(frozen=True)
class TraceFile:
    """A trace file listed from its header (:func:`~explorer.trace.read_trace_header`)."""

    path: Path
    header: TraceHeader

    def read(self) -> Trace:
        """The trace, read whole; :class:`~explorer.trace.TraceError` for one damaged after its header, or
        saved again on another corpus since it was listed."""
        return read_trace(self.path, self.header.corpus_sha256, "the one it was listed with")


class _HasHeader(Protocol):
    @property
    def header(self) -> TraceHeader: ...


_Saved = TypeVar("_Saved", bound=_HasHeader)
_WALKED_ANEW: Final = ("walk", "restart")
"""The origins (values of ``explorer.walks.history.Origin``, which sits above this module) of a walk walked with the
settings of its moment, not made from another walk (a fork, a re-walk, a prompt variant's)."""


def in_session_order(walks: Sequence[_Saved]) -> list[_Saved]:
    """A session's kept walks in the order they were walked (by the number each kept in its header's ``walk``
    block); walks kept without one (by an explorer before it) after them, oldest first."""
    return sorted(walks, key=lambda w: (w.header.walk is None, w.header.walk.number if w.header.walk else 0,
                                        w.header.created))


def resumed_settings(walks: Sequence[_HasHeader]) -> tuple[WalkSettings, str] | None:
    """What the next walk of a resumed session is walked with, and which walk that is (``walk 1``): the settings
    of its last walk walked anew (a fork, a re-walk or a prompt variant's walk is made from another walk, and does
    not change the next walk); ``None`` for no walk. ``walks`` in session order (:func:`in_session_order`)."""
    anew = [w for w in walks if w.header.walk is None or w.header.walk.origin in _WALKED_ANEW]
    last = (anew or list(walks))[-1:] if walks else []
    if not last:
        return None
    place = last[0].header.walk
    return last[0].header.settings, f"walk {place.number}" if place is not None else "the last walk"
