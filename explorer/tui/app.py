"""The explorer: the corpus as a tree, and the reasoning walk stepped through on it.

Every walk of the session is a :class:`~explorer.walks.history.WalkHistory` in a
:class:`~explorer.walks.history.WalkList` (the first walk, each restart, each fork,
each opened trace); the screen binds to one of them and shows the
:class:`~explorer.walks.state.WalkState` under its cursor. A live walk runs on
a thread worker that drives a :class:`~explorer.walks.session.WalkSession`: each
step key lets it pull one more event from ``core``, and the events come back
as messages tagged with the walk's id, recorded into that walk's history on
this thread. Nothing here re-implements a walk rule or keeps a copy of events.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Label, OptionList, TabbedContent, TabPane, Tree

from core import NodeView, OnFailure, TreeNavigator, TreeNavigatorError

from ..corpora import Corpus
from ..ending import WalkEnd
from ..navigators import SUGGESTED_MODELS, NavigatorConfigError, resolve_navigator
from ..navigators.manual import DESK, PendingDecision
from ..safe_text import visible
from ..trace import Trace, TraceError, read_trace
from ..walks.compare import Comparison, compare, tree_marks
from ..walks.describe import ending_text
from ..walks.history import Decision, Origin, WalkHistory, WalkList
from ..walks.session import SessionEnded, SessionEvent, WalkSession, WalkSettings, fork, save_history
from ..walks.state import WalkState
from .commands import explorer_commands
from .keymap import PROMPT_KEYS, bindings
from .messages import DecisionRequested, WalkEnded, WalkEventArrived
from .screens.dialogs import FindScreen, HelpScreen, PromptClosed, PromptReady, PromptScreen, WalksScreen
from .widgets.budget_meter import BudgetMeter
from .widgets.compare_panel import ComparePanel
from .widgets.node_detail import NodeDetail
from .widgets.results_panel import ResultsPanel
from .widgets.step_panel import StepPanel
from .widgets.timeline import Timeline
from .widgets.transcript import TranscriptView
from .widgets.walk_tree import WalkTree

NARROW, SHORT, COMPACT = 80, 24, 100
"""The smallest comfortable size; below it the layout sheds decoration (classes ``narrow``, ``short``); below
``COMPACT`` columns the tree takes half the width, so stop reasons fit beside titles."""
PACES = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0)
TABS = ("tab-results", "tab-transcript", "tab-timeline", "tab-node")


class QueryInput(Input):
    """The query box: Enter starts a walk; Escape leaves the box so the step keys work."""

    BINDINGS = [Binding("escape", "leave", "Leave the query box", id="query.leave")]

    def action_leave(self) -> None:
        self.app.query_one(WalkTree).focus()


@dataclass
class Picker:
    """Candidates being picked by hand: for the manual navigator (``pending``) or for a fork (``decision``)."""

    candidates: tuple[NodeView, ...]
    pending: PendingDecision | None = None
    decision: Decision | None = None
    picked: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    """What the person pressed, for the manual navigator's transcript."""

    @property
    def forking(self) -> bool:
        return self.decision is not None


class ExplorerApp(App[int]):
    """See a reasoning walk step by step on the corpus's tree."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute, so subclasses elsewhere find it too
    TITLE = "reasoning-explorer"
    BINDINGS = bindings()

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
        opened_trace: Trace | None = None,
        allow_files: bool = True,
    ) -> None:
        super().__init__()
        self.allow_files = allow_files
        """Whether the keys that open and save files work (off in a session shared on a network)."""
        self.corpus = corpus
        self.settings = settings
        """The settings of the next walk (the walk on screen shows its own in the meter)."""
        self.navigator = navigator or resolve_navigator(settings.model)
        self.walks = WalkList()
        self.sessions: dict[int, WalkSession] = {}
        """Live walks by session id: the worker of each history that is walked, not read from a trace."""
        self.navigators: dict[int, TreeNavigator] = {}
        """The navigator each walk (by history number) was walked with: a fork goes on with it."""
        self.playing = False
        self.pace = autoplay or 1.0
        self.autoplay = autoplay is not None
        self._fork_picker: Picker | None = None
        self._waiting: dict[int, Picker] = {}
        """The manual navigator's open requests, by walk (session) id: each waits for its own walk to be shown."""
        self.trace_path = trace_path
        self.example_query = example_query
        self._start_walk_at_launch = start_walk
        self._opened_trace = opened_trace
        self._play_timer: Timer | None = None
        self._render_scheduled = False
        self._revealed: tuple[int, str | None, bool] | None = None
        self._shown_walk: WalkHistory | None = None
        self._held_keys: list[events.Key] | None = None
        self._released_keys: set[int] = set()
        self._saved_traces: list[str] = []
        self.comparing: tuple[WalkHistory, WalkHistory] | None = None
        """Walk A (on screen) and walk B while two walks are compared."""
        self._comparison: tuple[tuple[int, int], Comparison] | None = None

    # -- layout --------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="query-bar"):
            yield Label("Query", id="query-label")
            yield QueryInput(placeholder="Ask a question, then press Enter", id="query")
            yield Label("", id="next-settings")
        with Horizontal(id="main"):
            yield WalkTree(self.corpus, id="tree")
            with Vertical(id="side"):
                yield BudgetMeter(id="meter")
                with VerticalScroll(id="step-scroll"):
                    yield StepPanel(id="step")
                    yield ComparePanel(id="compare")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ResultsPanel(id="results")
                    with TabPane("Transcript", id="tab-transcript"), VerticalScroll():
                        yield TranscriptView(id="transcript")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(id="timeline")
                    with TabPane("Node", id="tab-node"), VerticalScroll():
                        yield NodeDetail(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        DESK.attach(self._manual_listener)
        self._update_titles()
        # While the navigator thinks, nothing else repaints: keep the status (and its clock) fresh.
        self.set_interval(0.25, self._refresh_status, name="status")
        query = self.query_one("#query", QueryInput)
        query.value = self.settings.query or self.example_query or ""
        if self._opened_trace is not None:
            self.load_trace(self._opened_trace)
            self.query_one(WalkTree).focus()
        elif self._start_walk_at_launch and self.settings.query.strip():
            self.start_walk(self.settings.query)
            self.query_one(WalkTree).focus()
        else:
            query.focus()
        self.refresh_view()

    def on_resize(self, event: events.Resize) -> None:
        self.screen.set_class(event.size.width < NARROW, "narrow")
        self.screen.set_class(event.size.width < COMPACT, "compact")
        self.screen.set_class(event.size.height < SHORT, "short")

    def on_unmount(self) -> None:
        self._set_playing(False)
        for session in self.sessions.values():
            session.close()
        DESK.detach(self._manual_listener)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        # Ours save the screenshot where asked and show every key: Textual's own would be a second of each.
        for command in super().get_system_commands(screen):
            if command.title not in ("Screenshot", "Keys", "Quit"):
                yield command
        yield from explorer_commands(self)

    async def on_event(self, event: events.Event) -> None:
        # Every key typed after a key that opens a prompt belongs to the prompt, however fast it comes: a key
        # reaches the app before the focused widget has handled the ones queued ahead of it, so hold the keys
        # that follow a prompt key until the prompt has the focus (or the key opened nothing), then hand them
        # over up to the key that closes the prompt; the rest wait until it has closed.
        if not isinstance(event, events.Key):
            await super().on_event(event)
            return
        bubbled_back = event.is_forwarded  # forwarding marks this very event, so read it first
        if not bubbled_back:
            if id(event) in self._released_keys:
                self._released_keys.discard(id(event))
            elif self._held_keys is not None:
                self._held_keys.append(event)
                return
            elif event.key in PROMPT_KEYS and not isinstance(self.focused, Input):
                self._held_keys = []
        await super().on_event(event)
        opened_nothing = not isinstance(self.screen, PromptScreen)  # no walk to pick for, say
        if bubbled_back and event.key in PROMPT_KEYS and self._held_keys is not None and opened_nothing:
            self._replay_held_keys()

    def on_prompt_ready(self, message: PromptReady) -> None:
        """The prompt has the focus (or kept it after refusing a value): give it the held keys up to a closing one."""
        held = self._held_keys or []
        batch: list[events.Key] = []
        while held:
            key = held.pop(0)
            batch.append(key)
            if key.key in ("enter", "escape"):
                break
        for key in batch:
            copy = events.Key(key.key, key.character)
            self._released_keys.add(id(copy))
            self.post_message(copy)
        if not batch and not held:
            self._held_keys = None

    def on_prompt_closed(self, message: PromptClosed) -> None:
        self._replay_held_keys()

    def _replay_held_keys(self) -> None:
        """Type the held keys anew, as if just pressed (one of them may open the next prompt)."""
        held, self._held_keys = self._held_keys or [], None
        for key in held:
            self.post_message(events.Key(key.key, key.character))

    def say(self, message: str, *, title: str = "", severity: str = "information", timeout: float = 3) -> None:
        """A notification of text that may hold anything (paths, ids, errors): escaped, never markup."""
        self.notify(visible(message), title=visible(title), severity=severity,  # type: ignore[arg-type]
                    markup=False, timeout=timeout)

    def run_action_now(self, action: str) -> None:
        """Run one of our actions from the command palette."""
        self.call_later(self.run_action, action)

    # -- the walk on screen ------------------------------------------------------------------------

    @property
    def picker(self) -> Picker | None:
        """The picker of the walk on screen: a fork being made, or the manual navigator waiting on this walk."""
        if self._fork_picker is not None:
            return self._fork_picker
        history = self.history
        return self._waiting.get(history.walk_id) if history is not None and history.walk_id else None

    @property
    def history(self) -> WalkHistory | None:
        """The walk on screen."""
        return self.walks.current

    @property
    def session(self) -> WalkSession | None:
        """The live session of the walk on screen (``None`` for a trace, or before any walk)."""
        history = self.history
        return self.sessions.get(history.walk_id) if history is not None and history.walk_id else None

    @property
    def walk_running(self) -> bool:
        """Whether the walk on screen can still take a step (it is live and has not ended)."""
        return self.session is not None and self.history is not None and not self.history.ended

    def _show(self, history: WalkHistory) -> None:
        """Bind the screen to ``history`` (already in the list and current)."""
        self._set_playing(False)
        if self.comparing is not None and self.comparing[0] is not history:
            self._end_comparison()
        self._fork_picker = None
        self._revealed = None
        self.query_one(WalkTree).set_overlay(expected=frozenset(), counts={}, heat={})
        self.query_one(ResultsPanel).reset()
        timeline = self.query_one(Timeline)
        timeline.reset()
        for seq, event in enumerate(history.events, start=1):
            timeline.add_event(seq, event)
        if history.end is not None:
            timeline.add_end(history.end.value, len(history.events))
        self._shown_walk = history
        self._update_titles()
        self.refresh_bindings()
        self.refresh_view()

    def open_history(self, history: WalkHistory, *, step: int | None = None,
                     expected: frozenset[str] = frozenset()) -> WalkHistory:
        """Put a walk made elsewhere (an evaluation's) in the list and on screen, at ``step``, with the nodes a
        question expects marked on the tree (until another walk is shown)."""
        self._park_running_walk()
        self.walks.add(history)
        if step is not None:
            history.go(step)
        self._show(history)
        self.query_one(WalkTree).set_overlay(expected=expected)
        return history

    def switch_to(self, number: int) -> None:
        """Show walk ``number`` of the list, at the step it was left at."""
        try:
            history = self.walks.switch(number)
        except IndexError as exc:
            self.say(str(exc), severity="warning")
            return
        self._show(history)
        self.say(f"Now showing {history.name}", timeout=3)

    # -- the walk's lifecycle ---------------------------------------------------------------------

    def start_walk(self, query: str, *, origin: Origin | None = None) -> None:
        """Start a new walk on ``query`` (a new entry in the list), paused before its first step."""
        query = query.strip()
        if not query:
            self.say("Type a question first.", severity="warning")
            self.query_one("#query", QueryInput).focus()
            return
        self._set_playing(False)
        self._park_running_walk()
        self.settings = self.settings.but(query=query)
        previous = self.history
        if origin is None:
            origin = Origin.RESTART if previous is not None and previous.settings.query == query else Origin.WALK
        history = WalkHistory(self.settings, origin)
        session = WalkSession(self.corpus, self.settings, self.navigator, history=history)
        self._launch(session, self.navigator, steps=1)  # WalkStarted: the screen shows the settings, then waits
        if previous is not None and previous.ended:
            self.say(f"{history.name} started; {previous.name} stays one key away (w).", timeout=4)
        if self.autoplay:
            self._set_playing(True)

    def _launch(self, session: WalkSession, navigator: TreeNavigator, *, steps: int) -> None:
        """Put ``session``'s walk in the list, on screen, and on a worker that takes ``steps`` steps."""
        self.walks.add(session.history)
        self.sessions[session.id] = session
        self.navigators[session.history.number] = navigator
        self.run_worker(partial(session.run, self._emit), thread=True, group="walk", name=f"walk-{session.id}",
                        exit_on_error=False)
        session.step(steps)
        self._show(session.history)

    def _park_running_walk(self) -> None:
        """A new walk takes the screen: the one on it stays in the list, paused where it was."""
        session = self.session
        if session is not None:
            session.pause()
        self._fork_picker = None

    def _emit(self, message: SessionEvent | SessionEnded) -> None:
        """Called on the worker thread: hand the message to the UI thread."""
        if isinstance(message, SessionEvent):
            self.post_message(WalkEventArrived(message.walk_id, message.seq, message.event, message.forced))
        else:
            self.post_message(WalkEnded(message.walk_id, message.end, message.error))

    def on_walk_event_arrived(self, message: WalkEventArrived) -> None:
        history = self.walks.by_walk_id(message.walk_id)
        if history is None or history.ended or message.seq != len(history.events) + 1:
            return  # a walk cancelled here, or a stale message
        pinned = history.cursor if self._fork_picker is not None and history is self.history else None
        history.append(message.event, forced=message.forced)
        if pinned is not None:
            history.go(pinned)  # a fork's picker shows its offer: an answer arriving now must not move it
        if history is self.history:
            for timeline in self.query(Timeline):  # none once the app shuts down
                timeline.add_event(message.seq, message.event)
            self.schedule_render()

    def on_walk_ended(self, message: WalkEnded) -> None:
        history = self.walks.by_walk_id(message.walk_id)
        if history is None:
            return
        if history.end is None and history is self.history:
            self.query_one(Timeline).add_end(message.end.value, len(history.events))
        history.finish(message.end, message.error)
        self._waiting.pop(message.walk_id, None)
        if message.end is WalkEnd.FAILED and message.error and history is self.history:
            self.say(message.error, title="The walk failed", severity="error", timeout=8)
        if self.trace_path:
            self._save_trace(history, self._trace_path_for(history), quiet=history.number == 1)
        if history is self.history:
            self.refresh_bindings()
            self.schedule_render()

    # -- picking by hand: the manual navigator, and forks ----------------------------------------

    def _manual_listener(self, pending: PendingDecision) -> None:
        """Called on the worker thread by the manual navigator."""
        self.post_message(DecisionRequested(pending))

    def on_decision_requested(self, message: DecisionRequested) -> None:
        token = message.pending.request.cancellation
        session = next((s for s in self.sessions.values() if s.token is token), None)
        if session is None or session.token.cancelled:
            message.pending.decide((), "stale request")  # its walk is gone: nobody is there to answer
            return
        # Never answered on a person's behalf: the request waits for its own walk to be on screen.
        self._waiting[session.id] = Picker(message.pending.request.candidates, pending=message.pending)
        if session is not self.session:
            waiting = self.walks.by_walk_id(session.id)
            self.say(f"{waiting.name if waiting else 'another walk'} waits for you: w switches to it.", timeout=5)
            return
        if self.history is not None:
            self.history.latest()
        self._set_playing(False)
        if isinstance(self.focused, Input):
            self.query_one(WalkTree).focus()
        self.refresh_bindings()  # the picker's keys appear in the footer now
        self.say("Your turn: 1-9 pick, a answer, s stop here, i type an id or a number.", timeout=4)
        self.refresh_view()

    def action_fork(self) -> None:
        history = self.history
        if history is None:
            self.say("No walk yet: start one, then fork it at any decision.", timeout=3)
            return
        if self.picker is not None and self.picker.pending is not None:
            self.say("The navigator waits for you: answer it first (1-9, a, s, i).", timeout=3)
            return
        decision = history.decision_at()
        if decision is None:
            self.say("No decision at this step yet: step to an offer (n), then fork it (e).", timeout=4)
            return
        self._set_playing(False)
        self._fork_picker = Picker(decision.offer.candidates, decision=decision)
        history.go(decision.offer_seq)  # show the offer as it was, before its answer
        self.refresh_bindings()
        where = "the roots" if decision.node is None else decision.node
        self.say(f"Fork at {where}: 1-9 pick, i type an id, a answer, s stop here, Escape closes.", timeout=5)
        self.refresh_view()

    def _make_fork(self, decision: Decision, selected: tuple[str, ...]) -> None:
        source = self.history
        if source is None:
            return
        navigator = self._navigator_for(source)
        try:
            session = fork(source, decision.offer_seq, selected, self.corpus, navigator, number=self.walks.next_number)
        except ValueError as exc:
            self.say(str(exc), severity="error")
            return
        self._park_running_walk()
        self._launch(session, navigator, steps=decision.offer_seq + 1)
        self.say(f"{session.history.name} — n steps on; w switches back.", timeout=5)

    def _navigator_for(self, history: WalkHistory) -> TreeNavigator:
        """The navigator a fork of ``history`` goes on with: the one it was walked with."""
        known = self.navigators.get(history.number)
        if known is not None:
            return known
        try:
            return resolve_navigator(history.settings.model, allow_files=self.allow_files)
        except (TreeNavigatorError, NavigatorConfigError, ValueError) as exc:
            self.say(f"{history.settings.model} cannot be used here ({' '.join(str(exc).split())}); the fork goes "
                     f"on with {self.settings.model}", severity="warning", timeout=6)
            return self.navigator

    def action_toggle_candidate(self, number: int) -> None:
        picker = self.picker
        if picker is None:
            return
        if 1 <= number <= len(picker.candidates):
            node_id = picker.candidates[number - 1].id
            if node_id in picker.picked:
                picker.picked.remove(node_id)
                picker.keys.append(f"unpicked {number}")
            else:
                picker.picked.append(node_id)
                picker.keys.append(f"picked {number}")
            self.refresh_view()

    def action_answer(self) -> None:
        if self.picker is not None and not self.picker.picked:
            self.say("Nothing picked: answered 'stop here'.", timeout=3)
        self._decide(tuple(self.picker.picked) if self.picker else (), "picked by hand")

    def action_stop_here(self) -> None:
        self._decide((), "stopped here by hand")

    def action_close_picker(self) -> None:
        if self._fork_picker is not None:
            self._fork_picker = None
            if self.history is not None:
                self.history.latest()
            self.refresh_bindings()
            self.refresh_view()

    def _decide(self, selected: tuple[str, ...], rationale: str) -> None:
        picker = self.picker
        if picker is None:
            return
        if picker is self._fork_picker:
            self._fork_picker = None
        else:
            self._waiting = {walk: p for walk, p in self._waiting.items() if p is not picker}
        self.refresh_bindings()
        if picker.decision is not None:
            self._make_fork(picker.decision, selected)
        elif picker.pending is not None:
            picker.keys.append("answered" if selected else "stop here")
            picker.pending.decide(selected, rationale, pressed=tuple(picker.keys))
        self.refresh_view()

    def action_type_id(self) -> None:
        picker = self.picker
        if picker is None:
            return
        candidates = picker.candidates
        offered = {c.id for c in candidates}

        def add(value: str | None) -> None:
            if not value or self.picker is not picker:
                return
            if value not in offered and value.isascii() and value.isdigit() and 1 <= int(value) <= len(candidates):
                self.action_toggle_candidate(int(value))  # a candidate's number, for offers wider than 9
                return
            if value not in picker.picked:
                picker.picked.append(value)
                picker.keys.append(f"typed {value}")
            self.refresh_view()

        self.push_screen(PromptScreen(f"Type a node id, or a candidate's number (1-{len(candidates)}); an id that "
                                      "was not offered shows what a hallucination does",
                                      check=lambda v: None if v else "Type an id or a number."), add)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_candidate", "answer", "stop_here", "type_id"):
            return self.picker is not None
        if action == "close_picker":
            return self.picker is not None and self.picker.forking
        if action == "back_to_evaluation":  # Escape: only while an evaluation waits behind the main view
            from .screens.evaluation import EVALUATION

            return self.is_screen_installed(EVALUATION) and self.screen is self.screen_stack[0]
        return True

    # -- step keys ----------------------------------------------------------------------------------

    def _query_text(self) -> str:
        return self.query_one("#query", QueryInput).value

    def _walk_anew(self) -> None:
        """The walk on screen is over (or there is none): the next walk goes into the list."""
        self.start_walk(self._query_text())

    def action_next_step(self) -> None:
        history = self.history
        if history is not None and history.forward():
            self.refresh_view()  # what already happened: no navigator call
        elif history is None or history.ended or self.session is None:
            self._walk_anew()
        elif self.picker is not None and self.picker.pending is not None:
            self.say("The navigator waits for you: 1-9 pick, a answer, s stop here, i type an id.")
        elif self.session is not None:
            self.session.step()  # permits add up: quick presses are all honoured, in order
            self.set_timer(0.05, self._refresh_status)

    def action_continue_walk(self) -> None:
        self._set_playing(False)
        history = self.history
        if history is not None and not history.at_latest:
            history.latest()  # to what already happened first
            self.refresh_view()
            return
        if history is None or history.ended or self.session is None:
            self._walk_anew()
        session = self.session
        if session is not None and self.walk_running:
            session.run_to_end()
            self.refresh_view()

    def action_play_pause(self) -> None:
        if self.playing:
            self._set_playing(False)
        else:
            history = self.history
            if history is None or (history.at_latest and (history.ended or self.session is None)):
                self._walk_anew()
                if not self.walk_running:
                    return
            self._set_playing(True)
        self.refresh_view()

    def _set_playing(self, playing: bool) -> None:
        self.playing = playing
        if self._play_timer is not None:
            self._play_timer.stop()
            self._play_timer = None
        if playing:
            self._play_timer = self.set_interval(self.pace, self._play_tick, name="play")

    def _play_tick(self) -> None:
        history = self.history
        if history is not None and history.forward():
            self.refresh_view()
        elif self.walk_running and self.session is not None:
            if self.session.waiting and self.picker is None:
                self.session.step()
        else:
            self._set_playing(False)
            self.refresh_view()

    def action_faster(self) -> None:
        self._change_pace(-1)

    def action_slower(self) -> None:
        self._change_pace(1)

    def _change_pace(self, direction: int) -> None:
        nearest = min(range(len(PACES)), key=lambda i: abs(PACES[i] - self.pace))
        self.pace = PACES[max(0, min(len(PACES) - 1, nearest + direction))]
        if self.playing:
            self._set_playing(True)
        self.refresh_view()

    def action_step_back(self) -> None:
        self._set_playing(False)
        history = self.history
        if history is None:
            return
        if history.back():
            self.refresh_view()
        elif history.events:
            self.say("This is the first step.", timeout=2)

    def action_step_forward(self) -> None:
        if self.history is not None and self.history.forward():
            self.refresh_view()

    def action_first_step(self) -> None:
        self._set_playing(False)
        if self.history is not None and self.history.first():
            self.refresh_view()

    def action_latest_step(self) -> None:
        if self.history is not None and self.history.latest():
            self.refresh_view()

    def action_cancel_walk(self) -> None:
        session, history = self.session, self.history
        if session is None or history is None or history.ended:
            self.say("No walk is running.", timeout=2)
            return
        session.cancel()  # trips the token and opens the gate: the worker ends at once
        history.finish(WalkEnd.CANCELLED)
        self.query_one(Timeline).add_end(WalkEnd.CANCELLED.value, len(history.events))
        history.latest()
        self._waiting.pop(session.id, None)
        self._set_playing(False)
        self.refresh_bindings()
        self.refresh_view()
        self.say("Walk cancelled.")

    def action_restart(self) -> None:
        self.start_walk(self._query_text() or self.settings.query, origin=Origin.RESTART)

    def action_switch_walk(self) -> None:
        if not self.walks.items:
            self.say("No walk yet.", timeout=2)
            return

        def chosen(number: int | None) -> None:
            if number is not None:
                self.switch_to(number)

        self.push_screen(WalksScreen([h.name for h in self.walks], self.walks.index + 1), chosen)

    def action_compare(self) -> None:
        if self.comparing is not None:
            self._end_comparison()
            self.refresh_view()
            self.say("Comparison ended.", timeout=2)
            return
        history = self.history
        if history is None or len(self.walks) < 2:
            self.say("Only one walk so far: fork a decision (e) or restart (r), then compare (D).", timeout=4)
            return
        others = [h for h in self.walks if h is not history]

        def chosen(number: int | None) -> None:
            if number is not None:
                self.compare_with(others[number - 1])

        self.push_screen(WalksScreen([h.name for h in others], 0, title=f"Compare {history.name} with…"), chosen)

    def compare_with(self, other: WalkHistory, on_screen: WalkHistory | None = None) -> None:
        """Compare the walk on screen (or ``on_screen``, shown first) with ``other``: both on the tree, the step
        panel at their first divergence with both answers side by side."""
        if on_screen is not None and on_screen is not self.history:
            self.switch_to(on_screen.number)
        history = self.history
        if history is None or other is history:
            return
        self.comparing = (history, other)
        self._comparison = None
        self.query_one("#side").add_class("comparing")
        comparison = self._current_comparison()
        divergence = comparison.divergence if comparison is not None else None
        if divergence is not None and divergence.a is not None:
            history.go(divergence.a.answer_seq or divergence.a.offer_seq)
        self.refresh_bindings()
        self.refresh_view()

    def _end_comparison(self) -> None:
        self.comparing = None
        self._comparison = None
        self.query_one("#side").remove_class("comparing")
        self._revealed = None

    def _current_comparison(self) -> Comparison | None:
        if self.comparing is None:
            return None
        a, b = self.comparing
        key = (len(a.events), len(b.events))
        if self._comparison is None or self._comparison[0] != key:
            self._comparison = (key, compare(a, b))
        return self._comparison[1]

    def action_edit_query(self) -> None:
        self._set_playing(False)
        self.query_one("#query", QueryInput).focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

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
        index, corpus = self.corpus.index, self.corpus

        def search(text: str, limit: int) -> list[tuple[str, str]]:
            needle = text.strip().casefold()
            found: list[tuple[str, str]] = []
            if text.strip() in index:
                found.append((text.strip(), corpus.title_of(text.strip())))
            for node_id in index.ids():
                if len(found) >= limit:
                    break
                title = corpus.title_of(node_id)
                if node_id != text.strip() and (needle in title.casefold() or needle in node_id.casefold()):
                    found.append((node_id, title))
            return found

        def go(node_id: str | None) -> None:
            if node_id is None:
                return
            tree = self.query_one(WalkTree)
            tree.reveal(node_id)
            tree.focus()
            self.query_one(NodeDetail).show(self.corpus, node_id)
            self.say(f"Found {self.corpus.title_of(node_id)} ({node_id})", timeout=3)

        self.push_screen(FindScreen(search), go)

    def action_toggle_follow(self) -> None:
        tree = self.query_one(WalkTree)
        tree.follow = not tree.follow
        self._revealed = None
        self.say(f"Tree follows the walk: {'on' if tree.follow else 'off'}", timeout=2)
        self.refresh_view()

    async def action_quit(self) -> None:
        self._set_playing(False)
        for session in self.sessions.values():
            session.close()
        self.exit(0)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.start_walk(event.value)
        if self.session is not None:
            self.query_one(WalkTree).focus()

    @on(Tree.NodeHighlighted, "#tree")
    def _tree_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        for detail in self.query(NodeDetail):  # none if the highlight arrives while the app shuts down
            detail.show(self.corpus, event.node.data)

    @on(OptionList.OptionSelected, "#timeline")
    def _timeline_selected(self, event: OptionList.OptionSelected) -> None:
        self._set_playing(False)
        if self.history is not None:
            self.history.go(event.option_index + 1)
            self.refresh_view()

    # -- stability and evaluation (explorer.walks.stability, explorer.walks.evaluation) ----------------------------

    def headless_navigator(self, model: str) -> tuple[TreeNavigator | None, str | None]:
        """The navigator for walks nobody steps through (stability runs, evaluations), or why there is none."""
        from ..navigators.manual import ManualNavigator

        navigator = self.navigator if model == self.settings.model else None
        if navigator is None:
            try:
                navigator = resolve_navigator(model, headless=True, allow_files=self.allow_files)
            except (TreeNavigatorError, NavigatorConfigError, ValueError) as exc:
                return None, " ".join(str(exc).split())
        if isinstance(navigator, ManualNavigator):
            return None, f"{model} waits for a person at every decision; switch navigator (m) to walk many at once"
        return navigator, None

    def action_stability(self) -> None:
        query = (self._query_text() or self.settings.query).strip()
        if not query:
            self.say("Type a question first: stability walks the current query many times.", severity="warning")
            return
        navigator, error = self.headless_navigator(self.settings.model)
        if navigator is None:
            self.say(f"Stability: {error}", severity="warning", timeout=6)
            return

        def start(value: str | None) -> None:
            if value:
                self.run_stability(int(value), query)

        self.push_screen(PromptScreen(f"Stability: walk {visible(query)[:80]!r} how many times? (2-1000)", "10",
                                      check=_whole_number(2, 1000)), start)

    def run_stability(self, runs: int, query: str) -> None:
        """Walk ``query`` ``runs`` times with the settings of the moment, in a panel with a progress bar (x cancels
        every walk); then the tree shows how often each node was chosen."""
        from ..walks.stability import StabilityRun
        from .screens.stability import JOBS, StabilityScreen

        navigator, error = self.headless_navigator(self.settings.model)
        if navigator is None:
            self.say(f"Stability: {error}", severity="warning", timeout=6)
            return
        self._set_playing(False)
        run = StabilityRun(self.corpus, self.settings.but(query=query), navigator, runs, jobs=JOBS)
        self.push_screen(StabilityScreen(run, self.show_stability))

    def show_stability(self, stability: Any) -> None:
        """Beside each node chosen by some of the walks, in how many (``7/10``), with a heat class from the share;
        until another walk is shown."""
        tree = self.query_one(WalkTree)
        tree.set_overlay(counts=stability.counts(), heat=stability.heat())
        for frequency in stability.nodes:
            tree.reveal(frequency.node, move_cursor=False)

    def action_evaluate(self) -> None:
        if not self._files_allowed():
            return
        from ..corpora import CorpusError
        from ..corpora.questions import load_questions

        suggestions: list[str] = []
        try:
            beside = sorted(Path(self.corpus.path).parent.glob("*.questions.y*ml"))
        except OSError:
            beside = []
        for path in beside:
            try:
                named = load_questions(path).corpus_path
            except (CorpusError, OSError):
                continue
            if named is not None and named == Path(self.corpus.path).resolve():
                suggestions.append(str(path))

        def open_(value: str | None) -> None:
            if value:
                self.evaluate_file(Path(value).expanduser())

        self.push_screen(PromptScreen("Evaluate: walk a question set (a .questions.yaml for this corpus)",
                                      suggestions[0] if suggestions else "", placeholder="corpus.questions.yaml",
                                      suggestions=suggestions,
                                      check=lambda v: None if v else "Type the path of a question set."), open_)

    def evaluate_file(self, path: Path, compare: str | None = None) -> None:
        """Open the evaluation screen on the question set at ``path`` (checked against this corpus)."""
        from ..corpora import CorpusError
        from ..corpora.questions import load_questions

        try:
            questions = load_questions(path)
        except (CorpusError, OSError) as exc:
            self.say(str(exc), title="Cannot open the question set", severity="error", timeout=8)
            return
        named = questions.corpus_path
        if named is not None and named != Path(self.corpus.path).resolve():
            self.say(f"{path} is a question set for {named}, not for {self.corpus.path}; open it with "
                     f"`reasoning-explorer {path}`", severity="error", timeout=8)
            return
        problems = questions.check(self.corpus)
        if problems:
            self.say(str(problems[0]), title="The question set does not fit this corpus", severity="error", timeout=8)
            return
        self.open_evaluation(questions, compare)

    def open_evaluation(self, questions: Any, compare: str | None = None) -> None:
        """The evaluation screen on ``questions`` (a QuestionSet of this corpus), with the settings of the moment,
        and a second navigator ``compare`` when given. It replaces any evaluation open before."""
        from .screens.evaluation import EVALUATION, EvaluationScreen

        navigator, error = self.headless_navigator(self.settings.model)
        other: tuple[str, TreeNavigator] | None = None
        if navigator is not None and compare:
            b, b_error = self.headless_navigator(compare)
            other, error = ((compare, b), None) if b is not None else (None, b_error)
        if navigator is None or error is not None:
            self.say(f"Evaluate: {error}", severity="error", timeout=8)
            return
        self._set_playing(False)
        if self.is_screen_installed(EVALUATION):
            old = self.get_screen(EVALUATION)
            if old is self.screen:
                self.pop_screen()
            if old in self.screen_stack:
                self.say("Close what is open over the evaluation first.", severity="warning")
                return
            self.uninstall_screen(EVALUATION)
            old.remove()  # its walks are cancelled as it goes
        self.install_screen(EvaluationScreen(self.corpus, questions, self.settings, navigator, compare=other),
                            EVALUATION)
        self.push_screen(EVALUATION)

    def evaluate_at_start(self, questions: Any, compare: str | None = None) -> None:
        """Open the evaluation screen on ``questions`` as soon as the app is ready (``reasoning-explorer SET``)."""
        self._evaluation_at_start: tuple[Any, str | None] | None = (questions, compare)

    def on_ready(self) -> None:
        pending = getattr(self, "_evaluation_at_start", None)
        if pending is not None:
            self._evaluation_at_start = None
            self.open_evaluation(*pending)

    def action_back_to_evaluation(self) -> None:
        from .screens.evaluation import EVALUATION

        if not self.is_screen_installed(EVALUATION):
            self.say("No evaluation is open: E walks a question set.", timeout=3)
            return
        if self.screen is self.screen_stack[0]:
            self.push_screen(EVALUATION)

    def open_evaluated(self, outcome: Any) -> None:
        """Show a question's walk (an evaluation's) at its first wrong turn, the expected nodes marked on the tree."""
        from ..walks.evaluation import wrong_turn_step

        history = outcome.history
        if history is None:
            return
        step = wrong_turn_step(outcome, self.corpus.index)
        self.show_evaluated_walk(history, step=step, expected=frozenset(outcome.question.expect))
        if outcome.hit:
            how = "hit: it landed an expected node"
        elif step is None:
            how = "missed, though it entered an expected node"
        else:
            how = f"missed: its first wrong turn is at depth {outcome.first_wrong_turn}, step {step}"
        self.say(f"{outcome.question.id}: {how} · ◎ marks what it expects · Escape returns to the evaluation",
                 timeout=6)

    def compare_evaluated(self, a: Any, b: Any) -> None:
        """Both navigators' walks of one question, side by side, the expected nodes marked."""
        if a.history is None or b.history is None:
            return
        expected = frozenset(a.question.expect)
        self.show_evaluated_walk(b.history, step=None, expected=expected)
        self.show_evaluated_walk(a.history, step=None, expected=expected)
        self.compare_with(b.history, on_screen=a.history)
        self.query_one(WalkTree).set_overlay(expected=expected)

    def show_evaluated_walk(self, history: WalkHistory, *, step: int | None,
                            expected: frozenset[str]) -> None:
        """Put an evaluation's walk on screen at ``step`` (``None``: its end); once in the list, it stays one walk."""
        if any(h is history for h in self.walks):
            if step is not None:
                history.go(step)
            else:
                history.latest()
            if history is not self.history:
                self.switch_to(history.number)
            else:
                self._show(history)
            self.query_one(WalkTree).set_overlay(expected=expected)
        else:
            self.open_history(history, step=step, expected=expected)
        tree = self.query_one(WalkTree)
        for node in sorted(expected):
            tree.reveal(node, move_cursor=False)  # where the answer was, in view beside where the walk went
        self.query_one("#query", QueryInput).value = history.settings.query
        tree.focus()  # the step keys, and Escape back to the evaluation, work at once

    # -- settings -------------------------------------------------------------------------------------

    def _update_titles(self) -> None:
        history = self.history
        self.sub_title = visible(f"{self.corpus.title} · {history.name} (of {len(self.walks)})" if history else
                                 f"{self.corpus.title}")
        self.query_one("#next-settings", Label).update(Text(visible(f"next walk: {self.settings.describe()}")))

    def _changed(self, what: str) -> None:
        self._update_titles()
        self.refresh_view()
        self.say(f"{what} — applies to the next walk (r restarts).")

    def action_set_budget(self) -> None:
        def apply(value: str | None) -> None:
            if value:
                self.settings = self.settings.but(max_nodes_visited=int(value))
                self._changed(f"Visit budget {value}")

        self.push_screen(PromptScreen("Visit budget (visits across the whole walk)",
                                      str(self.settings.max_nodes_visited), check=_whole_number(1, 100_000)), apply)

    def action_set_depth(self) -> None:
        def apply(value: str | None) -> None:
            if value:
                self.settings = self.settings.but(max_depth=int(value))
                self._changed(f"Depth limit {value}")

        self.push_screen(PromptScreen("Depth limit (roots are depth 0)", str(self.settings.max_depth),
                                      check=_whole_number(0, 100_000)), apply)

    def action_switch_navigator(self) -> None:
        resolved: dict[str, TreeNavigator] = {}

        def check(model: str) -> str | None:
            try:
                resolved[model] = resolve_navigator(model, allow_files=self.allow_files)
            except (TreeNavigatorError, NavigatorConfigError, ValueError) as exc:
                return " ".join(str(exc).split())
            return None

        def apply(model: str | None) -> None:
            if model and model in resolved:
                self.navigator = resolved[model]
                self.settings = self.settings.but(model=model)
                self._changed(f"Navigator {model}")

        self.push_screen(PromptScreen("Navigator model (any model id; the list holds what is here)",
                                      self.settings.model, check=check, suggestions=self._model_suggestions()),
                         apply)

    def _model_suggestions(self) -> list[str]:
        """The shipped models, the scripts beside the corpus, and replays of the traces at hand: all usable (with
        files off, none of the files: they are neither listed nor read)."""
        suggestions = list(SUGGESTED_MODELS)
        if not self.allow_files:
            return suggestions
        folders = [Path(self.corpus.path).parent / "scripts", Path("sample_corpora") / "scripts"]
        seen: set[Path] = set()
        for folder in folders:
            try:
                scripts = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
            except OSError:
                continue
            for script in scripts:
                if script.resolve() not in seen:
                    seen.add(script.resolve())
                    suggestions.append(f"script:{script}")
        suggestions.extend(f"replay:{trace}" for trace in self._recent_traces()[:5])
        return suggestions

    def _recent_traces(self) -> list[str]:
        """Traces saved in this session, then those in this folder and the corpus's, newest first."""
        found: dict[str, float] = {}
        for folder in {Path("."), Path(self.corpus.path).parent}:
            try:
                for path in folder.glob("*.jsonl"):
                    found[str(path)] = path.stat().st_mtime
            except OSError:
                continue
        recent = sorted(found, key=lambda p: -found[p])
        return list(dict.fromkeys([*reversed(self._saved_traces), *recent]))[:10]

    def action_cycle_policy(self) -> None:
        policies = list(OnFailure)
        current = policies.index(self.settings.on_failure)
        self.set_policy(policies[(current + 1) % len(policies)])

    def set_policy(self, policy: OnFailure | str) -> None:
        policy = OnFailure(policy)
        self.settings = self.settings.but(on_failure=policy)
        self._changed(f"On failure: {policy.value}")

    # -- traces and screenshots -------------------------------------------------------------------------

    def action_save_trace(self) -> None:
        if not self._files_allowed():
            return
        history = self.history
        if history is None or not history.events:
            self.say("No walk to save yet.", severity="warning")
            return

        def save(value: str | None) -> None:
            if value:
                self._save_trace(history, Path(value).expanduser())

        self.push_screen(PromptScreen("Save the trace to", history.suggested_file_name()), save)

    def _trace_path_for(self, history: WalkHistory) -> Path:
        """``--trace FILE`` keeps the first walk in FILE and each later one beside it (``FILE.walk2.jsonl``)."""
        path = Path(self.trace_path or "")
        if history.number == 1:
            return path
        return path.with_name(f"{path.stem}.walk{history.number}{path.suffix or '.jsonl'}")

    def _files_allowed(self) -> bool:
        if not self.allow_files:
            self.say("Opening and saving files is off in this shared session.", severity="warning", timeout=4)
        return self.allow_files

    def _save_trace(self, history: WalkHistory, path: Path, quiet: bool = False) -> None:
        # Copy what the history holds now, on this thread: the worker writes a snapshot.
        snapshot = WalkHistory(history.settings, history.origin, number=history.number, label=history.label,
                               trace=history.trace)
        for event in list(history.events):
            snapshot.append(event, forced=len(snapshot.events) + 1 in history.forced)
        if history.end is not None:
            snapshot.finish(history.end, history.error)
        self._write_trace(snapshot, path, quiet)

    @work(thread=True, group="files", exit_on_error=False)
    def _write_trace(self, history: WalkHistory, path: Path, quiet: bool) -> None:
        """Write a walk to ``path``, off the UI thread."""
        try:
            saved = save_history(history, self.corpus, path)
        except OSError as exc:
            self.call_from_thread(self.say, f"Cannot save {path}: {exc.strerror or exc}", severity="error")
            return
        self._saved_traces.append(str(saved))
        if not quiet:
            self.call_from_thread(self.say, f"Trace saved to {saved.resolve()}", timeout=4)

    def action_open_trace(self) -> None:
        if not self._files_allowed():
            return
        def open_(value: str | None) -> None:
            if value:
                self.say(f"Opening {value}…", timeout=2)
                self._read_trace(Path(value).expanduser())

        recent = self._recent_traces()
        self.push_screen(PromptScreen("Open a trace (made on this corpus)", recent[0] if recent else "",
                                      placeholder="walk.trace.jsonl", suggestions=recent,
                                      check=lambda v: None if v else "Type the path of a trace file."), open_)

    @work(thread=True, group="files", exit_on_error=False)
    def _read_trace(self, path: Path) -> None:
        try:
            trace = read_trace(path, corpus_sha256=self.corpus.sha256, corpus_label=str(self.corpus.path))
        except TraceError as exc:
            self.call_from_thread(self.say, str(exc), title="Cannot open the trace", severity="error", timeout=8)
            return
        self.call_from_thread(self.load_trace, trace)

    def load_trace(self, trace: Trace) -> None:
        """Step through a saved walk, from its first event; no navigator is called. It joins the list."""
        self._park_running_walk()
        history = self.walks.add(WalkHistory.from_trace(trace, number=self.walks.next_number))
        header = trace.header
        self.settings = self.settings.but(query=header.query, max_nodes_visited=header.max_nodes_visited,
                                          max_depth=header.max_depth, on_failure=header.on_failure)
        self.query_one("#query", QueryInput).value = header.query
        self._show(history)
        self.say(f"Opened {trace.path} as {history.name} ({len(history.events)} events)", timeout=4)

    def action_save_screenshot(self) -> None:
        if not self._files_allowed():
            return
        def save(value: str | None) -> None:
            if not value:
                return
            target = Path(value).expanduser()
            try:
                saved = self.save_screenshot(filename=target.name, path=str(target.parent))
            except OSError as exc:
                self.say(f"Cannot save {target}: {exc.strerror or exc}", severity="error", timeout=6)
                return
            self.say(f"Screenshot saved to {Path(saved).resolve()}", timeout=4)

        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.push_screen(PromptScreen("Save an SVG screenshot to", f"reasoning-explorer-{stamp}.svg"), save)

    # -- showing a step --------------------------------------------------------------------------------

    def _refresh_status(self) -> None:
        session = self.session
        if session is not None and session.busy:
            # The timer can tick once more while the app shuts down, after its widgets are gone: then none.
            for meter in self.query(BudgetMeter):
                meter.show(self.state_at_cursor(), self.status(), self.settings.max_nodes_visited,
                           self.settings.max_depth)

    def schedule_render(self) -> None:
        # call_later runs after the messages already queued: a burst of events (continue) gets one
        # repaint, and a single step is painted at once.
        if not self._render_scheduled:
            self._render_scheduled = True
            self.call_later(self.refresh_view)

    def state_at_cursor(self) -> WalkState:
        return self.history.state() if self.history is not None else WalkState()

    def status(self) -> str:
        history, session = self.history, self.session
        if history is None:
            return "no walk yet · type a question and press Enter"
        total = len(history.events)
        if self.picker is not None and self.picker.forking:
            return "fork: 1-9 pick · i type an id · a answer · s stop here · Escape closes"
        if self.picker is not None:
            return "your turn: 1-9 pick · a answer · s stop here · i type an id"
        if self.playing:
            return f"playing · {self.pace:g} s per step · p pauses"
        if not history.at_latest:
            return f"viewing step {history.cursor} of {total} · f forward · F latest · e fork here"
        if history.end is WalkEnd.FINISHED:
            return "finished · e forks a decision · w walks · n walks again"
        if history.end is WalkEnd.CANCELLED:
            return "cancelled · b steps back · e forks · r restarts"
        if history.end is WalkEnd.FAILED:
            return "failed · see the step panel · e forks · r restarts"
        if session is not None and session.busy:
            return f"working… {session.busy_seconds:.1f} s · x cancels"
        return "paused · n next · c continue · p play · e fork"

    def summary(self, state: WalkState) -> Text:
        history = self.history
        if history is None or not history.events:
            return Text("No walk yet.", style="dim")
        end = history.end.value if history.end is not None else ("running" if self.walk_running else "-")
        text = Text(end, style="bold")
        if history.end in (WalkEnd.FINISHED, WalkEnd.FAILED):
            text.append(" (not cancelled)")
        text.append(f" · visits used {state.visits_used}/{state.budget} · navigator calls {state.calls} · "
                    f"characters shipped {state.chars_shipped:,} · {len(state.landed)} landed")
        if not history.at_latest:
            text.append(f"   (as of step {history.cursor})", style="italic")
        ending = ending_text(state)
        if ending:
            text.append("\n")
            text.append_text(ending)
        return text

    def refresh_view(self) -> None:
        """Show the walk on screen as of the step at its cursor."""
        self._render_scheduled = False
        if not self.query(WalkTree):
            return  # the app is shutting down: a late event or timer finds its widgets gone
        history = self.history
        state = self.state_at_cursor()
        tree = self.query_one(WalkTree)
        comparison = self._current_comparison()
        if comparison is not None:
            tree.set_marks(*tree_marks(comparison))
            self.query_one(ComparePanel).show(comparison)
        else:
            tree.set_marks(state.marks(), state.reasons())
        target = state.current
        if target is None and state.finished and state.landed:
            target = next(iter(state.landed))  # at the end, show where the walk landed
        elif target is None and state.current_path:
            target = state.current_path[-1]  # a cancel or a failure: show where it happened
        focus = (history.number if history else 0, target, state.offer is not None)
        if comparison is not None:
            target = comparison.divergence.node if comparison.divergence is not None else target
            focus = (-1, target, False)
        if tree.follow and focus != self._revealed and target is not None:
            if comparison is not None:
                for node in (*comparison.only_a, *comparison.only_b, *comparison.both):
                    tree.reveal(node.node, move_cursor=False)
            elif state.finished:
                for landed in state.landed:
                    tree.reveal(landed, move_cursor=False)
            tree.reveal(target, expand=state.offer is not None)
        self._revealed = focus
        self.query_one(BudgetMeter).show(state, self.status(), self.settings.max_nodes_visited,
                                         self.settings.max_depth)
        picker = self.picker
        cursor, total = (history.cursor, len(history.events)) if history else (0, 0)
        self.query_one(StepPanel).show(state, self.corpus, cursor, total, picking=picker is not None,
                                       picked=tuple(picker.picked) if picker else (),
                                       forking=picker is not None and picker.forking, ending=ending_text(state))
        self.query_one(ResultsPanel).show(state, self.corpus, self.summary(state))
        decision = history.decision_at() if history else None
        node_title = None
        if decision is not None and decision.node is not None and decision.node in self.corpus.index:
            node_title = self.corpus.title_of(decision.node)
        self.query_one(TranscriptView).show(decision, node_title)
        self.query_one(Timeline).point_at(cursor)
        if history is not self._shown_walk:
            self._shown_walk = history
            self._update_titles()


def _whole_number(low: int, high: int) -> Any:
    def check(value: str) -> str | None:
        if not (value.isascii() and value.isdigit()):
            return "Type a whole number (digits 0-9)."
        if not low <= int(value) <= high:
            return f"Between {low} and {high}."
        return None

    return check

