"""What an evaluation made of one walk, put on the walk's span so that a backend can filter to the misses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from openinference.semconv.trace import SpanAttributes

from .attributes import A, Attributes

if TYPE_CHECKING:
    from ..evaluation import QuestionOutcome

__all__ = ["MISS_REASON", "QuestionFacts", "miss_reason_of"]

MISS_REASON = "miss_reason"
"""The outcome attribute that says why a question was missed, read when it exists (see :func:`miss_reason_of`)."""


def miss_reason_of(outcome: object) -> str | None:
    """Why the evaluation says a question was missed, as text, or ``None`` when its outcome does not say.

    The hook for the evaluation's miss reasons: a ``QuestionOutcome`` with a
    ``miss_reason`` attribute (text, an enum — its value is used — or anything
    whose ``str`` reads well) fills ``reasoning_explorer.eval.miss_reason``.
    """
    reason = getattr(outcome, MISS_REASON, None)
    if reason is None:
        return None
    value = getattr(reason, "value", reason)
    return str(value) if str(value) else None


@dataclass(frozen=True)
class QuestionFacts:
    """What an evaluation made of one walk, put on its walk span so that a backend can filter to the misses.

    Attributes ``reasoning_explorer.eval.question_id``, ``.expected``, ``.hit``
    and, for a miss, ``.missed`` (the first node of the best path to an expected
    node that the walk did not enter), ``.first_wrong_turn`` (its depth) and
    ``.miss_reason`` (when the evaluation gives one), and once a judge has looked (``eval``'s ``--judge``),
    ``.blame_kind`` and ``.blame`` (whose fault the miss was: ``map-hid``, and its words) and ``.flat_rank``
    (where a flat search ranks the expected node); the same under ``metadata``'s ``eval`` key, and the tags
    ``eval`` and ``hit`` or ``miss``.
    """

    question_id: str
    expected: tuple[str, ...]
    hit: bool
    missed: str | None = None
    first_wrong_turn: int | None = None
    miss_reason: str | None = None
    blame_kind: str | None = None
    blame: str | None = None
    flat_rank: int | None = None

    @classmethod
    def of(cls, outcome: QuestionOutcome) -> QuestionFacts:
        """The facts of one scored question (``explorer.walks.evaluation.QuestionOutcome``), judged or not."""
        hit = bool(outcome.hit)
        blame = None if hit else outcome.blame
        return cls(outcome.question.id, tuple(outcome.question.expect), hit,
                   None if hit else outcome.missed, None if hit else outcome.first_wrong_turn,
                   None if hit else miss_reason_of(outcome), blame.kind.value if blame is not None else None,
                   blame.says if blame is not None else None, outcome.flat)

    def as_json(self) -> dict[str, Any]:
        judged = {"blame_kind": self.blame_kind, "blame": self.blame} if self.blame is not None else {}
        return {"question_id": self.question_id, "expected": list(self.expected), "hit": self.hit,
                "missed": self.missed, "first_wrong_turn": self.first_wrong_turn, "miss_reason": self.miss_reason,
                **judged, **({"flat_rank": self.flat_rank} if self.flat_rank is not None else {})}

    def set_on(self, walk: Attributes) -> None:
        for key, value in self.as_json().items():
            walk.set(f"{A}eval.{key}", value)
        walk.set(SpanAttributes.TAG_TAGS, ["eval", "hit" if self.hit else "miss"])
