"""Budget exhaustion on the walk screen: walk the walk on screen again with another budget from its recorded
decisions (no navigator call: the explorer's ``replay --max-visits``). Going to where the visits ran out is a step
key (:mod:`.stepping`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..walks.session import rewalk
from ..walks.walk_list import Walk, WalkList
from .next_walk import whole_number
from .say import Say
from .screens.prompt import PromptScreen
from .shown import ShownWalk

if TYPE_CHECKING:
    from textual.widget import Widget

    from ..corpora import Corpus
    from .walk_runner import WalkRunner


class Rewalking:
    """``R`` on the walk on screen ``view``: ``node`` (the walk screen) asks for the budget, ``runner`` launches the
    new walk."""

    def __init__(self, view: ShownWalk, node: Widget, *, corpus: Corpus, walks: WalkList, runner: WalkRunner,
                 say: Say) -> None:
        self.view = view
        self.node = node
        self.corpus = corpus
        self.walks = walks
        self.runner = runner
        self.say = say

    def ask(self) -> None:
        """Ask for a budget, then walk the shown walk again with it from its recorded decisions."""
        shown = self.view.shown
        if shown is None or next(shown.history.decisions(), None) is None:
            self.say("No walk to re-walk yet: walk one first.", timeout=3)
            return
        settings = shown.history.settings

        def start(value: int | None) -> None:
            if value is not None:
                self.start(shown, value)

        self.node.app.push_screen(PromptScreen(
            f"Re-walk {shown.name} with a visit budget of (its decisions replayed, no navigator call; nodes it never "
            "judged stop there)", str(settings.max_nodes_visited), read=whole_number(1, 100_000)), start)

    def start(self, source: Walk, budget: int) -> None:
        """A new walk of the list: ``source`` again with ``budget`` visits, paused before its first step."""
        session = rewalk(source.history, self.corpus, max_nodes_visited=budget, number=self.walks.next_number)
        self.runner.park()
        self.runner.launch(Walk(session.history, session), steps=1)
        self.say(f"{session.history.name} — c runs it to where it stops; no navigator is called.", timeout=5)
