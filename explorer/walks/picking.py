"""Candidates being picked by hand: for the manual navigator (its open request) or for a fork of a decision.

UI-free and immutable: every key a person presses gives a new :class:`Pick` (so a screen that holds one in a
reactive sees each change), and what was pressed is kept for the manual navigator's transcript.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core import NavigatorChose, NodeView

from ..navigators.manual import PendingDecision
from .decisions import Decision


@dataclass(frozen=True)
class Pick:
    """The ids picked so far among ``candidates``: answering ``pending`` (the manual navigator waits), or forking
    ``decision`` (a person answers a recorded decision anew)."""

    candidates: tuple[NodeView, ...]
    pending: PendingDecision | None = None
    decision: Decision | None = None
    picked: tuple[str, ...] = ()
    pressed: tuple[str, ...] = ()
    """What the person pressed, in order (``picked 2``, ``typed ghost``): the manual navigator's transcript."""

    @classmethod
    def for_request(cls, pending: PendingDecision) -> Pick:
        return cls(pending.request.candidates, pending=pending)

    @classmethod
    def for_fork(cls, decision: Decision) -> Pick:
        """A fork's pick starts from what was answered there, so forking begins at the original."""
        answered = decision.answer.selected if isinstance(decision.answer, NavigatorChose) else ()
        return cls(decision.offer.candidates, decision=decision, picked=tuple(answered))

    @property
    def forking(self) -> bool:
        return self.decision is not None

    def toggled(self, number: int) -> Pick:
        """Candidate ``number`` (1-based) picked, or unpicked if it was; out of range: unchanged."""
        if not 1 <= number <= len(self.candidates):
            return self
        node_id = self.candidates[number - 1].id
        if node_id in self.picked:
            return replace(self, picked=tuple(i for i in self.picked if i != node_id),
                           pressed=(*self.pressed, f"unpicked {number}"))
        return replace(self, picked=(*self.picked, node_id), pressed=(*self.pressed, f"picked {number}"))

    def typed(self, value: str) -> Pick:
        """A typed id (any id: one never offered shows what a hallucination does) picked, or unpicked when it was
        (the only way to take back an id that is no candidate); a candidate's number toggles that candidate (for
        offers wider than nine)."""
        offered = {c.id for c in self.candidates}
        if value not in offered and value.isascii() and value.isdigit() and 1 <= int(value) <= len(self.candidates):
            return self.toggled(int(value))
        if value in self.picked:
            return replace(self, picked=tuple(i for i in self.picked if i != value),
                           pressed=(*self.pressed, f"untyped {value}"))
        return replace(self, picked=(*self.picked, value), pressed=(*self.pressed, f"typed {value}"))

    def answer(self, selected: tuple[str, ...], rationale: str) -> None:
        """Answer the manual navigator's request with ``selected`` (a fork is answered by a new walk instead)."""
        if self.pending is not None:
            self.pending.decide(selected, rationale, pressed=(*self.pressed, "answered" if selected else "stop here"))
