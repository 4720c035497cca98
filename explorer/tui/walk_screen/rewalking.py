"""Budget exhaustion on the walk screen: walk the walk on screen again with another budget from its recorded
decisions (the explorer's ``replay --max-visits``), the decisions the recording never judged asked of its navigator,
live, when one can be had (``replay --navigator``). Going to where the visits ran out is a step key
(:mod:`.stepping`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import Policy

from ...navigators import NavigatorConfigError, resolve_navigator
from ...walks.session import rewalk
from ...walks.settings import short_model
from ...walks.walk_list import Walk
from ..screens.prompt import PromptScreen
from .next_walk import whole_number
from .shown import Grounds, Part

if TYPE_CHECKING:

    from core import TreeNavigator

    from .next_walk import NextWalk
    from .walk_runner import WalkRunner


class Rewalking(Part):
    """``R`` on the walk on screen ``view``: a dialog asks for the budget, ``runner`` launches the
    new walk. What the recording never judged (reachable now with more visits) is asked of the walk's navigator,
    live, when one can be had (:meth:`live_navigator`); else it stops there."""

    def __init__(self, grounds: Grounds, *, runner: WalkRunner, next_walk: NextWalk) -> None:
        super().__init__(grounds)
        self.runner = runner
        self.next_walk = next_walk

    def live_navigator(self, source: Walk) -> TreeNavigator | None:
        """The navigator that answers, live, the decisions ``source``'s recording never judged: the one it was
        walked with; for a walk read from a trace, the explorer's when it walks the same model id, else that model
        id resolved with the session's rules (files off stay off); ``None`` when none can be had."""
        if source.navigator is not None:
            return source.navigator
        model = source.history.settings.model
        if model == self.next_walk.settings.model:
            try:
                return self.next_walk.navigator
            except NavigatorConfigError:
                return None
        try:
            return self.next_walk.wiring.wire(resolve_navigator(model, headless=True, allow_files=self.allow_files))
        except NavigatorConfigError:
            return None

    def ask(self) -> None:
        """Ask for a budget, then walk the shown walk again with it from its recorded decisions."""
        shown = self.view.walk
        if shown is None or next(shown.history.decisions(), None) is None:
            self.say("No walk to re-walk yet: walk one first.", timeout=3)
            return
        settings = shown.history.settings
        live = self.live_navigator(shown)
        unjudged = (f"nodes it never judged are asked of {short_model(settings)}, live" if live is not None
                    else "nodes it never judged stop there: no navigator for them here")

        def start(value: int | None) -> None:
            if value is not None:
                self.start(shown, value, live)

        self.stage.app.push_screen(PromptScreen(
            f"Re-walk {shown.name} with a visit budget of (its decisions replayed; {unjudged})",
            str(settings.max_nodes_visited), read=whole_number(1, 100_000)), start)

    def start(self, source: Walk, budget: int, live: TreeNavigator | None = None) -> None:
        """A new walk of the list: ``source`` again with ``budget`` visits, paused before its first step; ``live``
        answers what the recording never judged."""
        session = rewalk(source.history, self.corpus, max_nodes_visited=budget, navigator=live,
                         number=self.walks.next_number, hook=self.runner.hook)
        self.runner.park()
        self.runner.launch(Walk(session.history, session), steps=1)
        asked = ("the nodes it never judged are asked live" if live is not None
                 else "no navigator is called; nodes it never judged stop there")
        self.say(f"{session.history.name} — c runs it to where it stops; {asked}.", timeout=5)

    def other_policy(self, expected: frozenset[str] = frozenset()) -> Walk | None:
        """The shown walk walked again in the other order (depth-first to best-first, or back) from its recorded
        decisions, to its end: only what the recording never judged is asked live. The walk it came from stays on
        screen, A as the original is everywhere (``D``, ``diff``, an evaluation's baseline), the nodes its question
        ``expected`` still marked on the tree; returns the new walk, for the screen to compare with it as B on one
        tree (``None``: there was no walk to re-walk)."""
        shown = self.view.walk
        if shown is None or next(shown.history.decisions(), None) is None:
            self.say("No walk to re-walk yet: walk one first.", timeout=3)
            return None
        other = Policy.BEST_FIRST if shown.history.settings.policy is Policy.DEPTH_FIRST else Policy.DEPTH_FIRST
        live = self.live_navigator(shown)
        session = rewalk(shown.history, self.corpus, policy=other, navigator=live, number=self.walks.next_number,
                         hook=self.runner.hook)
        self.runner.park()
        made = Walk(session.history, session)
        self.runner.launch(made, steps=1)
        session.run_to_end()
        self.view.show(shown, expected=expected)  # A, the original, its expected nodes marked; the new walk is B
        asked = ("what it never judged is asked live" if live is not None
                 else "no navigator is called; what it never judged stops there")
        self.say(f"B: {session.history.name}, beside A: {shown.name} on the tree (w shows B alone): its decisions "
                 f"replayed, {asked}.", timeout=6)
        return made
