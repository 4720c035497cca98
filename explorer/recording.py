"""Recording an application's walks as traces the explorer opens: :class:`WalkRecorder`.

An application that walks with ``core`` records every walk it makes, one standard trace file each, into a
folder; ``reasoning-explorer FOLDER`` (or ``replay``, ``diff``, ``export`` on one file) then steps through them,
forks them, re-walks them with another budget and compares them::

    from core import ReasoningRAGStrategy
    from explorer.corpora import load_corpus
    from explorer.recording import WalkRecorder

    corpus = load_corpus("handbook.yaml")
    strategy = ReasoningRAGStrategy(corpus.index, MyNavigator(), "mine:v1")
    recorder = WalkRecorder("walks/", corpus)
    documents = recorder.retrieve(strategy, "how long do refunds take")   # strategy.retrieve, recorded
    for event in recorder.walk(strategy, "refunds", cancellation=token):  # strategy.walk, recorded
        ...
    recorder.close()  # waits for the last files to be written

What it promises the application:

* **It never fails or holds the walk.** Events pass through as ``strategy.walk`` yields them; a finished walk is
  handed to one writer thread through a bounded queue (``queue_size`` walks). A full queue drops the walk, a
  write that fails (a full disk, a folder removed) is counted; each kind is logged once, as a warning of the
  ``explorer.recording`` logger, and counted in :attr:`WalkRecorder.dropped` and :attr:`WalkRecorder.failed`.
* **It is thread-safe**: one recorder serves any number of threads walking at once.
* **It keeps what traces keep**: the corpus's identity (path, hash, source, format) from the ``load_corpus``
  result, the settings from the walk's own ``WalkStarted``, every event with its transcript, and how the walk
  ended (a walk the application stopped pulling is saved as cancelled). Secrets are masked as in every trace.
* **It is bounded on disk**: once the folder's recorded traces pass ``max_bytes`` (100 MB by default), the
  oldest are removed (only files this recorder's naming matches: ``walk-*.jsonl``). A recorder opened on the
  folder removes the temporary files a recorder killed mid-write left there (``.walk-….tmp``, whose writer is gone).

**Sending the walks to OTLP as well** (a tracing tool: Phoenix, Langfuse, an OpenTelemetry collector): hand the
recorder ``send_to``, observers each finished walk's one record (:class:`explorer.trace.FinishedWalk`, the record
its trace is written from) is given after its trace is written, on the writer thread.
The explorer's exporter is one: :meth:`explorer.walks.telemetry.WalkTelemetry.export_walk` sends a walk's spans
(OpenInference conventions) to an OTLP/HTTP endpoint and/or writes them to an OTLP JSON file, which the explorer,
``replay``, ``diff`` and ``export`` open as walks::

    from explorer.walks.telemetry import WalkTelemetry

    telemetry = WalkTelemetry(endpoint="http://127.0.0.1:6006", file="walks.otlp.jsonl")
    recorder = WalkRecorder("walks/", corpus, send_to=[telemetry.export_walk])
    ...
    recorder.close()   # the last walks written and sent
    telemetry.close()

A sender runs on the writer thread, never in the application's walk, so it holds no walk; the exporter's own
deadline (two seconds a walk) bounds how long one send takes, and an endpoint that fails is reported once and
not tried again. A sender that raises is counted in :attr:`WalkRecorder.unsent` and logged once, as a write
error is; the walk's trace is kept either way. Each walk's spans carry the times its events passed through the
recorder.

File names sort by time: ``walk-20261201T120000.123456Z-4242-7.jsonl`` (UTC, the process id, a count).

**Walks the explorer's sessions run** are kept the same way: :meth:`WalkRecorder.keep` is a sink of a walk's end
(``explorer.walks.wiring.Sink``, inline: it only queues), so a ``WalkSession(...,
hook=EndHook((Sink(recorder.keep),)))``, or a program's ``Wiring(observers=(recorder.keep,))`` (whose ``hook()``
every session of the program is made with), has each of its walks recorded here as it ends, from the same one record
its other sinks get.
"""

from __future__ import annotations

import logging
import os
import queue
import re
import threading
import time
import weakref
from collections import deque
from collections.abc import Generator, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from core import (
    CancellationToken,
    HierarchyIndex,
    RAGContext,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievedDocument,
    WalkEvent,
    WalkFinished,
    WalkStarted,
    drain,
)

from .corpora import Corpus, load_corpus
from .ending import WalkEnd
from .trace import FinishedWalk, remove_stale_temporaries, write_trace
from .walk_settings import WalkSettings
from .walks.history import finished_walk
from .walks.session import WalkObserver

__all__ = ["DEFAULT_MAX_BYTES", "RecordedWalk", "WalkRecorder", "WalkSender"]

DEFAULT_MAX_BYTES = 100_000_000
DEFAULT_QUEUE_SIZE = 256
PATTERN = "walk-*.jsonl"
_TEMPORARY = re.compile(r"\.(walk-.+\.jsonl)\.\d+\.[a-z0-9_]+\.tmp")
"""A trace's temporary file while it is written (:func:`explorer.trace.write_trace`): ``.NAME.PID.XXXXXXXX.tmp``."""
log = logging.getLogger("explorer.recording")
_NEVER = CancellationToken.none()
_EVERYTHING = RAGContext()


@dataclass(frozen=True, slots=True)
class RecordedWalk:
    """One walk waiting for the writer: its one record, and when it was handed over (its file's name says it)."""

    walk: FinishedWalk
    created: datetime


WalkSender = WalkObserver
"""Where a recorded walk goes besides its trace: called on the writer thread with the walk's one record
(:class:`~explorer.trace.FinishedWalk`), as every observer of a walk is. ``WalkTelemetry.export_walk`` is one."""


class WalkRecorder:
    """Records every walk made through it as a trace file in ``folder`` (the module docstring says how)."""

    def __init__(self, folder: str | Path, corpus: Corpus | HierarchyIndex, *, path: str | Path | None = None,
                 max_bytes: int = DEFAULT_MAX_BYTES, queue_size: int = DEFAULT_QUEUE_SIZE,
                 send_to: Sequence[WalkSender] = ()) -> None:
        """``corpus`` is what ``load_corpus`` returned, or a ``HierarchyIndex`` with ``path``, the file (or
        folder) it was built from: that file is then read once here, for the identity a trace records (its
        hash as ``load_corpus`` computes it for that format), so the explorer can check it is the same corpus.
        ``send_to``: where each walk goes too, once its trace is written (the module docstring: to OTLP)."""
        if max_bytes < 1 or queue_size < 1:
            raise ValueError(f"max_bytes and queue_size must be at least 1 (got {max_bytes} and {queue_size})")
        if isinstance(corpus, HierarchyIndex):
            if path is None:
                raise ValueError("a HierarchyIndex is recorded with path=, the corpus file it was built from, so "
                                 "that its traces can be opened on it; or pass what load_corpus returned")
            corpus = load_corpus(path)
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.corpus = corpus
        self.max_bytes = max_bytes
        self.send_to = tuple(send_to)
        self._queue: queue.Queue[RecordedWalk | None] = queue.Queue(queue_size)
        self._lock = threading.Lock()
        self._count = 0
        self._warned: set[str] = set()
        self.written = 0
        """Traces written so far."""
        self.failed = 0
        """Walks whose trace could not be written (logged once)."""
        self.dropped = 0
        """Walks not recorded because the writer was behind by ``queue_size`` walks (logged once)."""
        self.removed = 0
        """Oldest traces removed to keep the folder under ``max_bytes``."""
        self.unsent = 0
        """Sends (to a ``send_to`` callable) that raised (logged once)."""
        for stale in self.folder.glob(".walk-*.tmp"):  # a recorder killed mid-write left these: nothing else would
            named = _TEMPORARY.fullmatch(stale.name)
            if named is not None:
                remove_stale_temporaries(self.folder / named.group(1))
        self._kept: deque[tuple[Path, int]] = deque(self._inventory())
        self._closed = False
        self._writer = threading.Thread(target=self._write_all, name="walk-recorder", daemon=True)
        self._writer.start()
        self._finalizer = weakref.finalize(self, self._queue.put, None)

    # -- what the application calls ------------------------------------------------------------------

    def walk(self, strategy: ReasoningRAGStrategy, query: str, *,
             cancellation: CancellationToken = _NEVER) -> Generator[WalkEvent, None, None]:
        """``strategy.walk(query, cancellation=...)``, each event passed on as it comes, the walk recorded."""
        return self._recorded(strategy.walk(query, cancellation=cancellation))

    def retrieve(self, strategy: ReasoningRAGStrategy, query: str, context: RAGContext = _EVERYTHING, *,
                 cancellation: CancellationToken = _NEVER) -> list[RetrievedDocument]:
        """``strategy.retrieve(query, context, cancellation=...)``, the walk recorded: what it returns or raises
        is the same."""
        return context.apply(drain(self.walk(strategy, query, cancellation=cancellation)).documents)

    def keep(self, walk: FinishedWalk) -> None:
        """Record ``walk``, a walk that ended elsewhere (a session's), as this recorder records its own: a
        :data:`~explorer.walks.wiring.WalkObserver`. Never fails and never holds the walk (the module docstring)."""
        self._hand_over(walk, datetime.now(UTC))

    def close(self, timeout: float | None = 30.0) -> None:
        """Write what is waiting, then stop the writer (at most ``timeout`` seconds). Walks after it are not
        recorded."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
        self._finalizer.detach()
        self._queue.put(None)
        self._writer.join(timeout)

    def __enter__(self) -> WalkRecorder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- recording ------------------------------------------------------------------------------------

    def _recorded(self, events: Iterator[WalkEvent]) -> Generator[WalkEvent, None, None]:
        seen: list[WalkEvent] = []
        times: list[int] = []
        end: WalkEnd = WalkEnd.CANCELLED
        error: str | None = "the application stopped pulling the walk"
        try:
            for event in events:
                seen.append(event)
                times.append(time.time_ns())
                yield event
            end, error = WalkEnd.FINISHED, None
        except RetrievalCancelled:
            end, error = WalkEnd.CANCELLED, None
            raise
        except Exception as exc:
            end, error = WalkEnd.FAILED, f"{type(exc).__name__}: {exc}"
            raise
        finally:
            if isinstance(seen[-1] if seen else None, WalkFinished):
                end, error = WalkEnd.FINISHED, None
            self._ended(seen, end, error, times)

    def _ended(self, events: list[WalkEvent], end: WalkEnd, error: str | None, times: list[int]) -> None:
        """The application's walk ended: its one record, made as a session's is (the corpus's identity, the settings
        its ``WalkStarted`` says), handed to the writer."""
        started = events[0] if events else None
        if not isinstance(started, WalkStarted) or self._closed:
            return
        created = datetime.now(UTC)
        settings = WalkSettings(started.query, started.model, started.max_nodes_visited, started.max_depth,
                                started.on_failure, started.policy, started.alpha)
        try:
            walk = finished_walk(self.corpus, settings, events, end, error, times=times, created=created)
        except Exception as exc:  # a bug in the record: counted, never raised into the application's walk
            with self._lock:
                self.failed += 1
            self._warn_once("failed", f"walk recorder: cannot record a walk: {type(exc).__name__}: {exc} "
                            "(further failures are counted, not logged)")
            return
        self._hand_over(walk, created)

    def _hand_over(self, walk: FinishedWalk, created: datetime) -> None:
        if not walk.events or not isinstance(walk.events[0], WalkStarted) or self._closed:
            return
        try:
            self._queue.put_nowait(RecordedWalk(walk, created))
        except queue.Full:
            with self._lock:
                self.dropped += 1
            self._warn_once("dropped", f"walk recorder: the writer is {self._queue.maxsize} walks behind; walks "
                            f"are dropped until it catches up (folder {self.folder})")

    def _warn_once(self, kind: str, message: str) -> None:
        with self._lock:
            if kind in self._warned:
                return
            self._warned.add(kind)
        log.warning("%s", message)

    def _write_all(self) -> None:
        while (walk := self._queue.get()) is not None:
            try:
                self._write(walk)
            except Exception as exc:  # a full disk, a folder removed: counted, never raised into a walk
                with self._lock:
                    self.failed += 1
                self._warn_once("failed", f"walk recorder: cannot write a trace in {self.folder}: "
                                f"{type(exc).__name__}: {exc} (further failures are counted, not logged)")
            self._send(walk)

    def _send(self, recorded: RecordedWalk) -> None:
        for sender in self.send_to:
            try:
                sender(recorded.walk)
            except Exception as exc:  # a sender's bug stays on the writer thread: counted, logged once
                with self._lock:
                    self.unsent += 1
                self._warn_once("unsent", f"walk recorder: a sender ({getattr(sender, '__qualname__', sender)}) "
                                f"raised {type(exc).__name__}: {exc} (further failures are counted, not logged)")

    def _write(self, recorded: RecordedWalk) -> None:
        with self._lock:
            self._count += 1
            count = self._count
        stamp = recorded.created.strftime("%Y%m%dT%H%M%S.%fZ")
        path = write_trace(self.folder / f"walk-{stamp}-{os.getpid()}-{count}.jsonl", recorded.walk)
        with self._lock:
            self.written += 1
        self._kept.append((path, path.stat().st_size))
        self._keep_under_cap()

    def _inventory(self) -> list[tuple[Path, int]]:
        found: list[tuple[Path, int]] = []
        for path in sorted(self.folder.glob(PATTERN)):
            try:
                if path.is_file():
                    found.append((path, path.stat().st_size))
            except OSError:
                continue
        return found

    def _keep_under_cap(self) -> None:
        total = sum(size for _, size in self._kept)
        while total > self.max_bytes and len(self._kept) > 1:
            path, size = self._kept.popleft()
            try:
                path.unlink(missing_ok=True)
            except OSError:
                continue
            total -= size
            with self._lock:
                self.removed += 1
