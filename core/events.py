"""The events of a walk and the records it keeps.

A walk (``ReasoningRAGStrategy.walk``) yields these one at a time. Each event
carries what a viewer needs to render that step without looking anything up,
so a viewer on another thread can pull an event, hand it to the screen, and
pull the next when the person asks for it. All are frozen.

The order is always: one :class:`WalkStarted`; then, per navigator call, a
:class:`CandidatesOffered` followed by either a :class:`NavigatorChose` or a
:class:`NavigatorFailed`; a :class:`NodeEntered` for every visit; a
:class:`PathStopped` for every stop; and a last :class:`WalkFinished`, unless
the walk raises (``RetrievalError`` under ``OnFailure.THROW``, which comes
right after its ``NavigatorFailed``, or ``RetrievalCancelled``).

A best-first walk (``Policy.BEST_FIRST``) yields the same kinds of event.
Each of its offer, choice and entry events says what changed in the frontier
(``joined``: the ``(id, path score)`` pairs that joined, in order; ``left``:
the ids that left it) and gives the frontier after it when asked
(``frontier``, a property read from the walk's :class:`~core.frontier.FrontierLog`:
no event holds its own copy). Its entries carry their path score, its stop
records the path score of what stopped, and its result the policy, ``alpha``
and the stand-in, if any. These fields came with walk policies; a depth-first
walk leaves them at their defaults, where they stay out of the repr (see
:mod:`core.reprs`), so its events read, compare and serialise as before.
Two events compare by their fields, the change included, not by the log
behind ``frontier``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from .documents import RetrievedDocument
from .frontier import Frontier as Frontier
from .frontier import FrontierLog
from .navigator import NodeView, Transcript
from .path import NodePath
from .policy import DEFAULT_ALPHA, OnFailure, Policy
from .reprs import quiet_repr

_CHANGE = ("joined", "left", "frontier_log")
"""The fields of a best-first event's frontier: out of the repr while they hold their defaults (depth-first)."""


_DEPTH_FIRST_HIDDEN = ("joined", "left")
"""Never in a depth-first event's repr: it reads as before walk policies said the frontier's change."""


def _repr(event: CandidatesOffered | NavigatorChose | NodeEntered, quiet: tuple[str, ...]) -> str:
    """The event's :func:`quiet_repr`, its ``frontier`` after its fields once it belongs to a best-first walk."""
    return quiet_repr(event, (*quiet, *_CHANGE), ("frontier", lambda: event.frontier),
                      hide=_DEPTH_FIRST_HIDDEN if event.frontier_log is None else ())


def _frontier_at(log: FrontierLog | None, mark: int) -> Frontier:
    return () if log is None else log.at(mark)


class StopReason(StrEnum):
    """Why one path of a walk ended. None of them fails the request."""

    LEAF = "leaf"
    """The entered node has no children."""
    NAVIGATOR_STOPPED = "navigator_stopped"
    """The navigator chose nothing among the children offered."""
    MAX_DEPTH = "max_depth"
    """The entered node is at the depth limit and has children."""
    VISIT_BUDGET_EXHAUSTED = "visit_budget_exhausted"
    """No visit was left to enter a branch, or to go on below the entered node."""
    INVALID_CHOICE = "invalid_choice"
    """The navigator returned an id that was not offered (a hallucinated branch)."""
    NAVIGATOR_FAILED = "navigator_failed"
    """The navigator raised or answered something that is not ids (``OnFailure.PARTIAL``/``EMPTY``)."""


@dataclass(frozen=True, slots=True)
class StopRecord:
    """One path's end.

    ``path`` runs from the root to the last node entered on that path (empty
    when the path ended at the start, before any node was entered).
    ``branch`` is the id of the branch that was chosen but not entered, for a
    stop before entering (``VISIT_BUDGET_EXHAUSTED`` at a branch, and every
    ``INVALID_CHOICE``), else ``None``. ``landed`` is the id of the node this
    stop landed, or ``None`` when nothing landed: at the start, under
    ``OnFailure.EMPTY``, or because that node had landed earlier with another
    stop (a node lands once, with its first reason). ``detail`` says more for
    people (the failure message, the hallucinated id).

    ``score`` is a best-first walk's path score of what stopped: of
    ``branch`` for a node left in the frontier when the visits ran out, else
    of the last node of ``path`` (the node that landed, or would have).
    ``None`` in a depth-first walk, and for a stop at the start (empty path).
    """

    reason: StopReason
    path: NodePath
    branch: str | None = None
    landed: str | None = None
    detail: str = ""
    score: float | None = None

    def __repr__(self) -> str:
        return quiet_repr(self, ("score",))

    @property
    def node(self) -> str | None:
        """The last node entered on this path (the node the path stopped at), or ``None``."""
        return self.path.last


@dataclass(frozen=True, slots=True)
class WalkResult:
    """The outcome of a whole walk, before any ``RAGContext`` is applied.

    ``documents`` are the landed nodes, each a copy of its document with
    score ``SELECTED_SCORE`` and ``STOP_REASON``, ``PATH`` and ``DEPTH``
    added to its metadata: in landing order for a depth-first walk; for a
    best-first walk, ranked by path score, highest first (equal scores in
    landing order), each node's path score being the ``score`` of the stop
    record that landed it. ``failure`` is the provider failure that emptied
    the result under ``OnFailure.EMPTY``, else ``None``.

    ``policy`` and ``alpha`` are the walk's settings (``alpha`` as set on
    the strategy, even where the depth-first walk does not use it).
    ``stand_in`` is the id of the node a best-first walk landed as its best
    guess because nothing else landed before its visits ran out, else
    ``None``.
    """

    documents: tuple[RetrievedDocument, ...]
    stops: tuple[StopRecord, ...]
    visits_used: int
    navigator_calls: int
    chars_shipped: int
    failure: str | None = None
    policy: Policy = Policy.DEPTH_FIRST
    alpha: float = DEFAULT_ALPHA
    stand_in: str | None = None

    def __repr__(self) -> str:
        return quiet_repr(self, ("policy", "alpha", "stand_in"))


@dataclass(frozen=True, slots=True)
class WalkStarted:
    """The walk's settings, first of all events.

    ``policy`` and ``alpha`` are said here too, so a viewer knows from the
    first event whether frontiers and path scores will follow.
    """

    query: str
    model: str
    max_nodes_visited: int
    max_depth: int
    sources: tuple[str, ...] | None
    on_failure: OnFailure
    policy: Policy = Policy.DEPTH_FIRST
    alpha: float = DEFAULT_ALPHA

    def __repr__(self) -> str:
        return quiet_repr(self, ("policy", "alpha"))


@dataclass(frozen=True, slots=True)
class CandidatesOffered:
    """The runtime is about to ask the navigator to choose among ``candidates``.

    ``current`` is the node whose children are offered (``None`` at the start,
    when the roots are offered) and ``path`` the ids down to it. ``depth`` is
    the depth the candidates sit at (0 for the roots). ``remaining_visits`` is
    what the navigator is told is left. ``chars_shipped`` counts the
    characters of title and summary in the request: the current node's and
    every candidate's. An offer does not change a best-first walk's
    frontier: ``joined`` and ``left`` stay empty, and ``frontier`` gives the
    frontier as the offer is made (read from the walk's log); empty in a
    depth-first walk.
    """

    current: NodeView | None
    path: NodePath
    candidates: tuple[NodeView, ...]
    remaining_visits: int
    depth: int
    chars_shipped: int
    joined: Frontier = ()
    left: tuple[str, ...] = ()
    frontier_log: FrontierLog | None = field(default=None, compare=False, repr=False)
    frontier_mark: int = field(default=0, compare=False, repr=False)

    def __repr__(self) -> str:
        return _repr(self, ())

    @property
    def frontier(self) -> Frontier:
        """A best-first walk's frontier after this event, best first (read from its log; ``()`` for depth-first)."""
        return _frontier_at(self.frontier_log, self.frontier_mark)


@dataclass(frozen=True, slots=True)
class NavigatorChose:
    """The navigator answered the preceding offer.

    ``selected`` is every id it returned, in its order, duplicates dropped
    (first kept); ``hallucinated`` those of them that were not offered;
    ``rejected`` the offered ids it did not select. ``seconds`` is the time
    the call took. ``transcript`` is the provider's own record of the call
    (``NavigatorChoice.transcript``), copied unread; ``None`` when it gave none.

    ``scores`` are the navigator's scores as the walk counts them (either
    policy records them): only the offered ids it scored, in the order
    offered, each clamped to [0, 1]; ``None`` when it scored none of them.
    A rejected id may still join a best-first frontier, by a score above 0.
    ``joined`` holds the ``(id, path score)`` pairs that joined a best-first
    walk's frontier by this answer, in the order they joined; ``frontier``
    gives the frontier after it. Empty in a depth-first walk.
    """

    current: str | None
    selected: tuple[str, ...]
    hallucinated: tuple[str, ...]
    rejected: tuple[str, ...]
    rationale: str
    usage: Mapping[str, Any] | None
    seconds: float
    transcript: Transcript | None = None
    scores: Mapping[str, float] | None = None
    joined: Frontier = ()
    left: tuple[str, ...] = ()
    frontier_log: FrontierLog | None = field(default=None, compare=False, repr=False)
    frontier_mark: int = field(default=0, compare=False, repr=False)

    def __repr__(self) -> str:
        return _repr(self, ("scores",))

    @property
    def frontier(self) -> Frontier:
        """A best-first walk's frontier after this answer, best first (read from its log; ``()`` for depth-first)."""
        return _frontier_at(self.frontier_log, self.frontier_mark)

    @property
    def valid(self) -> tuple[str, ...]:
        """The selected ids that were offered, in the navigator's order."""
        bad = set(self.hallucinated)
        return tuple(i for i in self.selected if i not in bad)


@dataclass(frozen=True, slots=True)
class NavigatorFailed:
    """The navigator raised, or answered something that is not ids.

    ``error`` is a one-line description (exception type and message).
    ``policy`` says what happens next: ``THROW`` raises ``RetrievalError`` on
    the next pull; ``EMPTY`` stops the walk with no documents; ``PARTIAL``
    lands ``current`` with ``NAVIGATOR_FAILED`` and goes on. ``transcript``
    is the ``transcript`` attribute of the exception the provider raised,
    when it carries a well-formed one (a malformed one is dropped: the call
    failed already, and its failure is what the person must see).
    """

    current: str | None
    error: str
    policy: OnFailure
    seconds: float
    transcript: Transcript | None = None


@dataclass(frozen=True, slots=True)
class NodeEntered:
    """A visit: the walk entered ``node``, at ``depth``, by ``path``.

    ``remaining_visits`` is what is left after this visit; ``visits_used``
    counts this one. In a best-first walk, ``score`` is the node's path
    score, ``left`` holds its id (it left the frontier) and ``frontier``
    gives the frontier after it left; ``None`` and empty in a depth-first
    walk.
    """

    node: NodeView
    path: NodePath
    depth: int
    remaining_visits: int
    visits_used: int
    score: float | None = None
    joined: Frontier = ()
    left: tuple[str, ...] = ()
    frontier_log: FrontierLog | None = field(default=None, compare=False, repr=False)
    frontier_mark: int = field(default=0, compare=False, repr=False)

    def __repr__(self) -> str:
        return _repr(self, ("score",))

    @property
    def frontier(self) -> Frontier:
        """A best-first walk's frontier after this entry, best first (read from its log; ``()`` for depth-first)."""
        return _frontier_at(self.frontier_log, self.frontier_mark)


@dataclass(frozen=True, slots=True)
class PathStopped:
    """One path of the walk ended; ``record`` says where and why."""

    record: StopRecord


@dataclass(frozen=True, slots=True)
class WalkFinished:
    """The last event: the whole result."""

    result: WalkResult


WalkEvent = (
    WalkStarted | CandidatesOffered | NavigatorChose | NavigatorFailed | NodeEntered | PathStopped | WalkFinished
)
"""Any event a walk yields."""
