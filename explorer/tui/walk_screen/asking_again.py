"""The prompt what-if on the walk screen: the LLM decision at this step, its request opened, edited and asked again.

``W`` opens :class:`~explorer.tui.screens.what_if.WhatIfScreen` on the decision being looked at (the UI-free half
is :mod:`explorer.navigators.what_if`). Every model id typed in it goes through the one resolver with the
session's rules (files off in a served session stay off); the walk's own navigator asks it when it can. Forking
from the new answer is the walk screen's fork, with the new answer forced at that offer, as ``e`` does.
"""

from __future__ import annotations

from collections.abc import Callable

from core import NavigatorChose, Transcript, TreeNavigator

from ...navigators import NavigatorConfigError
from ...navigators.answered import Answered
from ...navigators.forcing import VARIANT_LABEL
from ...navigators.prompt_variants import PromptVariant
from ...navigators.what_if import WhatIfError, recorded_answer, request_for
from ...walk_settings import WalkSettings
from ...walks.decisions import Decision
from ...walks.walk_list import Walk
from ..screens.what_if import EvaluateWith, ForkFrom, RewalkWith, WhatIfScreen
from .evaluating_variant import navigator_for
from .shown import Grounds, Part


def answered_as(decision: Decision) -> str:
    """How the ``W`` title says the decision was answered: ``forced by a person``, ``taken from a what-if with
    prompt v2`` (or ``taken from a what-if``, when no kept variant asked it), ``chosen``, ``chosen with prompt v2
    from decision 3``, or ``failed``."""
    answer = decision.answer
    variant = dict(answer.transcript or ()).get(VARIANT_LABEL, "") if answer is not None else ""
    with_variant = f" with {variant}" if variant else ""
    if decision.forced or decision.how is Answered.FORCED:
        return "forced by a person"
    if decision.how is Answered.WHAT_IF:
        return f"taken from a what-if{with_variant}"
    return f"chosen{with_variant}" if isinstance(answer, NavigatorChose) else "failed"


class AskingAgain(Part):
    """The what-if key of the walk on screen; ``fork`` forks the walk on screen at a decision, answered anew
    (the picker's fork); a navigator it resolves is wired with the grounds' wiring."""

    def __init__(self, grounds: Grounds, *, fork: Callable[[Decision, tuple[str, ...], Transcript], None],
                 rewalk: Callable[[Decision, PromptVariant, TreeNavigator], None],
                 evaluate: Callable[[Walk, WalkSettings, str, str], None]) -> None:
        super().__init__(grounds)
        self.evaluate = evaluate
        """Evaluates a variant's model id against the original over a question set the person picks."""
        self.fork = fork
        self.rewalk = rewalk
        """Re-walks the walk on screen from a decision with a prompt variant, asked by the navigator given."""

    def open(self) -> None:
        """Open the request of the LLM decision at this step, to edit and ask again."""
        view = self.view
        history, walk = view.history, view.walk
        if history is None or walk is None:
            self.say("No walk yet: walk with an LLM navigator (m), then W at any of its decisions.", timeout=4)
            return
        decision = history.decision_at()
        if decision is None or decision.answer is None:
            self.say("No answered decision at this step: step to one (n), then W.", timeout=4)
            return
        model = history.settings.model
        try:
            request = request_for(model, history.settings.query, decision.offer, decision.answer.transcript,
                                  navigator=self._navigator(walk, model))
        except (WhatIfError, NavigatorConfigError) as exc:
            self.say(f"No what-if here: {exc}", severity="warning", timeout=6)
            return
        view.playing = False
        where = "the roots" if decision.node is None else decision.node
        title = f"walk {history.number} · the decision at {where} ({answered_as(decision)}, step {decision.step})"

        def left(result: ForkFrom | RewalkWith | EvaluateWith | None) -> None:
            if isinstance(result, ForkFrom):
                self.fork(decision, result.selected, result.transcript)
            elif isinstance(result, EvaluateWith):
                self.evaluate(walk, history.settings, history.settings.model, result.variant.model_id)
            elif isinstance(result, RewalkWith):
                try:
                    navigator = self._navigator(walk, result.variant.model_id)
                except NavigatorConfigError as exc:
                    self.say(f"{result.variant.model_id} cannot be asked: {exc}", severity="error", timeout=6)
                    return
                self.rewalk(decision, result.variant, navigator)

        prompts = self.wiring.prompts_for(self.corpus.path) if self.allow_files else None
        self.stage.app.push_screen(WhatIfScreen(request, recorded_answer(decision.offer, decision.answer),
                                          lambda model_id: self._navigator(walk, model_id), where=title,
                                          prompts=prompts), left)

    def _navigator(self, walk: Walk, model: str) -> TreeNavigator:
        """The navigator for ``model`` (:func:`~.evaluating_variant.navigator_for`)."""
        return navigator_for(walk, model, self.wiring, allow_files=self.allow_files)
