"""Continue live from here (``C``): the walk on screen — live, forked, replayed, opened from a trace or a span file —
walked again from the step on screen: its recorded decisions kept up to that step, the live navigator answering
from there (:func:`~explorer.walks.session.rewalk` with ``live_from``).

One prompt takes the settings, prefilled with the walk's own (``budget=20 depth=6 policy=best-first prompt=v2
temperature=0.3 navigator=local:smollm2``, any subset, :mod:`explorer.walks.live_settings`; the policy said when it is
not depth-first); a word that does not read is refused in the prompt in one line. The continued walk is walked in
the order typed from the step on screen (``policy=best-first``: a frontier by path score). With no live navigator
for the model asked, it says so in one line and asks again with ``navigator=`` to fill in. The new walk joins the
list as ``walk 3 · live from step 7 of walk 2 · budget 20`` (``· best-first`` when the order was changed).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ...navigators import NavigatorConfigError, resolve_navigator
from ...walks.live_settings import ACCEPTED, LiveSettings, LiveSettingsError, read_live
from ...walks.session import rewalk
from ...walks.walk_list import Walk
from ..say import FILES_OFF
from ..screens.prompt import PromptScreen
from .shown import Grounds, Part

if TYPE_CHECKING:

    from core import TreeNavigator

    from .walk_runner import WalkRunner

LiveNavigator = Callable[[Walk], "TreeNavigator | None"]
"""The navigator that answers a walk's own model id live (``None``: none here): re-walking's."""


class ContinuingLive(Part):
    """``C`` on the walk on screen ``view``: a dialog asks for the settings, ``runner`` launches
    the new walk; ``live_navigator`` is the one for the walk's own model id, and another model id is resolved
    with the session's rules (files off stay off) and wired with ``wiring``."""

    def __init__(self, grounds: Grounds, *, runner: WalkRunner, live_navigator: LiveNavigator) -> None:
        super().__init__(grounds)
        self.runner = runner
        self.live_navigator = live_navigator

    def ask(self, typed: str | None = None) -> None:
        """Ask for the settings (prefilled with the walk's own, or ``typed``), then continue live from the step on
        screen."""
        shown = self.view.walk
        if shown is None or not shown.history.events:
            self.say("No walk to continue yet: walk one first.", timeout=3)
            return
        history = shown.history
        step, folder = history.cursor, self.wiring.prompts_for(self.corpus.path)
        current = LiveSettings.of(history.settings, folder)
        if typed is None and self.live_navigator(shown) is None:
            self.say(f"No live navigator for {history.settings.model} here: name one with navigator=MODEL "
                     "(e.g. navigator=lexical:default).", severity="warning", timeout=6)
            typed = " ".join([*current.text().split()[:-1], "navigator="])

        def read(text: str) -> LiveSettings:
            try:
                live = read_live(text, current)
                if live.prompt != current.prompt and not self.allow_files:  # no file is looked at: not even whether
                    raise LiveSettingsError(f"prompt={live.prompt}: {FILES_OFF} Continue with the walk's own prompt")
                live.model_id(folder)
            except LiveSettingsError as exc:
                raise ValueError(str(exc)) from None
            return live

        def start(live: LiveSettings | None) -> None:
            if live is not None:
                self.start(shown, step, live, current)

        self.stage.app.push_screen(PromptScreen(
            f"Continue {shown.name} live from step {step} (its decisions up to it kept, the navigator asked "
            f"after): {ACCEPTED}", typed if typed is not None else current.text(), read=read), start)

    def navigator_for(self, source: Walk, model: str) -> TreeNavigator:
        """The navigator that asks ``model``: the walk's own live one for its own model id, else ``model``
        resolved (``NavigatorConfigError`` when none can be had)."""
        if model == source.history.settings.model:
            found = self.live_navigator(source)
            if found is None:
                raise NavigatorConfigError(f"{model} cannot be asked here")
            return found
        navigator = resolve_navigator(model, headless=True, allow_files=self.allow_files, reuse=source.navigator)
        return navigator if navigator is source.navigator else self.wiring.wire(navigator)

    def start(self, source: Walk, step: int, live: LiveSettings, before: LiveSettings) -> None:
        """A new walk of the list: ``source`` kept up to ``step``, then asked live with ``live``; it stops where
        the kept part ends, for n or c to go on."""
        model = live.model_id(self.wiring.prompts_for(self.corpus.path))
        try:
            navigator = self.navigator_for(source, model)
        except NavigatorConfigError as exc:
            self.say(f"No live navigator here: {exc}; name another with navigator=MODEL.", severity="warning",
                     timeout=8)
            self.ask(" ".join([*live.text().split()[:-1], "navigator="]))
            return
        session = rewalk(source.history, self.corpus, max_nodes_visited=live.budget, max_depth=live.depth,
                         navigator=navigator, number=self.walks.next_number, live_from=step, model=model,
                         changed=live.changes(before), policy=live.policy, alpha=live.alpha,
                         hook=self.runner.hook)
        self.runner.park()
        self.runner.launch(Walk(session.history, session), steps=max(step, 1))
        self.say(f"{session.history.name} — kept up to step {step}; n or c asks {model} from there.", timeout=5)
