"""Putting on the walk screen a walk it did not start: another of the list, an evaluation's, a saved trace's, and
a stability run's counts on the tree.

Each joins the session's list once (a walk opened again is the same walk) and is shown at a chosen step; what
marks it on the tree (the nodes a question expects, how often N walks chose a node) is the shown walk's, and stays
until another walk is shown: the tree and the query box paint themselves from it (:mod:`.panes`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ...trace import Trace
from ...walks.history import WalkHistory
from ...walks.saved import SavedWalk, resumed_settings
from ...walks.stability import Stability
from ...walks.walk_list import Walk, WalkUnreadable
from ..screens.choose_walk import WalksScreen
from .shown import Grounds, Part

if TYPE_CHECKING:
    from .next_walk import NextWalk
    from .walk_runner import WalkRunner


class OpeningWalks(Part):
    """Walks from elsewhere, onto the screen: the walk on it is parked by ``runner``, a trace's limits go to
    ``next_walk``; an evaluation's walk takes the focus to the tree (``focus_tree``)."""

    def __init__(self, grounds: Grounds, *, focus_tree: Callable[[], object], next_walk: NextWalk,
                 runner: WalkRunner) -> None:
        super().__init__(grounds)
        self.focus_tree = focus_tree
        self.next_walk = next_walk
        self.runner = runner

    def ask_switch(self) -> None:
        """``w``: the walk list, each walk with its query and where it came from; the one picked is shown."""
        if not self.walks:
            self.say("No walk yet.", timeout=2)
            return

        def chosen(picked: int | None) -> None:
            if picked is not None:
                self.switch_to(picked)

        walks = list(self.walks)
        current = self.view.walk.number if self.view.walk is not None else 0
        self.stage.app.push_screen(WalksScreen([w.name for w in walks], current, queries=[
            w.settings.query for w in walks], sources=[w.came_from for w in walks]), chosen)

    def switch_to(self, number: int) -> None:
        """Show walk ``number`` of the list, at the step it was left at (a saved walk is read now, the first time:
        one that cannot be is said in one line, and the walk on screen stays)."""
        try:
            walk = self.walks.number(number)
            walk.read()
        except IndexError as exc:
            self.say(str(exc), severity="warning")
            return
        except WalkUnreadable as exc:
            self.say(str(exc), severity="error", timeout=8)
            return
        self.view.walk = walk
        self.say(f"Now showing {walk.name}", timeout=3)

    def open_history(self, history: WalkHistory, *, step: int | None = None, expected: frozenset[str] = frozenset(),
                     verdict: str = "") -> Walk:
        """Show a walk made elsewhere (an evaluation's) at ``step`` (``None``: its end), the nodes a question
        expects marked on the tree and ``verdict`` in the step panel; once in the list, it stays one walk."""
        walk = self.walks.holding(history)
        if walk is None:
            self.runner.park()
            walk = self.walks.add(Walk(history, came_from="from the evaluation"))
        walk.verdict = verdict or walk.verdict
        if step is None:
            history.latest()
        else:
            history.go(step)
        self.view.show(walk, expected=expected, asked=history.settings.query)  # expected: in view on the tree
        self.focus_tree()  # the step keys, and Escape back to the evaluation, work at once
        return walk

    def load_traces(self, saved: Sequence[SavedWalk], *, adopt: bool = True, came_from: str | None = None) -> None:
        """Saved walks (a trace, a folder of recorded traces, a span file's walks) join the list in the order given,
        each read when it is first shown; the first that can be read is shown (a resumed session's, in the order
        walked: the last), from its first event (a session's kept walk: where it was left), and no
        navigator is called (those before it that cannot be read are said in one line). With ``adopt``, the next
        walk takes the first one's budget, depth limit and policy; without, the screen was made with the settings
        it is to keep (the command line's, which took the walks' own where it gave none). ``came_from``: what the
        walk list says of them (default: ``opened from FILE``; a resumed session's, ``from session …``)."""
        if not saved:
            return
        self.runner.park()
        walks = [self.walks.add(Walk(saved=each, came_from=came_from)) for each in saved]
        settings = saved[0].header.settings
        if adopt:
            self.next_walk.adopt(settings.max_nodes_visited, settings.max_depth, settings.on_failure)
        unreadable: list[str] = []
        # A resumed session's walks come in the order walked: the last one walked is shown, where it was left.
        for walk in reversed(walks) if came_from is not None else walks:
            try:
                history = walk.read()
            except WalkUnreadable as exc:
                unreadable.append(str(exc))
                continue
            self.view.show(walk, asked=settings.query)
            if came_from is not None:
                carried = resumed_settings(saved)
                goes_on = f" (as {carried[1]} was walked)" if carried is not None else ""
                self.say(f"Reopened {len(walks)} walk{'s' if len(walks) != 1 else ''} {came_from}: w lists them, "
                         f"{walk.name} is shown at step {history.cursor}. {self.next_walk.describe().plain}"
                         f"{goes_on}", timeout=8)
            elif len(walks) == 1:
                self.say(f"Opened {saved[0].path} as {walk.name} ({len(history.events)} events)", timeout=4)
            else:
                self.say(f"Opened {len(walks)} walks, newest first: w lists them (type to filter), {walk.name} is "
                         "shown", timeout=6)
            break
        if unreadable:
            more = f" (and {len(unreadable) - 1} more cannot be read)" if len(unreadable) > 1 else ""
            self.say(unreadable[0] + more, severity="error", timeout=8)

    def load_trace(self, trace: Trace) -> None:
        """Step through a saved walk, from its first event; no navigator is called. It joins the list."""
        self.load_traces([trace])

    def show_stability(self, stability: Stability) -> None:
        """Beside each node chosen by some of the walks, in how many (``chosen 7/10 walks``: said in words, so it
        is not read as the mark of the walk on screen, which stays), with a heat class from the share."""
        self.view.lay_over({node: f"chosen {count} walks" for node, count in stability.counts().items()},
                           stability.heat())  # each in view on the tree
