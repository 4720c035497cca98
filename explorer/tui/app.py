"""The explorer: a thin app over the session's walks.

:class:`ExplorerApp` keeps only what is global: the corpus, the session's
:class:`~explorer.walks.walk_list.WalkList`, the screens (the walk screen it opens on, the evaluation screen it
installs) and the command palette. It holds the keys typed after a key that opens a prompt until the prompt
can take them (:mod:`.key_holding`), and routes the messages screens answer with: an evaluation's walk to show,
two walks to compare, a question set to evaluate. Everything about the walk on screen is the
:class:`~.walk_screen.WalkScreen`'s. Given a corpus still to load (a :class:`~.screens.loading.CorpusLoad`: a
PDF, a big file), it opens at once on the :class:`~.screens.loading.LoadingScreen`, and the walk screen follows
when the corpus is in.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
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
from .evaluation_screen import EVALUATION, EvaluationScreen
from .key_holding import KeyHolder
from .keymap import PROMPT_KEYS
from .messages import CompareWalks, CorpusLoaded, CorpusLoadFailed, EvaluateQuestions, OpenWalk
from .say import Said, say
from .screens.closing_once import Palette
from .screens.loading import CorpusLoad, LoadingScreen
from .screens.prompt import PromptClosed, PromptReady, PromptScreen
from .walk_screen import WalkScreen

EXIT_CANNOT_LOAD = 2
"""The explorer's exit code after a corpus it was given to load could not be (the command line's for a bad corpus)."""


class ExplorerApp(App[int]):
    """See a reasoning walk step by step on the corpus's tree."""

    TITLE = "reasoning-explorer"
    # Textual reads a screen's CSS_PATH when the screen is pushed or installed, not for the screen that
    # get_default_screen() returns: the app reads the walk screen's and the loading screen's for them.
    CSS_PATH = [*WalkScreen.CSS_PATH, LoadingScreen.CSS_PATH]
    WALK_SCREEN: type[WalkScreen] = WalkScreen
    """The main view's class (a benchmark times a subclass of it)."""

    corpus: Corpus
    """The corpus walked (set once it is loaded, when the app was given one to load)."""

    def __init__(
        self,
        corpus: Corpus | CorpusLoad,
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
        keeper_for: Callable[[Corpus], tuple[WalkKeeper | None, Sequence[str]]] | None = None,
        judge: str | None = None,
    ) -> None:
        """``keeper_for``, with a corpus to load: what makes the keeper once it is loaded, and what it has to say (a
        session not kept), in place of ``keeper``; ``judge``: the judge of the misses ``--judge`` names (``None``:
        the default; ``none``: no verdicts), for every screen's verdicts and flat search."""
        super().__init__()
        self.walks = WalkList()
        self.allow_files = allow_files
        self.wiring = Wiring(DecisionDesk(), StatusListeners(), tuple(observers),
                             folders if folders is not None else user_folders(), keeper,
                             ledger if ledger is not None else Ledger(), judge)
        """This explorer's own desk (the manual navigator's), local-model listeners, observers (the telemetry's),
        folders (``folders``, the command line's, else the user's, read once now) and keeper (the session folder
        its walk list is kept in, closed as it quits), handed to the walks it starts; the judge of the misses
        (``--judge``); and its ledger of the files it read and wrote, which every file it writes asks about
        (:mod:`explorer.outputs`): ``ledger`` (the command line's, holding what it read to start the explorer); its
        walk screen adds the corpus and follows what each walk of its list was read from and its navigator reads."""
        self._notices = tuple(notices)
        self.said = Said()
        """What was said last (:func:`.say.say` does not stack an information said again while it shows)."""
        self._open_walk_screen = partial(
            self.WALK_SCREEN, walks=self.walks, settings=settings,
            autoplay=autoplay, trace_path=trace_path, allow_files=allow_files,
            start_query=settings.query if start_walk else None,
            example_query=None if start_walk else (settings.query or example_query), opened=opened,
            opened_from=opened_from, present=present)
        self._navigator = navigator or resolve_navigator(settings.model, allow_files=allow_files)
        self._keeper_for = keeper_for
        self._evaluate_at_start = evaluate
        self._keys = KeyHolder(PROMPT_KEYS, self.post_message)
        self._walk_screen: WalkScreen | None = None
        self._loading: LoadingScreen | None = None
        self.load_failed: str | None = None
        """The one line on why the corpus given to load could not be (the command line says it after the screen)."""
        if isinstance(corpus, CorpusLoad):
            self._loading = LoadingScreen(corpus)
        else:
            self._walk_screen = self._walk_screen_on(corpus)

    def _walk_screen_on(self, corpus: Corpus) -> WalkScreen:
        self.corpus = corpus
        self.wiring.ledger.read("the corpus", corpus.path)
        self.wiring.ledger.read("the map variant", corpus.map.path if corpus.map is not None else None)
        return self._open_walk_screen(corpus, navigator=self.wiring.wire(self._navigator), wiring=self.wiring)

    def get_default_screen(self) -> Screen[Any]:
        return self._walk_screen or self._loading or super().get_default_screen()

    @property
    def walk_screen(self) -> WalkScreen:
        """The screen the explorer opens on (the main view), wherever the screen stack is; once the corpus is
        loaded (:attr:`loaded`)."""
        if self._walk_screen is None:
            raise LookupError("the corpus is still loading: there is no walk screen yet")
        return self._walk_screen

    @property
    def loaded(self) -> bool:
        """Whether the corpus is in, and the walk screen made."""
        return self._walk_screen is not None

    def on_ready(self) -> None:
        if self._walk_screen is not None:
            self._walk_screen_shown()

    def on_corpus_loaded(self, message: CorpusLoaded) -> None:
        """The corpus given to load is in: the walk screen in place of the loading screen, as if it had opened on
        it."""
        if self._walk_screen is not None or not self.is_running:
            return
        if self._keeper_for is not None:
            keeper, notices = self._keeper_for(message.corpus)
            self._notices = (*self._notices, *notices)
            self.wiring = replace(self.wiring, keeper=keeper)
        self._walk_screen = self._walk_screen_on(message.corpus)
        # Over the loading screen, which stays under it for good (Textual cannot switch away from the screen an app
        # opened on); nothing in the explorer pops the walk screen.
        self.push_screen(self._walk_screen)
        self.call_after_refresh(self._walk_screen_shown)

    def on_corpus_load_failed(self, message: CorpusLoadFailed) -> None:
        self.load_failed = message.problem

    def _walk_screen_shown(self) -> None:
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

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        # While the corpus loads nothing is there to command: the palette's key is not offered.
        return self.loaded or action != "command_palette"

    def action_command_palette(self) -> None:
        """Textual's command palette, as a screen that closes once (:mod:`.screens.closing_once`)."""
        if self.use_command_palette and self.loaded and not isinstance(self.screen, Palette):
            self.push_screen(Palette(id="--command-palette"))

    def _run_on_walk_screen(self, action: str) -> None:
        self.call_later(self.walk_screen.run_action, action)

    async def action_quit(self) -> None:
        self.close_walks()
        failed = self.load_failed is not None
        self.exit(EXIT_CANNOT_LOAD if failed else 0, return_code=EXIT_CANNOT_LOAD if failed else 0)

    def on_unmount(self) -> None:
        self.close_walks()
        if self.wiring.keeper is not None:
            if self._walk_screen is not None:  # each walk at the step it was left at, not where it ended
                self.wiring.keeper.left(walk.loaded.place() for walk in self._walk_screen.walks
                                        if walk.loaded is not None)
            self.wiring.keeper.close()  # the walks told at once as the app quits are written before it is gone

    def close_walks(self) -> None:
        """Quitting cancels every live walk: its session is closed (its token trips, its worker leaves at once), then
        the walk ends cancelled, and its one record goes to its observers at once (``--trace`` keeps it, cancelled).
        An HTML export being drawn stops first (its app hands back the process's streams before this one does)."""
        if self._walk_screen is not None:
            self._walk_screen.close_walks()

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
        corpus = self.walk_screen.corpus  # as a map variant made with M reads now
        self.install_screen(EvaluationScreen(corpus, message.questions, message.settings, message.navigator,
                                             compare=message.compare, corpora=message.corpora,
                                             allow_files=self.allow_files,
                                             wiring=self.wiring), EVALUATION)
        self.push_screen(EVALUATION)

    def on_open_walk(self, message: OpenWalk) -> None:
        self.walk_screen.open_history(message.history, step=message.step, expected=message.expected,
                                      verdict=message.verdict)
        if message.note:
            say(self.walk_screen, message.note, timeout=6)

    def on_compare_walks(self, message: CompareWalks) -> None:
        self.walk_screen.compare_opened(message.a, message.b, expected=message.expected)

