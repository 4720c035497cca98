"""Walks saved in files, listed from their headers and read whole only when they are needed.

A folder of 10,000 recorded traces, or a span file of 10,000 walks, opens as the session's walk list from what the
list and the walk chooser show: each walk's header (its query, settings, corpus, when it was made) and where the
rest is. A :class:`SavedWalk` reads the rest (the trace's events, or the span walk rebuilt on its corpus) when its
walk is first shown, stepped or compared (:class:`~explorer.walks.walk_list.Walk`). A trace already read is a saved
walk too (:meth:`explorer.trace.Trace.read`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..trace import Trace, TraceHeader, read_trace

__all__ = ["SavedWalk", "TraceFile"]


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
