"""The reasoning walk: a navigator descends the hierarchy, bounded, checked and recorded."""

from __future__ import annotations

import time
from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar, Final

from .cancellation import CancellationToken
from .documents import HierarchyMetadata, RetrievedDocument
from .errors import RetrievalCancelled, RetrievalConfigError, RetrievalError
from .events import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    PathStopped,
    StopReason,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
)
from .hierarchy import HierarchyIndex
from .navigator import NavigatorChoice, NavigatorRequest, NodeView, Transcript, TreeNavigator, ids_from, transcript_from
from .path import EMPTY_PATH, NodePath
from .policy import OnFailure


@dataclass(frozen=True, slots=True)
class RAGContext:
    """Filters applied to a walk's landed documents by ``retrieve``.

    Keeps the documents whose score is at least ``min_score`` and whose
    metadata holds every key of ``metadata_filters`` with an equal value (a
    missing key does not match), in landing order, then the first
    ``max_results`` of them. ``max_results`` must be at least 0.
    """

    min_score: float = 0.0
    metadata_filters: Mapping[str, Any] = field(default_factory=dict)
    max_results: int = 5

    def __post_init__(self) -> None:
        if isinstance(self.max_results, bool) or not isinstance(self.max_results, int):
            raise TypeError(f"max_results must be an int, not {type(self.max_results).__name__}")
        if self.max_results < 0:
            raise ValueError(f"max_results must be at least 0, got {self.max_results}")
        object.__setattr__(self, "metadata_filters", MappingProxyType(dict(self.metadata_filters)))

    def apply(self, documents: Iterable[RetrievedDocument]) -> list[RetrievedDocument]:
        """The documents that pass the filters, at most ``max_results`` of them."""
        kept: list[RetrievedDocument] = []
        for document in documents:
            if len(kept) >= self.max_results:
                break
            if document.score < self.min_score:
                continue
            metadata = document.metadata
            if all(key in metadata and metadata[key] == value for key, value in self.metadata_filters.items()):
                kept.append(document)
        return kept


_NEVER: Final = CancellationToken.none()


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
    ) -> None:
        self.node_id = node_id
        self.path = path
        self.branches = branches
        self.offered = offered
        self.child_depth = child_depth
        self.position = 0


class _Tally:
    """What one walk has used and landed so far."""

    __slots__ = ("calls", "chars", "documents", "landed", "remaining", "stops", "visits")

    def __init__(self, budget: int) -> None:
        self.remaining = budget
        self.visits = 0
        self.calls = 0
        self.chars = 0
        self.landed: set[str] = set()
        self.documents: list[RetrievedDocument] = []
        self.stops: list[StopRecord] = []


class _EmptyFailure:
    """Returned by an offer whose navigator failed under ``OnFailure.EMPTY``."""


_EMPTY_FAILURE: Final = _EmptyFailure()


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
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return value


def drain(events: Iterable[WalkEvent]) -> WalkResult:
    """Pull every event of a walk and return its result."""
    result: WalkResult | None = None
    for event in events:
        if isinstance(event, WalkFinished):
            result = event.result
    if result is None:
        raise RuntimeError("the walk ended without a WalkFinished event")
    return result


class ReasoningRAGStrategy:
    """Retrieval by a bounded, checked walk down a hierarchy.

    The navigator is offered the roots (filtered by ``sources``), then the
    children of each node it descends into, and returns the ids of the
    branches to take. The runtime enters nodes depth-first in the navigator's
    order, spends one visit per node entered (at most ``max_nodes_visited``
    across the walk), never goes below ``max_depth``, checks every returned
    id against what was offered, and records why each path stopped.

    Choices made here where SPEC.md is silent:

    * a walk started with a tripped token raises ``RetrievalCancelled`` at once;
    * ``sources`` may be one name or several; a named source with no root in
      the index is a ``RetrievalConfigError`` when the strategy is built;
    * the strategy does not call ``navigator.supports``: matching a model to a
      provider is the registry's job;
    * a title or summary in metadata that is not a string is shown as ``str(value)``.
    """

    NODE_TITLE_METADATA: ClassVar[str] = "reasoningTitle"
    NODE_SUMMARY_METADATA: ClassVar[str] = "reasoningSummary"
    SELECTED_SCORE: ClassVar[float] = 1.0

    def __init__(
        self,
        index: HierarchyIndex,
        navigator: TreeNavigator,
        model: str,
        *,
        max_nodes_visited: int = 15,
        max_depth: int = 6,
        sources: str | Iterable[str] | None = None,
        on_failure: OnFailure = OnFailure.THROW,
    ) -> None:
        if not isinstance(index, HierarchyIndex):
            raise TypeError(f"index must be a HierarchyIndex, not {type(index).__name__}")
        if not callable(getattr(navigator, "choose", None)):
            raise TypeError(f"navigator must be a TreeNavigator, not {type(navigator).__name__}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"the navigator model must be a non-blank string, got {model!r}")
        self.max_nodes_visited = _count("max_nodes_visited", max_nodes_visited, 1)
        self.max_depth = _count("max_depth", max_depth, 0)
        self.on_failure = OnFailure(on_failure)
        self.sources = _source_names(sources)
        if self.sources:
            present = {root.metadata.get(HierarchyMetadata.SOURCE) for root in index.roots()}
            missing = [name for name in self.sources if name not in present]
            if missing:
                raise RetrievalConfigError(
                    f"no hierarchy for source(s) {', '.join(map(repr, missing))}: no root of the index has "
                    f"that {HierarchyMetadata.SOURCE}; load the source or remove it from the sources"
                )
        self.index = index
        self.navigator = navigator
        self.model = model
        self._views: dict[str, NodeView] = {}

    def view(self, node_id: str) -> NodeView:
        """What a navigator sees of a node: id, title (absent: the id) and summary (absent: ``""``)."""
        cached = self._views.get(node_id)
        if cached is not None:
            return cached
        metadata = self.index[node_id].metadata
        title = metadata.get(self.NODE_TITLE_METADATA)
        summary = metadata.get(self.NODE_SUMMARY_METADATA)
        view = NodeView(
            node_id,
            node_id if title is None else str(title),
            "" if summary is None else str(summary),
        )
        self._views[node_id] = view
        return view

    def retrieve(
        self,
        query: str,
        context: RAGContext = RAGContext(),  # frozen, so one shared default is safe
        *,
        cancellation: CancellationToken = _NEVER,
    ) -> list[RetrievedDocument]:
        """Run one walk to its end and return its landed documents, filtered by ``context``.

        Raises ``RetrievalError`` when the navigator fails under
        ``OnFailure.THROW`` and ``RetrievalCancelled`` when ``cancellation``
        is tripped.
        """
        return context.apply(drain(self.walk(query, cancellation=cancellation)).documents)

    def walk(
        self,
        query: str,
        *,
        cancellation: CancellationToken = _NEVER,
    ) -> Generator[WalkEvent, None, None]:
        """The walk as events, pulled one at a time; the navigator is called only when pulled.

        See :mod:`core.events` for the order of events. Nothing runs until
        the first event is pulled; ``close()`` abandons the walk.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, not {type(query).__name__}")
        if not isinstance(cancellation, CancellationToken):
            raise TypeError(f"cancellation must be a CancellationToken, not {type(cancellation).__name__}")
        return self._walk(query, cancellation)

    # -- the walk itself -------------------------------------------------------------------------

    def _walk(self, query: str, token: CancellationToken) -> Generator[WalkEvent, None, None]:
        token.raise_if_cancelled()
        yield WalkStarted(query, self.model, self.max_nodes_visited, self.max_depth, self.sources, self.on_failure)
        tally = _Tally(self.max_nodes_visited)
        index = self.index
        max_depth = self.max_depth
        stack: list[_Frame] = []
        roots = index.root_ids(self.sources)
        if roots:
            chosen = yield from self._offer(query, token, tally, None, EMPTY_PATH, roots, 0)
            if isinstance(chosen, _EmptyFailure):
                yield self._finish(tally, failed=True)
                return
            if chosen:
                stack.append(_Frame(None, EMPTY_PATH, chosen[0], chosen[1], 0))
        while stack:
            frame = stack[-1]
            if frame.position == len(frame.branches):
                stack.pop()
                continue
            branch = frame.branches[frame.position]
            frame.position += 1
            if frame.position == len(frame.branches):
                # Done with this offer once this branch is: drop it now, so a long chain keeps one frame.
                stack.pop()
            if branch not in frame.offered:
                yield self._stop(
                    tally, StopReason.INVALID_CHOICE, frame.path, frame.node_id, branch,
                    f"{branch!r} was not among the ids offered",
                )
                continue
            token.raise_if_cancelled()
            if tally.remaining == 0:
                yield self._stop(
                    tally, StopReason.VISIT_BUDGET_EXHAUSTED, frame.path, frame.node_id, branch,
                    f"no visit left to enter {branch!r}",
                )
                continue
            tally.remaining -= 1
            tally.visits += 1
            path = frame.path.child(branch)
            depth = frame.child_depth
            yield NodeEntered(self.view(branch), path, depth, tally.remaining, tally.visits)
            if not index.has_children(branch):
                yield self._stop(tally, StopReason.LEAF, path, branch)
            elif depth >= max_depth:
                yield self._stop(tally, StopReason.MAX_DEPTH, path, branch, detail=f"depth limit {max_depth}")
            elif tally.remaining == 0:
                yield self._stop(
                    tally, StopReason.VISIT_BUDGET_EXHAUSTED, path, branch, detail="no visit left to go deeper"
                )
            else:
                children = index.child_ids(branch)
                chosen = yield from self._offer(query, token, tally, branch, path, children, depth + 1)
                if isinstance(chosen, _EmptyFailure):
                    yield self._finish(tally, failed=True)
                    return
                if chosen:
                    stack.append(_Frame(branch, path, chosen[0], chosen[1], depth + 1))
        yield self._finish(tally, failed=False)

    def _offer(
        self,
        query: str,
        token: CancellationToken,
        tally: _Tally,
        current: str | None,
        path: NodePath,
        candidates: tuple[str, ...],
        depth: int,
    ) -> Generator[WalkEvent, None, tuple[tuple[str, ...], frozenset[str]] | _EmptyFailure | None]:
        """Offer ``candidates``, ask the navigator, and return the branches chosen.

        Returns ``(branches, offered)``, ``None`` when the path stopped here,
        or ``_EMPTY_FAILURE``. (Generator return values travel by ``yield from``.)
        """
        token.raise_if_cancelled()
        current_view = None if current is None else self.view(current)
        views = tuple(map(self.view, candidates))
        chars = sum([len(v.title) + len(v.summary) for v in views])
        if current_view is not None:
            chars += len(current_view.title) + len(current_view.summary)
        tally.chars += chars
        yield CandidatesOffered(current_view, path, views, tally.remaining, depth, chars)

        token.raise_if_cancelled()
        request = NavigatorRequest(query, self.model, current_view, views, tally.remaining, token)
        tally.calls += 1
        started = time.perf_counter()
        try:
            answer = self.navigator.choose(request)
            if isinstance(answer, NavigatorChoice):
                returned, rationale, usage = answer.selected, answer.rationale, answer.usage
                transcript = answer.transcript
            else:  # a plain iterable of ids: the same with no rationale
                returned, rationale, usage, transcript = ids_from(answer), "", None, None
        except RetrievalCancelled:
            raise
        except Exception as exc:
            seconds = time.perf_counter() - started
            if token.cancelled:
                raise RetrievalCancelled() from exc
            error = _one_line(exc)
            yield NavigatorFailed(current, error, self.on_failure, seconds, _transcript_of(exc))
            where = "the roots" if current is None else f"the children of {current!r}"
            if self.on_failure is OnFailure.THROW:
                raise RetrievalError(f"navigator {self.model!r} failed choosing among {where}: {error}") from exc
            if self.on_failure is OnFailure.EMPTY:
                yield self._stop(tally, StopReason.NAVIGATOR_FAILED, path, None, detail=error)
                return _EMPTY_FAILURE
            yield self._stop(tally, StopReason.NAVIGATOR_FAILED, path, current, detail=error)
            return None
        seconds = time.perf_counter() - started
        token.raise_if_cancelled()

        selected = tuple(dict.fromkeys(returned)) if len(returned) > 1 else returned
        offered = frozenset(candidates)
        hallucinated = tuple([i for i in selected if i not in offered])
        chosen = selected if len(selected) < 8 else frozenset(selected)  # a short tuple beats hashing a set
        rejected = tuple([c for c in candidates if c not in chosen])
        yield NavigatorChose(current, selected, hallucinated, rejected, rationale, usage, seconds, transcript)
        if not selected:
            yield self._stop(tally, StopReason.NAVIGATOR_STOPPED, path, current)
            return None
        return selected, offered

    def _stop(
        self,
        tally: _Tally,
        reason: StopReason,
        path: NodePath,
        land: str | None,
        branch: str | None = None,
        detail: str = "",
    ) -> PathStopped:
        """Record a stop; land ``land`` (the last node entered) unless it is ``None`` or landed before."""
        landed: str | None = None
        if land is not None and land not in tally.landed:
            tally.landed.add(land)
            document = self.index[land]
            metadata = dict(document.metadata)
            metadata[HierarchyMetadata.STOP_REASON] = reason.value
            metadata[HierarchyMetadata.PATH] = path.to_tuple()
            metadata[HierarchyMetadata.DEPTH] = len(path) - 1
            tally.documents.append(RetrievedDocument(document.content, document.id, self.SELECTED_SCORE, metadata))
            landed = land
        record = StopRecord(reason, path, branch, landed, detail)
        tally.stops.append(record)
        return PathStopped(record)

    def _finish(self, tally: _Tally, *, failed: bool) -> WalkFinished:
        failure = tally.stops[-1].detail if failed else None
        documents = () if failed else tuple(tally.documents)
        return WalkFinished(
            WalkResult(documents, tuple(tally.stops), tally.visits, tally.calls, tally.chars, failure)
        )
