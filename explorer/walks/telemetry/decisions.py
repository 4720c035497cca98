"""A walk's events read as decisions: each offer with what answered it, how it was answered, and what it chose."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from core import CandidatesOffered, NavigatorChose, NavigatorFailed, WalkEvent

from ...navigators.answered import Answered, answered_by

__all__ = ["Decision", "chosen_by", "decisions_of", "how_answered"]


@dataclass(frozen=True)
class Decision:
    """One offer and what answered it (``None``: the walk ended before an answer), with their event numbers."""

    offer_seq: int
    offer: CandidatesOffered
    answer_seq: int | None
    answer: NavigatorChose | NavigatorFailed | None


def decisions_of(events: Sequence[WalkEvent]) -> list[Decision]:
    """Every offer of the walk, in order, each paired with the answer that followed it."""
    found: list[Decision] = []
    pending: tuple[int, CandidatesOffered] | None = None
    for seq, event in enumerate(events, start=1):
        if isinstance(event, CandidatesOffered):
            if pending is not None:
                found.append(Decision(*pending, None, None))
            pending = (seq, event)
        elif isinstance(event, NavigatorChose | NavigatorFailed) and pending is not None:
            found.append(Decision(*pending, seq, event))
            pending = None
    if pending is not None:
        found.append(Decision(*pending, None, None))
    return found


def how_answered(decision: Decision, forced: frozenset[int], replayed: frozenset[int]) -> Answered:
    """How a decision was answered: as the caller says (a session knows what it forced and replayed), else as its
    transcript says (:mod:`explorer.navigators.answered`)."""
    if decision.answer_seq in forced:
        return Answered.FORCED
    if decision.answer_seq in replayed:
        return Answered.REPLAYED
    return answered_by(decision.answer.transcript) if decision.answer is not None else Answered.LIVE


def chosen_by(decisions: Sequence[Decision]) -> dict[str, tuple[Decision, int]]:
    """For each id a decision chose: that decision, and the id's place in its answer (1: named first)."""
    found: dict[str, tuple[Decision, int]] = {}
    for decision in decisions:
        if isinstance(decision.answer, NavigatorChose):
            for rank, node in enumerate(decision.answer.selected, start=1):
                found.setdefault(node, (decision, rank))
    return found
