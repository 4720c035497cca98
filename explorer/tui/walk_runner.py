"""Walks on workers: starting one, the messages its worker posts, cancelling it.

A live walk's :class:`~explorer.walks.session.WalkSession` runs on a thread worker of the walk screen; each
event comes back as a message tagged with the walk's id and is recorded into that walk's history here, on the
UI thread (the history's only writer). A message from a walk that was cancelled, or that a newer message
overtook, is dropped. A walk that ends (or is cancelled) keeps its history and drops its session.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Protocol

from core import TreeNavigator

from ..ending import WalkEnd
from ..walks.history import Origin, WalkHistory
from ..walks.picking import Pick
from ..walks.session import SessionEnded, SessionEvent, WalkSession, Wiring
from ..walks.walk_list import Walk, WalkList
from .messages import WalkEnded, WalkEventArrived
from .say import Severity

if TYPE_CHECKING:
    from collections.abc import Callable

    from textual.message import Message
    from textual.worker import Worker

    from ..corpora import Corpus
    from .next_walk import NextWalk
    from .walk_files import WalkFiles


class Host(Protocol):
    """What running walks needs of the walk screen."""

    corpus: Corpus
    walks: WalkList
    next_walk: NextWalk
    files: WalkFiles
    autoplay: bool
    shown: Walk | None
    fork: Pick | None
    playing: bool

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def walk_changed(self, *, burst: bool = ...) -> None: ...

    def focus_query(self) -> None: ...

    def post_message(self, message: Message) -> bool: ...

    def run_worker(self, work: Callable[[], Any], *, thread: bool, group: str, name: str,
                   exit_on_error: bool) -> Worker[Any]: ...


class WalkRunner:
    """Starts, feeds and cancels the walks of the walk screen ``host``, with the explorer's ``wiring``: their
    navigators wired with its desk and listeners, every session it runs telling its observers as it ends."""

    def __init__(self, host: Host, wiring: Wiring) -> None:
        self.host = host
        self.wiring = wiring

    def start(self, query: str, *, origin: Origin | None = None) -> None:
        """Start a new walk on ``query`` with the next walk's settings (a new entry in the list), paused before its
        first step; ``origin`` says whether it is a restart (default: a restart when the query is the shown one's)."""
        host = self.host
        query = query.strip()
        if not query:
            host.say("Type a question first.", severity="warning")
            host.focus_query()
            return
        host.playing = False
        self.park()
        previous = host.shown
        settings = host.next_walk.settings.but(query=query)
        if origin is None:
            same = previous is not None and previous.history.settings.query == query
            origin = Origin.RESTART if same else Origin.WALK
        history = WalkHistory(settings, origin)
        navigator: TreeNavigator = self.wiring.wire(host.next_walk.navigator)
        session = WalkSession(host.corpus, settings, navigator, history=history)
        self.launch(Walk(history, navigator, session), steps=1)  # WalkStarted: the settings shown, then it waits
        if previous is not None and previous.history.ended:
            host.say(f"{history.name} started; {previous.name} stays one key away (w).", timeout=4)
        if host.autoplay:
            host.playing = True

    def launch(self, walk: Walk, *, steps: int) -> None:
        """Put ``walk`` in the list, on screen, and its session on a worker that takes ``steps`` steps."""
        session = walk.session
        assert session is not None
        # Every walk of this screen is launched here (a new walk, a fork, a re-walk): the one place it is observed.
        session.observers.extend(o for o in self.wiring.observers if o not in session.observers)
        self.host.walks.add(walk)
        self.host.run_worker(partial(session.run, self._emit), thread=True, group="walk", name=f"walk-{session.id}",
                             exit_on_error=False)
        session.step(steps)
        self.host.shown = walk

    def park(self) -> None:
        """A new walk takes the screen: the one on it stays in the list, paused where it was."""
        shown = self.host.shown
        if shown is not None and shown.session is not None:
            shown.session.pause()
        self.host.fork = None

    def _emit(self, message: SessionEvent | SessionEnded) -> None:
        """Called on the worker thread: hand the message to the UI thread."""
        if isinstance(message, SessionEvent):
            self.host.post_message(WalkEventArrived(message))
        else:
            self.host.post_message(WalkEnded(message))

    def arrived(self, message: WalkEventArrived) -> None:
        host = self.host
        arrived = message.arrived
        walk = host.walks.by_id(arrived.walk_id)
        if walk is None or walk.history.ended or arrived.seq != len(walk.history.events) + 1:
            return  # a walk cancelled here, or a stale message
        history = walk.history
        pinned = history.cursor if host.fork is not None and walk is host.shown else None
        history.append(arrived.event, forced=arrived.forced)
        if pinned is not None:
            history.go(pinned)  # a fork's picker shows its offer: an answer arriving now must not move it
        if walk is host.shown:
            host.walk_changed(burst=True)

    def ended(self, message: WalkEnded) -> None:
        host = self.host
        ended = message.ended
        walk = host.walks.by_id(ended.walk_id)
        if walk is None:
            return
        walk.history.finish(ended.end, ended.error)
        walk.retire()
        if ended.end is WalkEnd.FAILED and ended.error and walk is host.shown:
            host.say(ended.error, title="The walk failed", severity="error", timeout=8)
        host.files.walk_ended(walk)
        if walk is host.shown:
            host.walk_changed()

    def cancel(self) -> None:
        """Cancel the shown walk: its token trips and its worker ends at once; the partial walk stays on screen."""
        host = self.host
        walk = host.shown
        if walk is None or walk.session is None or walk.history.ended:
            host.say("No walk is running.", timeout=2)
            return
        walk.session.cancel()
        walk.history.finish(WalkEnd.CANCELLED)
        walk.history.latest()
        walk.retire()
        host.playing = False
        host.walk_changed()
        host.say("Walk cancelled.")
