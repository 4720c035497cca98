"""The walk history: one walk's events, the cursor over them, how it ended and where it came from.

UI-free. Stepping back and forth, the timeline, the results and the tree all
read the history under its cursor; the explorer binds to one history at a
time and keeps no copy of its events. A live walk's history grows as its
session's events arrive; an opened trace's is complete from the start; a
fork's begins with the recorded decisions of the walk it came from. Every
walk of a session is kept in a :class:`~explorer.walks.walk_list.WalkList`,
each with its own cursor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import UTC, datetime
from enum import Enum, StrEnum
from pathlib import Path

from core import NavigatorChose, NavigatorFailed, PathStopped, StopReason, WalkEvent, WalkStarted

from ..corpora import Corpus
from ..ending import WalkEnd
from ..safe_text import one_line
from ..trace import FinishedWalk, Trace, TraceHeader, WalkPlace
from ..walk_settings import WalkSettings
from .decisions import Decision, decisions_of
from .settings import short_model
from .state import WalkState

CHECKPOINT_EVERY = 2_000
"""A walk history keeps the state after every this many events once a step past it is looked at again: stepping back
folds the events since the last one, whatever the walk's length (issue 47; a best-first state rebuilds its frontier
from the changes its events say)."""


class Origin(StrEnum):
    """Where a walk came from."""

    WALK = "walk"
    """Walked live (the first walk, or any walk started anew)."""
    RESTART = "restart"
    """Walked live again, with the settings of the moment."""
    FORK = "fork"
    """Another walk run again up to one of its decisions, answered differently there by a person."""
    TRACE = "trace"
    """Read from a trace file: every event known, no navigator called."""
    REWALK = "re-walk"
    """Another walk run again from its recorded decisions with another budget or depth limit, no navigator call."""


class Change(Enum):
    """How a walk changed, as its watchers are told (:meth:`WalkHistory.watch`, and ``Walk.watch`` for its pick)."""

    GREW = "grew"
    """An event arrived (the cursor may have followed it)."""
    MOVED = "moved"
    """The cursor moved over what already happened."""
    ENDED = "ended"
    """The walk is over: how it ended is known."""
    PICK = "pick"
    """The pick open on the walk (the manual navigator's request, waiting for a person) changed."""


Watcher = Callable[[Change], None]
"""Told each change of a history, on the thread that made it."""


class WalkHistory:
    """Everything one walk did so far, and the step being looked at.

    ``cursor`` counts the events shown (0: nothing yet). While the cursor is
    at the latest event it follows new ones; once moved back it stays put.
    ``forced`` holds the 1-based numbers of the decisions a person forced, ``replayed`` those replayed from another
    walk, and ``times`` when each event was pulled (ns since the epoch; only for a walk walked here).

    A history is observable: whoever shows it watches it (:meth:`watch`) and is told each event that arrives, each
    move of the cursor and its end, so nobody who moves it has to say so.
    """

    def __init__(
        self,
        settings: WalkSettings,
        origin: Origin = Origin.WALK,
        *,
        number: int = 1,
        label: str = "",
        parent: WalkHistory | None = None,
        fork_seq: int | None = None,
        trace: Trace | None = None,
    ) -> None:
        self.settings = settings
        self.origin = origin
        self.number = number
        self.label = label or _default_label(settings, origin, trace)
        self.label_given = bool(label)
        """Whether the label was given by the maker (a fork, a question): the walk list names the others."""
        self.parent = parent
        self.fork_seq = fork_seq
        self.trace = trace
        self.events: list[WalkEvent] = []
        self.forced: set[int] = set()
        self.replayed: set[int] = set()
        self.times: list[int] = []
        self.cursor = 0
        self.end: WalkEnd | None = None
        self.error: str | None = None
        self._live = WalkState()
        self._cached: tuple[int, WalkState] | None = None
        self._checkpoints: dict[int, WalkState] = {}
        """The state after every :data:`CHECKPOINT_EVERY`-th event, kept once a step before it was looked at."""
        self._watchers: list[Watcher] = []

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Tell ``watcher`` each change from now on; returns the call that stops it."""
        self._watchers.append(watcher)

        def stop() -> None:
            if watcher in self._watchers:
                self._watchers.remove(watcher)

        return stop

    def _changed(self, change: Change) -> None:
        for watcher in list(self._watchers):
            watcher(change)

    @classmethod
    def from_trace(cls, trace: Trace, *, number: int = 1) -> WalkHistory:
        """A walk read from ``trace``, shown from its first event; one an explorer session kept (its header's
        ``walk`` block) keeps its name and is shown at the step it was left at."""
        place = trace.header.walk
        history = cls(trace.header.settings, Origin.TRACE, number=number, trace=trace)
        for seq, event in enumerate(trace.events, start=1):
            history.append(event, forced=seq in trace.forced)
        history.finish(trace.end, trace.error)
        shown = place.cursor if place is not None and place.cursor > 0 else 1
        history.cursor = min(shown, len(history.events))
        return history

    def place(self) -> WalkPlace:
        """Its place in the session (a trace header's ``walk`` block): number, name, lineage and cursor; a walk
        read from a session's trace keeps where it came from."""
        kept = self.trace.header.walk if self.trace is not None else None
        if self.parent is None and kept is not None:
            return WalkPlace(self.number, self.label, kept.origin, kept.parent, kept.fork_seq, self.cursor)
        return WalkPlace(self.number, self.label, self.origin.value,
                         self.parent.number if self.parent is not None else None, self.fork_seq, self.cursor)

    # -- names ---------------------------------------------------------------------------------------

    @property
    def name(self) -> str:
        """``walk 3 · fork of walk 1: at billing chose invoices``."""
        return walk_name(self.number, self.label)

    # -- growing -------------------------------------------------------------------------------------

    def append(self, event: WalkEvent, *, forced: bool = False, replayed: bool = False, at: int | None = None) -> None:
        """A new event (``forced``: a decision a person forced; ``replayed``: one replayed from another walk; ``at``:
        when it was pulled); the cursor follows it when it was at the latest one."""
        following = self.cursor == len(self.events)
        self.events.append(event)
        if forced:
            self.forced.add(len(self.events))
        if replayed:
            self.replayed.add(len(self.events))
        if at is not None:
            self.times.append(at)
        self._live.apply(event, forced=forced)
        if following:
            self.cursor = len(self.events)
        self._changed(Change.GREW)

    def finish(self, end: WalkEnd, error: str | None = None) -> None:
        """The walk is over (the first end said wins: a cancel is not undone by the worker's late word)."""
        if self.end is None:
            self.end, self.error = WalkEnd(end), error
            self._changed(Change.ENDED)

    @property
    def ended(self) -> bool:
        return self.end is not None

    # -- moving the cursor -----------------------------------------------------------------------------

    @property
    def at_latest(self) -> bool:
        return self.cursor >= len(self.events)

    def go(self, step: int) -> bool:
        """Show step ``step`` (clamped to what happened; at least 1 once anything has); whether it moved."""
        target = max(1 if self.events else 0, min(step, len(self.events)))
        moved = target != self.cursor
        self.cursor = target
        if moved:
            self._changed(Change.MOVED)
        return moved

    def back(self) -> bool:
        return self.cursor > 1 and self.go(self.cursor - 1)

    def forward(self) -> bool:
        return self.go(self.cursor + 1)

    def first(self) -> bool:
        return self.go(1)

    def latest(self) -> bool:
        return self.go(len(self.events))

    # -- reading -----------------------------------------------------------------------------------

    def state(self) -> WalkState:
        """The walk as of the cursor (with its ending, when the cursor is at the end of an ended walk)."""
        if self.cursor >= len(self.events):
            state = self._live
        else:
            if self._cached is None or self._cached[0] != self.cursor:
                self._cached = (self.cursor, self._state_at(self.cursor))
            state = self._cached[1]
        if state is self._live and self.end is not None and state.ended is None:
            state.close(self.end, self.error)
        return state

    def _state_at(self, step: int) -> WalkState:
        """The state after ``step`` events, folded from the last checkpoint before it (keeping those it passes), so
        stepping back through a long walk folds at most :data:`CHECKPOINT_EVERY` events, not the whole walk."""
        base = step - step % CHECKPOINT_EVERY
        while base and base not in self._checkpoints:
            base -= CHECKPOINT_EVERY
        state = self._checkpoints[base].copy() if base else WalkState()
        forced = self.forced
        for seq in range(base + 1, step + 1):
            state.apply(self.events[seq - 1], forced=seq in forced)
            if seq % CHECKPOINT_EVERY == 0 and seq not in self._checkpoints:
                self._checkpoints[seq] = state.copy()
        return state

    def decisions(self) -> Iterator[Decision]:
        """Every offer and its answer, in order (the last one's answer is ``None`` while awaited)."""
        return iter(decisions_of(self.events, self.forced))

    def decision_at(self, step: int | None = None) -> Decision | None:
        """The decision being looked at: the last offer made at or before ``step`` (default: the cursor)."""
        step = self.cursor if step is None else step
        found: Decision | None = None
        for decision in self.decisions():
            if decision.offer_seq > step:
                break
            found = decision
        return found

    def recorded_before(self, offer_seq: int) -> dict[str | None, NavigatorChose | NavigatorFailed]:
        """The answers recorded before the offer at ``offer_seq``, by the node judged: what a fork replays."""
        return {d.node: d.answer for d in self.decisions() if d.offer_seq < offer_seq and d.answer is not None}

    def forced_answers(self, *, before: int | None = None,
                       answered_by: int | None = None) -> list[tuple[str | None, tuple[str, ...]]]:
        """The nodes a person forced, each with the ids forced there, in order: what a fork or a re-walk of this
        walk keeps forced. Only those offered before step ``before`` (a fork there), or answered at or before step
        ``answered_by`` (going on live from there)."""
        return [(d.node, d.answer.selected) for d in self.decisions()
                if d.forced and isinstance(d.answer, NavigatorChose)
                and (before is None or d.offer_seq < before)
                and (answered_by is None or (d.answer_seq is not None and d.answer_seq <= answered_by))]

    def snapshot(self) -> WalkHistory:
        """A copy of what this history holds now (its events, forced steps and end), for another thread to read
        while this one grows: a trace saved or a page exported from a walk still running."""
        copy = WalkHistory(self.settings, self.origin, number=self.number, label=self.label, trace=self.trace)
        times = list(self.times)
        for seq, event in enumerate(list(self.events), start=1):
            copy.append(event, forced=seq in self.forced, replayed=seq in self.replayed,
                        at=times[seq - 1] if seq <= len(times) else None)
        if self.end is not None:
            copy.finish(self.end, self.error)
        return copy

    def recorded(self) -> dict[str | None, NavigatorChose | NavigatorFailed]:
        """Every answer recorded, by the node judged: what a re-walk replays."""
        return {d.node: d.answer for d in self.decisions() if d.answer is not None}

    def budget_ran_out_at(self) -> int | None:
        """The step (1-based) where the visit budget ran out: the first ``visit_budget_exhausted`` stop, a branch
        chosen that no visit was left to enter, or a node with no visit left to go deeper (``None``: it never did)."""
        for seq, event in enumerate(self.events, start=1):
            if isinstance(event, PathStopped) and event.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED:
                return seq
        return None

    # -- saving ----------------------------------------------------------------------------------------

    def finished(self, corpus: Corpus, *, created: datetime | None = None) -> FinishedWalk:
        """This walk, a walk of ``corpus``, as its one record (:func:`finished_walk`): what it holds now, a walk still
        going kept as cancelled (a trace saved half-way, a page exported, a walk quit); an opened trace keeps its
        own header."""
        return finished_walk(corpus, self.settings, self.events, self.end, self.error, forced=self.forced,
                             replayed=self.replayed, times=self.times, name=self.name, created=created,
                             header=self.trace.header if self.trace is not None else None, place=self.place())

    def suggested_file_name(self) -> str:
        """``how-are-refunds-issued.walk2.trace.jsonl``: the query, then the walk's number."""
        return suggested_file_name(self.settings.query, self.number)


def suggested_file_name(query: str, number: int) -> str:
    """``how-are-refunds-issued.walk2.trace.jsonl``: the file a walk on ``query``, number ``number``, is offered."""
    slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")[:40] or "walk"
    return f"{slug}.walk{number}.trace.jsonl"


def finished_walk(corpus: Corpus, settings: WalkSettings, events: Sequence[WalkEvent], end: WalkEnd | None,
                  error: str | None = None, *, forced: Iterable[int] = (), replayed: Iterable[int] = (),
                  times: Sequence[int] = (), name: str = "", created: datetime | None = None,
                  header: TraceHeader | None = None, place: WalkPlace | None = None) -> FinishedWalk:
    """The one record of a walk of ``corpus`` walked with ``settings`` (:class:`~explorer.trace.FinishedWalk`), and
    the one place its header is built: the corpus's identity, the settings, the sources its ``WalkStarted`` names,
    and when (``created``, default now), unless it has one already (``header``: a walk read from a trace). ``end``
    ``None`` (a walk still going) is kept as cancelled; ``times`` count only when every event has one; ``place``: the
    walk's place in its session (what a session folder keeps in the header's ``walk`` block)."""
    if header is None:
        first = events[0] if events else None
        header = TraceHeader(str(corpus.path), corpus.sha256, corpus.source, corpus.format, settings,
                             sources=first.sources if isinstance(first, WalkStarted) else None,
                             created=(created or datetime.now(UTC)).strftime("%Y-%m-%dT%H:%M:%SZ"), map=corpus.map)
    return FinishedWalk(header, tuple(events), end if end is not None else WalkEnd.CANCELLED, error, frozenset(forced),
                        frozenset(replayed), tuple(times) if len(times) == len(events) else (), name, place)


QUERY_SHOWN = 32
"""Characters of the query a walk's name keeps."""


def short_query(query: str, shown: int = QUERY_SHOWN) -> str:
    """``“How long do refunds take to arr…”``: the query on one line, cut short, in quotes."""
    text = one_line(query).strip()
    return f"“{text[: shown - 1]}…”" if len(text) > shown else f"“{text}”"


def label_for(settings: WalkSettings, before: WalkSettings | None = None, origin: Origin = Origin.WALK) -> str:
    """A walk's name after its number: the query (shortened), the navigator, and what differs from the walk
    ``before`` it (the budget, the depth limit, the failure policy); the first walk names its budget.

    ``“How are refunds issued?” · lexical:default · budget 15``, then ``“How long…” · lexical:default · budget 8``.
    """
    parts = [short_query(settings.query), short_model(settings)]
    if before is None:
        parts.append(f"budget {settings.max_nodes_visited}")
    else:
        parts.extend(f"{what} {now}" for what, now, then in (
            ("budget", settings.max_nodes_visited, before.max_nodes_visited),
            ("depth limit", settings.max_depth, before.max_depth),
            ("on failure", settings.on_failure.value, before.on_failure.value),
        ) if now != then)
    label = " · ".join(parts)
    return f"restart · {label}" if origin is Origin.RESTART else label


def walk_name(number: int, label: str) -> str:
    """``walk 3 · trace walk-0042.jsonl · lexical:default``: a walk's number and its label."""
    return f"walk {number} · {label}"


def trace_label(path: str | Path, header: TraceHeader) -> str:
    """The label of a walk read from a file: the name its session gave it (its header's ``walk`` block), else the
    file's name and the navigator its header names."""
    if header.walk is not None:
        return header.walk.label
    return f"trace {Path(path).name} · {header.settings.model}"


def _default_label(settings: WalkSettings, origin: Origin, trace: Trace | None) -> str:
    if trace is not None:
        return trace_label(trace.path, trace.header)
    return label_for(settings, origin=origin)
