"""Run-to on the walk screen: a decision at a time (``j`` / ``k``), a visit at a time (``l`` / ``h``), and
"continue until…" (``u``): the walk runs on, through what is recorded and then live, and pauses at the first step
where a condition holds (:mod:`explorer.walks.run_to`), saying why it paused.

Through what is already recorded nothing is asked of the navigator. A live walk is pulled on one event at a time,
each event checked as it arrives, so an LLM walk run until "plans offered" makes the calls up to there and no more.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...walks.history import WalkHistory
from ...walks.run_to import FORMS, Entered, Until, first_hold, parse_until, run_step
from ..screens.prompt import PromptScreen
from .presenting import Presenter
from .pulling_on import Pulled, pull_on
from .shown import Grounds, Part

TYPE_UNTIL = f"Continue until… one of {FORMS} (the first wrong turn: wrong-turn:EXPECTED-ID; g finds an id)"
"""The prompt's title: the conditions it takes."""
EVERY_WALK = ("never-offered", "failure", "forced")
"""The conditions that name no node, offered in the prompt's list after the walk's own."""


class RunningTo(Part):
    """The run-to keys of the walk on screen ``view``, leaning on the ``presenter``; ``expected`` names the nodes the
    walk's query expects (an evaluation's question, or a question of a set beside the corpus; none: it is no
    question), which ``u`` offers as ``wrong-turn:ID`` first."""

    def __init__(self, grounds: Grounds, *, presenter: Presenter, expected: Callable[[], Sequence[str]] = tuple
                 ) -> None:
        super().__init__(grounds)
        self.expected = expected
        self.presenter = presenter
        self.index = grounds.corpus.index
        self.until: Until | None = None
        """The condition a live walk runs on until (``None``: none is being run to)."""
        self._quiet = False
        """Say nothing when it holds (the visit keys: the step panel says it)."""
        self.last = ""
        """The last condition typed, offered again."""

    # -- keys ----------------------------------------------------------------------------------------------------

    def next_decision(self) -> None:
        if not self.presenter.next():
            self._nothing_after("decision")

    def previous_decision(self) -> None:
        if not self.presenter.back():
            self.say("No decision before this step.", timeout=2)

    def next_visit(self) -> None:
        self.run(Entered(None), quiet=True)

    def previous_visit(self) -> None:
        history = self.view.history
        if history is None:
            return
        self.view.playing = False
        paused = first_hold(Entered(None), history.events, history.cursor, history.forced, backwards=True)
        if paused is None:
            self.say("No visit before this step.", timeout=2)
        else:
            history.go(paused.step)

    def until_prompt(self) -> None:
        if self.view.history is None:
            self.say("No walk yet: Enter walks the query, then u continues it until a condition holds.", timeout=4)
            return

        def read(text: str) -> Until:
            return parse_until(text, self.index)

        def chosen(until: Until | None) -> None:
            if until is not None:
                self.last = until.text
                self.run(until)

        wrong_turns = [f"wrong-turn:{node}" for node in self.expected() if node in self.index]
        offered = list(dict.fromkeys([*wrong_turns, *([self.last] if self.last else []), *EVERY_WALK]))
        self.stage.app.push_screen(PromptScreen(TYPE_UNTIL, wrong_turns[0] if wrong_turns else self.last, read=read,
                              suggestions=offered, placeholder="entered:ID"), chosen)

    # -- running -------------------------------------------------------------------------------------------------

    def run(self, until: Until, *, quiet: bool = False) -> None:
        """Go to the first step after the one shown where ``until`` holds: recorded, else by pulling the live walk
        on; say where it paused and why (``quiet``: only when it never held)."""
        history = self.view.history
        if history is None:
            return
        self.view.playing = False
        paused = first_hold(until, history.events, history.cursor, history.forced)
        if paused is not None:
            history.go(paused.step)
            if not quiet:
                self.say(f"paused: {paused.why}", timeout=6)
            return
        session = self.view.session
        if history.ended or session is None or self.view.walk is None or not self.view.walk.live:
            self._never(until)
            return
        self.until, self._quiet = until, quiet
        history.latest()
        session.step()

    def arrived(self) -> None:
        """An event of the shown walk arrived: pause there if the condition holds, else ask for the next event."""
        until = self.until
        if until is None:
            return

        def holds(history: WalkHistory) -> bool:
            return until.holds(run_step(history.events, len(history.events), history.forced))

        match pull_on(self.view, holds):
            case Pulled.HELD:
                self.until = None
                history = self.view.history
                assert history is not None
                if not self._quiet:
                    self.say(f"paused: {until.why(run_step(history.events, len(history.events), history.forced))}",
                             timeout=6)
            case Pulled.PERSON:
                self.until = None  # a person decides this one: the picker is on screen
            case Pulled.OVER | Pulled.PULLED:
                pass  # over: ended() says the condition never held

    def ended(self) -> None:
        """The shown walk ended: a condition run to never held."""
        if self.until is not None:
            until, self.until = self.until, None
            self._never(until)

    def _never(self, until: Until) -> None:
        what = "a visit after this step" if isinstance(until, Entered) and until.node is None else until.text
        self.say(f"{what} never held: the walk ended without it (b steps back, w switches walk).", timeout=6)

    def _nothing_after(self, what: str) -> None:
        history = self.view.history
        if history is not None:
            self.say(f"No {what} after this step: the walk is at its end.", timeout=3)
