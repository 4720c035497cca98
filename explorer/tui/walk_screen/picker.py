"""Picking by hand on the walk screen: answering the manual navigator, and forking a decision.

Both are a :class:`~explorer.walks.picking.Pick` over an offer: the manual navigator's lives on its walk (it
waits for that walk to be shown, never answered on a person's behalf), a fork's on the screen (``fork``). A
fork starts from what was answered there; answering it runs the walk again as a new walk of the list, the
decisions before the fork replayed, the forced answer given, and every later one asked of the walk's own
navigator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from core import Transcript, TreeNavigator

from ...navigators import NavigatorConfigError, resolve_navigator
from ...navigators.manual import PendingDecision
from ...walks.decisions import Decision
from ...walks.picking import Pick
from ...walks.session import WalkSession, fork, fork_with_prompt
from ...walks.walk_list import Walk
from ..screens.prompt import PromptScreen
from .shown import Grounds, Part

if TYPE_CHECKING:

    from ...navigators.prompt_variants import PromptVariant
    from .next_walk import NextWalk
    from .walk_runner import WalkRunner


class Picking(Part):
    """The picker's keys on the walk on screen ``view``; a dialog asks for a typed id,
    and a fork is launched by ``runner`` with the navigator it was walked with (else ``next_walk``'s), wired with
    ``wiring``."""

    def __init__(self, grounds: Grounds, *, runner: WalkRunner, next_walk: NextWalk) -> None:
        super().__init__(grounds)
        self.runner = runner
        self.next_walk = next_walk

    def take(self, what: str, number: int = 0) -> None:
        """The picker's key ``what`` (the key table's ``pick(...)``); ``number`` is the candidate a digit toggles."""
        match what:
            case "toggle":
                self.toggle(number)
            case "answer":
                self.answer()
            case "stop":
                self.stop_here()
            case "type_id":
                self.type_id()
            case "close":
                self.close()

    def requested(self, pending: PendingDecision) -> bool:
        """The manual navigator asks (on its walk's worker): the request waits on its walk. ``True``: that walk is
        on screen, where the person answers it now."""
        view = self.view
        walk = self.walks.by_token(pending.request.cancellation)
        if walk is None or pending.request.cancellation.cancelled:
            pending.decide((), "stale request")  # its walk is gone: nobody is there to answer
            return False
        walk.pick = Pick.for_request(pending)
        if walk is not view.walk:
            self.say(f"{walk.name} waits for you: w switches to it.", timeout=5)
            return False
        walk.history.latest()
        view.playing = False
        self.say("Your turn: 1-9 pick, a answer, s stop here, i type an id or a number.", timeout=4)
        return True

    def _set(self, pick: Pick) -> None:
        if pick.forking:
            self.view.fork = pick
        elif self.view.walk is not None:
            self.view.walk.pick = pick

    def fork(self) -> None:
        """Open the fork picker on the decision at this step (its offer shown as it was, before its answer)."""
        view = self.view
        history = view.history
        if history is None:
            self.say("No walk yet: start one, then fork it at any decision.", timeout=3)
            return
        if view.picker is not None and view.picker.pending is not None:
            self.say("The navigator waits for you: answer it first (1-9, a, s, i).", timeout=3)
            return
        decision = history.decision_at()
        if decision is None:
            self.say("No decision at this step yet: step to an offer (n), then fork it (e).", timeout=4)
            return
        view.playing = False
        history.go(decision.offer_seq)
        view.fork = Pick.for_fork(decision)
        where = "the roots" if decision.node is None else decision.node
        self.say(f"Fork at {where}: the original answer is picked; 1-9 toggle, i type an id, a answer, s stop here, "
                 "Escape closes.", timeout=5)

    def toggle(self, number: int) -> None:
        if self.view.picker is not None:
            self._set(self.view.picker.toggled(number))

    def answer(self) -> None:
        pick = self.view.picker
        if pick is not None and not pick.picked:
            self.say("Nothing picked: answered 'stop here'.", timeout=3)
        self._decide(pick.picked if pick else (), "picked by hand")

    def stop_here(self) -> None:
        self._decide((), "stopped here by hand")

    def close(self) -> None:
        """Close a fork's picker without forking."""
        view = self.view
        if view.fork is not None and view.history is not None:
            view.history.latest()
            view.fork = None

    def type_id(self) -> None:
        pick = self.view.picker
        if pick is None:
            return

        def add(value: str | None) -> None:
            current = self.view.picker
            if value and current is not None and current.candidates is pick.candidates:
                self._set(current.typed(value))

        self.stage.app.push_screen(PromptScreen(f"Type a node id, or a candidate's number (1-{len(pick.candidates)}); "
                                               "an id that was not offered shows what a hallucination does",
                                               check=lambda v: None if v else "Type an id or a number."), add)

    def _decide(self, selected: tuple[str, ...], rationale: str) -> None:
        view = self.view
        pick = view.picker
        if pick is None:
            return
        if pick.decision is not None:
            view.fork = None
            self.make_fork(pick.decision, selected)
            return
        if view.walk is not None:
            view.walk.pick = None
        pick.answer(selected, rationale)

    def make_fork(self, decision: Decision, selected: tuple[str, ...], what_if: Transcript | None = None) -> None:
        """A new walk of the list: the shown walk again up to ``decision``, answered there with ``selected``
        (taken from a what-if, whose request's transcript is ``what_if``, when it is given)."""
        view = self.view
        source = view.walk
        if source is None:
            return
        navigator = self.wiring.wire(self._navigator_for(source))
        try:
            session = fork(source.history, decision.offer_seq, selected, self.corpus, navigator,
                           number=self.walks.next_number, what_if=what_if, hook=self.runner.hook)
        except ValueError as exc:
            self.say(str(exc), severity="error")
            return
        self._launch(session, decision)

    def make_prompt_fork(self, decision: Decision, variant: PromptVariant, navigator: TreeNavigator) -> None:
        """A new walk of the list: the shown walk again up to ``decision``, asked there and after with the prompt
        ``variant`` (by ``navigator``, which asks its model id)."""
        source = self.view.walk
        if source is None:
            return
        try:
            session = fork_with_prompt(source.history, decision.offer_seq, variant.name, variant.model_id,
                                       self.corpus, navigator, number=self.walks.next_number,
                                       hook=self.runner.hook)
        except ValueError as exc:
            self.say(str(exc), severity="error")
            return
        # ctrl+g says it re-walks with the variant: it does, to the end, as R and ctrl+o do (x stops it).
        self.runner.park()
        self.runner.launch(Walk(session.history, session), steps=decision.offer_seq + 1)
        session.run_to_end()
        self.say(f"{session.history.name} — re-walking to its end (x stops it); w switches back.", timeout=5)

    def _launch(self, session: WalkSession, decision: Decision) -> None:
        self.runner.park()
        self.runner.launch(Walk(session.history, session), steps=decision.offer_seq + 1)
        self.say(f"{session.history.name} — n steps on; w switches back.", timeout=5)

    def _navigator_for(self, walk: Walk) -> TreeNavigator:
        """The navigator a fork of ``walk`` goes on with: the one it was walked with."""
        if walk.navigator is not None:
            return walk.navigator
        model = walk.history.settings.model
        try:
            return resolve_navigator(model, allow_files=self.allow_files)
        except NavigatorConfigError as exc:
            self.say(f"{model} cannot be used here ({exc}); the fork goes on with {self.next_walk.settings.model}",
                     severity="warning", timeout=6)
            return self.next_walk.navigator
