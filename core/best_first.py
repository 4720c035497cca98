"""The best-first walk (``Policy.BEST_FIRST``): a frontier of every chosen node, entered by path score.

Written apart from the depth-first loop (:mod:`core.walk`), which stays exactly as it was (and as fast): the two
share the offer, the checks, the stops and the failure policy (:mod:`core.walk_parts`, and the strategy's own
``_stop`` and ``_failed``), but not the order, and the depth-first loop's order lives in its frame stack. The
strategy is read through :class:`core.walk_parts._Strategy`, so this module needs nothing of :mod:`core.walk`.
"""

from __future__ import annotations

from collections.abc import Generator

from .cancellation import CancellationToken
from .errors import RetrievalCancelled
from .events import WalkEvent
from .frontier import FrontierQueue, joining
from .navigator import counted_scores
from .path import EMPTY_PATH, NodePath
from .policy import Policy
from .walk_parts import (
    _BUDGET,
    _INVALID,
    _LEAF,
    _MAX_DEPTH,
    _STOPPED,
    _candidates_offered,
    _clock,
    _finish,
    _navigator_chose,
    _navigator_request,
    _node_entered,
    _read_answer,
    _Record,
    _started,
    _Strategy,
)


def best_first_walk(strategy: _Strategy, query: str, token: CancellationToken) -> Generator[WalkEvent, None, None]:
    """The walk under ``Policy.BEST_FIRST`` (SPEC.md, "Walk policies"), step by step.

    1. The roots are offered and answered as in depth-first. The ids that
       join the frontier (:func:`core.frontier.joining`: the selected
       valid ids, then every other offered id scored above 0) do so with
       their own score as path score. Invalid ids stop with
       ``INVALID_CHOICE``; nothing lands at the start.
    2. While the frontier holds a node and a visit is left: check the
       token, take the best node (highest path score, then the first to
       join) and enter it (one visit). No children: it lands with
       ``LEAF``; at ``max_depth`` with children: ``MAX_DEPTH``; with
       children and no visit left: it stops with
       ``VISIT_BUDGET_EXHAUSTED``, unlanded, and the navigator is not
       called. Otherwise its children are offered and answered; the ids
       that join do so with path score ``alpha`` × score + (1 − ``alpha``)
       × its path score; invalid ids stop with ``INVALID_CHOICE`` and land
       it; an empty choice with no score above 0 lands it with
       ``NAVIGATOR_STOPPED``. A failure follows ``on_failure`` at it
       (``PARTIAL`` lands it with ``NAVIGATOR_FAILED`` and the walk goes on
       with the frontier).
    3. At the end, every node left in the frontier stops with
       ``VISIT_BUDGET_EXHAUSTED``, best first, its path score on the
       record, landing nothing. Then a walk that has landed nothing but
       entered a node (which happens only when the visits ran out) lands
       the entered node with the best path score (the first entered among
       equals) with ``VISIT_BUDGET_EXHAUSTED``: its stand-in.
    4. The result ranks the landed documents by path score.

    The token is checked before each offer is shown, before and after
    each navigator call and before each entry, as in depth-first.

    Each offer, choice and entry says what changed in the frontier (an
    offer: nothing; a choice: the pairs that joined; an entry: the node
    that left) and keeps its mark in the frontier's log, which gives the
    frontier after it when asked.
    """
    cancelled, views, has_children, choose, model, max_depth, remaining = yield from _started(
        strategy, query, token, Policy.BEST_FIRST
    )
    alpha = strategy.alpha
    visits = calls = chars = 0
    record = _Record()
    frontier = FrontierQueue()
    log = frontier.log
    record_change = log.record
    best: tuple[float, str, NodePath] | None = None  # the entered node with the best path score
    offer = views.roots(strategy.sources)  # the pending offer
    node_id: str | None = None  # whose children are offered (None: the roots)
    node_score: float | None = None  # its path score
    path = EMPTY_PATH  # the path down to it
    depth = 0  # the depth the candidates sit at
    while True:
        if offer is not None:
            if cancelled():
                raise RetrievalCancelled()
            chars += offer.chars
            yield _candidates_offered(
                offer.current, path, offer.views, remaining, depth, offer.chars, (), (), log, log.marks
            )
            if cancelled():
                raise RetrievalCancelled()
            calls += 1
            started = _clock()
            try:
                answer = choose(_navigator_request(query, model, offer.current, offer.views, remaining, token))
                returned, rationale, usage, transcript, given = _read_answer(answer)
            except RetrievalCancelled:
                raise
            except Exception as exc:
                seconds = _clock() - started
                if cancelled():
                    raise RetrievalCancelled() from exc
                emptied = yield from strategy._failed(exc, seconds, record, node_id, path, node_score)
                if emptied:
                    yield _finish(record, visits, calls, chars, alpha, failed=True, policy=Policy.BEST_FIRST)
                    return
                offer = None
                continue  # on with the frontier
            seconds = _clock() - started
            if cancelled():
                raise RetrievalCancelled()

            offered = offer.offered
            selected = tuple(dict.fromkeys(returned))
            hallucinated = tuple([i for i in selected if i not in offered])
            chosen = selected if len(selected) < 8 else frozenset(selected)  # short tuples beat hashing
            rejected = tuple([i for i in offer.ids if i not in chosen])
            scores = counted_scores(given, offer.ids)
            joined = joining(selected, offered, scores)
            if node_score is not None:
                joined = [(child, alpha * score + (1 - alpha) * node_score) for child, score in joined]
            for child, score in joined:
                frontier.add(child, score, path, depth)
            change = tuple(joined)
            yield _navigator_chose(
                node_id, selected, hallucinated, rejected, rationale, usage, seconds, transcript, scores,
                change, (), log, record_change(change),
            )
            for branch in hallucinated:
                yield strategy._stop(
                    record, _INVALID, path, node_id, branch, f"{branch!r} was not among the ids offered", node_score
                )
            if not selected and not joined:
                yield strategy._stop(record, _STOPPED, path, node_id, score=node_score)
            offer = None

        if not frontier:
            break
        if cancelled():
            raise RetrievalCancelled()
        if remaining == 0:
            break
        rank, _, entered, parent, entered_depth = frontier.pop()
        node_score = -rank
        remaining -= 1
        visits += 1
        path = parent.child(entered)
        left = (entered,)
        yield _node_entered(
            views.view(entered), path, entered_depth, remaining, visits, node_score, (), left, log,
            record_change((), left),
        )
        if best is None or node_score > best[0]:
            best = (node_score, entered, path)
        if not has_children(entered):
            yield strategy._stop(record, _LEAF, path, entered, score=node_score)
        elif entered_depth >= max_depth:
            yield strategy._stop(record, _MAX_DEPTH, path, entered, detail=f"depth limit {max_depth}", score=node_score)
        elif remaining == 0:  # it lands only as the stand-in, below
            yield strategy._stop(record, _BUDGET, path, None, detail="no visit left to go deeper", score=node_score)
        else:
            offer = views.children(entered)
            node_id = entered
            depth = entered_depth + 1

    for waiting in frontier.drain():
        yield strategy._stop(
            record, _BUDGET, waiting.parent, None, waiting.node_id,
            f"no visit left to enter {waiting.node_id!r}", waiting.score,
        )
    stand_in: str | None = None
    if not record.landed and best is not None:
        score, stand_in, where = best
        yield strategy._stop(
            record, _BUDGET, where, stand_in,
            detail="stand-in: nothing landed before the visits ran out; the entered node with the best path "
                   "score lands in its place",
            score=score,
        )
    yield _finish(record, visits, calls, chars, alpha, failed=False, policy=Policy.BEST_FIRST, stand_in=stand_in)
