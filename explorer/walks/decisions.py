"""A walk's decisions: each offer paired with what answered it, and the one rule that says how it was answered.

UI-free, and at the bottom of ``walks/`` so that everything reading a walk's decisions shares them: the
history (stepping, forks, re-walks), the fold that counts what a walk cost (:mod:`.state`), the decision
steps, the telemetry's spans and the command line's tree. :func:`decisions_of` is the one place that pairs
offers with answers; :func:`how_answered` is the one place that says whether an answer was live, forced by
a person, replayed from a record, read from the response cache, or taken from a what-if.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from core import CandidatesOffered, NavigatorChose, NavigatorFailed, StopReason, StopRecord, WalkEvent

from ..navigators.answered import NEVER_JUDGED, Answered, answered_by, never_judged

__all__ = ["LEGACY_FORCED_LABEL", "NEVER_JUDGED", "NEVER_JUDGED_BRIEF", "NEVER_JUDGED_KEY", "Decision", "chosen_by",
           "decisions_of", "how_answered", "judged_never", "stop_reason"]

LEGACY_FORCED_LABEL = "forced"
"""How forced answers' transcripts were labelled before :mod:`explorer.navigators.answered` (older traces)."""


def how_answered(answer: NavigatorChose | NavigatorFailed, forced: bool = False, replayed: bool = False) -> Answered:
    """How one decision was answered: ``forced`` (a person forced it: the session's, history's or trace's word)
    wins, then ``replayed`` (a session that knows it replayed it), then what the answer's transcript says —
    an older trace's ``forced`` label first, then the ``answered`` pair
    (:func:`~explorer.navigators.answered.answered_by`: forced, replayed, cached or what-if); else a live call."""
    transcript = answer.transcript
    if forced or (transcript and transcript[0][0] == LEGACY_FORCED_LABEL):
        return Answered.FORCED
    if replayed:
        return Answered.REPLAYED
    return answered_by(transcript)


def judged_never(answer: NavigatorChose | NavigatorFailed | None) -> bool:
    """Whether ``answer`` stands for a node its record never judged, with no navigator to ask (a re-walk or replay
    with a bigger budget): replayed (:func:`how_answered`), and marked so by
    :func:`~explorer.navigators.answered.never_judged_pair`; its stop is said ``never judged``."""
    return isinstance(answer, NavigatorChose) and not answer.selected and never_judged(answer.transcript)


NEVER_JUDGED_BRIEF = "never judged"
"""How an end summary counts the stops at nodes the record never judged (``leaf ×6, never judged ×4``)."""
NEVER_JUDGED_KEY = "never_judged"
"""How ``--json`` names that reason (its ``stops``; core's ``navigator_stopped`` kept as ``recorded_reason``)."""


def stop_reason(record: StopRecord, unjudged: Collection[str | None] = (), *, brief: bool = False) -> str:
    """The one wording of a stop's reason the explorer shows (the tree, the results, the answer, the summaries, the
    command line): core's reason (``leaf``, ``navigator_stopped``...), except at a node in ``unjudged`` (the nodes,
    ``None`` for the roots, whose answer :func:`judged_never`): ``never judged (not in the recording)``, or
    ``never judged`` when ``brief``. Core's :class:`~core.StopReason` and the trace keep ``navigator_stopped``."""
    if record.reason is StopReason.NAVIGATOR_STOPPED and record.node in unjudged:
        return NEVER_JUDGED_BRIEF if brief else NEVER_JUDGED
    return record.reason.value


@dataclass(frozen=True)
class Decision:
    """One offer of a walk and what answered it, with their event numbers (1-based).

    ``answer`` is ``None`` while it is awaited, or when the walk ended first; ``how`` is what
    :func:`how_answered` says of the answer (:attr:`Answered.LIVE` while it is awaited: the navigator is asked).
    """

    offer_seq: int
    offer: CandidatesOffered
    answer_seq: int | None = None
    answer: NavigatorChose | NavigatorFailed | None = None
    how: Answered = Answered.LIVE

    @property
    def step(self) -> int:
        """The step a person sees this decision at (the step panel's ``Step N/M``, the transcript, the ``W`` title,
        the evaluation and the export all name it so): its answer's event, or its offer's while none came."""
        return self.answer_seq if self.answer_seq is not None else self.offer_seq

    @property
    def node(self) -> str | None:
        """The node whose children were offered (``None``: the roots)."""
        return self.offer.current.id if self.offer.current is not None else None

    @property
    def forced(self) -> bool:
        """Whether a person forced the answer (``--force``, a fork)."""
        return self.how is Answered.FORCED

    @property
    def never_judged(self) -> bool:
        """Whether the answer stands for a node the record never judged (:func:`judged_never`)."""
        return judged_never(self.answer)

    @property
    def capped_by_visits(self) -> bool:
        """Whether the pick was capped by the visits left: the navigator took as many branches as there were
        visits left to enter (or more: core enters only that many), while more candidates were offered. A navigator
        that never takes more than the visits left (``semantic:``) would have taken more with more visits."""
        answer = self.answer
        if not isinstance(answer, NavigatorChose):
            return False
        left = self.offer.remaining_visits
        return 0 < left <= len(answer.valid) and len(self.offer.candidates) > left


def decisions_of(events: Sequence[WalkEvent], forced: Collection[int] = (),
                 replayed: Collection[int] = ()) -> list[Decision]:
    """Every offer of the walk, in order, each paired with the answer that followed it before the next offer
    (an offer with none: the walk ended, or moved on, first); ``forced`` and ``replayed`` number (1-based) the
    events that record an answer a person forced and one the session replayed (:func:`how_answered`)."""
    found: list[Decision] = []
    pending: tuple[int, CandidatesOffered] | None = None
    for seq, event in enumerate(events, start=1):
        if isinstance(event, CandidatesOffered):
            if pending is not None:
                found.append(Decision(*pending))
            pending = (seq, event)
        elif isinstance(event, NavigatorChose | NavigatorFailed) and pending is not None:
            found.append(Decision(*pending, seq, event, how_answered(event, seq in forced, seq in replayed)))
            pending = None
    if pending is not None:
        found.append(Decision(*pending))
    return found


def chosen_by(decisions: Sequence[Decision]) -> dict[str, tuple[Decision, int]]:
    """For each id a decision chose: that decision, and the id's place in its answer (1: named first)."""
    found: dict[str, tuple[Decision, int]] = {}
    for decision in decisions:
        if isinstance(decision.answer, NavigatorChose):
            for rank, node in enumerate(decision.answer.selected, start=1):
                found.setdefault(node, (decision, rank))
    return found
