"""A walk in progress, without a screen: the step gate, the history, the token, the trace.

The explorer and the command line both drive a :class:`WalkSession`. Its
:meth:`run` is the worker's body: it pulls ``core``'s walk events one at a
time, each only when the gate allows (``step``, ``run_to_end``), and hands
each to ``emit`` tagged with the walk's id and a sequence number, so a
viewer can drop messages from a walk it has replaced. ``cancel`` trips the
walk's :class:`~core.CancellationToken` and opens the gate; ``close`` does
the same for good (quitting).
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from core import (
    CancellationToken,
    OnFailure,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    TreeNavigator,
    WalkEvent,
    WalkFinished,
)

from .corpora import Corpus
from .trace import TraceHeader, write_trace

POLL_SECONDS = 0.05
_walk_ids = itertools.count(1)


@dataclass(frozen=True)
class WalkSettings:
    """Everything a walk is run with, settable in the app and from the command line."""

    query: str
    model: str = "lexical:default"
    max_nodes_visited: int = 15
    max_depth: int = 6
    on_failure: OnFailure = OnFailure.THROW

    def but(self, **changes: object) -> WalkSettings:
        return replace(self, **changes)  # type: ignore[arg-type]


@dataclass(frozen=True)
class SessionEvent:
    """Event number ``seq`` (1-based) of walk ``walk_id``."""

    walk_id: int
    seq: int
    event: WalkEvent


@dataclass(frozen=True)
class SessionEnded:
    """Walk ``walk_id`` is over: ``end`` is ``finished``, ``cancelled`` or ``failed`` (with ``error``)."""

    walk_id: int
    end: str
    error: str | None = None


Emit = Callable[[SessionEvent | SessionEnded], None]


class WalkSession:
    """One walk of ``corpus`` with ``settings`` and an already resolved ``navigator``."""

    def __init__(self, corpus: Corpus, settings: WalkSettings, navigator: TreeNavigator) -> None:
        self.id = next(_walk_ids)
        self.corpus = corpus
        self.settings = settings
        self.strategy = ReasoningRAGStrategy(
            corpus.index,
            navigator,
            settings.model,
            max_nodes_visited=settings.max_nodes_visited,
            max_depth=settings.max_depth,
            on_failure=settings.on_failure,
        )
        self.token = CancellationToken()
        self.events: list[WalkEvent] = []
        self.end: str | None = None
        self.error: str | None = None
        self._gate = threading.Condition()
        self._permits = 0
        self._unlimited = False
        self._closed = False
        self._pulling = False
        self._pull_started = 0.0

    # -- the gate, driven from the UI thread ----------------------------------------------------

    def step(self, count: int = 1) -> None:
        """Let the worker pull ``count`` more events."""
        with self._gate:
            self._permits += count
            self._gate.notify_all()

    def run_to_end(self) -> None:
        """Let the worker pull every remaining event."""
        with self._gate:
            self._unlimited = True
            self._gate.notify_all()

    def pause(self) -> None:
        """Stop after the event being pulled now (if any)."""
        with self._gate:
            self._unlimited = False
            self._permits = 0

    def cancel(self) -> None:
        """Trip the walk's token and open the gate, so the worker ends at once."""
        self.token.cancel()
        with self._gate:
            self._gate.notify_all()

    def close(self) -> None:
        """Cancel for good (the viewer is going away)."""
        with self._gate:
            self._closed = True
        self.cancel()

    @property
    def busy(self) -> bool:
        """Whether the worker is pulling an event now (e.g. waiting for the navigator)."""
        return self._pulling

    @property
    def busy_seconds(self) -> float:
        """How long the event being pulled now has taken so far (0 when idle)."""
        return time.monotonic() - self._pull_started if self._pulling else 0.0

    @property
    def waiting(self) -> bool:
        """Whether the worker is parked at the gate with no permit."""
        with self._gate:
            return self.end is None and not self._pulling and self._permits == 0 and not self._unlimited

    def _await_permit(self) -> bool:
        with self._gate:
            while self._permits == 0 and not self._unlimited:
                if self._closed or self.token.cancelled:
                    return False
                self._gate.wait(POLL_SECONDS)
            if self._closed or self.token.cancelled:
                return False
            if not self._unlimited:
                self._permits -= 1
            self._pulling = True
            self._pull_started = time.monotonic()
            return True

    # -- the worker ---------------------------------------------------------------------------------

    def run(self, emit: Emit) -> None:
        """Pull the walk's events through the gate, emitting each; ends with one :class:`SessionEnded`."""
        events = self.strategy.walk(self.settings.query, cancellation=self.token)
        end, error = "finished", None
        try:
            while True:
                if not self._await_permit():
                    end = "cancelled"
                    break
                try:
                    event = next(events)
                except StopIteration:
                    break
                finally:
                    self._pulling = False
                if self.token.cancelled:
                    end = "cancelled"  # the token tripped while the navigator worked: drop its answer
                    break
                self.events.append(event)
                emit(SessionEvent(self.id, len(self.events), event))
                if isinstance(event, WalkFinished):
                    break
        except RetrievalCancelled:
            end = "cancelled"
        except RetrievalError as exc:
            end, error = "failed", str(exc)
        except Exception as exc:  # a bug in a navigator or in us: keep the viewer alive and say what happened
            end, error = "failed", f"unexpected {type(exc).__name__}: {exc}"
        finally:
            events.close()
        self.end, self.error = end, error
        emit(SessionEnded(self.id, end, error))

    def run_headless(self) -> list[WalkEvent]:
        """Run the whole walk on this thread (the command line's way); returns the events."""
        self.run_to_end()
        self.run(lambda message: None)
        return self.events

    # -- the trace ----------------------------------------------------------------------------------

    def header(self) -> TraceHeader:
        return TraceHeader(
            corpus_path=str(self.corpus.path),
            corpus_sha256=self.corpus.sha256,
            corpus_source=self.corpus.source,
            corpus_format=self.corpus.format,
            query=self.settings.query,
            navigator=self.settings.model,
            max_nodes_visited=self.settings.max_nodes_visited,
            max_depth=self.settings.max_depth,
            on_failure=self.settings.on_failure,
            created=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        )

    def save_trace(self, path: str | Path) -> Path:
        """Save what happened so far (an unfinished walk is saved as cancelled)."""
        end = self.end if self.end is not None else "cancelled"
        return write_trace(path, self.header(), list(self.events), end, self.error)
