"""Stepping through budget exhaustion on the walk screen: go to where the visits ran out, and walk the walk on
screen again with another budget or depth limit from its recorded decisions (no navigator call: the explorer's
``replay --max-visits``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from ..walks.history import WalkHistory
from ..walks.session import rewalk
from ..walks.walk_list import Walk, WalkList
from .next_walk import whole_number
from .say import Severity
from .screens.prompt import PromptScreen

if TYPE_CHECKING:
    from textual.app import App

    from ..corpora import Corpus


class Host(Protocol):
    """What re-walking needs of the walk screen."""

    corpus: Corpus
    walks: WalkList
    shown: Walk | None
    playing: bool

    @property
    def app(self) -> App[int]: ...

    @property
    def history(self) -> WalkHistory | None: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def walk_changed(self, *, burst: bool = ...) -> None: ...

    def park(self) -> None: ...

    def launch(self, walk: Walk, *, steps: int) -> None: ...


class Rewalking:
    """The budget keys of the walk screen ``host``."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def to_budget_stop(self) -> None:
        """Show the step where the visit budget ran out."""
        history = self.host.history
        if history is None:
            self.host.say("No walk yet.", timeout=2)
            return
        step = history.budget_ran_out_at()
        if step is None:
            more = "" if history.ended else " so far"
            self.host.say(f"The visit budget did not run out in {history.name}{more}.", timeout=4)
            return
        self.host.playing = False
        if history.go(step):
            self.host.walk_changed()
        used = history.settings.max_nodes_visited
        self.host.say(f"Step {step}: the {used}-visit budget ran out here (b steps back to what spent it).", timeout=4)

    def ask(self) -> None:
        """Ask for a budget, then walk the shown walk again with it from its recorded decisions."""
        shown = self.host.shown
        if shown is None or next(shown.history.decisions(), None) is None:
            self.host.say("No walk to re-walk yet: walk one first.", timeout=3)
            return
        settings = shown.history.settings

        def start(value: int | None) -> None:
            if value is not None:
                self.start(shown, value)

        self.host.app.push_screen(PromptScreen(
            f"Re-walk {shown.name} with a visit budget of (its decisions replayed, no navigator call; nodes it never "
            "judged stop there)", str(settings.max_nodes_visited), read=whole_number(1, 100_000)), start)

    def start(self, source: Walk, budget: int) -> None:
        """A new walk of the list: ``source`` again with ``budget`` visits, paused before its first step."""
        host = self.host
        session = rewalk(source.history, host.corpus, max_nodes_visited=budget, number=host.walks.next_number)
        host.park()
        host.launch(Walk(session.history, None, session), steps=1)
        host.say(f"{session.history.name} — c runs it to where it stops; no navigator is called.", timeout=5)
