"""The explorer: the corpus as a tree, and the reasoning walk stepped through on it.

The walk runs on a thread worker that drives a :class:`~explorer.session.WalkSession`:
each step key lets it pull one more event from ``core``; the events come
back as messages tagged with the walk's id (a replaced walk's are dropped),
and the screen shows the :class:`~explorer.walk_state.WalkState` folded from
the events up to the step being viewed. Nothing here re-implements a walk rule.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable
from functools import partial
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Header, Input, Label, OptionList, TabbedContent, TabPane, Tree

from core import OnFailure, TreeNavigator, TreeNavigatorError, WalkEvent

from .commands import explorer_commands
from .corpora import Corpus
from .keymap import bindings
from .messages import DecisionRequested, WalkEnded, WalkEventArrived
from .navigators import SUGGESTED_MODELS, NavigatorConfigError, resolve_navigator
from .navigators.manual import DESK, PendingDecision
from .safe_text import visible
from .screens import HelpScreen, PromptScreen
from .session import SessionEnded, SessionEvent, WalkSession, WalkSettings
from .trace import Trace, TraceError, read_trace, write_trace
from .walk_state import WalkState
from .widgets.budget_meter import BudgetMeter
from .widgets.node_detail import NodeDetail
from .widgets.results_panel import ResultsPanel
from .widgets.step_panel import StepPanel
from .widgets.timeline import Timeline
from .widgets.walk_tree import WalkTree

PACES = (0.1, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0)
POLICIES = ("throw", "empty", "partial")


class QueryInput(Input):
    """The query box: Enter starts a walk; Escape leaves the box so the step keys work."""

    BINDINGS = [Binding("escape", "leave", "Leave the query box", id="query.leave")]

    def action_leave(self) -> None:
        self.app.query_one(WalkTree).focus()


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
    ) -> None:
        super().__init__()
        self.corpus = corpus
        self.settings = settings
        self.navigator = navigator or resolve_navigator(settings.model)
        self.session: WalkSession | None = None
        self.events: list[WalkEvent] = []
        self.cursor = 0
        self.live = WalkState()
        self.end: str | None = None
        self.error: str | None = None
        self.trace: Trace | None = None
        self.playing = False
        self.pace = autoplay or 1.0
        self.autoplay = autoplay is not None
        self.pending: PendingDecision | None = None
        self.picked: list[str] = []
        self.trace_path = trace_path
        self.example_query = example_query
        self._start_walk_at_launch = start_walk
        self._opened_trace = opened_trace
        self._play_timer: Timer | None = None
        self._render_scheduled = False
        self._revealed: tuple[str | None, bool] | None = None

    # -- layout --------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="query-bar"):
            yield Label("Query", id="query-label")
            yield QueryInput(placeholder="Ask a question, then press Enter", id="query")
        with Horizontal(id="main"):
            yield WalkTree(self.corpus, id="tree")
            with Vertical(id="side"):
                yield BudgetMeter(id="meter")
                with VerticalScroll(id="step-scroll"):
                    yield StepPanel(id="step")
                with TabbedContent(id="tabs"):
                    with TabPane("Results", id="tab-results"):
                        yield ResultsPanel(id="results")
                    with TabPane("Timeline", id="tab-timeline"):
                        yield Timeline(id="timeline")
                    with TabPane("Node", id="tab-node"), VerticalScroll():
                        yield NodeDetail(id="detail")
        yield Footer()

    def on_mount(self) -> None:
        DESK.attach(self._manual_listener)
        self._update_sub_title()
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

    def on_unmount(self) -> None:
        self._stop_session()
        DESK.detach(self._manual_listener)

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from explorer_commands(self)

    def say(self, message: str, *, title: str = "", severity: str = "information", timeout: float = 3) -> None:
        """A notification of text that may hold anything (paths, ids, errors): escaped, never markup."""
        self.notify(visible(message), title=visible(title), severity=severity,  # type: ignore[arg-type]
                    markup=False, timeout=timeout)

    def run_action_now(self, action: str) -> None:
        """Run one of our actions from the command palette."""
        self.call_later(self.run_action, action)

    # -- the walk's lifecycle ---------------------------------------------------------------------

    @property
    def walk_running(self) -> bool:
        return self.session is not None and self.end is None

    def start_walk(self, query: str) -> None:
        """Start a walk on ``query``, paused before its first step."""
        query = query.strip()
        if not query:
            self.say("Type a question first.", severity="warning")
            self.query_one("#query", QueryInput).focus()
            return
        self._stop_session()
        self.settings = self.settings.but(query=query)
        session = WalkSession(self.corpus, self.settings, self.navigator)
        self.session = session
        self.trace = None
        self._update_sub_title()
        self.events, self.cursor, self.live = [], 0, WalkState()
        self.query_one(ResultsPanel).reset()
        self.end = self.error = None
        self.pending, self.picked = None, []
        self._revealed = None
        self.query_one(Timeline).reset()
        self.run_worker(partial(session.run, self._emit), thread=True, group="walk", name=f"walk-{session.id}",
                        exit_on_error=False)
        session.step()  # the WalkStarted event: the screen shows the settings, then waits for a step key
        if self.autoplay:
            self._set_playing(True)
        self.refresh_view()

    def _stop_session(self) -> None:
        if self.session is not None:
            self.session.close()
        self._set_playing(False)

    def _emit(self, message: SessionEvent | SessionEnded) -> None:
        """Called on the worker thread: hand the message to the UI thread."""
        if isinstance(message, SessionEvent):
            self.post_message(WalkEventArrived(message.walk_id, message.seq, message.event))
        else:
            self.post_message(WalkEnded(message.walk_id, message.end, message.error))

    def _current(self, walk_id: int) -> bool:
        return self.session is not None and self.session.id == walk_id

    def on_walk_event_arrived(self, message: WalkEventArrived) -> None:
        if not self._current(message.walk_id) or self.end == "cancelled":
            return
        following = self.cursor == len(self.events)
        self.events.append(message.event)
        self.live.apply(message.event)
        self.query_one(Timeline).add_event(message.seq, message.event)
        if following:
            self.cursor = len(self.events)
        self.schedule_render()

    def on_walk_ended(self, message: WalkEnded) -> None:
        if not self._current(message.walk_id):
            return
        if self.end is None:
            self.end, self.error = message.end, message.error
        self.pending = None
        if message.end == "failed" and message.error:
            self.say(message.error, title="The walk failed", severity="error", timeout=8)
        if self.trace_path and self.session is not None:
            self._save_trace(self.session, Path(self.trace_path), quiet=True)
        self.schedule_render()

    # -- the manual navigator ----------------------------------------------------------------------

    def _manual_listener(self, pending: PendingDecision) -> None:
        """Called on the worker thread by the manual navigator."""
        self.post_message(DecisionRequested(pending))

    def on_decision_requested(self, message: DecisionRequested) -> None:
        session = self.session
        if session is None or message.pending.request.cancellation is not session.token:
            message.pending.decide((), "stale request")
            return
        self.pending, self.picked = message.pending, []
        self.cursor = len(self.events)
        self._set_playing(False)
        if isinstance(self.focused, Input):
            self.query_one(WalkTree).focus()
        self.refresh_bindings()  # the picker's keys appear in the footer now
        self.say("Your turn: 1-9 pick, a answer, s stop here, i type an id or a number.", timeout=4)
        self.refresh_view()

    def action_toggle_candidate(self, number: int) -> None:
        if self.pending is None:
            return
        candidates = self.pending.request.candidates
        if 1 <= number <= len(candidates):
            node_id = candidates[number - 1].id
            if node_id in self.picked:
                self.picked.remove(node_id)
            else:
                self.picked.append(node_id)
            self.refresh_view()

    def action_answer(self) -> None:
        self._decide(tuple(self.picked), "picked by hand")

    def action_stop_here(self) -> None:
        self._decide((), "stopped here by hand")

    def _decide(self, selected: tuple[str, ...], rationale: str) -> None:
        pending = self.pending
        if pending is None:
            return
        self.pending, self.picked = None, []
        pending.decide(selected, rationale)
        self.refresh_bindings()
        self.refresh_view()

    def action_type_id(self) -> None:
        if self.pending is None:
            return
        candidates = self.pending.request.candidates
        offered = {c.id for c in candidates}

        def add(value: str | None) -> None:
            if not value or self.pending is None:
                return
            if value not in offered and value.isdigit() and 1 <= int(value) <= len(candidates):
                self.action_toggle_candidate(int(value))  # a candidate's number, for offers wider than 9
                return
            if value not in self.picked:
                self.picked.append(value)
            self.refresh_view()

        self.push_screen(PromptScreen(f"Type a node id, or a candidate's number (1-{len(candidates)}); an id that "
                                      "was not offered shows what a hallucination does",
                                      check=lambda v: None if v else "Type an id or a number."), add)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("toggle_candidate", "answer", "stop_here", "type_id"):
            return self.pending is not None
        return True

    # -- step keys ----------------------------------------------------------------------------------

    def _query_text(self) -> str:
        return self.query_one("#query", QueryInput).value

    def _at_the_end_of_a_trace(self) -> bool:
        if self.trace is not None and self.cursor >= len(self.events):
            self.say("End of the trace. r walks the query again with the current navigator.")
            return True
        return False

    def action_next_step(self) -> None:
        if self.cursor < len(self.events):
            self.cursor += 1  # what already happened: no navigator call
            self.refresh_view()
        elif self._at_the_end_of_a_trace():
            return
        elif not self.walk_running:
            self.start_walk(self._query_text())
        elif self.pending is not None:
            self.say("The navigator waits for you: 1-9 pick, a answer, s stop here, i type an id.")
        elif self.session is not None:
            self.session.step()  # permits add up: quick presses are all honoured, in order
            self.set_timer(0.05, self._refresh_status)

    def action_continue_walk(self) -> None:
        self._set_playing(False)
        if self.cursor < len(self.events) or self.trace is not None:
            self.cursor = len(self.events)  # to what already happened first; never re-walks a trace
            if not self.walk_running:
                self.refresh_view()
                return
        if not self.walk_running:
            self.start_walk(self._query_text())
        if self.session is not None and self.walk_running:
            self.cursor = len(self.events)
            self.session.run_to_end()
            self.refresh_view()

    def action_play_pause(self) -> None:
        if self.playing:
            self._set_playing(False)
        else:
            if self.cursor >= len(self.events) and not self.walk_running:
                if self._at_the_end_of_a_trace():
                    return
                self.start_walk(self._query_text())
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
        if self.cursor < len(self.events):
            self.cursor += 1
            self.refresh_view()
        elif self.walk_running and self.session is not None:
            if self.session.waiting and self.pending is None:
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
        if self.cursor > 1:
            self.cursor -= 1
            self.refresh_view()
        elif self.events:
            self.say("This is the first step.", timeout=2)

    def action_step_forward(self) -> None:
        if self.cursor < len(self.events):
            self.cursor += 1
            self.refresh_view()

    def action_first_step(self) -> None:
        self._set_playing(False)
        if self.events:
            self.cursor = 1
            self.refresh_view()

    def action_latest_step(self) -> None:
        self.cursor = len(self.events)
        self.refresh_view()

    def action_cancel_walk(self) -> None:
        if not self.walk_running or self.session is None:
            self.say("No walk is running.", timeout=2)
            return
        self.session.cancel()  # trips the token and opens the gate: the worker ends at once
        self.end = "cancelled"
        self.pending = None
        self._set_playing(False)
        self.refresh_view()
        self.say("Walk cancelled.")

    def action_restart(self) -> None:
        self.start_walk(self._query_text() or self.settings.query)

    def action_edit_query(self) -> None:
        self._set_playing(False)
        self.query_one("#query", QueryInput).focus()

    def action_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_toggle_follow(self) -> None:
        tree = self.query_one(WalkTree)
        tree.follow = not tree.follow
        self._revealed = None
        self.say(f"Tree follows the walk: {'on' if tree.follow else 'off'}", timeout=2)
        self.refresh_view()

    async def action_quit(self) -> None:
        self._stop_session()
        self.exit(0)

    @on(Input.Submitted, "#query")
    def _query_submitted(self, event: Input.Submitted) -> None:
        self.start_walk(event.value)
        if self.session is not None:
            self.query_one(WalkTree).focus()

    @on(Tree.NodeHighlighted, "#tree")
    def _tree_highlighted(self, event: Tree.NodeHighlighted[str]) -> None:
        self.query_one(NodeDetail).show(self.corpus, event.node.data)

    @on(OptionList.OptionSelected, "#timeline")
    def _timeline_selected(self, event: OptionList.OptionSelected) -> None:
        self._set_playing(False)
        self.cursor = event.option_index + 1
        self.refresh_view()

    # -- settings -------------------------------------------------------------------------------------

    def _update_sub_title(self) -> None:
        if self.trace is not None:
            h = self.trace.header
            self.sub_title = visible(f"{self.corpus.title} · trace {self.trace.path.name} · made with {h.navigator} "
                                     f"· budget {h.max_nodes_visited} · depth limit {h.max_depth} · on failure "
                                     f"{h.on_failure.value}")
            return
        s = self.settings
        self.sub_title = visible(f"{self.corpus.title} · {s.model} · budget {s.max_nodes_visited} · depth limit "
                                 f"{s.max_depth} · on failure {s.on_failure.value}")

    def _changed(self, what: str) -> None:
        self._update_sub_title()
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
                resolved[model] = resolve_navigator(model)
            except (TreeNavigatorError, NavigatorConfigError, ValueError) as exc:
                return " ".join(str(exc).split())
            return None

        def apply(model: str | None) -> None:
            if model and model in resolved:
                self.navigator = resolved[model]
                self.settings = self.settings.but(model=model)
                self._changed(f"Navigator {model}")

        self.push_screen(PromptScreen("Navigator model", self.settings.model, check=check,
                                      suggestions=SUGGESTED_MODELS), apply)

    def action_cycle_policy(self) -> None:
        current = POLICIES.index(self.settings.on_failure.value)
        self.set_policy(POLICIES[(current + 1) % len(POLICIES)])

    def set_policy(self, policy: str) -> None:
        self.settings = self.settings.but(on_failure=OnFailure(policy))
        self._changed(f"On failure: {policy}")

    # -- traces and screenshots -------------------------------------------------------------------------

    def action_save_trace(self) -> None:
        if not self.events:
            self.say("No walk to save yet.", severity="warning")
            return
        query = self.trace.header.query if self.trace is not None else self.settings.query
        slug = re.sub(r"[^a-z0-9]+", "-", query.lower()).strip("-")[:40] or "walk"
        session, trace = self.session, self.trace

        def save(value: str | None) -> None:
            if value:
                self._save_trace(session if trace is None else trace, Path(value))

        self.push_screen(PromptScreen("Save the trace to", f"{slug}.trace.jsonl"), save)

    @work(thread=True, group="files", exit_on_error=False)
    def _save_trace(self, source: WalkSession | Trace | None, path: Path, quiet: bool = False) -> None:
        """Write the walk (a session's, or an opened trace's) to ``path``, off the UI thread."""
        try:
            if isinstance(source, Trace):
                saved = write_trace(path, source.header, source.events, source.end, source.error)
            elif source is not None:
                saved = source.save_trace(path)
            else:
                return
        except OSError as exc:
            self.call_from_thread(self.say, f"Cannot save {path}: {exc.strerror or exc}", severity="error")
            return
        if not quiet:
            self.call_from_thread(self.say, f"Trace saved to {saved}", timeout=4)

    def action_open_trace(self) -> None:
        def open_(value: str | None) -> None:
            if value:
                self._read_trace(Path(value))

        self.push_screen(PromptScreen("Open a trace (made on this corpus)", placeholder="walk.trace.jsonl"), open_)

    @work(thread=True, group="files", exit_on_error=False)
    def _read_trace(self, path: Path) -> None:
        try:
            trace = read_trace(path, corpus_sha256=self.corpus.sha256, corpus_label=str(self.corpus.path))
        except TraceError as exc:
            self.call_from_thread(self.say, str(exc), title="Cannot open the trace", severity="error", timeout=8)
            return
        self.call_from_thread(self.load_trace, trace)

    def load_trace(self, trace: Trace) -> None:
        """Step through a saved walk: its events, from the first; no navigator is called."""
        self._stop_session()
        self.session = None
        self.trace = trace
        self.events = list(trace.events)
        self.live = WalkState.from_events(self.events)
        self.cursor = 1 if self.events else 0
        self.end, self.error = trace.end, trace.error
        self.pending, self.picked = None, []
        self._revealed = None
        header = trace.header
        self.settings = self.settings.but(query=header.query, max_nodes_visited=header.max_nodes_visited,
                                          max_depth=header.max_depth, on_failure=header.on_failure)
        self.query_one("#query", QueryInput).value = header.query
        self.query_one(ResultsPanel).reset()
        timeline = self.query_one(Timeline)
        timeline.reset()
        for seq, event in enumerate(self.events, start=1):
            timeline.add_event(seq, event)
        self._update_sub_title()
        self.refresh_view()
        self.say(f"Opened {trace.path} ({header.navigator}, {len(self.events)} events)", timeout=4)

    def action_save_screenshot(self) -> None:
        def save(value: str | None) -> None:
            if not value:
                return
            target = Path(value).expanduser()
            try:
                saved = self.save_screenshot(filename=target.name, path=str(target.parent))
            except OSError as exc:
                self.say(f"Cannot save {target}: {exc.strerror or exc}", severity="error", timeout=6)
                return
            self.say(f"Screenshot saved to {saved}", timeout=4)

        stamp = time.strftime("%Y%m%d-%H%M%S")
        self.push_screen(PromptScreen("Save an SVG screenshot to", f"reasoning-explorer-{stamp}.svg"), save)

    # -- showing a step --------------------------------------------------------------------------------

    def _refresh_status(self) -> None:
        if self.session is not None and self.session.busy:
            self.query_one(BudgetMeter).show(self.state_at_cursor(), self.status(), self.settings.max_nodes_visited,
                                             self.settings.max_depth)

    def schedule_render(self) -> None:
        # call_later runs after the messages already queued: a burst of events (continue) gets one
        # repaint, and a single step is painted at once.
        if not self._render_scheduled:
            self._render_scheduled = True
            self.call_later(self.refresh_view)

    def state_at_cursor(self) -> WalkState:
        if self.cursor == len(self.events):
            return self.live
        return WalkState.from_events(self.events[: self.cursor])

    def status(self) -> str:
        behind = self.cursor < len(self.events)
        if self.trace is not None and not self.playing:
            where = f"step {self.cursor} of {len(self.events)}"
            return f"trace ({self.trace.end}) · {where} · n/f forward · b back · r walks anew"
        if self.pending is not None:
            return "your turn: 1-9 pick · a answer · s stop here · i type an id"
        if behind and not self.playing:
            return f"viewing step {self.cursor} of {len(self.events)} · f forward · F latest"
        if self.playing:
            return f"playing · {self.pace:g} s per step · p pauses"
        if self.end == "finished":
            return "finished · n, c or p walks again · b steps back"
        if self.end == "cancelled":
            return "cancelled · r restarts"
        if self.end == "failed":
            return "failed · see the step panel · r restarts"
        if self.session is None:
            return "no walk yet · type a question and press Enter"
        if self.session.busy:
            return f"working… {self.session.busy_seconds:.1f} s · x cancels"
        return "paused · n next · c continue · p play"

    def summary(self, state: WalkState) -> Text:
        if not self.events:
            return Text("No walk yet.", style="dim")
        end = self.end or ("running" if self.walk_running else "-")
        text = Text(end, style="bold")
        if self.end in ("finished", "failed"):
            text.append(" (not cancelled)")
        text.append(f" · visits used {state.visits_used}/{state.budget} · navigator calls {state.calls} · "
                    f"characters shipped {state.chars_shipped:,} · {len(state.landed)} landed")
        if self.cursor < len(self.events):
            text.append(f"   (as of step {self.cursor})", style="italic")
        failure = state.result.failure if state.result is not None else None
        if failure:
            text.append("\nno documents: the navigator failed under on-failure empty: ", style="red")
            text.append(visible(failure), style="red")
        if self.end == "failed" and self.error:
            text.append("\n")
            text.append(visible(self.error), style="red")
        return text

    def refresh_view(self) -> None:
        """Show the walk as of the step at the cursor."""
        self._render_scheduled = False
        state = self.state_at_cursor()
        tree = self.query_one(WalkTree)
        tree.set_marks(state.marks(), state.reasons())
        target = state.current
        if target is None and state.finished and state.landed:
            target = next(iter(state.landed))  # at the end, show where the walk landed
        focus = (target, state.offer is not None)
        if tree.follow and focus != self._revealed and target is not None:
            if state.finished:
                for landed in state.landed:
                    tree.reveal(landed, move_cursor=False)
            tree.reveal(target, expand=state.offer is not None)
        self._revealed = focus
        self.query_one(BudgetMeter).show(state, self.status(), self.settings.max_nodes_visited,
                                         self.settings.max_depth)
        self.query_one(StepPanel).show(state, self.corpus, self.cursor, len(self.events),
                                       picking=self.pending is not None, picked=tuple(self.picked))
        self.query_one(ResultsPanel).show(state, self.corpus, self.summary(state))
        self.query_one(Timeline).point_at(self.cursor)


def _whole_number(low: int, high: int) -> Any:
    def check(value: str) -> str | None:
        if not value.isdigit():
            return "Type a whole number."
        if not low <= int(value) <= high:
            return f"Between {low} and {high}."
        return None

    return check
