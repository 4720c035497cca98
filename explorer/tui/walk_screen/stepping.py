"""Stepping through a walk on the walk screen: next, continue, play, back, forward, first, latest, and to where the
visit budget ran out.

A step key moves the shown walk's cursor through what already happened (no navigator call) or, at its latest
event, lets the live walk's session pull one more (``n``), all the rest (``c``) or one per beat (``p``). At the end
of a walk a step key stays on its end and says which keys go on (:data:`AT_THE_END`): another walk takes its own
key (``r``, or Enter in the query box). With no walk at all, a step key starts the first one. While presenting,
``n``, ``b`` and play move a decision at a time (:mod:`.presenting`).
"""

from __future__ import annotations

from collections.abc import Callable

from ...walks.stepping import Step, play_beat, step_next
from .presenting import Presenter
from .running_to import RunningTo
from .shown import Grounds, Part

AT_THE_END = "r restarts it · / then Enter walks a new query · b steps back · w switches walk"
"""What a step key says at the end of a walk: the keys that go on from there."""


class Stepping(Part):
    """The step keys of the walk on screen ``view``, leaning on the ``presenter`` and ``running_to``; ``walk_anew``
    starts the first walk (when there is none), and ``refresh_soon`` repaints the status once the navigator has had
    a moment."""

    def __init__(self, grounds: Grounds, *, presenter: Presenter, running_to: RunningTo,
                 walk_anew: Callable[[], None], refresh_soon: Callable[[], object]) -> None:
        super().__init__(grounds)
        self.running_to = running_to
        self.presenter = presenter
        self.walk_anew = walk_anew
        self.refresh_soon = refresh_soon

    def take(self, move: str) -> None:
        """The step key ``move`` (the key table's ``step(...)``: one of :data:`MOVES`)."""
        MOVES[move](self)

    def next(self) -> None:
        view = self.view
        if self.presenter.on and self.presenter.next():
            return  # the next decision, not the next event
        match step_next(view.walk, view.picker):
            case Step.SHOWN:
                pass  # what already happened: no navigator call
            case Step.OVER:
                self._at_the_end()
            case Step.WAITING:
                self.say("The navigator waits for you: 1-9 pick, a answer, s stop here, i type an id.")
            case Step.PULLED:
                self.refresh_soon()

    def to_the_end(self) -> None:
        view = self.view
        view.playing = False
        history = view.history
        if history is not None and not history.at_latest:
            history.latest()  # to what already happened first
            return
        if history is None:
            self.walk_anew()
        elif history.ended or view.session is None:
            self._at_the_end()
            return
        session = view.session
        if session is not None and view.walk is not None and view.walk.live:
            session.run_to_end()

    def play_pause(self) -> None:
        view = self.view
        if view.playing:
            view.playing = False
            return
        history = view.history
        if history is None:
            self.walk_anew()
            if view.walk is None or not view.walk.live:
                return
        elif history.at_latest and (history.ended or view.session is None):
            self._at_the_end()
            return
        view.playing = True

    def _at_the_end(self) -> None:
        """A step key at the end of the walk shown (or, with none, the first walk)."""
        history = self.view.history
        if history is None:
            self.walk_anew()
        elif self.presenter.on and history.ended:
            return  # the answer card and the narration say it is over; a toast would cover the card
        elif history.ended:
            self.say(f"The end of walk {history.number}, at step {history.cursor}: {AT_THE_END}.", timeout=5)
        else:
            self.say(f"The last recorded step of walk {history.number}: {AT_THE_END}.", timeout=5)

    def tick(self) -> None:
        """One beat of play: the next step, or the end of play."""
        view = self.view
        if self.presenter.on:
            if not self.presenter.tick():
                view.playing = False
            return
        if play_beat(view.walk, view.picker) is Step.OVER:
            view.playing = False

    def back(self) -> None:
        view = self.view
        view.playing = False
        history = view.history
        if history is None:
            return
        if self.presenter.on and self.presenter.back():
            return
        if not self.presenter.on and history.back():
            return
        if history.events:
            self.say("This is the first step.", timeout=2)

    def forward(self) -> None:
        view = self.view
        if self.presenter.on:
            self.presenter.forward()
        elif view.history is not None:
            view.history.forward()

    def first(self) -> None:
        self.view.playing = False
        if self.view.history is not None:
            self.view.history.first()

    def latest(self) -> None:
        if self.view.history is not None:
            self.view.history.latest()

    def to_budget_stop(self) -> None:
        """Show the step where the visit budget ran out."""
        history = self.view.history
        if history is None:
            self.say("No walk yet.", timeout=2)
            return
        step = history.budget_ran_out_at()
        if step is None:
            more = "" if history.ended else " so far"
            self.say(f"The visit budget did not run out in {history.name}{more}.", timeout=4)
            return
        self.view.playing = False
        history.go(step)
        used = history.settings.max_nodes_visited
        self.say(f"Step {step}: the {used}-visit budget ran out here (b steps back to what spent it).", timeout=4)


MOVES: dict[str, Callable[[Stepping], None]] = {
    "next": Stepping.next, "continue": Stepping.to_the_end, "play": Stepping.play_pause, "back": Stepping.back,
    "forward": Stepping.forward, "first": Stepping.first, "latest": Stepping.latest,
    "budget_stop": Stepping.to_budget_stop,
    "next_decision": lambda s: s.running_to.next_decision(),
    "previous_decision": lambda s: s.running_to.previous_decision(),
    "next_visit": lambda s: s.running_to.next_visit(), "previous_visit": lambda s: s.running_to.previous_visit(),
    "until": lambda s: s.running_to.until_prompt()}
"""The step keys' moves, by the name the key table gives them (``step('next')``)."""
