"""The walk screen: the corpus as a tree, and one walk of the session stepped through on it.

The screen binds to the session's :class:`~explorer.walks.walk_list.WalkList`. Which walk is shown, its cursor,
the pick open on it, the walk it is compared with and whether it plays are one observable
:class:`~.shown.ShownWalk` (``view``): whatever moves it (a part, a walk event recorded into its history), the
view tells the screen (:meth:`WalkScreen._view_changed`), which redraws; no part says it. A live walk runs on a
thread worker that drives its :class:`~explorer.walks.session.WalkSession`: each step key lets it pull one more
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
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Header, Input, Label, OptionList, TabbedContent, TabPane, Tree

from core import TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import QuestionSet, expected_for, sets_beside
from ...ending import WalkEnd
from ...safe_text import visible
from ...walk_settings import WalkSettings, policy_note
from ...walks.compare import tree_marks
from ...walks.describe import capped_note, ending_text
from ...walks.habits import habit_notes
from ...walks.history import Change, Origin, WalkHistory
from ...walks.ranking import rank_landed
from ...walks.saved import SavedWalk
from ...walks.session import UNWIRED, Wiring
from ...walks.state import WalkState
from ...walks.walk_list import Walk, WalkList
from ..keymap import PRESENTING_ACTIONS, WHEN, When, bindings, footer_rules
from ..messages import DecisionRequested, LocalModelChanged, WalkEnded, WalkEventArrived
from ..say import Severity, say
from ..screens.evaluation import EVALUATION
from ..screens.find import FindScreen
from ..screens.help import HelpScreen
from ..widgets.answer_card import AnswerCard
from ..widgets.budget_meter import BudgetMeter
from ..widgets.compare_panel import ComparePanel
from ..widgets.narration_line import NarrationLine
from ..widgets.node_detail import NodeDetail
from ..widgets.offer_card import OfferCard
from ..widgets.query_input import QueryInput
from ..widgets.results_panel import ResultsPanel
from ..widgets.step_panel import ShownStep, StepPanel
from ..widgets.timeline import Timeline
from ..widgets.transcript import TranscriptView
from ..widgets.walk_footer import WalkFooter
from ..widgets.walk_tree import WalkTree
from .asking_again import AskingAgain
from .comparing import Comparing
from .continuing_live import ContinuingLive
from .evaluating_variant import EvaluatingVariant, original_of
from .keeping_case import KeepingCase
from .listening import Listening
from .next_walk import NextWalk
from .opening_walks import OpeningWalks
from .pane_reading import PANE, PaneReading, Panes
from .picker import Picking
from .playing import Player, next_pace
from .presenting import AT_END, PRESENTING, Presenter
from .rewalking import Rewalking
from .running_to import RunningTo
from .shown import Aspect, Grounds, ShownWalk, Stage
from .status import moment_of, results_summary, status_line
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
    """The screen's sub-title: the corpus, and the walk on screen with its order when it is not depth-first (unless
    its name says it already: ``walk 2 · walk 1 re-walked with best-first``)."""
    if shown is None:
        return visible(corpus.title)
    settings = shown.settings  # a saved walk's header's: read without reading the walk
    order = policy_note(settings.policy, settings.alpha)
    said = order.removeprefix(" · ") in shown.name
    return visible(f"{corpus.title} · {shown.name}{'' if said else order}")


class WalkScreen(Screen[None]):
    """See a reasoning walk step by step on the corpus's tree."""

    CSS_PATH = [Path(__file__).with_name("walk_screen.tcss"), Path(__file__).with_name("presenting.tcss")]
    BINDINGS = bindings()
    HORIZONTAL_BREAKPOINTS = [(0, "narrow"), (NARROW, "compact"), (COMPACT, "wide")]
    VERTICAL_BREAKPOINTS = [(0, "short"), (SHORT, "tall")]

    # init=False: the watchers redraw widgets, which exist once the screen is mounted (on_mount draws the rest).
    pace: var[float] = var(1.0, init=False)
    presenting: var[bool] = var(False, bindings=True, init=False)
    """Presenting mode (:mod:`.presenting`): a decision per step, said in words, the answer on a card."""

    def __init__(self, corpus: Corpus, walks: WalkList, settings: WalkSettings, navigator: TreeNavigator | None = None,
                 *, autoplay: float | None = None, trace_path: str | None = None, allow_files: bool = True,
                 start_query: str | None = None, example_query: str | None = None, wiring: Wiring = UNWIRED,
                 opened: Sequence[SavedWalk] = (), opened_from: str | None = None, present: bool = False) -> None:
        super().__init__()
        self.corpus = corpus
        self.walks = walks
        self.allow_files = allow_files
        """Whether the keys that open and save files work (off in a session shared on a network)."""
        self.view = ShownWalk(self._view_changed)
        """The walk on screen: every change to it redraws (:meth:`_view_changed`)."""
        self._tree = WalkTree(corpus, id="tree")
        self._query = QueryInput(placeholder="Ask a question, then press Enter", id="query")
        tell, stage = partial(say, self), Stage.of(self)
        wiring = ledgered(wiring, corpus, walks)  # its ledger: the corpus, and what each walk of the list read
        grounds = Grounds(self.view, stage, corpus, walks, wiring, tell, allow_files)
        self.next_walk = NextWalk(grounds, settings, navigator, shown=self.settings_changed)
        self.files = WalkFiles(grounds, trace_path)
        self.runner = WalkRunner(grounds, next_walk=self.next_walk, files=self.files, autoplay=autoplay is not None)
        self.picking = Picking(grounds, runner=self.runner, next_walk=self.next_walk)
        self.evaluating = EvaluatingVariant(grounds)
        self.asking_again = AskingAgain(grounds, fork=self.picking.make_fork, rewalk=self.picking.make_prompt_fork,
                                        evaluate=self.evaluating.ask)
        self.rewalking = Rewalking(grounds, runner=self.runner, next_walk=self.next_walk)
        self.continuing = ContinuingLive(grounds, runner=self.runner, live_navigator=self.rewalking.live_navigator)
        self.comparing_walks = Comparing(grounds)
        self.presenter = Presenter(self.view)
        self.export = WalkExport(grounds, WalkScreen)
        tree = self._tree
        self.keeping = KeepingCase(grounds, marked=lambda: tree.cursor_id)
        self.opening = OpeningWalks(grounds, tree=tree, query=self._query, next_walk=self.next_walk,
                                    runner=self.runner)
        self.running_to = RunningTo(self.view, self.presenter, tell, index=corpus.index,
                                    ask=lambda prompt, then: self.app.push_screen(prompt, then),
                                    expected=self._expected)
        query = self._query
        self.stepping = Stepping(self.view, self.presenter, tell, running_to=self.running_to,
                                 walk_anew=lambda: self.start_walk(query.exact_value),
                                 refresh_soon=lambda: self.set_timer(0.05, self._refresh_status))
        self.listening = Listening(self.post_message, tell, wiring, presenting=lambda: self.presenting)
        view = self.view
        self.reading = PaneReading(Panes(lambda: self.maximized, self._maximize, lambda: self.focused), stage,
                                   lambda: view.history.decision_at() if view.history else None, tell)
        self._present_at_start = present
        self.set_reactive(WalkScreen.pace, autoplay or 1.0)
        self._start_query = start_query
        self._example_query = example_query
        self._opened, self._opened_from = tuple(opened), opened_from
        self._player = Player(self.set_interval, self.stepping.tick)
        self._render_pending = False
        self._picking = False
        """Whether a pick was open when the footer was last told (see :meth:`_view_changed`)."""

    # -- layout ----------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="query-bar"):
            yield Label("Query", id="query-label")
            yield self._query
            yield Label("", id="next-settings")
        with Horizontal(id="main"):
            yield self._tree
            with Vertical(id="side"):
                yield NarrationLine(id="narration")
                yield BudgetMeter(id="meter")
                with VerticalScroll(id="step-scroll", classes=PANE):
                    yield StepPanel(self.corpus, id="step")
                    yield ComparePanel(id="compare")
                yield OfferCard(id="offer-card")
                yield AnswerCard(id="answer-card")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ResultsPanel(id="results", full_paths=self.allow_files)
                    with TabPane("Transcript", id="tab-transcript"), \
                            VerticalScroll(id="transcript-scroll", classes=PANE):
                        yield TranscriptView(id="transcript")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(id="timeline", classes=PANE)
                    with TabPane("Node", id="tab-node"), VerticalScroll(id="detail-scroll", classes=PANE):
                        yield NodeDetail(id="detail", full_paths=self.allow_files)
        yield WalkFooter(footer_rules())

    def on_mount(self) -> None:
        for pane in (self._tree, self.query_one(ResultsPanel)):
            pane.add_class(PANE)
        self.listening.attach()
        if self._present_at_start:
            self.presenting = True
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
        self._schedule_render()

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
        """The walk on screen changed (:class:`~.shown.ShownWalk`): redraw what shows it. An event that arrived is
        drawn once, after the messages already queued (a burst of events, as ``c`` makes, is one repaint); a move,
        at once, so what a key changed is on screen before the next key is read."""
        match change:
            case Aspect.WALK:
                self._bind()
            case Aspect.PLAYING if self.view.playing:
                self._player.play(self.pace)
            case Aspect.PLAYING:
                self._player.stop()
            case Aspect.PARTNER:
                self._tree.refollow()
                self.query_one("#side").set_class(self.view.partner is not None, "comparing")
        if change in (Aspect.FORK, Aspect.PLAYING, Aspect.PARTNER) or (self.view.picker is not None) != self._picking:
            # The footer is rebuilt whole on each refresh: only when the keys it shows can change, not per event.
            self._picking = self.view.picker is not None
            self.refresh_bindings()
        self._schedule_render(burst=change is Change.GREW)

    def _bind(self) -> None:
        """A walk took the screen (or was shown anew): what belonged to the one before goes."""
        view = self.view
        view.playing = False
        view.partner = None
        view.fork = None
        self._tree.forget_walk()
        self._tree.set_overlay(expected=frozenset(), counts={}, heat={})
        for results in self.query(ResultsPanel):  # none before the screen is composed
            results.reset()
        self.sub_title = title(self.corpus, view.walk)

    def _expected(self) -> tuple[str, ...]:
        """The nodes the walk on screen's query expects: marked on the tree (an evaluation's walk), else those of
        the question that asks it in a set of this corpus beside it (none: its query is no question)."""
        if self._tree.expected:
            return tuple(sorted(self._tree.expected))
        history = self.view.history
        return expected_for(history.settings.query, sets_beside(self.corpus)) if history is not None else ()

    def _maximize(self, pane: Widget | None) -> None:
        if pane is None:
            self.minimize()
        else:
            self.maximized = pane  # public: Screen.maximize refuses what Textual would not maximize by itself

    def watch_pace(self, pace: float) -> None:
        if self.view.playing:
            self._player.play(pace)
        self._schedule_render()

    def watch_presenting(self, presenting: bool) -> None:
        self.presenter.turn(presenting)
        self.set_class(presenting, PRESENTING)
        if not presenting:
            self.set_class(False, AT_END)
        self.query_one(WalkFooter).show_only(PRESENTING_ACTIONS if presenting else None)
        self._schedule_render()

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

    def close_walks(self) -> None:
        """The explorer quits: an HTML export being drawn stops first (its app hands back the process's streams
        before this one does); every live walk's session is closed (its token trips, its worker leaves at once),
        then the walk ends cancelled, and its one record goes to its observers at once (``--trace`` keeps it)."""
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
        self.pace = next_pace(self.pace, direction)

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
                source = self.rewalking.other_policy()
                if source is not None:
                    self.comparing_walks.start(source)
            case "continue_live":
                self.continuing.ask()
            case "stability":
                self.next_walk.ask_stability(self._query.exact_value, self.opening.show_stability)
            case "evaluate" if self.view.walk is not None and original_of(self.view.walk.history) is not None:
                self.evaluating.ask_shown(self.view.walk)  # a walk made with a prompt variant: it against the original
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
            case "follow":
                tree.follow = not tree.follow
                tree.refollow()
                say(self, f"Tree follows the walk: {'on' if tree.follow else 'off'}", timeout=2)
                self._schedule_render()
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
                self.presenting = not self.presenting
                say(self, "Presenting: n the next decision · p play · b back · P ends it" if self.presenting
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
        self._schedule_render()

    def _refresh_status(self) -> None:
        session = self.view.session
        if session is not None and session.busy:
            # The timer can tick once more while the app shuts down, after its widgets are gone: then none.
            settings, state = self.next_walk.settings, self.view.history.state() if self.view.history else WalkState()
            moment = moment_of(self.view.history, session, self.view.picker, playing=self.view.playing, pace=self.pace,
                               local_model=self.listening.line(session))
            for meter in self.query(BudgetMeter):
                meter.show(state, status_line(moment), settings.max_nodes_visited, settings.max_depth)
            if self.presenting:
                for line in self.query(NarrationLine):
                    line.thinking(session.busy_seconds)

    def _schedule_render(self, *, burst: bool = False) -> None:
        """Redraw now: what a key changed is on screen before the next key is read. With ``burst`` (a walk event
        arrived), once, after the messages already queued: a burst of events (continue) gets one repaint, and a
        single step is painted at once."""
        if not burst:
            self.redraw()
        elif not self._render_pending:
            self._render_pending = True
            self.call_later(self.redraw)

    def redraw(self) -> None:
        """Show the walk on screen as of the step at its cursor."""
        self._render_pending = False
        if not self.query(WalkTree):
            return  # the app is shutting down: a late event or timer finds its widgets gone
        shown, history, picker = self.view.walk, self.view.history, self.view.picker
        state = history.state() if history is not None else WalkState()
        moment = moment_of(history, self.view.session, picker, playing=self.view.playing, pace=self.pace,
                           local_model=self.listening.line(self.view.session))
        tree = self._tree
        comparison = self.comparing_walks.current()
        if comparison is not None:
            tree.set_marks(*tree_marks(comparison))
            self.query_one(ComparePanel).show(comparison, prompts=self.view.unfolded)
        else:
            tree.set_marks(state.marks(), state.reasons(), state.visit_numbers())
        tree.follow_state(shown.number if shown is not None else 0, state, comparison)
        settings = self.next_walk.settings
        self.query_one(BudgetMeter).show(state, status_line(moment), settings.max_nodes_visited, settings.max_depth)
        cursor, total = (history.cursor, len(history.events)) if history else (0, 0)
        decision = history.decision_at() if history else None
        habits = habit_notes(history.events, decision) if history else ()
        self.query_one(StepPanel).show(ShownStep(
            state, cursor, total, picker, ending=ending_text(state),
            capped=capped_note(decision) if decision is not None else "",
            verdict=shown.verdict if shown is not None else "", habits=habits))
        self.query_one(ResultsPanel).show(state, self.corpus,
                                          results_summary(state, moment, live=shown is not None and shown.live),
                                          rank_landed(state, history.events, history.forced) if history else ())
        self.query_one(TranscriptView).show(decision, self.corpus, habits)
        self.query_one(Timeline).show(history)
        if self.presenting:
            self._present(state, history, moment.busy_seconds)

    def _present(self, state: WalkState, history: WalkHistory | None, thinking: float | None) -> None:
        """Presenting mode's widgets: the narration (``thinking``: the seconds the navigator has been deciding), and
        the offer card (the answer card once the walk is over)."""
        at_end = history is not None and history.ended and history.at_latest
        self.set_class(at_end, AT_END)
        self.query_one(NarrationLine).show(self.presenter.narration(), thinking=thinking)
        if at_end and history is not None:
            self.query_one(AnswerCard).show(state, self.corpus, history.events, history.forced)
        else:
            hint = "Press n: the navigator gets its first offer." if state.offer is None and state.step <= 1 else ""
            self.query_one(OfferCard).show(state, hint=hint)
