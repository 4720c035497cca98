"""Presenting mode: the walk played a decision at a time, said in plain words, its answer on a card at the end.

The walk screen holds ``presenting`` as a reactive; while it is on, the step keys and play move by the
decision steps of :mod:`explorer.walks.decision_steps` instead of by events, and the screen fills the narration line
(:meth:`Presenter.narration`), the offer card and the answer card from the state it shows. A live walk is advanced
event by event until its next decision can be told whole: its answer and what followed it (the nodes entered, what
landed), up to the next offer (whose navigator is not asked yet) or the end; meanwhile the cursor stays on the step
shown, so the room never sees the bookkeeping flash by.
"""

from __future__ import annotations

from core import CandidatesOffered, NavigatorChose, NavigatorFailed, WalkFinished

from ...walks.decision_steps import (
    DecisionStep,
    StepKind,
    decision_steps,
    step_after,
    step_at,
    step_before,
)
from ...walks.history import WalkHistory
from ...walks.narration import Narration, narration
from .pulling_on import Pulled, pull_on
from .shown import Grounds, Part

PRESENTING = "presenting"
"""The walk screen's class while presenting (``presenting.tcss`` styles it)."""
AT_END = "at-end"
"""Also set while presenting the end of a walk that ended: the answer card takes the offer card's place."""


class Presenter(Part):
    """Moves the walk on screen (``view``) by decision steps, and says each step in words."""

    def __init__(self, grounds: Grounds) -> None:
        super().__init__(grounds)
        self.on = False
        """Whether presenting mode is on (:meth:`turn`)."""
        self.advancing = False
        """Whether a live walk is being advanced to its next stop point."""
        self.wanted = 0
        """Decisions asked for (quick presses) while one was on its way: each is taken once the one before is in."""
        self._pinned: int | None = None
        self._answer: int | None = None
        """The answer that arrived while advancing (its event's number): shown once what followed it is in."""
        self._steps: tuple[int, tuple[DecisionStep, ...]] = (-1, ())

    def steps(self) -> tuple[DecisionStep, ...]:
        history = self.view.history
        if history is None:
            return ()
        if self._steps[0] != len(history.events) or not self._steps[1]:
            self._steps = (len(history.events), decision_steps(history.events))
        return self._steps[1]

    def _live(self) -> bool:
        history, session = self.view.history, self.view.session
        return history is not None and session is not None and not history.ended

    # -- moving --------------------------------------------------------------------------------------------------

    def next(self) -> bool:
        """To the next decision step: one already recorded, else the live walk's next (``False``: there is none,
        the walk is over)."""
        history = self.view.history
        if history is None:
            return False
        if self.advancing:
            self.wanted += 1  # every press is honoured, in order, as the walk's own step keys are
            return True
        step = step_after(self.steps(), history.cursor)
        if step is not None and (step.answered or not self._live()):
            history.go(step.shown)
            return True
        if not self._live():
            return False
        self._advance()
        return True

    def _advance(self) -> None:
        history, session = self.view.history, self.view.session
        assert history is not None and session is not None
        if self.view.picker is not None and self.view.picker.pending is not None:
            return  # a person decides this one: the picker is on screen
        self._pinned = history.cursor
        self._answer = None
        history.latest()
        self.advancing = True
        session.step()

    def arrived(self) -> None:
        """An event of the shown walk arrived: stop at a stop point, else ask for the next event."""
        if not self.advancing:
            return
        history = self.view.history
        if history is None or not history.events:
            self.advancing = False
            return
        newest = history.events[-1]
        if self._answer is None and isinstance(newest, NavigatorChose | NavigatorFailed):
            self._answer = len(history.events)
        if pull_on(self.view, self._step_told, keep_at=self._pinned) is Pulled.PULLED:
            return
        if self._answer is not None:
            history.go(self._answer)  # the decision, what followed it folded in; the next offer (or the end) waits
        self.advancing = False
        self._pinned = None
        self._answer = None
        if self.wanted and not history.ended:
            self.wanted -= 1
            self.next()
        else:
            self.wanted = 0

    def _step_told(self, history: WalkHistory) -> bool:
        """Whether the decision being advanced to can be told whole: its answer is in, and so is what followed it
        (the nodes entered, what landed), up to the next offer (pulled, its navigator not asked yet) or the end."""
        newest = history.events[-1]
        return isinstance(newest, WalkFinished) or (self._answer is not None and isinstance(newest, CandidatesOffered))

    def ended(self) -> None:
        """The shown walk ended (or was cancelled): nothing more is coming."""
        self.wanted = 0
        if self.advancing:
            self.advancing = False
            self._pinned = None
            if self.view.history is not None:
                self.view.history.latest()

    def back(self) -> bool:
        history = self.view.history
        if history is None:
            return False
        self.advancing = False
        self.wanted = 0
        step = step_before(self.steps(), history.cursor)
        if step is None:
            return False
        history.go(step.shown)
        return True

    def forward(self) -> bool:
        """To the next decision step already recorded (no navigator call)."""
        history = self.view.history
        if history is None:
            return False
        step = step_after(self.steps(), history.cursor)
        if step is None or (not step.answered and self._live()):
            return False
        history.go(step.shown)
        return True

    def tick(self) -> bool:
        """A beat of play: the next decision step (``False``: the walk is over, play stops)."""
        return self.advancing or self.next()

    # -- showing -------------------------------------------------------------------------------------------------

    def narration(self) -> Narration:
        """The words for the step on screen."""
        history = self.view.history
        if history is None or not history.events:
            invite = ("Type a question and press Enter: the walk is shown a decision at a time.",)
            return Narration(invite, invite)
        steps = self.steps()
        step = step_at(steps, history.cursor) or steps[0]
        ended = history.end if history.at_latest else None
        said = narration(history.events, step, forced=history.forced, end=ended, error=history.error)
        if step.kind is StepKind.START and not history.ended:
            press = ("Press n for the first decision.",)
            said = Narration(said.sentences + press, said.brief + press)
        return said

    def turn(self, on: bool) -> None:
        """Presenting mode on or off (off: nothing is being advanced to)."""
        self.on = on
        if not on:
            self.advancing = False
            self.wanted = 0
