"""Walks on workers: starting one, the messages its worker posts, cancelling it.

A live walk's :class:`~explorer.walks.session.WalkSession` runs on a thread worker of the walk screen; each
event comes back as a message tagged with the walk's id and is recorded into that walk's history here, on the
UI thread (the history's only writer). A message from a walk that was cancelled, or that a newer message
overtook, is dropped. A walk that ends (or is cancelled) keeps its history and drops its session.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from core import TreeNavigator

from ...ending import WalkEnd
from ...walks.history import Origin, WalkHistory
from ...walks.session import SessionEnded, SessionEvent, Sink, WalkSession
from ...walks.walk_list import Walk
from ..messages import WalkEnded, WalkEventArrived
from .shown import Grounds, Part

if TYPE_CHECKING:

    from .next_walk import NextWalk
    from .walk_files import WalkFiles


class WalkRunner(Part):
    """Starts, feeds and cancels the walks of the walk on screen ``view``: their workers run on the screen (the
    ``stage``), which their messages are posted to; a walk starts with ``next_walk``'s settings and navigator, wired
    with the explorer's ``wiring`` (its desk, listeners and folders). Every walk of the screen is made with the one
    ``hook`` its end goes through: ``files`` (``--trace``) and the wiring's observers (the telemetry's), each on a
    worker of the screen's, and its keeper (the session folder), inline."""

    def __init__(self, grounds: Grounds, *, next_walk: NextWalk, files: WalkFiles, autoplay: bool) -> None:
        super().__init__(grounds)
        self.next_walk = next_walk
        self.files = files
        self.autoplay = autoplay
        self.hook = self.wiring.hook(Sink(files.walk_ended, on_worker=True), kept=True, worker=self._on_worker)
        """What every session made on this screen is given (a new walk, a fork, a re-walk): the walk's end, told
        by its session on this thread (which owns its history), goes to the keeper at once (it only queues, and a
        quit right after must not lose it) and to the others on workers, so that no sink holds the screen; as the
        app quits (the session closed), to all at once, since no worker outlives the app."""

    def start(self, query: str, *, origin: Origin | None = None) -> bool:
        """Start a new walk on ``query`` with the next walk's settings (a new entry in the list), paused before its
        first step; ``origin`` says whether it is a restart (default: a restart when the query is the shown one's).
        ``False``: there is no query (the person is told to type one)."""
        view = self.view
        query = query.strip()
        if not query:
            self.say("Type a question first.", severity="warning")
            return False
        view.playing = False
        self.park()
        previous = view.walk
        settings = self.next_walk.settings.but(query=query)
        if origin is None:
            same = previous is not None and previous.history.settings.query == query
            origin = Origin.RESTART if same else Origin.WALK
        history = WalkHistory(settings, origin)
        navigator: TreeNavigator = self.wiring.wire(self.next_walk.navigator)
        session = WalkSession(self.corpus, history, navigator, hook=self.hook)
        self.launch(Walk(history, session), steps=1)  # WalkStarted: the settings shown, then it waits
        if previous is not None and previous.history.ended:
            self.say(f"{history.name} started; {previous.name} stays one key away (w).", timeout=4)
        if self.autoplay:
            view.playing = True
        return True

    def launch(self, walk: Walk, *, steps: int) -> None:
        """Put ``walk`` in the list, on screen, and its session (made with :attr:`hook`) on a worker that takes
        ``steps`` steps."""
        session = walk.session
        assert session is not None and session.hook is self.hook, "a walk of the screen is made with its hook"
        self.walks.add(walk)
        self.stage.run_worker(partial(session.run, self._emit), thread=True, group="walk", name=f"walk-{session.id}",
                             exit_on_error=False)
        session.step(steps)
        self.view.walk = walk

    def park(self) -> None:
        """A new walk takes the screen: the one on it stays in the list, paused where it was."""
        shown = self.view.walk
        if shown is not None and shown.session is not None:
            shown.session.pause()
        self.view.fork = None

    def _on_worker(self, job: Callable[[], None]) -> None:
        self.stage.run_worker(job, thread=True, group="sinks", exit_on_error=False)

    def _emit(self, message: SessionEvent | SessionEnded) -> None:
        """Called on the worker thread: hand the message to the UI thread."""
        if isinstance(message, SessionEvent):
            self.stage.post(WalkEventArrived(message))
        else:
            self.stage.post(WalkEnded(message))

    def arrived(self, message: WalkEventArrived) -> None:
        view = self.view
        arrived = message.arrived
        walk = self.walks.by_id(arrived.walk_id)
        if walk is None:
            return  # a walk cancelled or ended here
        pinned = view.fork is not None and walk is view.walk  # a fork's picker shows its offer: the cursor stays
        walk.record(arrived.seq, arrived.event, forced=arrived.forced, replayed=arrived.replayed, at=arrived.at,
                    pinned=pinned)

    def ended(self, message: WalkEnded) -> None:
        view = self.view
        ended = message.ended
        walk = self.walks.by_id(ended.walk_id)
        if walk is None:
            if ended.end is WalkEnd.CANCELLED and ended.error:  # cancelled here, and its navigator would not stop
                self.say(ended.error, title="The walk was cancelled", severity="warning", timeout=8)
            return
        walk.end(ended.end, ended.error)
        if ended.end is WalkEnd.FAILED and ended.error and walk is view.walk:
            self.say(ended.error, title="The walk failed", severity="error", timeout=8)

    def cancel(self, *, interrupted: bool = False) -> None:
        """Cancel the shown walk: its token trips and its worker ends at once; the partial walk stays on screen.
        ``interrupted``: by Ctrl+C, which with no walk running says how to quit (it does not quit)."""
        view = self.view
        walk = view.walk
        if walk is None or not walk.cancel():
            if interrupted:
                self.say("No walk is running: q quits (Ctrl+C cancels a running walk, as x does).", timeout=4)
            else:
                self.say("No walk is running.", timeout=2)
            return
        view.playing = False
        self.say("Walk cancelled.")
