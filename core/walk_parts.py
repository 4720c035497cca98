"""What the two walks of :mod:`core.walk` share: the runtime's own event constructors, the record of what landed,
reading an answer, and finishing a walk."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any, Final, NamedTuple, Protocol

from .cancellation import CancellationToken
from .documents import HierarchyMetadata, RetrievedDocument
from .events import (
    CandidatesOffered,
    Frontier,
    NavigatorChose,
    NodeEntered,
    PathStopped,
    StopReason,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
)
from .frontier import FrontierLog
from .frozen import fast_constructor
from .hierarchy import HierarchyIndex
from .navigator import (
    NavigatorChoice,
    NavigatorRequest,
    NodeView,
    Transcript,
    TreeNavigator,
    ids_from,
    transcript_from,
)
from .path import NodePath
from .policy import OnFailure, Policy
from .views import NodeViews

_NEVER: Final = CancellationToken.none()
_clock: Final = time.perf_counter

# Enum members read once: an attribute of an enum class costs several times a global.
_LEAF: Final = StopReason.LEAF
_MAX_DEPTH: Final = StopReason.MAX_DEPTH
_BUDGET: Final = StopReason.VISIT_BUDGET_EXHAUSTED
_INVALID: Final = StopReason.INVALID_CHOICE
_STOPPED: Final = StopReason.NAVIGATOR_STOPPED

# The runtime's own objects, built without the frozen guard's per-field cost (see core.frozen).
_walk_started: Final[
    Callable[[str, str, int, int, tuple[str, ...] | None, OnFailure, Policy, float], WalkStarted]
] = fast_constructor(WalkStarted)
_candidates_offered: Final[
    Callable[
        [NodeView | None, NodePath, tuple[NodeView, ...], int, int, int, Frontier, tuple[str, ...],
         FrontierLog | None, int],
        CandidatesOffered,
    ]
] = fast_constructor(CandidatesOffered)
_navigator_request: Final[
    Callable[[str, str, NodeView | None, tuple[NodeView, ...], int, CancellationToken], NavigatorRequest]
] = fast_constructor(NavigatorRequest)
_navigator_chose: Final[
    Callable[
        [str | None, tuple[str, ...], tuple[str, ...], tuple[str, ...], str, Mapping[str, Any] | None, float,
         Transcript | None, Mapping[str, float] | None, Frontier, tuple[str, ...], FrontierLog | None, int],
        NavigatorChose,
    ]
] = fast_constructor(NavigatorChose)
_node_entered: Final[
    Callable[
        [NodeView, NodePath, int, int, int, float | None, Frontier, tuple[str, ...], FrontierLog | None, int],
        NodeEntered,
    ]
] = fast_constructor(NodeEntered)
_stop_record: Final[
    Callable[[StopReason, NodePath, str | None, str | None, str, float | None], StopRecord]
] = fast_constructor(StopRecord)
_path_stopped: Final[Callable[[StopRecord], PathStopped]] = fast_constructor(PathStopped)
_walk_result: Final[
    Callable[
        [tuple[RetrievedDocument, ...], tuple[StopRecord, ...], int, int, int, str | None, Policy, float, str | None],
        WalkResult,
    ]
] = fast_constructor(WalkResult)
_walk_finished: Final[Callable[[WalkResult], WalkFinished]] = fast_constructor(WalkFinished)


class _Strategy(Protocol):
    """What a walk reads of its strategy (:class:`core.walk.ReasoningRAGStrategy`): its settings, its index and
    navigator, and how it records a stop and a failure. Here, below both walks, so that the best-first walk
    (:mod:`core.best_first`) needs nothing of :mod:`core.walk`, which calls it."""

    index: HierarchyIndex
    navigator: TreeNavigator
    model: str
    max_nodes_visited: int
    max_depth: int
    sources: tuple[str, ...] | None
    on_failure: OnFailure
    alpha: float

    def node_views(self) -> NodeViews: ...

    def _failed(
        self, exc: Exception, seconds: float, record: _Record, current: str | None, path: NodePath,
        score: float | None = None,
    ) -> Generator[WalkEvent, None, bool]: ...

    def _stop(
        self, record: _Record, reason: StopReason, path: NodePath, land: str | None, branch: str | None = None,
        detail: str = "", score: float | None = None,
    ) -> PathStopped: ...


class _Start(NamedTuple):
    """What both walk loops read at every step, taken from the strategy once, as :func:`_started` leaves it."""

    cancelled: Callable[[], bool]
    """The token's probe."""
    views: NodeViews
    has_children: Callable[[str], bool]
    choose: Callable[[NavigatorRequest], object]
    model: str
    max_depth: int
    remaining: int
    """The visits left: the whole budget at the start."""


def _started(
    strategy: _Strategy, query: str, token: CancellationToken, policy: Policy
) -> Generator[WalkEvent, None, _Start]:
    """A walk's start, the same in both orders: check the token, say ``WalkStarted``, and hand the loop what it reads.

    The loop unpacks the result into locals (``cancelled, views, ... = yield from _started(...)``): a local costs
    less than an attribute at every step.
    """
    token.raise_if_cancelled()
    yield _walk_started(
        query, strategy.model, strategy.max_nodes_visited, strategy.max_depth, strategy.sources, strategy.on_failure,
        policy, strategy.alpha,
    )
    return _Start(
        token.probe, strategy.node_views(), strategy.index.has_children, strategy.navigator.choose, strategy.model,
        strategy.max_depth, strategy.max_nodes_visited,
    )


class _Frame:
    """The branches chosen at one offer, taken one at a time."""

    __slots__ = ("branches", "child_depth", "node_id", "offered", "path", "position")

    def __init__(
        self,
        node_id: str | None,
        path: NodePath,
        branches: tuple[str, ...],
        offered: frozenset[str],
        child_depth: int,
        position: int,
    ) -> None:
        self.node_id = node_id
        self.path = path
        self.branches = branches
        self.offered = offered
        self.child_depth = child_depth
        self.position = position  # the next branch to take


class _Record:
    """What one walk has landed and stopped so far."""

    __slots__ = ("documents", "landed", "stops")

    def __init__(self) -> None:
        self.landed: set[str] = set()
        self.documents: list[RetrievedDocument] = []
        self.stops: list[StopRecord] = []


def _one_line(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


def _transcript_of(exc: BaseException) -> Transcript | None:
    """The ``transcript`` a failing provider attached to its exception, if it is well formed."""
    found = getattr(exc, "transcript", None)
    if found is None:
        return None
    try:
        return transcript_from(found)
    except TypeError:
        return None


def _source_names(sources: str | Iterable[str] | None) -> tuple[str, ...] | None:
    if sources is None:
        return None
    names = (sources,) if isinstance(sources, str) else tuple(sources)
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"source names must be str, not {type(name).__name__}")
    return tuple(dict.fromkeys(names))


def _count(name: str, value: object, minimum: int) -> int:
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, int)):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


_LANDED_KEYS: Final = (HierarchyMetadata.STOP_REASON, HierarchyMetadata.PATH, HierarchyMetadata.DEPTH)


def _finish(
    record: _Record,
    visits: int,
    calls: int,
    chars: int,
    alpha: float,
    *,
    failed: bool,
    policy: Policy = Policy.DEPTH_FIRST,
    stand_in: str | None = None,
) -> WalkFinished:
    failure = record.stops[-1].detail if failed else None
    if failed:
        documents: tuple[RetrievedDocument, ...] = ()
    elif policy is Policy.BEST_FIRST:
        documents = _ranked(record)
    else:
        documents = tuple(record.documents)
    return _walk_finished(
        _walk_result(documents, tuple(record.stops), visits, calls, chars, failure, policy, alpha, stand_in)
    )


def _ranked(record: _Record) -> tuple[RetrievedDocument, ...]:
    """A best-first walk's landed documents by path score, highest first; equal scores in landing order.

    Each landing stop carries its node's path score; the stops that landed
    come in the order the documents did.
    """
    scores = [stop.score for stop in record.stops if stop.landed is not None]
    ranked = sorted(range(len(scores)), key=lambda i: -(scores[i] or 0.0))  # stable: ties keep landing order
    return tuple([record.documents[i] for i in ranked])


def _read_answer(
    answer: object,
) -> tuple[tuple[str, ...], str, Mapping[str, Any] | None, Transcript | None, Mapping[str, float] | None]:
    """A navigator's answer as (ids, rationale, usage, transcript, scores); ``TypeError`` when it is not ids."""
    if isinstance(answer, NavigatorChoice):
        return answer.selected, answer.rationale, answer.usage, answer.transcript, answer.scores
    return ids_from(answer), "", None, None, None  # a plain iterable of ids: the same with no rationale


def _all_str(ids: tuple[object, ...]) -> bool:
    """Whether every item is exactly a ``str`` (the usual plain answer, taken as it is)."""
    for item in ids:  # noqa: SIM110 - a loop, not all() over a generator: this runs at every step
        if type(item) is not str:
            return False
    return True
