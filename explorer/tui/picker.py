"""Picking by hand on the walk screen: answering the manual navigator, and forking a decision.

Both are a :class:`~explorer.walks.picking.Pick` over an offer: the manual navigator's lives on its walk (it
waits for that walk to be shown, never answered on a person's behalf), a fork's on the screen (``fork``). A
fork starts from what was answered there; answering it runs the walk again as a new walk of the list, the
decisions before the fork replayed, the forced answer given, and every later one asked of the walk's own
navigator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from textual.widget import Widget
from textual.widgets import Input

from core import TreeNavigator

from ..navigators import NavigatorConfigError, resolve_navigator
from ..navigators.manual import PendingDecision
from ..walks.history import Decision, WalkHistory
from ..walks.picking import Pick
from ..walks.session import Wiring, fork
from ..walks.walk_list import Walk, WalkList
from .say import Severity
from .screens.prompt import PromptScreen

if TYPE_CHECKING:
    from textual.app import App

    from ..corpora import Corpus
    from .next_walk import NextWalk


class Host(Protocol):
    """What picking needs of the walk screen."""

    corpus: Corpus
    walks: WalkList
    allow_files: bool
    next_walk: NextWalk
    shown: Walk | None
    fork: Pick | None
    playing: bool

    @property
    def app(self) -> App[int]: ...

    @property
    def focused(self) -> Widget | None: ...

    @property
    def history(self) -> WalkHistory | None: ...

    @property
    def picker(self) -> Pick | None: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def walk_changed(self, *, burst: bool = ...) -> None: ...

    def park(self) -> None: ...

    def launch(self, walk: Walk, *, steps: int) -> None: ...

    def focus_tree(self) -> None: ...


class Picking:
    """The picker's keys on the walk screen ``host``; a fork's navigator is wired with ``wiring``."""

    def __init__(self, host: Host, wiring: Wiring) -> None:
        self.host = host
        self.wiring = wiring

    def requested(self, pending: PendingDecision) -> None:
        """The manual navigator asks (on its walk's worker): the request waits on its walk."""
        host = self.host
        walk = host.walks.by_token(pending.request.cancellation)
        if walk is None or pending.request.cancellation.cancelled:
            pending.decide((), "stale request")  # its walk is gone: nobody is there to answer
            return
        walk.pick = Pick.for_request(pending)
        if walk is not host.shown:
            host.say(f"{walk.name} waits for you: w switches to it.", timeout=5)
            return
        walk.history.latest()
        host.playing = False
        if isinstance(host.focused, Input):
            host.focus_tree()
        host.say("Your turn: 1-9 pick, a answer, s stop here, i type an id or a number.", timeout=4)
        host.walk_changed()

    def _set(self, pick: Pick) -> None:
        if pick.forking:
            self.host.fork = pick
        elif self.host.shown is not None:
            self.host.shown.pick = pick
            self.host.walk_changed()

    def fork(self) -> None:
        """Open the fork picker on the decision at this step (its offer shown as it was, before its answer)."""
        host = self.host
        history = host.history
        if history is None:
            host.say("No walk yet: start one, then fork it at any decision.", timeout=3)
            return
        if host.picker is not None and host.picker.pending is not None:
            host.say("The navigator waits for you: answer it first (1-9, a, s, i).", timeout=3)
            return
        decision = history.decision_at()
        if decision is None:
            host.say("No decision at this step yet: step to an offer (n), then fork it (e).", timeout=4)
            return
        host.playing = False
        history.go(decision.offer_seq)
        host.fork = Pick.for_fork(decision)
        host.walk_changed()
        where = "the roots" if decision.node is None else decision.node
        host.say(f"Fork at {where}: the original answer is picked; 1-9 toggle, i type an id, a answer, s stop here, "
                 "Escape closes.", timeout=5)

    def toggle(self, number: int) -> None:
        if self.host.picker is not None:
            self._set(self.host.picker.toggled(number))

    def answer(self) -> None:
        pick = self.host.picker
        if pick is not None and not pick.picked:
            self.host.say("Nothing picked: answered 'stop here'.", timeout=3)
        self._decide(pick.picked if pick else (), "picked by hand")

    def stop_here(self) -> None:
        self._decide((), "stopped here by hand")

    def close(self) -> None:
        """Close a fork's picker without forking."""
        host = self.host
        if host.fork is not None and host.history is not None:
            host.history.latest()
            host.fork = None
            host.walk_changed()

    def type_id(self) -> None:
        pick = self.host.picker
        if pick is None:
            return

        def add(value: str | None) -> None:
            current = self.host.picker
            if value and current is not None and current.candidates is pick.candidates:
                self._set(current.typed(value))

        self.host.app.push_screen(PromptScreen(f"Type a node id, or a candidate's number (1-{len(pick.candidates)}); "
                                               "an id that was not offered shows what a hallucination does",
                                               check=lambda v: None if v else "Type an id or a number."), add)

    def _decide(self, selected: tuple[str, ...], rationale: str) -> None:
        host = self.host
        pick = host.picker
        if pick is None:
            return
        if pick.decision is not None:
            host.fork = None
            self.make_fork(pick.decision, selected)
            return
        if host.shown is not None:
            host.shown.pick = None
        pick.answer(selected, rationale)
        host.walk_changed()

    def make_fork(self, decision: Decision, selected: tuple[str, ...]) -> None:
        """A new walk of the list: the shown walk again up to ``decision``, answered there with ``selected``."""
        host = self.host
        source = host.shown
        if source is None:
            return
        navigator = self.wiring.wire(self._navigator_for(source))
        try:
            session = fork(source.history, decision.offer_seq, selected, host.corpus, navigator,
                           number=host.walks.next_number)
        except ValueError as exc:
            host.say(str(exc), severity="error")
            return
        host.park()
        host.launch(Walk(session.history, navigator, session), steps=decision.offer_seq + 1)
        host.say(f"{session.history.name} — n steps on; w switches back.", timeout=5)

    def _navigator_for(self, walk: Walk) -> TreeNavigator:
        """The navigator a fork of ``walk`` goes on with: the one it was walked with."""
        if walk.navigator is not None:
            return walk.navigator
        host = self.host
        model = walk.history.settings.model
        try:
            return resolve_navigator(model, allow_files=host.allow_files)
        except NavigatorConfigError as exc:
            host.say(f"{model} cannot be used here ({exc}); the fork goes on with {host.next_walk.settings.model}",
                     severity="warning", timeout=6)
            return host.next_walk.navigator
