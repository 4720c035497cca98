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
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from core import (
    CancellationToken,
    NavigatorChose,
    NavigatorFailed,
    Policy,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    Transcript,
    TreeNavigator,
    WalkEvent,
    WalkFinished,
)

from ..corpora import Corpus
from ..ending import WalkEnd
from ..navigators import shared_across_threads
from ..navigators.forcing import LIVE_FROM_LABEL, Force, ForcingNavigator, RecordOnly, SayingVariant
from ..outputs import Read
from ..trace import FinishedWalk, event_to_json, write_trace
from ..walk_settings import WalkSettings, policy_fields, policy_text
from .decisions import NEVER_JUDGED, NEVER_JUDGED_KEY, judged_never
from .habits import count_habits, habits_by_answer, habits_to_json
from .history import Origin, WalkHistory
from .pulling import Abandoned, NavigatorBroke, Puller
from .state import WalkState
from .wiring import NO_SINKS, UNWIRED, EndHook, Sink, WalkObserver, Wiring

__all__ = ["JOBS", "NO_SINKS", "UNWIRED", "EndHook", "SessionEnded", "SessionEvent", "Sink", "WalkObserver",
           "WalkSession", "Wiring", "fork", "rewalk"]
"""``EndHook``, ``Sink``, ``WalkObserver``, ``Wiring``, ``NO_SINKS`` and ``UNWIRED`` are :mod:`.wiring`'s, kept
importable from here, where walks are made with them."""

POLL_SECONDS = 0.05
JOBS: Final = 4
"""Walks run at once by the explorer's evaluations and stability runs (:func:`run_each`): threads, for navigators
that wait on the network."""
_walk_ids = itertools.count(1)


@dataclass(frozen=True)
class SessionEvent:
    """Event number ``seq`` (1-based) of walk ``walk_id``; ``forced`` when a person forced that decision,
    ``replayed`` when it was replayed from another walk; ``at``: when it was pulled (ns since the epoch)."""

    walk_id: int
    seq: int
    event: WalkEvent
    forced: bool = False
    replayed: bool = False
    at: int | None = None


@dataclass(frozen=True)
class SessionEnded:
    """Walk ``walk_id`` is over, and how (with ``error`` when it failed)."""

    walk_id: int
    end: WalkEnd
    error: str | None = None


Emit = Callable[[SessionEvent | SessionEnded], None]
class WalkSession:
    """One walk of ``corpus``, into ``walk`` (a history, or the settings of a new one), with an already resolved
    ``navigator``.

    The walk is run with its history's settings. The events go into the history:
    by :meth:`run_headless` on this thread, or, in the explorer, on the UI thread
    as its messages arrive — the history is only ever written by one thread, and
    how the walk ended lives there alone. ``forces`` are answers a person forced
    (``--force``): they win over the navigator at their nodes. ``hook`` holds every sink of the walk's one record
    (:class:`~.wiring.EndHook`: the trace file, the session keeper, the telemetry, a recorder), given here, when the
    session is made, by every program alike (``Wiring.hook``).
    """

    def __init__(
        self,
        corpus: Corpus,
        walk: WalkHistory | WalkSettings,
        navigator: TreeNavigator,
        *,
        forces: Iterable[Force] = (),
        hook: EndHook = NO_SINKS,
    ) -> None:
        self.id = next(_walk_ids)
        self.hook = hook
        self.finished: FinishedWalk | None = None
        """The walk's one record, once it is over (:meth:`finish`)."""
        self.corpus = corpus
        self.history = walk if isinstance(walk, WalkHistory) else WalkHistory(walk)
        settings = self.history.settings
        forces = tuple(forces)
        self.forces = forces
        """The answers a person forced when the session was made (``--force``), in the order given."""
        if forces and not isinstance(navigator, ForcingNavigator):
            navigator = ForcingNavigator(navigator, forces)
        self.navigator = navigator
        self.forced_nodes: frozenset[str | None] = (
            frozenset(node for node, force in navigator.forces.items() if force.what_if is None)
            if isinstance(navigator, ForcingNavigator) else frozenset()
        )
        """The nodes a person forced (an answer taken from a what-if is marked as such, not as forced)."""
        self.replayed_nodes: frozenset[str | None] = (
            frozenset(navigator.recorded) - self.forced_nodes if isinstance(navigator, ForcingNavigator)
            else frozenset()
        )
        """The nodes whose decision is replayed from another walk's record."""
        self.strategy = ReasoningRAGStrategy(
            corpus.index,
            navigator,
            settings.model,
            max_nodes_visited=settings.max_nodes_visited,
            max_depth=settings.max_depth,
            on_failure=settings.on_failure,
            policy=settings.policy,
            alpha=settings.alpha,
        )
        self.token = CancellationToken()
        self._over = threading.Event()
        self._gate = threading.Condition()
        self._permits = 0
        self._unlimited = False
        self._closed = False
        self._pulling = False
        self._pull_started = 0.0
        self._parked = False  # the worker is inside the gate's wait, having found no permit
        self._given_up = threading.Event()  # closed: the worker waits for no navigator

    @property
    def settings(self) -> WalkSettings:
        """What the walk is run with: its history's settings."""
        return self.history.settings

    @property
    def walked_with(self) -> TreeNavigator | None:
        """The navigator the walk asks where nothing is forced or replayed, and what a fork of it goes on with: the
        one a forcing wrapper wraps; ``None`` when it asks none (a re-walk that only replays its record)."""
        navigator = self.navigator
        if isinstance(navigator, ForcingNavigator):
            navigator = navigator.inner
        return None if isinstance(navigator, RecordOnly) else navigator

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
        """Cancel for good (the viewer is going away): a navigator still at work is not waited for."""
        with self._gate:
            self._closed = True
        self._given_up.set()
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
        """Whether the worker is parked at the gate with no permit: it got there, so what it emitted before is out."""
        with self._gate:
            return self._parked and self._permits == 0 and not self._unlimited

    def _await_permit(self) -> bool:
        with self._gate:
            while self._permits == 0 and not self._unlimited:
                if self._closed or self.token.cancelled:
                    self._parked = False
                    return False
                self._parked = True
                self._gate.wait(POLL_SECONDS)
            self._parked = False
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
        events = Puller(self.strategy.walk(self.settings.query, cancellation=self.token), f"walk-{self.id}-navigator",
                        inline=not shared_across_threads(self.walked_with or self.navigator))
        end, error = WalkEnd.FINISHED, None
        seq = 0
        try:
            while True:
                if not self._await_permit():
                    end = WalkEnd.CANCELLED
                    break
                try:
                    event = events.next(self.token, given_up=self._given_up)
                except StopIteration:
                    break
                finally:
                    self._pulling = False
                if self.token.cancelled:
                    end = WalkEnd.CANCELLED  # the token tripped while the navigator worked: drop its answer
                    break
                seq += 1
                forced = replayed = False
                if isinstance(event, NavigatorChose | NavigatorFailed):
                    forced, replayed = event.current in self.forced_nodes, event.current in self.replayed_nodes
                emit(SessionEvent(self.id, seq, event, forced, replayed, time.time_ns()))
                if isinstance(event, WalkFinished):
                    break
        except RetrievalCancelled:
            end = WalkEnd.CANCELLED
        except Abandoned as exc:  # the navigator ignores the token: the walk stays cancelled, and says why
            end, error = WalkEnd.CANCELLED, (str(exc) if not self._given_up.is_set() else None)
        except NavigatorBroke as exc:
            end, error = WalkEnd.FAILED, str(exc)
        except RetrievalError as exc:
            end, error = WalkEnd.FAILED, str(exc)
        except Exception as exc:  # a bug in a navigator or in us: keep the viewer alive and say what happened
            end, error = WalkEnd.FAILED, f"unexpected {type(exc).__name__}: {exc}"
        finally:
            events.close()
        ended = SessionEnded(self.id, end, error)
        self._over.set()
        emit(ended)
        return ended

    def record(self, message: SessionEvent | SessionEnded) -> None:
        """Put one of this session's messages into its history (call it on the thread that owns the history); the
        last, that it ended, finishes it (:meth:`finish`)."""
        if isinstance(message, SessionEvent):
            self.history.append(message.event, forced=message.forced, replayed=message.replayed, at=message.at)
        else:
            self.finish(message.end, message.error)

    def finish(self, end: WalkEnd, error: str | None = None) -> FinishedWalk:
        """The walk is over (call it on the thread that owns the history): the history says how (the first end said
        wins), and, the first time, the walk's one record is made from the history (:meth:`WalkHistory.finished`)
        and handed to the session's hook: each inline sink here, in turn, each other on the hook's worker (here too
        once the session is closed: the program is quitting, and no worker outlives it). Returns the record."""
        self.history.finish(end, error)
        if self.finished is None:
            self.finished = finished = self.history.finished(self.corpus)
            self.hook.tell(finished, at_once=self._closed)
        return self.finished

    @property
    def closed(self) -> bool:
        """Whether the session was closed for good (:meth:`close`: its viewer is going away)."""
        return self._closed

    @property
    def events(self) -> list[WalkEvent]:
        """The events recorded in the history so far."""
        return self.history.events

    def run_headless(self) -> list[WalkEvent]:
        """Run the whole walk from this thread (the command line's way; the navigator is asked on a thread of the
        walk's own, see :mod:`.pulling`, or on this one when it is not shared across threads); returns the events."""
        self.run_to_end()
        self.run(self.record)
        return self.events

    def not_applied(self) -> list[Force]:
        """The forces given that the walk never reached."""
        return self.navigator.not_applied() if isinstance(self.navigator, ForcingNavigator) else []

    def to_json(self) -> dict[str, object]:
        """The walk as ``walk --json`` (and ``replay --json``) print it: the corpus, the query, the navigator, the
        settings, every event (``"forced": true`` on a forced decision), the forces given and whether each
        applied, the landed documents, every stop, and a summary of what it cost (live calls apart from the
        answers that needed none, the characters and tokens really sent). A stop at a node the record never judged
        (a replay with a bigger budget) says ``"reason": "never_judged"``, core's reason kept as
        ``"recorded_reason"``, and the summary lists those nodes in ``"never_judged"`` (only when there are any).
        An LLM's answer says its habits (:func:`~.habits.habits_to_json`: ``"habits": {"duplicate_ids": 7}``, ``{}``
        for none), and the summary counts them over the walk (``"habits"``: :class:`~.habits.HabitCounts`; only
        when an LLM answered)."""
        history = self.history
        corpus, settings, forced = self.corpus, self.settings, history.forced
        state = WalkState.from_events(history.events, forced)
        result = state.result
        finished = event_to_json(WalkFinished(result)) if result is not None else {}
        skipped = {force.node for force in self.not_applied()}
        cost = state.cost()
        never_judged = [node for node, record in state.landed.items() if state.reason_of(record) == NEVER_JUDGED]
        habits = habits_by_answer(history.events, forced)
        return {
            "corpus": {"path": str(corpus.path), "source": corpus.source, "title": corpus.title,
                       "format": corpus.format, "sha256": corpus.sha256},
            **({"map": corpus.map.to_json()} if corpus.map is not None else {}),
            "query": settings.query,
            "navigator": settings.model,
            "settings": {"max_nodes_visited": settings.max_nodes_visited, "max_depth": settings.max_depth,
                         "on_failure": settings.on_failure.value,
                         **policy_fields(settings)},
            "events": [{**event_to_json(e), **({"forced": True} if seq in forced else {}),
                        **({"habits": habits_to_json(habits[seq])} if seq in habits else {})}
                       for seq, e in enumerate(history.events, start=1)],
            "forces": [{"node": force.label, "selected": list(force.selected), "applied": force.node not in skipped}
                       for force in self.forces],
            "results": finished.get("documents", []),
            "stops": [{**stop, **({"reason": NEVER_JUDGED_KEY, "recorded_reason": stop["reason"]}
                                  if state.reason_of(record) == NEVER_JUDGED else {})}
                      for stop, record in zip(finished.get("stops", []), result.stops if result else (), strict=True)],
            "summary": {
                "end": str(history.end or WalkEnd.FINISHED),
                "error": history.error,
                "failure": result.failure if result else None,
                "visits_used": state.visits_used,
                "navigator_calls": cost.live_calls,
                "decisions": cost.answers,
                "answered": cost.to_json(),
                "chars_shipped": cost.chars,
                "prompt_tokens": cost.prompt_tokens,
                "completion_tokens": cost.completion_tokens,
                "landed": [d.id for d in result.documents] if result else [],
                **({"habits": count_habits(habits.values()).to_json()} if habits else {}),
                **({"never_judged": never_judged} if never_judged else {}),
            },
        }

    # -- the trace ----------------------------------------------------------------------------------

    def save_trace(self, path: str | Path, reads: Iterable[Read | None] = (), *, replace: bool = True) -> Path:
        """Save the walk as a trace: its one record once it is over, else what happened so far (as cancelled);
        through the one gate (:func:`~explorer.trace.write_trace`: never over ``reads``; over an existing file only
        with ``replace``)."""
        return write_trace(path, self.finished or self.history.finished(self.corpus), reads, replace=replace)


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


def save_history(history: WalkHistory, corpus: Corpus, path: str | Path) -> Path:
    """Save a walk of ``corpus`` as a trace: what happened so far (an unfinished walk is saved as cancelled)."""
    return write_trace(path, history.finished(corpus))


def fork(
    source: WalkHistory,
    offer_seq: int,
    selected: tuple[str, ...],
    corpus: Corpus,
    navigator: TreeNavigator,
    *,
    number: int = 0,
    hook: EndHook = NO_SINKS,
    what_if: Transcript | None = None,
) -> WalkSession:
    """A new walk: ``source`` run again up to its offer at ``offer_seq``, answered there with ``selected``.

    The decisions before the fork point are replayed from ``source`` (no
    navigator call), the fork's decision is forced (or, with ``what_if``, the transcript of the what-if request
    that produced ``selected``, taken from a what-if), and every later one comes
    from ``navigator``. ``source`` is untouched. The session is not started:
    its first ``offer_seq + 1`` events are the replayed walk and the forced answer.
    """
    decision = source.decision_at(offer_seq)
    if decision is None or decision.offer_seq != offer_seq:
        raise ValueError(f"step {offer_seq} of {source.name} is not an offer")
    force = Force(decision.node, tuple(selected), what_if)
    # Decisions a person forced earlier in ``source`` stay forced (and marked) in the fork: a fork of a fork.
    inherited = [Force(node, ids) for node, ids in source.forced_answers(before=offer_seq)]
    forcing = ForcingNavigator(navigator, [*inherited, force], source.recorded_before(offer_seq))
    how = "a what-if " if what_if is not None else ""
    history = WalkHistory(source.settings, Origin.FORK, number=number or source.number + 1,
                          label=f"fork of walk {source.number}: {how}{force.describe()}", parent=source,
                          fork_seq=offer_seq)
    return WalkSession(corpus, history, forcing, hook=hook)


def fork_with_prompt(
    source: WalkHistory,
    offer_seq: int,
    variant: str,
    model: str,
    corpus: Corpus,
    navigator: TreeNavigator,
    *,
    number: int = 0,
    hook: EndHook = NO_SINKS,
) -> WalkSession:
    """A new walk: ``source`` re-walked from its offer at ``offer_seq`` with the prompt variant ``variant``.

    The decisions before that offer are replayed from ``source`` (no navigator call; one a person forced stays
    forced); that decision and every later one are asked live of ``navigator``, which asks ``model`` (the
    variant's model id, ``MODEL@system=FILE,prompt=FILE``: the fork's settings and trace header carry it). The
    fork is named ``prompt VARIANT from decision N``, N the decision's number in the walk (1-based).
    ``source`` is untouched; the session is not started.
    """
    decision = source.decision_at(offer_seq)
    if decision is None or decision.offer_seq != offer_seq:
        raise ValueError(f"step {offer_seq} of {source.name} is not an offer")
    ordinal = next(n for n, d in enumerate(source.decisions(), start=1) if d.offer_seq == offer_seq)
    inherited = [Force(node, ids) for node, ids in source.forced_answers(before=offer_seq)]
    said = prompt_from(variant, ordinal)
    forcing = ForcingNavigator(SayingVariant(navigator, said), inherited, source.recorded_before(offer_seq))
    history = WalkHistory(source.settings.but(model=model), Origin.FORK, number=number or source.number + 1,
                          label=f"walk {source.number} with {said}", parent=source,
                          fork_seq=offer_seq)
    return WalkSession(corpus, history, forcing, hook=hook)


def prompt_from(variant: str, decision: int) -> str:
    """How a walk re-walked with a prompt variant is named: ``prompt v2 from decision 3``."""
    return f"prompt {variant} from decision {decision}"


def rewalk(
    source: WalkHistory,
    corpus: Corpus,
    *,
    max_nodes_visited: int | None = None,
    max_depth: int | None = None,
    navigator: TreeNavigator | None = None,
    number: int = 0,
    hook: EndHook = NO_SINKS,
    live_from: int | None = None,
    model: str | None = None,
    changed: Sequence[str] = (),
    policy: Policy | None = None,
    alpha: float | None = None,
) -> WalkSession:
    """A new walk: ``source`` run again from its recorded decisions with another budget, depth limit or ``policy``
    (the order the walk enters what was chosen, with ``alpha`` for best-first) — the explorer's ``replay
    --max-visits``: "where would this walk have stopped with 8 visits?", or ``replay --policy``: "would best-first
    have found it?"

    Every decision ``source`` recorded is replayed (no navigator call; a forced one stays forced). A node it
    never judged (reachable now with more visits or depth) stops there, unless ``navigator`` is given to ask
    instead. ``source`` is untouched; the session is not started.

    With ``live_from`` (a step of ``source``: "continue live from here"), only the decisions answered at or before
    that step are kept (replayed, their transcripts say ``kept up to step N``), and ``navigator`` (required)
    answers every later one live, each transcript ending ``("asked", "live from step N of walk M")``. ``model`` is
    the model id it asks (the new walk's settings and trace header carry it); ``changed`` says what else differs
    (``prompt v2``, ``temperature 0.3``), in the name, which keeps the walk's lineage:
    ``walk 3 · live from step 7 of walk 2 · budget 20 · prompt v2``.
    """
    settings = source.settings.but(
        max_nodes_visited=source.settings.max_nodes_visited if max_nodes_visited is None else max_nodes_visited,
        max_depth=source.settings.max_depth if max_depth is None else max_depth,
        **({"model": model} if model is not None else {}),
        **({"policy": policy} if policy is not None else {}),
        **({"alpha": alpha} if alpha is not None else {}),
    )
    decisions = [d for d in source.decisions()
                 if live_from is None or (d.answer_seq is not None and d.answer_seq <= live_from)]
    forces = [Force(node, ids) for node, ids in source.forced_answers(answered_by=live_from)]
    forced_nodes = {force.node for force in forces}
    if live_from is not None:
        if navigator is None:
            raise ValueError(f"{source.name}: continuing live from step {live_from} needs a navigator to ask")
        kept = {d.node: d.answer for d in decisions if d.answer is not None and not judged_never(d.answer)}
        recorded = {node: answer for node, answer in kept.items() if node not in forced_nodes}
        asked = SayingVariant(navigator, f"live from step {live_from} of walk {source.number}", LIVE_FROM_LABEL)
        history = WalkHistory(settings, Origin.REWALK, number=number or source.number + 1,
                              label=" · ".join([f"live from step {live_from} of walk {source.number}",
                                                f"budget {settings.max_nodes_visited}", *changed]),
                              parent=source)
        forcing = ForcingNavigator(asked, forces, recorded,
                                   replayed=f"walk {source.number}'s answer, kept up to step {live_from}")
        return WalkSession(corpus, history, forcing, hook=hook)
    recorded = {node: answer for node, answer in source.recorded().items() if node not in forced_nodes}
    inner = navigator if navigator is not None else RecordOnly(f"walk {source.number}")
    said = [f"{what} {now}" for what, now, then in (
        ("budget", settings.max_nodes_visited, source.settings.max_nodes_visited),
        ("depth limit", settings.max_depth, source.settings.max_depth),
    ) if now != then]
    if (settings.policy, settings.alpha) != (source.settings.policy, source.settings.alpha):
        said.append(policy_text(settings.policy, settings.alpha))
    said = said or ["the same settings"]
    history = WalkHistory(settings, Origin.REWALK, number=number or source.number + 1,
                          label=f"walk {source.number} re-walked with {', '.join(said)}", parent=source)
    return WalkSession(corpus, history, ForcingNavigator(inner, forces, recorded), hook=hook)
