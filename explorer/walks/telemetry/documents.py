"""A walk's landed documents, and the score of each: the navigator's own, from the decision that chose it.

None is made up: an LLM ranks without scoring (``order``), and a document
nothing scored says ``unknown`` (:mod:`explorer.navigators.scored` reads the
scores a navigator wrote in its transcript).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from core import HierarchyMetadata, PathStopped, ReasoningRAGStrategy, RetrievedDocument, WalkEvent, WalkFinished

from ...navigators.answered import Answered
from ...navigators.scored import scores_in
from ..decisions import Decision
from .llm_calls import llm_of

__all__ = ["document_score", "landed_documents"]


def document_score(node: str, choosers: Mapping[str, tuple[Decision, int]],
                   model: str) -> tuple[float | None, dict[str, Any]]:
    """A landed document's score — the navigator's own, from the decision that chose it — and what the document's
    metadata says of it: ``score_kind`` (``bm25``, ``cosine similarity``...; ``order`` for an LLM, which ranks
    without scoring, ``rank`` being its place; ``unknown`` when nothing scored it), the ``rank``, the node where
    it was chosen (``chosen_at``, ``None``: among the roots) and how that decision was answered."""
    chosen = choosers.get(node)
    if chosen is None:
        return None, {"score_kind": "unknown"}
    decision, rank = chosen
    answer = decision.answer
    how = decision.how
    facts: dict[str, Any] = {"rank": rank, "chosen_at": decision.offer.current.id if decision.offer.current else None,
                             "answered": how.value}
    transcript = tuple(answer.transcript or ()) if answer is not None else ()
    scores = scores_in(transcript) if how is not Answered.FORCED else None
    if scores is not None and node in scores.by_id:
        return scores.by_id[node], {"score_kind": scores.kind, **facts}
    if how is not Answered.FORCED and llm_of(model, transcript) is not None:
        return None, {"score_kind": "order", **facts}
    return None, {"score_kind": "unknown", **facts}


def landed_documents(events: Sequence[WalkEvent]) -> list[RetrievedDocument]:
    """The walk's landed documents: its result, or, for a walk that did not finish, what its stops landed."""
    for event in reversed(events):
        if isinstance(event, WalkFinished):
            return list(event.result.documents)
    documents = []
    for event in events:
        landed = event.record.landed if isinstance(event, PathStopped) else None
        if isinstance(event, PathStopped) and landed is not None:
            record = event.record
            landed_path = tuple(record.path)
            documents.append(RetrievedDocument("", landed, ReasoningRAGStrategy.SELECTED_SCORE, {
                HierarchyMetadata.STOP_REASON: record.reason.value, HierarchyMetadata.PATH: landed_path,
                HierarchyMetadata.DEPTH: max(len(landed_path) - 1, 0)}))
    return documents
