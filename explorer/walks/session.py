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

import contextlib
import itertools
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from core import (
    CancellationToken,
    NavigatorChose,
    NavigatorFailed,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    TreeNavigator,
    WalkEvent,
    WalkFinished,
)

from ..corpora import Corpus
from ..ending import WalkEnd
from ..navigators.forcing import Force, ForcingNavigator
from ..trace import TraceHeader, write_trace
from .history import Origin, WalkHistory
from .settings import WalkSettings

__all__ = ["SessionEnded", "SessionEvent", "WalkObserver", "WalkSession", "WalkSettings", "fork", "observing"]

POLL_SECONDS = 0.05
_walk_ids = itertools.count(1)


@dataclass(frozen=True)
class SessionEvent:
    """Event number ``seq`` (1-based) of walk ``walk_id``; ``forced`` when a person forced that decision."""

    walk_id: int
    seq: int
    event: WalkEvent
    forced: bool = False


@dataclass(frozen=True)
class SessionEnded:
    """Walk ``walk_id`` is over, and how (with ``error`` when it failed)."""

    walk_id: int
    end: WalkEnd
    error: str | None = None


Emit = Callable[[SessionEvent | SessionEnded], None]
WalkObserver = Callable[["WalkSession", SessionEnded, Sequence[WalkEvent], Sequence[int]], None]
"""Told of each walk once it is over, on the worker thread, after its :class:`SessionEnded`: the session, how
it ended, every event it emitted, and when each was pulled (ns since the epoch). It must not raise
(``explorer.walks.telemetry.WalkTelemetry.observe`` is one)."""
_observing: tuple[WalkObserver, ...] = ()


@contextlib.contextmanager
def observing(*observers: WalkObserver) -> Iterator[None]:
    """Every session created inside the block also tells ``observers``: for walks whose sessions are made where
    the caller cannot reach (the explorer's), e.g. ``with observing(telemetry.observe): app.run()``."""
    global _observing
    before = _observing
    _observing = (*before, *observers)
    try:
        yield
    finally:
        _observing = before


class WalkSession:
    """One walk of ``corpus`` with ``settings`` and an already resolved ``navigator``.

    The events go into ``history`` (a new one unless given): by :meth:`run_headless`
    on this thread, or, in the explorer, on the UI thread as its messages arrive —
    the history is only ever written by one thread, and how the walk ended lives
    there alone. ``forces`` are answers a person forced (``--force``): they win
    over the navigator at their nodes.
    """

    def __init__(
        self,
        corpus: Corpus,
        settings: WalkSettings,
        navigator: TreeNavigator,
        *,
        history: WalkHistory | None = None,
        forces: Iterable[Force] = (),
        observers: Iterable[WalkObserver] = (),
    ) -> None:
        self.id = next(_walk_ids)
        self.observers: list[WalkObserver] = [*_observing, *observers]
        self.corpus = corpus
        self.settings = settings
        forces = tuple(forces)
        if forces and not isinstance(navigator, ForcingNavigator):
            navigator = ForcingNavigator(navigator, forces)
        self.navigator = navigator
        self.forced_nodes: frozenset[str | None] = (
            frozenset(navigator.forces) if isinstance(navigator, ForcingNavigator) else frozenset()
        )
        self.history = history if history is not None else WalkHistory(settings)
        self.strategy = ReasoningRAGStrategy(
            corpus.index,
            navigator,
            settings.model,
            max_nodes_visited=settings.max_nodes_visited,
            max_depth=settings.max_depth,
            on_failure=settings.on_failure,
        )
        self.token = CancellationToken()
        self._over = threading.Event()
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
    def over(self) -> bool:
        """Whether the worker has left :meth:`run` (how the walk ended is in the history, or the SessionEnded)."""
        return self._over.is_set()

    @property
    def waiting(self) -> bool:
        """Whether the worker is parked at the gate with no permit."""
        with self._gate:
            return not self.over and not self._pulling and self._permits == 0 and not self._unlimited

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

    def run(self, emit: Emit) -> SessionEnded:
        """Pull the walk's events through the gate, emitting each; ends with one :class:`SessionEnded`, also
        returned."""
        events = self.strategy.walk(self.settings.query, cancellation=self.token)
        end, error = WalkEnd.FINISHED, None
        seq = 0
        seen: list[WalkEvent] = []
        times: list[int] = []
        try:
            while True:
                if not self._await_permit():
                    end = WalkEnd.CANCELLED
                    break
                try:
                    event = next(events)
                except StopIteration:
                    break
                finally:
                    self._pulling = False
                if self.token.cancelled:
                    end = WalkEnd.CANCELLED  # the token tripped while the navigator worked: drop its answer
                    break
                seq += 1
                if self.observers:
                    seen.append(event)
                    times.append(time.time_ns())
                emit(SessionEvent(self.id, seq, event, self._is_forced(event)))
                if isinstance(event, WalkFinished):
                    break
        except RetrievalCancelled:
            end = WalkEnd.CANCELLED
        except RetrievalError as exc:
            end, error = WalkEnd.FAILED, str(exc)
        except Exception as exc:  # a bug in a navigator or in us: keep the viewer alive and say what happened
            end, error = WalkEnd.FAILED, f"unexpected {type(exc).__name__}: {exc}"
        finally:
            events.close()
        ended = SessionEnded(self.id, end, error)
        self._over.set()
        emit(ended)
        for observer in self.observers:
            observer(self, ended, seen, times)
        return ended

    def _is_forced(self, event: WalkEvent) -> bool:
        return isinstance(event, NavigatorChose | NavigatorFailed) and event.current in self.forced_nodes

    def record(self, message: SessionEvent | SessionEnded) -> None:
        """Put one of this session's messages into its history (call it on the thread that owns the history)."""
        if isinstance(message, SessionEvent):
            self.history.append(message.event, forced=message.forced)
        else:
            self.history.finish(message.end, message.error)

    @property
    def events(self) -> list[WalkEvent]:
        """The events recorded in the history so far."""
        return self.history.events

    def run_headless(self) -> list[WalkEvent]:
        """Run the whole walk on this thread (the command line's way); returns the events."""
        self.run_to_end()
        self.run(self.record)
        return self.events

    def not_applied(self) -> list[Force]:
        """The forces given that the walk never reached."""
        return self.navigator.not_applied() if isinstance(self.navigator, ForcingNavigator) else []

    # -- the trace ----------------------------------------------------------------------------------

    def header(self) -> TraceHeader:
        return header_for(self.history, self.corpus)

    def save_trace(self, path: str | Path) -> Path:
        """Save what happened so far (an unfinished walk is saved as cancelled)."""
        return save_history(self.history, self.corpus, path)


def run_each(walk: Callable[[int], None], numbers: Iterable[int], *, jobs: int, cancel: Callable[[], None],
             thread_name: str = "walks") -> None:
    """Call ``walk(n)`` for each number: in turn, or on ``jobs`` threads (walks that wait on the network).

    Any exception (Ctrl+C, or a bug) calls ``cancel`` first, so the other walks end before anyone waits for
    them, then propagates. The evaluation of a question set and a stability run both walk this way.
    """
    numbers = list(numbers)
    if jobs == 1 or len(numbers) <= 1:
        try:
            for number in numbers:
                walk(number)
        except BaseException:
            cancel()
            raise
        return
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix=thread_name) as pool:
        try:
            for future in [pool.submit(walk, number) for number in numbers]:
                future.result()
        except BaseException:
            cancel()
            raise


def header_for(history: WalkHistory, corpus: Corpus) -> TraceHeader:
    """The trace header of ``history``, a walk of ``corpus``."""
    created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    return history.header(str(corpus.path), corpus.sha256, corpus.source, corpus.format, created)


def save_history(history: WalkHistory, corpus: Corpus, path: str | Path) -> Path:
    """Save a walk as a trace: what happened so far (an unfinished walk is saved as cancelled)."""
    end = history.end if history.end is not None else WalkEnd.CANCELLED
    return write_trace(path, header_for(history, corpus), list(history.events), end, history.error,
                       history.forced)


def fork(
    source: WalkHistory,
    offer_seq: int,
    selected: tuple[str, ...],
    corpus: Corpus,
    navigator: TreeNavigator,
    *,
    number: int = 0,
    observers: Iterable[WalkObserver] = (),
) -> WalkSession:
    """A new walk: ``source`` run again up to its offer at ``offer_seq``, answered there with ``selected``.

    The decisions before the fork point are replayed from ``source`` (no
    navigator call), the fork's decision is forced, and every later one comes
    from ``navigator``. ``source`` is untouched. The session is not started:
    its first ``offer_seq + 1`` events are the replayed walk and the forced answer.
    """
    decision = source.decision_at(offer_seq)
    if decision is None or decision.offer_seq != offer_seq:
        raise ValueError(f"step {offer_seq} of {source.name} is not an offer")
    force = Force(decision.node, tuple(selected))
    # Decisions a person forced earlier in ``source`` stay forced (and marked) in the fork: a fork of a fork.
    inherited = [Force(d.node, d.answer.selected) for d in source.decisions()
                 if d.offer_seq < offer_seq and d.forced and isinstance(d.answer, NavigatorChose)]
    forcing = ForcingNavigator(navigator, [*inherited, force], source.recorded_before(offer_seq))
    history = WalkHistory(source.settings, Origin.FORK, number=number or source.number + 1,
                          label=f"fork of walk {source.number}: {force.describe()}", parent=source,
                          fork_seq=offer_seq)
    return WalkSession(corpus, source.settings, forcing, history=history, observers=observers)
