"""Telling a caller how far a corpus load has got, and keeping the collector out of a big load.

A caller passes ``progress=callback`` to :func:`explorer.corpora.load_corpus`;
the loaders call ``callback(stage, done, total)``:

``stage``
    what is being done, one of :class:`Stage`'s values: ``"reading"`` (the
    file's bytes; a folder: its Markdown files), ``"scanning"`` (a folder's
    subfolders), ``"parsing"`` (the whole file at once: ``done`` is 0, then
    1 of 1 when it is parsed), ``"building"`` (nodes made), ``"indexing"``
    (the tree checked and indexed: 0, then 1 of 1), ``"reading pages"`` (a PDF's pages, their text and
    look) and ``"summarising"`` (a PDF's nodes given summaries by an LLM, ``--summaries``).
``done``, ``total``
    how many of how many (bytes, files, folders, nodes); ``total`` is
    ``None`` where it is not known in advance.

Each stage starts with ``done == 0`` and ends with ``done == total`` where the
total is known. Between those the callback is called at a modest rate: when
another hundredth of the total is done (or, with no total, every few thousand
items), never once per node, so a callback may redraw a screen.

A ``KeyboardInterrupt`` (Ctrl+C) during a load, whether it arrives in the
loader or is raised by the callback, propagates as it is; the load leaves
nothing behind (no partial corpus, the garbage collector as it was). Any
other exception the callback raises also propagates unchanged: it is never
reported as a problem of the corpus.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from enum import StrEnum
from typing import Any, Final

ProgressCallback = Callable[[str, int, int | None], None]
SummaryHook = Callable[[Any, "Progress"], object]
"""What writes a PDF tree's summaries in place (given the tree as ``json`` would read it, and the load's progress)."""

_UNKNOWN_TOTAL_STEP: Final = 5000


class Stage(StrEnum):
    READING = "reading"
    SCANNING = "scanning"
    PARSING = "parsing"
    BUILDING = "building"
    INDEXING = "indexing"
    PAGES = "reading pages"
    SUMMARISING = "summarising"


class CallbackFailed(BaseException):
    """A progress callback raised: carried past the loaders' catch-alls, unwrapped by ``load_corpus``."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class Progress:
    """A stage's progress, calling the callback when another hundredth of the work is done.

    ``tick(done)`` is cheap enough to call per item: it compares two integers
    and calls the callback only at the next threshold.
    """

    __slots__ = ("_callback", "_last", "_next", "_stage", "_step", "_total")

    def __init__(self, callback: ProgressCallback | None) -> None:
        self._callback = callback
        self._stage = ""
        self._total: int | None = None
        self._step = _UNKNOWN_TOTAL_STEP
        self._next = 0 if callback is not None else 1 << 62
        self._last = -1

    @property
    def active(self) -> bool:
        return self._callback is not None

    def start(self, stage: Stage, total: int | None = None) -> None:
        """A new stage: reported at once with ``done == 0``."""
        if self._callback is None:
            return
        self._stage, self._total = stage.value, total
        self._step = max(1, total // 100) if total else _UNKNOWN_TOTAL_STEP
        self._next = self._step
        self._call(0)

    def tick(self, done: int) -> None:
        if done >= self._next:
            self._next = done + self._step
            self._call(done)

    def finish(self, done: int | None = None) -> None:
        """The stage is over: reported with ``done`` (default: the total)."""
        if self._callback is None:
            return
        done = done if done is not None else (self._total or 0)
        if done != self._last:
            self._call(done)
        self._next = 1 << 62

    def whole(self, stage: Stage) -> _Whole:
        """A stage done in one go (parsing, indexing): 0 of 1 on entry, 1 of 1 on a normal exit."""
        return _Whole(self, stage)

    def _call(self, done: int) -> None:
        if self._callback is None:
            return
        self._last = done
        try:
            self._callback(self._stage, done, self._total)
        except Exception as exc:
            raise CallbackFailed(exc) from exc


class _Whole:
    def __init__(self, progress: Progress, stage: Stage) -> None:
        self.progress = progress
        self.stage = stage

    def __enter__(self) -> None:
        self.progress.start(self.stage, 1)

    def __exit__(self, kind: object, value: object, traceback: object) -> None:
        if kind is None:
            self.progress.finish(1)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic garbage collector off while a load runs, as it was afterwards (even on Ctrl+C).

    A load allocates millions of small objects that form no cycles; full
    collections over them find nothing and took about 70% of a 100,000-node
    YAML load.
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
