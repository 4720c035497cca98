"""The explorer: a thin app over the session's walks.

:class:`ExplorerApp` keeps only what is global: the corpus, the session's
:class:`~explorer.walks.walk_list.WalkList`, the screens (the walk screen it opens on, the evaluation screen it
installs) and the command palette. It holds the keys typed after a key that opens a prompt until the prompt
can take them (:mod:`.key_holding`), and routes the messages screens answer with: an evaluation's walk to show,
two walks to compare, a question set to evaluate. Everything about the walk on screen is the
:class:`~.walk_screen.WalkScreen`'s.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import partial
from typing import Any

from textual import events
from textual.app import App, SystemCommand
from textual.screen import Screen
from textual.widgets import Input, TextArea

from core import TreeNavigator

from ..corpora import Corpus
from ..corpora.questions import QuestionSet
from ..navigators import resolve_navigator
from ..navigators.folders import Folders, user_folders
from ..navigators.llm.llama_server import StatusListeners
from ..navigators.manual import DecisionDesk
from ..outputs import Ledger
from ..walk_settings import WalkSettings
from ..walks.saved import SavedWalk
from ..walks.session import WalkObserver, Wiring
from ..walks.walk_list import WalkList
from ..walks.wiring import WalkKeeper
from .commands import palette_commands
from .key_holding import KeyHolder
from .keymap import PROMPT_KEYS
from .messages import CompareWalks, EvaluateQuestions, OpenWalk
from .say import Said, say
from .screens.closing_once import Palette
from .screens.evaluation import EVALUATION, EvaluationScreen
from .screens.prompt import PromptClosed, PromptReady, PromptScreen
from .walk_screen import WalkScreen
from .walk_screen.walk_files import walks_read


class ExplorerApp(App[int]):
    """See a reasoning walk step by step on the corpus's tree."""

    TITLE = "reasoning-explorer"
    # Textual reads a screen's CSS_PATH when the screen is pushed or installed, not for the screen that
    # get_default_screen() returns: the app reads the walk screen's for it.
    CSS_PATH = WalkScreen.CSS_PATH
    WALK_SCREEN: type[WalkScreen] = WalkScreen
    """The main view's class (a benchmark times a subclass of it)."""

    def __init__(
        self,
        corpus: Corpus,
        settings: WalkSettings,
        *,
        navigator: TreeNavigator | None = None,
        start_walk: bool = False,
        autoplay: float | None = None,
        trace_path: str | None = None,
        example_query: str | None = None,
        opened: Sequence[SavedWalk] = (),
        opened_from: str | None = None,
        allow_files: bool = True,
        evaluate: tuple[QuestionSet, str | None] | None = None,
        present: bool = False,
        observers: Sequence[WalkObserver] = (),
        folders: Folders | None = None,
        keeper: WalkKeeper | None = None,
        notices: Sequence[str] = (),
        ledger: Ledger | None = None,
    ) -> None:
        super().__init__()
        self.corpus = corpus
        self.walks = WalkList()
        self.allow_files = allow_files
        self.wiring = Wiring(DecisionDesk(), StatusListeners(), tuple(observers),
                             folders if folders is not None else user_folders(), keeper,
                             ledger if ledger is not None else Ledger())
        """This explorer's own desk (the manual navigator's), local-model listeners, observers (the telemetry's),
        folders (``folders``, the command line's, else the user's, read once now) and keeper (the session folder
        its walk list is kept in, closed as it quits), handed to the walks it starts; and its ledger of the files it
        read and wrote, which every file it writes asks about (:mod:`explorer.outputs`): ``ledger`` (the command
        line's, holding what it read to start the explorer), the corpus, and what each walk of its list was read
        from and its navigator reads (followed as the list changes)."""
        self.wiring.ledger.read("the corpus", corpus.path)
        self.wiring.ledger.follow(partial(walks_read, self.walks))
        self._notices = tuple(notices)
        self.said = Said()
        """What was said last (:func:`.say.say` does not stack an information said again while it shows)."""
        self._walk_screen = self.WALK_SCREEN(
            corpus, self.walks, settings,
            self.wiring.wire(navigator or resolve_navigator(settings.model, allow_files=allow_files)),
            autoplay=autoplay, trace_path=trace_path, allow_files=allow_files,
            start_query=settings.query if start_walk else None,
            example_query=None if start_walk else (settings.query or example_query), opened=opened,
            opened_from=opened_from,
            present=present, wiring=self.wiring)
        self._evaluate_at_start = evaluate
        self._keys = KeyHolder(PROMPT_KEYS, self.post_message)

    def get_default_screen(self) -> Screen[Any]:
        return self._walk_screen

    @property
    def walk_screen(self) -> WalkScreen:
        """The screen the explorer opens on (the main view), wherever the screen stack is."""
        return self._walk_screen

    def on_ready(self) -> None:
        for notice in self._notices:  # what the command line has to say before the first walk (a session not kept)
            say(self.walk_screen, notice, severity="warning", timeout=10)
        if self._evaluate_at_start is not None:
            questions, compare = self._evaluate_at_start
            self._evaluate_at_start = None
            self.walk_screen.evaluate(questions, compare)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Ours save the screenshot where asked and show every key: Textual's own would be a second of each.
        for command in super().get_system_commands(screen):
            if command.title not in ("Screenshot", "Keys", "Quit"):
                yield command
        yield from palette_commands(self.walks, self._run_on_walk_screen)

    def action_command_palette(self) -> None:
        """Textual's command palette, as a screen that closes once (:mod:`.screens.closing_once`)."""
        if self.use_command_palette and not isinstance(self.screen, Palette):
            self.push_screen(Palette(id="--command-palette"))

    def _run_on_walk_screen(self, action: str) -> None:
        self.call_later(self.walk_screen.run_action, action)

    async def action_quit(self) -> None:
        self.close_walks()
        self.exit(0)

    def on_unmount(self) -> None:
        self.close_walks()
        if self.wiring.keeper is not None:
            self.wiring.keeper.close()  # the walks told at once as the app quits are written before it is gone

    def close_walks(self) -> None:
        """Quitting cancels every live walk: its session is closed (its token trips, its worker leaves at once), then
        the walk ends cancelled, and its one record goes to its observers at once (``--trace`` keeps it, cancelled).
        An HTML export being drawn stops first (its app hands back the process's streams before this one does)."""
        self.walk_screen.close_walks()

    # -- keys that belong to a prompt -----------------------------------------------------------------------------

    async def on_event(self, event: events.Event) -> None:
        if not isinstance(event, events.Key):
            await super().on_event(event)
            return
        if not self.screen_stack:
            return  # a key handed back while the app shuts down: no screen is left to take it
        bubbled_back = event.is_forwarded  # forwarding marks this very event, so read it first
        # A prompt key opens a prompt only on the walk screen, and only when no text field takes it as a character.
        typing = isinstance(self.focused, (Input, TextArea)) or self.screen is not self._walk_screen
        prompt_on_top = isinstance(self.screen, PromptScreen)
        covered = not prompt_on_top and self.screen is not self._walk_screen
        if not bubbled_back and self._keys.hold(event, typing=typing, prompt_on_top=prompt_on_top, covered=covered):
            return
        await super().on_event(event)
        if bubbled_back:
            self._keys.handled(event, prompt_open=isinstance(self.screen, PromptScreen))

    def on_prompt_ready(self, message: PromptReady) -> None:
        self._keys.ready()

    def on_prompt_closed(self, message: PromptClosed) -> None:
        self._keys.closed()

    # -- what screens ask for ------------------------------------------------------------------------------------

    def on_evaluate_questions(self, message: EvaluateQuestions) -> None:
        """The evaluation screen on a question set; it replaces any evaluation open before."""
        self.walk_screen.pause()
        if self.is_screen_installed(EVALUATION):
            old = self.get_screen(EVALUATION)
            if old is self.screen:
                self.pop_screen()
            if old in self.screen_stack:
                say(self.walk_screen, "Close what is open over the evaluation first.", severity="warning")
                return
            self.uninstall_screen(EVALUATION)
            old.remove()  # its walks are cancelled as it goes
        self.install_screen(EvaluationScreen(self.corpus, message.questions, message.settings, message.navigator,
                                             compare=message.compare, allow_files=self.allow_files,
                                             wiring=self.wiring), EVALUATION)
        self.push_screen(EVALUATION)

    def on_open_walk(self, message: OpenWalk) -> None:
        self.walk_screen.open_history(message.history, step=message.step, expected=message.expected,
                                      verdict=message.verdict)
        if message.note:
            say(self.walk_screen, message.note, timeout=6)

    def on_compare_walks(self, message: CompareWalks) -> None:
        self.walk_screen.compare_opened(message.a, message.b, expected=message.expected)

