"""The walk screen: the corpus as a tree, and one walk of the session stepped through on it.

The screen binds to the session's :class:`~explorer.walks.walk_list.WalkList`; which walk is shown, which
one it is compared with, a fork being picked and whether it plays are reactives here, and their watchers
(with ``bindings=True``, so the footer follows) redraw what depends on them. A live walk runs on a thread
worker that drives its :class:`~explorer.walks.session.WalkSession`: each step key lets it pull one more
event from ``core``, and the events come back as messages tagged with the walk's id, recorded into that
walk's history on this thread; a change to the shown walk's history is announced with
:meth:`WalkScreen.walk_changed`. Nothing here re-implements a walk rule or keeps a copy of events.
"""

from __future__ import annotations

from pathlib import Path

from textual import events, on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Header, Input, Label, OptionList, TabbedContent, TabPane, Tree

from core import TreeNavigator

from ..corpora import Corpus
from ..safe_text import visible
from ..trace import Trace
from ..walks.compare import tree_marks
from ..walks.describe import capped_note, ending_text
from ..walks.history import Decision, Origin, WalkHistory
from ..walks.picking import Pick
from ..walks.session import WalkSession
from ..walks.settings import WalkSettings
from ..walks.stability import Stability
from ..walks.state import WalkState
from ..walks.walk_list import Walk, WalkList
from .asking_again import AskingAgain
from .comparing import Comparing
from .keymap import WHEN, When, bindings, footer_rules
from .listening import Listening
from .messages import DecisionRequested, LocalModelChanged, WalkEnded, WalkEventArrived
from .next_walk import NextWalk
from .opening_walks import OpeningWalks
from .picker import Picking
from .playing import Player
from .presenting import Presenter
from .rewalking import Rewalking
from .say import Severity, say
from .screens.choose_walk import WalksScreen
from .screens.evaluation import EVALUATION
from .screens.find import FindScreen
from .screens.help import HelpScreen
from .status import Moment, moment_of, results_summary, status_line
from .stepping import Stepping
from .walk_export import WalkExport
from .walk_files import WalkFiles
from .walk_runner import WalkRunner
from .widgets.answer_card import AnswerCard
from .widgets.budget_meter import BudgetMeter
from .widgets.compare_panel import ComparePanel
from .widgets.narration_line import NarrationLine
from .widgets.node_detail import NodeDetail
from .widgets.offer_card import OfferCard
from .widgets.query_input import QueryInput
from .widgets.results_panel import ResultsPanel
from .widgets.step_panel import StepPanel
from .widgets.timeline import Timeline
from .widgets.transcript import TranscriptView
from .widgets.walk_footer import WalkFooter
from .widgets.walk_tree import WalkTree

NARROW, SHORT, COMPACT = 80, 24, 100
"""The smallest comfortable size; below it the layout sheds decoration (classes ``narrow``, ``short``); below
``COMPACT`` columns the tree takes half the width, so stop reasons fit beside titles."""
TABS = ("tab-results", "tab-transcript", "tab-timeline", "tab-node")


class WalkScreen(Screen[None]):
    """See a reasoning walk step by step on the corpus's tree."""

    CSS_PATH = [Path(__file__).with_name("walk_screen.tcss"), Path(__file__).with_name("presenting.tcss")]
    BINDINGS = bindings()

    # init=False: the watchers redraw widgets, which exist once the screen is mounted (on_mount draws the rest).
    shown: var[Walk | None] = var(None, bindings=True, init=False)
    """The walk on screen."""
    partner: var[Walk | None] = var(None, bindings=True, init=False)
    """The walk the shown one is compared with (``None``: no comparison)."""
    fork: var[Pick | None] = var(None, bindings=True, init=False)
    """A fork of the shown walk being picked (the manual navigator's pick lives on its walk)."""
    playing: var[bool] = var(False, bindings=True, init=False)
    pace: var[float] = var(1.0, init=False)
    presenting: var[bool] = var(False, bindings=True, init=False)
    """Presenting mode (explorer.tui.presenting): a decision per step, said in words, the answer on a card."""

    def __init__(self, corpus: Corpus, walks: WalkList, settings: WalkSettings, navigator: TreeNavigator | None = None,
                 *, autoplay: float | None = None, trace_path: str | None = None, allow_files: bool = True,
                 start_query: str | None = None, example_query: str | None = None,
                 opened_trace: Trace | None = None, present: bool = False, listen: bool = True) -> None:
        super().__init__()
        self.corpus = corpus
        self.walks = walks
        self.allow_files = allow_files
        """Whether the keys that open and save files work (off in a session shared on a network)."""
        self.next_walk = NextWalk(self, settings, navigator)
        self.files = WalkFiles(self, trace_path)
        self.picking = Picking(self)
        self.asking_again = AskingAgain(self)
        self.runner = WalkRunner(self)
        self.rewalking = Rewalking(self)
        self.comparing_walks = Comparing(self)
        self.presenter = Presenter(self)
        self.export = WalkExport(self, WalkScreen)
        self._present_at_start = present
        self.autoplay = autoplay is not None
        self.set_reactive(WalkScreen.pace, autoplay or 1.0)
        self._start_query = start_query
        self._example_query = example_query
        self._opened_trace = opened_trace
        self.stepping = Stepping(self)
        self.listening = Listening(self, listen=listen)
        self.opening = OpeningWalks(self)
        self._player = Player(self, self.stepping.tick)
        self._render_pending = False
        self._burst = False

    # -- layout ----------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="query-bar"):
            yield Label("Query", id="query-label")
            yield QueryInput(placeholder="Ask a question, then press Enter", id="query")
            yield Label("", id="next-settings")
        with Horizontal(id="main"):
            yield WalkTree(self.corpus, id="tree")
            with Vertical(id="side"):
                yield NarrationLine(id="narration")
                yield BudgetMeter(id="meter")
                with VerticalScroll(id="step-scroll"):
                    yield StepPanel(id="step")
                    yield ComparePanel(id="compare")
                yield OfferCard(id="offer-card")
                yield AnswerCard(id="answer-card")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ResultsPanel(id="results")
                    with TabPane("Transcript", id="tab-transcript"), VerticalScroll():
                        yield TranscriptView(id="transcript")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(id="timeline")
                    with TabPane("Node", id="tab-node"), VerticalScroll():
                        yield NodeDetail(id="detail")
        yield WalkFooter(footer_rules())

    def on_mount(self) -> None:
        self.listening.attach()
        if self._present_at_start:
            self.presenting = True
        self.settings_changed()
        # While the navigator thinks, nothing else repaints: keep the status (and its clock) fresh.
        self.set_interval(0.25, self._refresh_status, name="status")
        query = self.query_input
        query.value = self._start_query or self._example_query or ""
        if self._opened_trace is not None:
            self.load_trace(self._opened_trace)
            self.walk_tree.focus()
        elif self._start_query and self._start_query.strip():
            self.start_walk(self._start_query)
            self.walk_tree.focus()
        else:
            query.focus()
        self._schedule_render()

    def on_resize(self, event: events.Resize) -> None:
        self.set_class(event.size.width < NARROW, "narrow")
        self.set_class(event.size.width < COMPACT, "compact")
        self.set_class(event.size.height < SHORT, "short")

    def on_unmount(self) -> None:
        self._player.stop()
        self.listening.detach()

    def on_local_model_changed(self, message: LocalModelChanged) -> None:
        self.listening.local_model_changed(message.status)

    def say(self, message: str, *, title: str = "", severity: Severity = "information", timeout: float = 3) -> None:
        say(self, message, title=title, severity=severity, timeout=timeout)

    # -- what is shown ---------------------------------------------------------------------------------------------

    @property
    def history(self) -> WalkHistory | None:
        """The history of the walk on screen."""
        return self.shown.history if self.shown is not None else None

    @property
    def session(self) -> WalkSession | None:
        """The live session of the walk on screen (``None`` for a trace, an ended walk, or before any walk)."""
        return self.shown.session if self.shown is not None else None

    @property
    def picker(self) -> Pick | None:
        """The pick open on the walk on screen: a fork being made, or the manual navigator waiting on it."""
        return self.fork if self.fork is not None else (self.shown.pick if self.shown is not None else None)

    @property
    def comparing(self) -> tuple[WalkHistory, WalkHistory] | None:
        """Walk A (on screen) and walk B while two walks are compared."""
        return None if self.shown is None or self.partner is None else (self.shown.history, self.partner.history)

    @property
    def query_input(self) -> QueryInput:
        return self.query_one("#query", QueryInput)

    @property
    def walk_tree(self) -> WalkTree:
        return self.query_one(WalkTree)

    def focus_tree(self) -> None:
        self.walk_tree.focus()

    def focus_query(self) -> None:
        self.query_input.focus()

    def walk_changed(self, *, burst: bool = False) -> None:
        """The shown walk's history changed in place (an event arrived, the cursor moved): redraw what shows it."""
        self._burst = burst
        self.mutate_reactive(WalkScreen.shown)

    def watch_shown(self, old: Walk | None, new: Walk | None) -> None:
        if new is not old:
            self._bind(new)
        self._schedule_render(burst=self._burst)
        self._burst = False

    def _bind(self, walk: Walk | None) -> None:
        """A walk took the screen: what belonged to the one before goes."""
        self.playing = False
        self.partner = None
        self.fork = None
        tree = self.walk_tree
        tree.forget_walk()
        tree.set_overlay(expected=frozenset(), counts={}, heat={})
        self.query_one(ResultsPanel).reset()
        self._update_titles()

    def watch_partner(self, partner: Walk | None) -> None:
        self.walk_tree.refollow()
        self.query_one("#side").set_class(partner is not None, "comparing")
        self._schedule_render()

    def watch_fork(self) -> None:
        self._schedule_render()

    def watch_playing(self, playing: bool) -> None:
        if playing:
            self._player.play(self.pace)
        else:
            self._player.stop()
        self._schedule_render()

    def watch_pace(self, pace: float) -> None:
        if self.playing:
            self._player.play(pace)
        self._schedule_render()

    def watch_presenting(self, presenting: bool) -> None:
        self.presenter.turn(presenting)
        self._schedule_render()

    def action_toggle_presenting(self) -> None:
        self.presenting = not self.presenting
        self.say("Presenting: n the next decision · p play · b back · P ends it" if self.presenting
                 else "Presenting mode off.", timeout=3)

    def show_walk(self, walk: Walk) -> None:
        """Put ``walk`` (already in the list) on screen at the step it was left at."""
        if walk is self.shown:
            self._bind(walk)  # shown anew: the overlays and any fork go
            self._schedule_render()
        else:
            self.shown = walk

    def switch_to(self, number: int) -> None:
        """Show walk ``number`` of the list, at the step it was left at."""
        self.opening.switch_to(number)

    def open_history(self, history: WalkHistory, *, step: int | None = None, expected: frozenset[str] = frozenset(),
                     verdict: str = "") -> Walk:
        """Put a walk made elsewhere (an evaluation's) on screen (:mod:`.opening_walks`)."""
        return self.opening.open_history(history, step=step, expected=expected, verdict=verdict)

    def compare_with(self, other: Walk) -> None:
        """Compare the walk on screen with ``other``, side by side (:mod:`.comparing`)."""
        self.comparing_walks.start(other)

    # -- the walk's lifecycle (explorer.tui.walk_runner) -------------------------------------------------------------

    def start_walk(self, query: str, *, origin: Origin | None = None) -> None:
        """Start a new walk on ``query`` (a new entry in the list), paused before its first step."""
        self.runner.start(query, origin=origin)

    def launch(self, walk: Walk, *, steps: int) -> None:
        self.runner.launch(walk, steps=steps)

    def park(self) -> None:
        self.runner.park()

    def on_walk_event_arrived(self, message: WalkEventArrived) -> None:
        self.runner.arrived(message)
        if self.shown is not None and message.walk_id == self.shown.id:
            self.presenter.arrived()

    def on_walk_ended(self, message: WalkEnded) -> None:
        if self.shown is not None and message.walk_id == self.shown.id:
            self.presenter.ended()
        self.runner.ended(message)

    # -- picking by hand: the manual navigator, and forks (explorer.tui.picker) -------------------------------------

    def on_decision_requested(self, message: DecisionRequested) -> None:
        self.picking.requested(message.pending)

    def action_fork(self) -> None:
        self.picking.fork()

    def fork_with(self, decision: Decision, selected: tuple[str, ...]) -> None:
        """Fork the walk on screen at ``decision``, answered with ``selected`` (the what-if's new answer)."""
        self.picking.make_fork(decision, selected)

    def action_what_if(self) -> None:
        self.asking_again.open()

    def action_toggle_candidate(self, number: int) -> None:
        self.picking.toggle(number)

    def action_answer(self) -> None:
        self.picking.answer()

    def action_stop_here(self) -> None:
        self.picking.stop_here()

    def action_close_picker(self) -> None:
        self.picking.close()

    def action_type_id(self) -> None:
        self.picking.type_id()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        match WHEN.get(action, When.ALWAYS):
            case When.PICKING:
                return self.picker is not None
            case When.FORKING:
                return self.fork is not None
            case When.EVALUATION_BEHIND:
                return self.app.is_screen_installed(EVALUATION) and self.app.screen is self
        return True

    # -- step keys (explorer.tui.stepping) ---------------------------------------------------------------------------

    def walk_anew(self) -> None:
        """The walk on screen is over (or there is none): the next walk goes into the list."""
        self.start_walk(self.query_input.value)

    def refresh_status_soon(self) -> None:
        self.set_timer(0.05, self._refresh_status)

    def action_next_step(self) -> None:
        self.stepping.next()

    def action_continue_walk(self) -> None:
        self.stepping.to_the_end()

    def action_play_pause(self) -> None:
        self.stepping.play_pause()

    def action_faster(self) -> None:
        self.stepping.faster()

    def action_slower(self) -> None:
        self.stepping.slower()

    def action_step_back(self) -> None:
        self.stepping.back()

    def action_step_forward(self) -> None:
        self.stepping.forward()

    def action_first_step(self) -> None:
        self.stepping.first()

    def action_latest_step(self) -> None:
        self.stepping.latest()

    def action_cancel_walk(self) -> None:
        self.runner.cancel()

    def action_restart(self) -> None:
        query = self.query_input.value or (self.history.settings.query if self.history is not None else "")
        self.start_walk(query, origin=Origin.RESTART)

    def action_switch_walk(self) -> None:
        if not self.walks:
            self.say("No walk yet.", timeout=2)
            return

        def chosen(number: int | None) -> None:
            if number is not None:
                self.switch_to(number)

        current = self.shown.number if self.shown is not None else 0
        self.app.push_screen(WalksScreen([w.name for w in self.walks], current), chosen)

    def action_compare(self) -> None:
        self.comparing_walks.ask()

    def action_edit_query(self) -> None:
        self.playing = False
        self.query_input.focus()

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen())

    def action_next_tab(self) -> None:
        self._cycle_tab(1)

    def action_previous_tab(self) -> None:
        self._cycle_tab(-1)

    def _cycle_tab(self, direction: int) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        index = TABS.index(tabs.active) if tabs.active in TABS else 0
        tabs.active = TABS[(index + direction) % len(TABS)]

    def action_more_content(self) -> None:
        tabs = self.query_one("#tabs", TabbedContent)
        shown = self.query_one(NodeDetail).more() if tabs.active == "tab-node" else self.query_one(ResultsPanel).more()
        if not shown:
            self.say("All of it is shown.", timeout=2)

    def action_find_node(self) -> None:
        def go(node_id: str | None) -> None:
            if node_id is None:
                return
            tree = self.walk_tree
            tree.reveal(node_id)
            tree.focus()
            self.query_one(NodeDetail).show(self.corpus, node_id)
            self.say(f"Found {self.corpus.title_of(node_id)} ({node_id})", timeout=3)

        self.app.push_screen(FindScreen(self.corpus.find), go)

    def action_toggle_follow(self) -> None:
        tree = self.walk_tree
        tree.follow = not tree.follow
        tree.refollow()
        self.say(f"Tree follows the walk: {'on' if tree.follow else 'off'}", timeout=2)
        self._schedule_render()

    def action_back_to_evaluation(self) -> None:
        if not self.app.is_screen_installed(EVALUATION):
            self.say("No evaluation is open: E walks a question set.", timeout=3)
        elif self.app.screen is self:
            self.app.push_screen(EVALUATION)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.start_walk(event.value)
        if self.session is not None:
            self.walk_tree.focus()

    @on(Tree.NodeHighlighted, "#tree")
    def _tree_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        for detail in self.query(NodeDetail):  # none if the highlight arrives while the app shuts down
            detail.show(self.corpus, event.node.data)

    @on(OptionList.OptionSelected, "#timeline")
    def _timeline_selected(self, event: OptionList.OptionSelected) -> None:
        self.playing = False
        if self.history is not None and self.history.go(event.option_index + 1):
            self.walk_changed()

    # -- settings, stability, evaluation and files live in their own modules ---------------------------------------

    def action_set_budget(self) -> None:
        self.next_walk.ask_budget()

    def action_set_depth(self) -> None:
        self.next_walk.ask_depth()

    def action_switch_navigator(self) -> None:
        self.next_walk.ask_navigator(self.files.recent())

    def action_cycle_policy(self) -> None:
        self.next_walk.cycle_policy()

    def action_set_policy(self, policy: str) -> None:
        self.next_walk.set_policy(policy)

    def action_stability(self) -> None:
        self.next_walk.ask_stability(self.query_input.value)

    def action_evaluate(self) -> None:
        self.next_walk.ask_evaluation()

    def action_budget_stop(self) -> None:
        self.rewalking.to_budget_stop()

    def action_rewalk(self) -> None:
        self.rewalking.ask()

    def action_save_trace(self) -> None:
        self.files.ask_save()

    def action_open_trace(self) -> None:
        self.files.ask_open()

    def action_save_screenshot(self) -> None:
        self.files.ask_screenshot()

    def action_export_html(self) -> None:
        self.export.ask()

    def load_trace(self, trace: Trace) -> None:
        """Step through a saved walk, from its first event; no navigator is called. It joins the list."""
        self.opening.load_trace(trace)

    # -- showing a step --------------------------------------------------------------------------------------------

    def settings_changed(self) -> None:
        """The next walk's settings changed: the query bar and the meter show them."""
        self.query_one("#next-settings", Label).update(self.next_walk.describe())
        self._update_titles()
        self._schedule_render()

    def show_stability(self, stability: Stability) -> None:
        """How often each node was chosen by a stability run's walks, on the tree, until another walk is shown."""
        self.opening.show_stability(stability)

    def _update_titles(self) -> None:
        shown = self.shown
        self.sub_title = visible(f"{self.corpus.title} · {shown.name}" if shown is not None else self.corpus.title)

    def _moment(self) -> Moment:
        return moment_of(self.history, self.session, self.picker, playing=self.playing, pace=self.pace)

    def state_at_cursor(self) -> WalkState:
        return self.history.state() if self.history is not None else WalkState()

    def _refresh_status(self) -> None:
        session = self.session
        if session is not None and session.busy:
            # The timer can tick once more while the app shuts down, after its widgets are gone: then none.
            settings = self.next_walk.settings
            for meter in self.query(BudgetMeter):
                meter.show(self.state_at_cursor(), status_line(self._moment()), settings.max_nodes_visited,
                           settings.max_depth)

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
        shown, history, picker = self.shown, self.history, self.picker
        state = self.state_at_cursor()
        moment = self._moment()
        tree = self.walk_tree
        comparison = self.comparing_walks.current()
        if comparison is not None:
            tree.set_marks(*tree_marks(comparison))
            self.query_one(ComparePanel).show(comparison)
        else:
            tree.set_marks(state.marks(), state.reasons())
        tree.follow_state(shown.number if shown is not None else 0, state, comparison)
        settings = self.next_walk.settings
        self.query_one(BudgetMeter).show(state, status_line(moment), settings.max_nodes_visited, settings.max_depth)
        cursor, total = (history.cursor, len(history.events)) if history else (0, 0)
        decision = history.decision_at() if history else None
        self.query_one(StepPanel).show(state, self.corpus, cursor, total, picking=picker is not None,
                                       picked=picker.picked if picker else (),
                                       forking=picker is not None and picker.forking, ending=ending_text(state),
                                       capped=capped_note(decision) if decision is not None else "",
                                       verdict=shown.verdict if shown is not None else "")
        self.query_one(ResultsPanel).show(state, self.corpus,
                                          results_summary(state, moment, live=shown is not None and shown.live))
        self.query_one(TranscriptView).show(decision, self.corpus)
        self.query_one(Timeline).show(history)
        if self.presenting:
            self.presenter.show(state)
