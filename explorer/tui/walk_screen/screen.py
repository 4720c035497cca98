"""The walk screen: the corpus as a tree, and one walk of the session stepped through on it.

The screen binds to the session's :class:`~explorer.walks.walk_list.WalkList`. Which walk is shown, its cursor, the
pick open on it, the walk it is compared with, whether it plays and at what pace, whether it is presented are one
observable :class:`~.shown.ShownWalk` (``view``): whatever moves it (a part, a walk event recorded into its
history), the view tells its watchers. Each pane (:mod:`.panes`) says what it shows and repaints itself when that
changes; the screen composes the panes, never pushes into them, and keeps only its own chrome (the footer's keys,
its classes, its sub-title, the player's timer: :meth:`WalkScreen._view_changed`); no part says it. A live walk runs
on a thread worker that drives its :class:`~explorer.walks.session.WalkSession`: each step key lets it pull one more
event from ``core``, and the events come back as messages tagged with the walk's id, recorded into that walk's
history on this thread. Nothing here re-implements a walk rule or keeps a copy of events.

The screen owns its actions: one per group of the key table (``step('next')``, ``walk('fork')``,
``file('save_trace')``, :mod:`.keymap`), each handing the key to the part that does it. The parts are made here
and handed what they use (:class:`~.shown.Grounds`: the shown walk, a :class:`~.shown.Stage` of the calls they
make on the screen, the corpus, the walks, the wiring; and the other parts or widgets they lean on, by name);
none gets the screen, and the app talks to the screen, never to a part.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from pathlib import Path

from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Input, Label, OptionList, TabbedContent, TabPane, Tree

from core import TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import QuestionSet, expected_for, sets_beside
from ...ending import WalkEnd
from ...safe_text import visible
from ...walk_settings import WalkSettings, policy_note
from ...walks.history import Change, Origin, WalkHistory
from ...walks.saved import SavedWalk
from ...walks.session import UNWIRED, Wiring
from ...walks.walk_list import Walk, WalkList
from ..evaluation_screen import EVALUATION, open_question_set
from ..keymap import PRESENTING_ACTIONS, WHEN, When, bindings, footer_rules
from ..messages import DecisionRequested, LocalModelChanged, WalkEnded, WalkEventArrived
from ..say import Severity, say
from ..screens.find import FindScreen
from ..screens.help import HelpScreen
from ..widgets.node_detail import NodeDetail
from ..widgets.results_panel import ResultsPanel
from ..widgets.walk_footer import WalkFooter
from .asking_again import AskingAgain
from .auditing import Auditing
from .comparing import Comparing
from .continuing_live import ContinuingLive
from .evaluating_variant import EvaluatingVariant, original_of
from .judging import Judging
from .keeping_case import KeepingCase
from .listening import Listening
from .map_editing import MapEditing
from .next_walk import NextWalk
from .opening_walks import OpeningWalks
from .pane_reading import PANE, PaneReading, Panes
from .panes import (
    AnswerPane,
    Board,
    ComparePane,
    FollowWalk,
    MeterPane,
    NarrationPane,
    OfferPane,
    QueryPane,
    ResultsPane,
    Scene,
    StepPane,
    TimelinePane,
    TranscriptPane,
    TreePane,
)
from .picker import Picking
from .playing import Player, next_pace
from .presenting import AT_END, PRESENTING, Presenter
from .rewalking import Rewalking
from .running_to import RunningTo
from .shown import Aspect, Grounds, Part, ShownWalk, Stage
from .stepping import Stepping
from .walk_export import WalkExport
from .walk_files import WalkFiles, ledgered
from .walk_runner import WalkRunner

NARROW, SHORT, COMPACT = 80, 24, 100
"""The smallest comfortable size; below it the layout sheds decoration (classes ``narrow``, ``short``, from the
screen's breakpoints); below ``COMPACT`` columns (``compact``, and ``narrow``) the tree takes half the width, so stop
reasons fit beside titles."""
TABS = ("tab-results", "tab-transcript", "tab-timeline", "tab-node")


def title(corpus: Corpus, shown: Walk | None) -> str:
    """The screen's sub-title: the corpus (and the map variant it is walked with), and the walk on screen with its
    order when it is not depth-first (unless its name says it already: ``walk 2 · walk 1 re-walked with
    best-first``)."""
    named = corpus.title + (f" (map {corpus.map.name})" if corpus.map is not None else "")  # a map variant walked
    if shown is None:
        return visible(named)
    settings = shown.settings  # a saved walk's header's: read without reading the walk
    order = policy_note(settings.policy, settings.alpha)
    said = order.removeprefix(" · ") in shown.name
    return visible(f"{named} · {shown.name}{'' if said else order}")


def size_classes(size: int, breakpoints: Sequence[tuple[int, str]]) -> list[str]:
    """The class of the breakpoint a screen ``size`` cells wide (or high) is at, as Textual picks it: the highest
    at or under ``size`` (none when every breakpoint is over it)."""
    under = [point for point in breakpoints if point[0] <= size]
    return [max(under)[1]] if under else []


class WalkScreen(Screen[None]):
    """See a reasoning walk step by step on the corpus's tree."""

    CSS_PATH = [Path(__file__).with_name("walk_screen.tcss"), Path(__file__).with_name("presenting.tcss")]
    BINDINGS = bindings()
    HORIZONTAL_BREAKPOINTS = [(0, "narrow"), (NARROW, "compact"), (COMPACT, "wide")]
    VERTICAL_BREAKPOINTS = [(0, "short"), (SHORT, "tall")]

    def __init__(self, corpus: Corpus, walks: WalkList, settings: WalkSettings, navigator: TreeNavigator | None = None,
                 *, autoplay: float | None = None, trace_path: str | None = None, allow_files: bool = True,
                 start_query: str | None = None, example_query: str | None = None, wiring: Wiring = UNWIRED,
                 opened: Sequence[SavedWalk] = (), opened_from: str | None = None, present: bool = False) -> None:
        super().__init__()
        self.corpus = corpus
        self.walks = walks
        self.allow_files = allow_files
        """Whether the keys that open and save files work (off in a session shared on a network)."""
        self.view = ShownWalk()
        """The walk on screen: every change to it repaints the panes that show it, and the screen's chrome."""
        self.view.pace = autoplay or 1.0
        self.view.watch(self._view_changed)
        self._tree = TreePane(corpus, id="tree")
        self._query = QueryPane(placeholder="Ask a question, then press Enter", id="query")
        tell, stage = partial(say, self), Stage.of(self)
        wiring = ledgered(wiring, corpus, walks)  # its ledger: the corpus, and what each walk of the list read
        grounds = Grounds(self.view, stage, corpus, walks, wiring, tell, allow_files)
        self.next_walk = NextWalk(grounds, settings, navigator, shown=self.settings_changed)
        self.files = WalkFiles(grounds, trace_path)
        self.runner = WalkRunner(grounds, next_walk=self.next_walk, files=self.files, autoplay=autoplay is not None)
        self.picking = Picking(grounds, runner=self.runner, next_walk=self.next_walk)
        self.evaluating = EvaluatingVariant(grounds, open_set=lambda: open_question_set(self.app))
        self.asking_again = AskingAgain(grounds, fork=self.picking.make_fork, rewalk=self.picking.make_prompt_fork,
                                        evaluate=self.evaluating.ask)
        self.rewalking = Rewalking(grounds, runner=self.runner, next_walk=self.next_walk)
        self.continuing = ContinuingLive(grounds, runner=self.runner, live_navigator=self.rewalking.live_navigator)
        self.comparing_walks = Comparing(grounds)
        self.presenter = Presenter(grounds)
        self.judging = Judging(grounds)
        """Each ended walk's miss judged on a worker, said at its first wrong turn (by ``--judge``'s judge)."""
        self.export = WalkExport(grounds, WalkScreen, verdict=self.judging.lines)
        tree = self._tree
        self.keeping = KeepingCase(grounds, marked=lambda: tree.cursor_id)
        self.map_editing = MapEditing(grounds, cursor=lambda: tree.cursor_id, use_corpus=self.use_corpus,
                                      walks_with=self._walks_with)
        self.opening = OpeningWalks(grounds, focus_tree=tree.focus, next_walk=self.next_walk, runner=self.runner)
        self.running_to = RunningTo(grounds, presenter=self.presenter, expected=self._expected)
        self.auditing = Auditing(grounds, judge=self.judging.judge, tree=tree)
        """The map audited on a worker (I): its weakest nodes marked on the tree and listed."""
        query = self._query
        self.stepping = Stepping(grounds, presenter=self.presenter, running_to=self.running_to,
                                 walk_anew=lambda: self.start_walk(query.exact_value),
                                 refresh_soon=lambda: self.set_timer(0.05, self._refresh_status))
        view = self.view
        self.listening = Listening(grounds)
        self.reading = PaneReading(grounds, panes=Panes(lambda: self.maximized, self._maximize, lambda: self.focused))
        self._present_at_start = present
        self.board = Board(Scene(view, corpus, lambda: self.next_walk.settings, self.comparing_walks.current,
                                 self.listening.line, self.presenter.narration), self.call_later)
        """The panes following the walk on screen (:mod:`.panes`)."""
        self._start_query = start_query
        self._example_query = example_query
        self._opened, self._opened_from = tuple(opened), opened_from
        self._player = Player(self.set_interval, self.stepping.tick)
        self._picking = False
        """Whether a pick was open when the footer was last told (see :meth:`_view_changed`)."""

    # -- layout ----------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        # The size classes (narrow, short…) the terminal's size gives, set before the panes mount: the first resize
        # then changes no class, and the whole screen is not styled a second time as it opens.
        width, height = self.app.size
        self.add_class(*size_classes(width, self.HORIZONTAL_BREAKPOINTS),
                       *size_classes(height, self.VERTICAL_BREAKPOINTS), update=False)
        yield Header()
        with Horizontal(id="query-bar"):
            yield Label("Query", id="query-label")
            yield self._query
            yield Label("", id="next-settings")
        with Horizontal(id="main"):
            yield self._tree
            with Vertical(id="side"):
                yield NarrationPane(id="narration")
                yield MeterPane(id="meter")
                with VerticalScroll(id="step-scroll", classes=PANE):
                    yield StepPane(self.corpus, id="step")
                    yield ComparePane(id="compare")
                yield OfferPane(id="offer-card")
                yield AnswerPane(id="answer-card")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ResultsPane(id="results", full_paths=self.allow_files)
                    with TabPane("Transcript", id="tab-transcript"), \
                            VerticalScroll(id="transcript-scroll", classes=PANE):
                        yield TranscriptPane(id="transcript")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield TimelinePane(id="timeline", classes=PANE)
                    with TabPane("Node", id="tab-node"), VerticalScroll(id="detail-scroll", classes=PANE):
                        yield NodeDetail(id="detail", full_paths=self.allow_files)
        yield WalkFooter(footer_rules())

    def on_mount(self) -> None:
        for pane in (self._tree, self.query_one(ResultsPanel)):
            pane.add_class(PANE)
        self.listening.attach()
        if self._present_at_start:
            self.view.presenting = True
        self.settings_changed()
        # While the navigator thinks, nothing else repaints: keep the status (and its clock) fresh.
        self.set_interval(0.25, self._refresh_status, name="status")
        query = self._query
        query.value = self._start_query or self._example_query or ""
        if self._opened:
            self.opening.load_traces(self._opened, adopt=False, came_from=self._opened_from)
            self._tree.focus()
        elif self._start_query and self._start_query.strip():
            self.start_walk(self._start_query)
            self._tree.focus()
        else:
            query.focus()
            if not self._start_query and self._example_query:
                query.select_all()  # an example, there to be walked or typed over: a first key replaces it

    def on_unmount(self) -> None:
        self._player.stop()
        self.listening.detach()

    def on_local_model_changed(self, message: LocalModelChanged) -> None:
        self.listening.local_model_changed(message.status)
        self._refresh_status()  # the status line says it now, not at the next tick

    def say(self, message: str, *, title: str = "", severity: Severity = "information", timeout: float = 3) -> None:
        say(self, message, title=title, severity=severity, timeout=timeout)

    # -- what is shown ---------------------------------------------------------------------------------------------

    def _view_changed(self, change: Change | Aspect) -> None:
        """The walk on screen changed (:class:`~.shown.ShownWalk`): the panes that show it repaint themselves
        (:mod:`.panes`); what is the screen's own follows here: the player's timer, the footer's keys, its classes
        and its sub-title."""
        view = self.view
        match change:
            case Aspect.WALK:
                self._player.stop()  # the walk shown anew does not play
                self.query("#side").set_class(False, "comparing")
                self.sub_title = title(self.corpus, view.walk)
            case Aspect.PLAYING | Aspect.PACE if view.playing:
                self._player.play(view.pace)
            case Aspect.PLAYING:
                self._player.stop()
            case Aspect.PARTNER:
                self.query("#side").set_class(view.partner is not None, "comparing")
            case Aspect.PRESENTING:
                self.presenter.turn(view.presenting)
                self.set_class(view.presenting, PRESENTING)
                for footer in self.query(WalkFooter):
                    footer.show_only(PRESENTING_ACTIONS if view.presenting else None)
        history = view.history
        self.set_class(view.presenting and history is not None and history.ended and history.at_latest, AT_END)
        if change in (Aspect.WALK, Aspect.FORK, Aspect.PLAYING, Aspect.PARTNER, Aspect.PRESENTING) or (
                view.picker is not None) != self._picking:
            # The footer is rebuilt whole on each refresh: only when the keys it shows can change, not per event.
            self._picking = view.picker is not None
            self.refresh_bindings()

    def on_follow_walk(self, message: FollowWalk) -> None:
        """A pane mounted on this screen follows the walk on it."""
        message.stop()
        self.board.follow(message.pane)

    def _expected(self) -> tuple[str, ...]:
        """The nodes the walk on screen's query expects: marked on the tree (an evaluation's walk), else those of
        the question that asks it in a set of this corpus beside it (none: its query is no question)."""
        if self.view.expected:
            return tuple(sorted(self.view.expected))
        history = self.view.history
        return expected_for(history.settings.query, sets_beside(self.corpus)) if history is not None else ()

    def _maximize(self, pane: Widget | None) -> None:
        if pane is None:
            self.minimize()
        else:
            self.maximized = pane  # public: Screen.maximize refuses what Textual would not maximize by itself

    @property
    def pace(self) -> float:
        """The seconds between two steps while the walk on screen plays (the shown walk's)."""
        return self.view.pace

    @property
    def presenting(self) -> bool:
        """Presenting mode (:mod:`.presenting`), the shown walk's."""
        return self.view.presenting

    def open_history(self, history: WalkHistory, *, step: int | None = None, expected: frozenset[str] = frozenset(),
                     verdict: str = "") -> Walk:
        """Put a walk made elsewhere (an evaluation's, an export's) on screen (:mod:`.opening_walks`)."""
        return self.opening.open_history(history, step=step, expected=expected, verdict=verdict)

    def compare_opened(self, a: WalkHistory, b: WalkHistory, *, expected: frozenset[str] = frozenset()) -> None:
        """Put two walks made elsewhere (an evaluation's two sides of a question) on screen, ``a`` compared with
        ``b``."""
        partner = self.open_history(b, expected=expected)
        self.open_history(a, expected=expected)
        self.comparing_walks.start(partner)

    def evaluate(self, questions: QuestionSet, compare: str | None = None) -> None:
        """Walk ``questions`` with the next walk's settings (and ``compare``'s navigator beside, if given)."""
        self.next_walk.evaluate_questions(questions, compare)

    def pause(self) -> None:
        """Stop playing the walk on screen (another screen takes the person's eyes)."""
        self.view.playing = False

    def _walks_with(self) -> tuple[str, TreeNavigator]:
        """The walk's model id and navigator (``M``'s model-written suggestion): the walk on screen's, else the next
        walk's (``NavigatorConfigError`` when it cannot be had)."""
        walk = self.view.walk
        if walk is not None and walk.navigator is not None:
            return walk.history.settings.model, walk.navigator
        return self.next_walk.settings.model, self.next_walk.navigator

    def use_corpus(self, corpus: Corpus) -> None:
        """Walk ``corpus`` from now on: the same corpus as a map variant now reads it (``M``). Every part, pane and
        the tree read it; the walks walked before stay as they were walked (their traces name the map they had)."""
        self.corpus = corpus
        for part in vars(self).values():
            if isinstance(part, Part):
                part.corpus = corpus
        self.board.scene.corpus = corpus
        self.running_to.index = corpus.index  # the same ids: the conditions it runs to read them
        self._tree.relabel(corpus)
        self.query_one(StepPane).corpus = corpus
        self.judging.forget_judge()
        self.auditing.forget()
        for pane in self.board.panes:
            self.board.repaint(pane)
        self.sub_title = title(corpus, self.view.walk)

    def close_walks(self) -> None:
        """The explorer quits: an HTML export being drawn stops first (its app hands back the process's streams
        before this one does); every live walk's session is closed (its token trips, its worker leaves at once),
        then the walk ends cancelled, and its one record goes through its hook at once (``--trace`` keeps it)."""
        self.export.stop()
        for walk in self.walks.live():
            session = walk.session
            if session is not None:
                session.close()
            walk.end(WalkEnd.CANCELLED)

    def start_walk(self, query: str, *, origin: Origin | None = None) -> None:
        """Start a new walk on ``query`` (a new entry in the list), paused before its first step; with no query,
        the query box takes the focus."""
        if not self.runner.start(query, origin=origin):
            self._query.focus()

    # -- what other threads and widgets tell ----------------------------------------------------------------------

    def on_walk_event_arrived(self, message: WalkEventArrived) -> None:
        self.runner.arrived(message)
        if self.view.walk is not None and message.arrived.walk_id == self.view.walk.id:
            self.presenter.arrived()
            self.running_to.arrived()

    def on_walk_ended(self, message: WalkEnded) -> None:
        if self.view.walk is not None and message.ended.walk_id == self.view.walk.id:
            self.presenter.ended()
            self.running_to.ended()
        self.runner.ended(message)

    def on_decision_requested(self, message: DecisionRequested) -> None:
        if self.picking.requested(message.pending) and isinstance(self.focused, Input):
            self._tree.focus()

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.start_walk(self._query.exact_value)  # the query as given: the box shows it escaped
        if self.view.session is not None:
            self._tree.focus()

    @on(Tree.NodeHighlighted, "#tree")
    def _tree_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        for detail in self.query(NodeDetail):  # none if the highlight arrives while the app shuts down
            detail.show(self.corpus, event.node.data)

    @on(OptionList.OptionSelected, "#timeline")
    def _timeline_selected(self, event: OptionList.OptionSelected) -> None:
        self.view.playing = False
        if self.view.history is not None:
            self.view.history.go(event.option_index + 1)

    # -- keys: each group of the key table (explorer.tui.keymap) is one action ------------------------------------

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        match WHEN.get((action, parameters[:1]), When.ALWAYS):
            case When.PICKING:
                return self.view.picker is not None
            case When.FORKING:
                return self.view.fork is not None
            case When.EVALUATION_BEHIND:
                return self.app.is_screen_installed(EVALUATION) and self.app.screen is self
        return True

    def action_step(self, move: str) -> None:
        """``step(...)``: through the shown walk (:mod:`.stepping`)."""
        self.stepping.take(move)

    def action_pace(self, direction: int) -> None:
        """``pace(-1)`` plays faster, ``pace(1)`` slower."""
        self.view.pace = next_pace(self.view.pace, direction)

    def action_pick(self, what: str, number: int = 0) -> None:
        """``pick(...)``: the picker's keys (:mod:`.picker`)."""
        self.picking.take(what, number)

    def action_walk(self, what: str, number: int = 0) -> None:
        """``walk(...)``: the walks of the session (``walk('switch', 3)`` shows walk 3)."""
        match what:
            case "cancel":
                self.runner.cancel()
            case "interrupt" if self.get_selected_text():  # ctrl+c copies what the mouse selected, as in Textual
                self.action_copy_text()
            case "interrupt":
                self.runner.cancel(interrupted=True)
            case "restart":
                query = self._query.exact_value
                self.start_walk(query or (self.view.history.settings.query if self.view.history is not None else ""),
                                origin=Origin.RESTART)
            case "fork":
                self.picking.fork()
            case "what_if":
                self.asking_again.open()
            case "compare":
                self.comparing_walks.ask()
            case "compare_prompts":
                self.comparing_walks.toggle_prompts()
            case "rewalk":
                self.rewalking.ask()
            case "other_policy":
                made = self.rewalking.other_policy(frozenset(self._expected()))
                if made is not None:
                    self.comparing_walks.start(made)  # the original stays A, as everywhere; the re-walk is B
            case "continue_live":
                self.continuing.ask()
            case "stability":
                self.next_walk.ask_stability(self._query.exact_value, self.opening.show_stability)
            case "evaluate" if self.view.walk is not None and original_of(self.view.walk.history) is not None:
                self.evaluating.ask_shown(self.view.walk)  # a walk made with a prompt variant: it against the original
            case "evaluate" if self.view.walk is not None and self.corpus.map is not None:
                self.evaluating.ask_map(self.view.walk)  # walked with a map variant: it against the original map
            case "evaluate":
                self.next_walk.ask_evaluation()
            case "switch" if number:
                self.opening.switch_to(number)
            case "switch":
                self.opening.ask_switch()

    def action_setting(self, which: str, value: str = "") -> None:
        """``setting(...)``: the next walk's settings (:mod:`.next_walk`); ``setting('policy', 'empty')`` sets one."""
        match which:
            case "budget":
                self.next_walk.ask_budget()
            case "depth":
                self.next_walk.ask_depth()
            case "navigator":
                self.next_walk.ask_navigator(self.files.recent())
            case "order":
                self.next_walk.ask_order()
            case "policy" if value:
                self.next_walk.set_policy(value)
            case "policy":
                self.next_walk.cycle_policy()

    def action_file(self, what: str) -> None:
        """``file(...)``: traces, screenshots, the HTML export and keeping the case as a question (:mod:`.walk_files`,
        :mod:`.walk_export`, :mod:`.keeping_case`)."""
        match what:
            case "save_trace":
                self.files.ask_save()
            case "open_trace":
                self.files.ask_open(self.opening.load_trace)
            case "screenshot":
                self.files.ask_screenshot()
            case "export_html":
                self.export.ask()
            case "keep_case":
                self.keeping.ask()
            case "edit_map":
                self.map_editing.ask()

    def action_view(self, what: str) -> None:
        """``view(...)``: what the screen shows beside the walk: tabs, the tree, the query, help, presenting."""
        tree, tabs = self._tree, self.query_one("#tabs", TabbedContent)
        match what:
            case "next_tab" | "previous_tab":
                index = TABS.index(tabs.active) if tabs.active in TABS else 0
                tabs.active = TABS[(index + (1 if what == "next_tab" else -1)) % len(TABS)]
                self.call_after_refresh(self._focus_tab)  # the keys that read a pane (z, /, PageDown) read this one
            case "more":
                more = self.query_one(NodeDetail) if tabs.active == "tab-node" else self.query_one(ResultsPanel)
                if not more.more():
                    say(self, "All of it is shown.", timeout=2)
            case "find":
                self.app.push_screen(FindScreen(self.corpus.find), self._found)
            case "audit":
                self.auditing.ask()
            case "follow":
                tree.follow = not tree.follow
                tree.refollow()
                say(self, f"Tree follows the walk: {'on' if tree.follow else 'off'}", timeout=2)
                self.board.repaint(tree)
            case "query" if self.reading.full_screen is not None:  # a pane has the screen: / searches in it
                self.reading.ask_search()
            case "query":
                self.view.playing = False
                self._query.focus()
            case "full_screen":
                self.reading.toggle()
            case "copy_request" | "copy_answer":
                self.reading.copy(what.removeprefix("copy_"))
            case "help":
                self.app.push_screen(HelpScreen())
            case "present":
                self.view.presenting = not self.view.presenting
                say(self, "Presenting: n the next decision · p play · b back · P ends it" if self.view.presenting
                    else "Presenting mode off.", timeout=3)
            case "evaluation" if not self.app.is_screen_installed(EVALUATION):
                say(self, "No evaluation is open: E walks a question set.", timeout=3)
            case "evaluation" if self.app.screen is self:
                self.app.push_screen(EVALUATION)

    def _focus_tab(self) -> None:
        """The focus to the pane of the tab on show (a widget of class ``pane``, or its first that takes focus)."""
        active = self.query_one("#tabs", TabbedContent).active_pane
        pane = active.query(f".{PANE}").first() if active is not None and active.query(f".{PANE}") else None
        if pane is None:
            return
        target = pane if pane.focusable else next((w for w in pane.query("*") if w.focusable), None)
        if target is not None:
            target.focus()

    def _found(self, node_id: str | None) -> None:
        if node_id is not None:
            tree = self._tree
            tree.reveal(node_id)
            tree.focus()
            self.query_one(NodeDetail).show(self.corpus, node_id)
            say(self, f"Found {self.corpus.title_of(node_id)} ({node_id})", timeout=3)

    # -- showing a step --------------------------------------------------------------------------------------------

    def settings_changed(self) -> None:
        """The next walk's settings changed: the query bar and the meter show them."""
        self.query_one("#next-settings", Label).update(self.next_walk.describe())
        self.sub_title = title(self.corpus, self.view.walk)
        self.view.announce(Aspect.SETTINGS)

    def _refresh_status(self) -> None:
        """While the navigator thinks, nothing else repaints: a beat of the clock keeps the status (and its
        seconds) fresh."""
        session = self.view.session
        if session is not None and session.busy:
            self.view.announce(Aspect.CLOCK)
