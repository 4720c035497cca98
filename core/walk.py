"""The reasoning walk: a navigator descends the hierarchy, bounded, checked and recorded."""

from __future__ import annotations

from collections.abc import Generator, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, ClassVar

from .best_first import best_first_walk
from .cancellation import CancellationToken
from .documents import HierarchyMetadata, RetrievedDocument
from .errors import RetrievalCancelled, RetrievalConfigError, RetrievalError
from .events import (
    NavigatorFailed,
    PathStopped,
    StopReason,
    WalkEvent,
    WalkFinished,
    WalkResult,
)
from .hierarchy import HierarchyIndex
from .metadata import FrozenMetadata
from .navigator import (
    NavigatorChoice,
    NodeView,
    TreeNavigator,
    counted_scores,
    ids_from,
)
from .path import EMPTY_PATH, NodePath
from .policy import DEFAULT_ALPHA, OnFailure, Policy, check_alpha
from .views import NodeViews
from .walk_parts import (
    _BUDGET,
    _INVALID,
    _LANDED_KEYS,
    _LEAF,
    _MAX_DEPTH,
    _NEVER,
    _STOPPED,
    _all_str,
    _candidates_offered,
    _clock,
    _count,
    _finish,
    _Frame,
    _navigator_chose,
    _navigator_request,
    _node_entered,
    _one_line,
    _path_stopped,
    _Record,
    _source_names,
    _started,
    _stop_record,
    _transcript_of,
)


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
    branches to take. The runtime enters nodes in the order ``policy`` says,
    spends one visit per node entered (at most ``max_nodes_visited``
    across the walk), never goes below ``max_depth``, checks every returned
    id against what was offered, and records why each path stopped.

    ``Policy.DEPTH_FIRST`` (the default) takes the branches in the
    navigator's order, each to its end before the next. ``Policy.BEST_FIRST``
    keeps every chosen node in one frontier and enters the one with the
    highest path score next: ``alpha`` × its score + (1 − ``alpha``) × its
    parent's path score, where a node's score is the navigator's
    (``NavigatorChoice.scores``) or, unscored, that of its place among the
    selected ids (see :mod:`core.frontier`). ``alpha`` must be in (0, 1]
    (``ValueError``; ``TypeError`` for a non-number); only best-first uses it.

    Choices made here where SPEC.md is silent:

    * a walk started with a tripped token raises ``RetrievalCancelled`` at once;
    * ``sources`` may be one name or several; a named source with no root in
      the index is a ``RetrievalConfigError`` when the strategy is built;
    * the strategy does not call ``navigator.supports``: matching a model to a
      provider is the registry's job;
    * a title or summary in metadata that is not a string is shown as ``str(value)``.

    And for ``Policy.BEST_FIRST`` (see :meth:`_best_first` for its steps):

    * the selected ids join the frontier first, in the navigator's order,
      then the other ids scored above 0 in the order offered; so among equal
      path scores the navigator's own choices are entered first;
    * ids the navigator returned that were not offered stop with
      ``INVALID_CHOICE`` right after its choice, in its order (there is no
      branch order to wait for); an answer of only such ids lands its node
      with ``INVALID_CHOICE`` alone, since it was not an empty choice;
    * a landed node is still a copy of its document with score
      ``SELECTED_SCORE``; its path score is on the stop record that landed it
      (``StopRecord.score``) and orders the results;
    * the stand-in (a walk that ran out of visits having landed nothing lands
      the entered node with the best path score, the first entered among
      equals) comes after the leftover frontier's stops; its stop record's
      detail begins with ``"stand-in"`` and ``WalkResult.stand_in`` names it.
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
        policy: Policy = Policy.DEPTH_FIRST,
        alpha: float = DEFAULT_ALPHA,
    ) -> None:
        if not isinstance(index, HierarchyIndex):
            raise TypeError(f"index must be a HierarchyIndex, not {type(index).__name__}")
        if not callable(getattr(navigator, "choose", None)):
            raise TypeError(f"navigator must be a TreeNavigator, not {type(navigator).__name__}")
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"the navigator model must be a non-blank string, got {model!r}")
        self.max_nodes_visited = _count("max_nodes_visited", max_nodes_visited, 1)
        self.max_depth = _count("max_depth", max_depth, 0)
        self.on_failure = on_failure if type(on_failure) is OnFailure else OnFailure(on_failure)
        self.policy = policy if type(policy) is Policy else Policy(policy)
        self.alpha = check_alpha(alpha)
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

    def node_views(self) -> NodeViews:
        """What navigators are shown of this strategy's index: kept on the index, shared by every strategy.

        Keyed by :attr:`NODE_TITLE_METADATA` and :attr:`NODE_SUMMARY_METADATA`
        as this strategy reads them, so a subclass that reads titles or
        summaries from other keys gets views of its own.
        """
        return self.index.node_views(self.NODE_TITLE_METADATA, self.NODE_SUMMARY_METADATA)

    def view(self, node_id: str) -> NodeView:
        """What a navigator sees of a node: id, title (absent: the id) and summary (absent: ``""``).

        Read from :meth:`node_views`, as the walk reads it. To show navigators
        other text, read it from other metadata keys (override
        ``NODE_TITLE_METADATA`` / ``NODE_SUMMARY_METADATA``): the walk does not
        call this method, so overriding it changes nothing a navigator sees.
        """
        return self.node_views().view(node_id)

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
        the first event is pulled; ``close()`` abandons the walk. The
        strategy's ``policy`` decides the order in which nodes are entered.
        """
        if not isinstance(query, str):
            raise TypeError(f"query must be a str, not {type(query).__name__}")
        if not isinstance(cancellation, CancellationToken):
            raise TypeError(f"cancellation must be a CancellationToken, not {type(cancellation).__name__}")
        if self.policy is Policy.BEST_FIRST:
            return self._best_first(query, cancellation)
        return self._walk(query, cancellation)

    # -- the walk itself -------------------------------------------------------------------------
    #
    # One loop: make the pending offer (if any), then take the next branch: the first one chosen at
    # that offer, or the next one left at the innermost earlier offer. It is written out, with its
    # counters in locals, rather than split into helpers because it runs once per step of every walk;
    # views and offers come ready-made from the index's NodeViews, and events are built by
    # fast_constructor (the same frozen objects, without the frozen guard's cost).

    def _walk(self, query: str, token: CancellationToken) -> Generator[WalkEvent, None, None]:
        cancelled, views, has_children, choose, model, max_depth, remaining = yield from _started(
            self, query, token, self.policy
        )
        view = views.view
        children_of = views.children
        visits = calls = chars = 0
        record = _Record()
        stack: list[_Frame] = []  # offers with branches still to take, innermost last
        # The pending offer: the roots first, then the children of the node just entered.
        offer = views.roots(self.sources)
        node_id: str | None = None  # whose children are offered
        path = EMPTY_PATH  # the path down to it
        depth = 0  # the depth the candidates sit at
        while True:
            branch: str | None = None
            if offer is not None:
                if cancelled():
                    raise RetrievalCancelled()
                current = offer.current
                candidates = offer.views
                chars += offer.chars
                yield _candidates_offered(current, path, candidates, remaining, depth, offer.chars, (), (), None, 0)

                if cancelled():
                    raise RetrievalCancelled()
                calls += 1
                started = _clock()
                try:
                    answer = choose(_navigator_request(query, model, current, candidates, remaining, token))
                    if isinstance(answer, NavigatorChoice):
                        returned, rationale, usage = answer.selected, answer.rationale, answer.usage
                        transcript, scores = answer.transcript, answer.scores
                    else:  # a plain iterable of ids: the same with no rationale
                        returned = answer if type(answer) is tuple and _all_str(answer) else ids_from(answer)
                        rationale, usage, transcript, scores = "", None, None, None
                except RetrievalCancelled:
                    raise
                except Exception as exc:
                    seconds = _clock() - started
                    if cancelled():
                        raise RetrievalCancelled() from exc
                    emptied = yield from self._failed(exc, seconds, record, node_id, path)
                    if emptied:
                        yield _finish(record, visits, calls, chars, self.alpha, failed=True)
                        return
                    offer = None
                    continue
                seconds = _clock() - started
                if cancelled():
                    raise RetrievalCancelled()

                ids = offer.ids
                offered = offer.offered
                entered_view: NodeView | None = None
                selected: tuple[str, ...]
                hallucinated: tuple[str, ...]
                if len(returned) == 1:  # the usual answer: one branch
                    selected = returned
                    if returned[0] in offered:
                        hallucinated = ()
                        position = ids.index(returned[0])
                        rejected = ids[:position] + ids[position + 1:]
                        entered_view = candidates[position]
                    else:
                        hallucinated, rejected = returned, ids
                elif returned:
                    selected = tuple(dict.fromkeys(returned))
                    hallucinated = tuple([i for i in selected if i not in offered])
                    chosen = selected if len(selected) < 8 else frozenset(selected)  # short tuples beat hashing
                    rejected = tuple([c for c in ids if c not in chosen])
                else:
                    selected = hallucinated = ()
                    rejected = ids
                if scores is not None:  # recorded, and ignored: depth-first follows the navigator's order
                    scores = counted_scores(scores, ids)
                yield _navigator_chose(
                    node_id, selected, hallucinated, rejected, rationale, usage, seconds, transcript, scores, (), (),
                    None, 0,
                )
                offer = None
                if selected:
                    branch = selected[0]
                    if len(selected) > 1:  # the others wait their turn, depth-first
                        stack.append(_Frame(node_id, path, selected, offered, depth, 1))
                    from_id, from_path, from_offered, entered_depth = node_id, path, offered, depth
                else:
                    yield self._stop(record, _STOPPED, path, node_id)

            if branch is None:
                if not stack:
                    break
                frame = stack[-1]
                branches = frame.branches
                branch = branches[frame.position]
                frame.position += 1
                if frame.position == len(branches):
                    stack.pop()  # done with this offer once this branch is: a long chain keeps one frame
                from_id, from_path, from_offered = frame.node_id, frame.path, frame.offered
                entered_depth = frame.child_depth
                entered_view = None
            if branch not in from_offered:
                yield self._stop(
                    record, _INVALID, from_path, from_id, branch,
                    f"{branch!r} was not among the ids offered",
                )
                continue
            if cancelled():
                raise RetrievalCancelled()
            if remaining == 0:
                yield self._stop(
                    record, _BUDGET, from_path, from_id, branch,
                    f"no visit left to enter {branch!r}",
                )
                continue
            remaining -= 1
            visits += 1
            path = from_path.child(branch)
            yield _node_entered(
                view(branch) if entered_view is None else entered_view, path, entered_depth, remaining, visits,
                None, (), (), None, 0,
            )
            if not has_children(branch):
                yield self._stop(record, _LEAF, path, branch)
            elif entered_depth >= max_depth:
                yield self._stop(record, _MAX_DEPTH, path, branch, detail=f"depth limit {max_depth}")
            elif remaining == 0:
                yield self._stop(
                    record, _BUDGET, path, branch, detail="no visit left to go deeper"
                )
            else:
                offer = children_of(branch)
                node_id = branch
                depth = entered_depth + 1
        yield _finish(record, visits, calls, chars, self.alpha, failed=False)

    def _best_first(self, query: str, token: CancellationToken) -> Generator[WalkEvent, None, None]:
        """The walk under ``Policy.BEST_FIRST``: :func:`core.best_first.best_first_walk`."""
        return best_first_walk(self, query, token)

    def _failed(
        self,
        exc: Exception,
        seconds: float,
        record: _Record,
        current: str | None,
        path: NodePath,
        score: float | None = None,
    ) -> Generator[WalkEvent, None, bool]:
        """The provider raised (or answered something that is not ids): follow ``on_failure``.

        Returns whether the walk ends empty (``OnFailure.EMPTY``); raises
        ``RetrievalError`` under ``OnFailure.THROW``. ``score`` is the
        best-first path score of ``current``, written on the stop record.
        """
        error = _one_line(exc)
        yield NavigatorFailed(current, error, self.on_failure, seconds, _transcript_of(exc))
        where = "the roots" if current is None else f"the children of {current!r}"
        if self.on_failure is OnFailure.THROW:
            raise RetrievalError(f"navigator {self.model!r} failed choosing among {where}: {error}") from exc
        if self.on_failure is OnFailure.EMPTY:
            yield self._stop(record, StopReason.NAVIGATOR_FAILED, path, None, detail=error, score=score)
            return True
        yield self._stop(record, StopReason.NAVIGATOR_FAILED, path, current, detail=error, score=score)
        return False

    def _stop(
        self,
        record: _Record,
        reason: StopReason,
        path: NodePath,
        land: str | None,
        branch: str | None = None,
        detail: str = "",
        score: float | None = None,
    ) -> PathStopped:
        """Record a stop; land ``land`` (the last node entered) unless it is ``None`` or landed before.

        ``score`` is a best-first path score, written on the record (``None`` in a depth-first walk).
        """
        landed: str | None = None
        if land is not None and land not in record.landed:
            record.landed.add(land)
            document = self.index[land]
            ids = path.to_tuple()
            # A StrEnum's str() is its value, as a plain str.
            metadata = FrozenMetadata.of(document.metadata).extended(_LANDED_KEYS, (str(reason), ids, len(ids) - 1))
            landed_copy = RetrievedDocument.frozen(document.content, document.id, self.SELECTED_SCORE, metadata)
            record.documents.append(landed_copy)
            landed = land
        stop = _stop_record(reason, path, branch, landed, detail, score)
        record.stops.append(stop)
        return _path_stopped(stop)
