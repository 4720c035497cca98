"""A walk's events grouped into decision steps: what presenting mode plays, one offer and its answer at a time.

UI-free. A walk of 41 events (``entered X``, ``leaf at X``...) is a dozen decisions: each step here is an
offer, the navigator's answer, and the bookkeeping that follows it (nodes entered, paths stopped) until the
next offer, with the walk's start and its end as steps of their own. The screen shows a step at its
:attr:`DecisionStep.shown` event (the answer: the offer and the choice are both on screen) and moves from
step to step with :func:`step_after` and :func:`step_before`; a live walk is advanced until its next
:func:`is_stop_point`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

from core import CandidatesOffered, NavigatorChose, NavigatorFailed, WalkEvent, WalkFinished, WalkStarted

from .decisions import decisions_of


class StepKind(StrEnum):
    """What a decision step is."""

    START = "start"
    """The walk started: the query, the budget and the limits (no offer yet)."""
    DECISION = "decision"
    """An offer, its answer (or none yet) and the bookkeeping that follows."""
    END = "end"
    """The walk finished: what landed (the answer card)."""


@dataclass(frozen=True)
class DecisionStep:
    """Events ``first`` to ``last`` (1-based, inclusive) of a walk, shown at event ``shown``."""

    number: int
    """1-based, among the walk's steps."""
    kind: StepKind
    first: int
    last: int
    shown: int
    """The event the screen stops at: a decision's answer (its offer while it is awaited), else ``last``."""

    @property
    def answered(self) -> bool:
        """Whether a decision step holds its answer (a start or an end: always)."""
        return self.kind is not StepKind.DECISION or self.shown > self.first

    def holds(self, seq: int) -> bool:
        return self.first <= seq <= self.last


def is_stop_point(event: WalkEvent) -> bool:
    """Whether a live walk advanced by decisions stops once ``event`` has arrived: an answer, or the end."""
    return isinstance(event, NavigatorChose | NavigatorFailed | WalkFinished)


def decision_steps(events: Sequence[WalkEvent]) -> tuple[DecisionStep, ...]:
    """The decision steps of ``events`` (a walk's, in order; a live walk's so far).

    The start is its own step; every offer starts a decision step that runs to the event before the next
    offer (or the end); ``WalkFinished`` is the end step. Events before the first offer other than the start
    (none in a walk ``core`` makes) belong to the start.
    """
    bounds: list[tuple[StepKind, int]] = []  # each step's kind and first event
    for seq, event in enumerate(events, start=1):
        if isinstance(event, WalkStarted) or (seq == 1 and not isinstance(event, CandidatesOffered)):
            bounds.append((StepKind.START, seq))
        elif isinstance(event, CandidatesOffered):
            bounds.append((StepKind.DECISION, seq))
        elif isinstance(event, WalkFinished):
            bounds.append((StepKind.END, seq))
    answered = {d.offer_seq: d.answer_seq for d in decisions_of(events)}
    steps: list[DecisionStep] = []
    for number, (kind, first) in enumerate(bounds, start=1):
        last = bounds[number][1] - 1 if number < len(bounds) else len(events)
        shown = last
        if kind is StepKind.DECISION:
            answer = answered.get(first)
            shown = answer if answer is not None and answer <= last else first
        steps.append(DecisionStep(number, kind, first, last, shown))
    return tuple(steps)


def step_at(steps: Sequence[DecisionStep], cursor: int) -> DecisionStep | None:
    """The step holding event ``cursor`` (``None`` before any event)."""
    return next((step for step in steps if step.holds(cursor)), None)


def step_after(steps: Sequence[DecisionStep], cursor: int) -> DecisionStep | None:
    """The first step shown after event ``cursor`` (``None``: none recorded yet)."""
    return next((step for step in steps if step.shown > cursor), None)


def step_before(steps: Sequence[DecisionStep], cursor: int) -> DecisionStep | None:
    """The last step shown before event ``cursor`` (``None``: the cursor is at or before the first)."""
    return next((step for step in reversed(steps) if step.shown < cursor), None)
