"""A walk's answer, ranked: the landed nodes in the navigator's order, each with what put it there, the best one
first, and the nodes that landed only as stand-ins (the budget or the depth ran out) after the answers.

UI-free, for every place that shows what a walk landed: the answer card (presenting mode, so the HTML export),
the Results tab and the command line. The navigator's order is the order of its decisions: a node ranks by the
places its path was named in, root first (the first child named under the first root named comes first), as a
walk that is not cut short would enter them. Each node says what put it there: the navigator's score for it
when it wrote one (``score 2.76 · named 1st of 3 · bm25``), else its place among what it named
(``named 1st of 3``), and the decision's rationale. A node is a stand-in when it landed for branches it never
reached: chosen children left for want of visits (``stand-in: 4 chosen children never entered``), children at
the depth limit, no visit left to go below, ids chosen below it that were never offered, or a navigator that
failed below it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from core import NavigatorChose, Policy, StopReason, StopRecord, WalkEvent

from ..navigators.answered import Answered
from ..navigators.scored import scores_in
from .decisions import Decision, chosen_by, decisions_of
from .state import WalkState

__all__ = ["RankedNode", "ordinal", "rank_landed"]


@dataclass(frozen=True)
class RankedNode:
    """One landed node, ranked: ``place`` 1 is the best answer (``None`` for a stand-in)."""

    node: str
    record: StopRecord
    place: int | None
    why: str
    """What put it there: ``score 2.76 · named 1st of 3 · bm25``, ``named 2nd of 2``, ``forced · named 1st of 2``."""
    rationale: str = ""
    """The rationale of the decision that chose it, on one line (``""``: none, or nothing chose it)."""
    stand_in: str | None = None
    """Why it is only a stand-in (``stand-in: 4 chosen children never entered``), or ``None``: an answer."""
    score: float | None = None
    score_kind: str | None = None

    @property
    def reasons(self) -> str:
        """What put it there and the decision's rationale: ``named 2nd of 2 · "Refunds are billing."`` (a score
        alone: a scoring navigator's rationale lists the scores again)."""
        return f'{self.why} · "{self.rationale}"' if self.rationale and self.score is None else self.why

    @property
    def best(self) -> bool:
        return self.place == 1


def ordinal(number: int) -> str:
    """``1st``, ``2nd``, ``3rd``, ``4th``, ``11th``, ``21st``."""
    suffix = "th" if 10 <= number % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(number % 10, "th")
    return f"{number}{suffix}"


def _stand_in(node: str, record: StopRecord, stops: Sequence[StopRecord],
              never_judged: Collection[str | None]) -> str | None:
    """Why ``node`` landed only as a stand-in (the walk never got below it), or ``None`` for an answer."""
    if record.reason is StopReason.NAVIGATOR_STOPPED:
        return "stand-in: the recording never judged it" if node in never_judged else None
    if record.reason is StopReason.MAX_DEPTH:
        return "stand-in: at the depth limit, its children never offered"
    if record.reason is StopReason.NAVIGATOR_FAILED:
        return "stand-in: the navigator failed choosing below it"
    if record.reason is StopReason.INVALID_CHOICE:
        ghosts = {s.branch for s in stops if s.reason is StopReason.INVALID_CHOICE and s.path.last == node}
        return f"stand-in: it chose {len(ghosts):,} never offered below it" if len(ghosts) != 1 else (
            "stand-in: it chose one never offered below it")
    if record.reason is not StopReason.VISIT_BUDGET_EXHAUSTED:
        return None
    left = {s.branch for s in stops if s.reason is StopReason.VISIT_BUDGET_EXHAUSTED and s.branch is not None
            and s.path.last == node}
    if not left:
        return "stand-in: no visit left to go below it"
    children = "chosen child" if len(left) == 1 else "chosen children"
    return f"stand-in: {len(left):,} {children} never entered"


def _why(node: str, chosen: tuple[Decision, int] | None) -> tuple[str, float | None, str | None]:
    if chosen is None:
        return "not chosen by any decision", None, None
    decision, rank = chosen
    answer = decision.answer
    assert isinstance(answer, NavigatorChose)
    named = f"named {ordinal(rank)} of {len(answer.selected):,}"
    if decision.how is Answered.FORCED:
        return f"forced · {named}", None, None
    scores = scores_in(answer.transcript)
    if scores is not None and node in scores.by_id:
        score = scores.by_id[node]
        named = f" · {named}" if len(answer.selected) > 1 else ""
        return f"score {score:.2f}{named} · {scores.kind}", score, scores.kind
    return named, None, None


def rank_landed(state: WalkState, events: Sequence[WalkEvent], forced: Collection[int] = ()) -> tuple[RankedNode, ...]:
    """The nodes ``state`` landed, ranked from the walk's ``events`` (those up to the state's step; ``forced``
    numbers the events of answers a person forced): the answers in the navigator's order (a best-first walk's by
    path score, as core ranks its result), numbered from 1 (the best), then the stand-ins, in the same order,
    unnumbered."""
    choosers = chosen_by(decisions_of(events[: state.step] if state.step else events, forced))

    def order(node: str) -> tuple[float, ...]:
        record = state.landed[node]
        if state.policy is Policy.BEST_FIRST:  # as core ranks a best-first result: by path score
            return (-(record.score or 0.0),)
        path = list(record.path) or [node]
        if path[-1] != node:
            path.append(node)
        return tuple(choosers[n][1] if n in choosers else 0 for n in path)

    answers: list[RankedNode] = []
    stand_ins: list[RankedNode] = []
    for node in sorted(state.landed, key=order):  # sorted() is stable: ties keep the order they landed in
        record = state.landed[node]
        why, score, kind = _why(node, choosers.get(node))
        chosen = choosers.get(node)
        answer = chosen[0].answer if chosen is not None else None
        rationale = " ".join(answer.rationale.split()) if isinstance(answer, NavigatorChose) else ""
        stand_in = _stand_in(node, record, state.stops, state.never_judged)
        if stand_in is None:
            answers.append(RankedNode(node, record, len(answers) + 1, why, rationale, None, score, kind))
        else:
            stand_ins.append(RankedNode(node, record, None, why, rationale, stand_in, score, kind))
    return tuple(answers) + tuple(stand_ins)
