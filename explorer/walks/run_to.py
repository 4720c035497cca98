"""Run-to: the conditions a walk can be run on until (``u`` on the walk screen, ``walk --until`` headless).

UI-free. Each condition is a small frozen type with :meth:`Until.holds`, asked of one :class:`RunStep` (an
event of the walk, its 1-based number, and the decision it answers, if it answers one), and :meth:`Until.why`,
the words the screen's status line and the command line say when the walk pauses there
(``plans offered at step 7``). :func:`parse_until` reads the spelled forms (``offered:plans``,
``visits-left:3``, ``forced``...), checking ids against the corpus; :func:`first_hold` finds the first step after
a cursor (or, ``backwards``, the last before it) where a condition holds. Forced decisions and wrong turns are
read from the one :class:`~.decisions.Decision`.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from core import CandidatesOffered, HierarchyIndex, NavigatorChose, NavigatorFailed, NodeEntered, WalkEvent

from .decisions import Decision, decisions_of

__all__ = ["FORMS", "Entered", "Failure", "Forced", "NeverOffered", "Offered", "Paused", "RunStep", "Until",
           "UntilError", "VisitsLeft", "WrongTurn", "first_hold", "parse_until", "run_step"]

FORMS = "offered:ID, entered:ID, visits-left:N, wrong-turn:ID, never-offered, failure or forced"
"""The spelled forms :func:`parse_until` accepts, as an error names them."""


class UntilError(ValueError):
    """A condition's text that is not one of :data:`FORMS`, or names no node of the corpus (the message says which)."""


@dataclass(frozen=True)
class RunStep:
    """Event ``seq`` (1-based) of a walk, and the decision it answers (``None``: it answers none)."""

    seq: int
    event: WalkEvent
    decision: Decision | None = None


def run_step(events: Sequence[WalkEvent], seq: int, forced: Collection[int] = ()) -> RunStep:
    """Event ``seq`` of ``events`` as a :class:`RunStep` (``forced``: the events that record a forced answer)."""
    event = events[seq - 1]
    decision = None
    if isinstance(event, NavigatorChose | NavigatorFailed):
        found = decisions_of(events[:seq], forced)
        decision = found[-1] if found and found[-1].answer_seq == seq else None
    return RunStep(seq, event, decision)


class Until:
    """A condition a walk runs until."""

    text: str
    """Its spelled form (``offered:plans``)."""

    def holds(self, step: RunStep) -> bool:
        raise NotImplementedError

    def why(self, step: RunStep) -> str:
        """What held, for ``paused: …`` (call it where :meth:`holds` is true)."""
        raise NotImplementedError


@dataclass(frozen=True)
class Offered(Until):
    """``offered:ID``: the node is among an offer's candidates."""

    node: str

    @property
    def text(self) -> str:  # type: ignore[override]
        return f"offered:{self.node}"

    def holds(self, step: RunStep) -> bool:
        event = step.event
        return isinstance(event, CandidatesOffered) and any(c.id == self.node for c in event.candidates)

    def why(self, step: RunStep) -> str:
        return f"{self.node} offered at step {step.seq}"


@dataclass(frozen=True)
class Entered(Until):
    """``entered:ID``: the walk enters the node (``node=None``: any node, the next visit)."""

    node: str | None = None

    @property
    def text(self) -> str:  # type: ignore[override]
        return f"entered:{self.node}" if self.node is not None else "entered"

    def holds(self, step: RunStep) -> bool:
        event = step.event
        return isinstance(event, NodeEntered) and (self.node is None or event.node.id == self.node)

    def why(self, step: RunStep) -> str:
        node = self.node if self.node is not None else step.event.node.id  # type: ignore[union-attr]
        return f"{node} entered at step {step.seq}"


@dataclass(frozen=True)
class VisitsLeft(Until):
    """``visits-left:N``: a visit leaves N visits or fewer."""

    left: int

    @property
    def text(self) -> str:  # type: ignore[override]
        return f"visits-left:{self.left}"

    def holds(self, step: RunStep) -> bool:
        return isinstance(step.event, NodeEntered) and step.event.remaining_visits <= self.left

    def why(self, step: RunStep) -> str:
        left = step.event.remaining_visits if isinstance(step.event, NodeEntered) else self.left
        return f"{left} visit{'' if left == 1 else 's'} left at step {step.seq}"


@dataclass(frozen=True)
class WrongTurn(Until):
    """``wrong-turn:ID``: a decision offered the way on to the expected node (a node of ``path``, root first) and
    its answer did not take it (the first such decision is the walk's first wrong turn)."""

    expected: str
    path: tuple[str, ...] = ()

    @property
    def text(self) -> str:  # type: ignore[override]
        return f"wrong-turn:{self.expected}"

    def _missed(self, step: RunStep) -> str | None:
        decision = step.decision
        if decision is None or decision.answer is None:
            return None
        way = [c.id for c in decision.offer.candidates if c.id in self.path]
        if not way:
            return None
        taken = decision.answer.valid if isinstance(decision.answer, NavigatorChose) else ()
        return None if way[0] in taken else way[0]

    def holds(self, step: RunStep) -> bool:
        return self._missed(step) is not None

    def why(self, step: RunStep) -> str:
        return f"wrong turn at step {step.seq}: {self._missed(step)} not taken (toward {self.expected})"


@dataclass(frozen=True)
class NeverOffered(Until):
    """``never-offered``: an answer names an id that was not offered."""

    text = "never-offered"

    def holds(self, step: RunStep) -> bool:
        return isinstance(step.event, NavigatorChose) and bool(step.event.hallucinated)

    def why(self, step: RunStep) -> str:
        ids = step.event.hallucinated if isinstance(step.event, NavigatorChose) else ()
        return f"an id never offered at step {step.seq}: {', '.join(ids)}"


@dataclass(frozen=True)
class Failure(Until):
    """``failure``: the navigator fails."""

    text = "failure"

    def holds(self, step: RunStep) -> bool:
        return isinstance(step.event, NavigatorFailed)

    def why(self, step: RunStep) -> str:
        return f"navigator failure at step {step.seq}"


@dataclass(frozen=True)
class Forced(Until):
    """``forced``: a decision a person forced."""

    text = "forced"

    def holds(self, step: RunStep) -> bool:
        return step.decision is not None and step.decision.forced

    def why(self, step: RunStep) -> str:
        return f"forced decision at step {step.seq}"


@dataclass(frozen=True)
class Paused:
    """Where a walk run until ``until`` paused: event ``step``, and why."""

    until: Until
    step: int
    why: str

    def to_json(self) -> dict[str, object]:
        return {"until": self.until.text, "step": self.step, "why": self.why}


def parse_until(text: str, index: HierarchyIndex) -> Until:
    """The condition spelled ``text`` (one of :data:`FORMS`); an id must be a node of ``index``."""
    name, colon, value = text.strip().partition(":")
    simple: dict[str, Until] = {"never-offered": NeverOffered(), "failure": Failure(), "forced": Forced()}
    if name in simple and not colon:
        return simple[name]
    if name in ("offered", "entered", "wrong-turn") and value:
        if value not in index:
            raise UntilError(f"no node {value!r} in the corpus; name a node id of the corpus")
        if name == "offered":
            return Offered(value)
        if name == "entered":
            return Entered(value)
        return WrongTurn(value, tuple(index.path(value)))
    if name == "visits-left" and value:
        try:
            left = int(value)
        except ValueError:
            left = -1
        if left < 0:
            raise UntilError(f"visits-left:{value}: give a whole number of visits, 0 or more")
        return VisitsLeft(left)
    raise UntilError(f"not a condition; give one of {FORMS}")


def first_hold(until: Until, events: Sequence[WalkEvent], after: int, forced: Collection[int] = (), *,
               backwards: bool = False) -> Paused | None:
    """The first event after event ``after`` (``backwards``: the last before it) where ``until`` holds."""
    seqs = range(after - 1, 0, -1) if backwards else range(after + 1, len(events) + 1)
    for seq in seqs:
        step = run_step(events, seq, forced)
        if until.holds(step):
            return Paused(until, seq, until.why(step))
    return None
