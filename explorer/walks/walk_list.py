"""The walks of a session: one record per walk, in the order they were made.

UI-free. A :class:`Walk` holds everything about one walk, once: its history (events, cursor, how it ended,
the settings it is walked with), the session it is walked in (live while its worker may still take a step;
the navigator it is walked with is the session's, and a fork goes on with it), and the manual navigator's
open request on it; each is observable (:meth:`Walk.watch`). A walk saved in a file (:mod:`.saved`: one of a
folder of 10,000 traces) is listed from its header and read the first time it is needed. Which walk is on screen
is the screen's business, not the list's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from core import CancellationToken, TreeNavigator, WalkEvent

from ..ending import WalkEnd
from ..safe_text import one_line
from ..walk_settings import WalkSettings
from .history import Change, WalkHistory, Watcher, label_for, trace_label, walk_name
from .picking import Pick
from .saved import SavedWalk
from .session import WalkSession

if TYPE_CHECKING:
    from ..corpora import Corpus
    from ..trace import FinishedWalk


class WalkUnreadable(ValueError):
    """A saved walk of the list that could not be read whole when it was needed: one line, naming the walk, the
    file and what is wrong (the list keeps the walk, and says the same each time it is asked for)."""


class Walk:
    """One walk of the session: made here with its ``history``, or ``saved`` in a file (a trace of a folder, a walk
    of a span file), whose history is read the first time it is needed (:meth:`read`), once, and kept."""

    def __init__(self, history: WalkHistory | None = None, walked_in: WalkSession | None = None, *,
                 saved: SavedWalk | None = None, came_from: str | None = None) -> None:
        if (history is None) == (saved is None):
            raise ValueError("a walk has a history, or is a saved walk to read when it is needed")
        if walked_in is not None and walked_in.history is not history:
            raise ValueError("a walk's session must write into the walk's own history")
        self._history = history
        self._number = 1 if history is None else history.number
        self._unreadable: str | None = None
        self.saved = saved
        """The file it is read from (``None``: made in this session)."""
        self._came_from = came_from
        self.walked_in = walked_in
        """The session it is walked in, whose history is :attr:`history` (``None``: read from a trace, or made
        elsewhere); kept once the walk is over, for the navigator it was walked with."""
        self._pick: Pick | None = None
        self._watchers: list[Watcher] = []
        self.verdict = ""
        """What an evaluation made of this walk (why its question was missed), said beside it on screen."""
        self.judged: tuple[int | None, tuple[str, ...]] | None = None
        """Its miss judged (the step of its first wrong turn, ``None``: its end; and the lines to say there: whose
        fault it was, where a flat search ranks the expected node), once a judge has looked (``None``: not yet)."""
        self.blamed: str | None = None
        """The node whose map the judged verdict blames (``M`` opens it at the verdict's step); ``None``: none."""
        self.retired = False
        """Whether its session is over for the screen (it ended, or was cancelled): see :meth:`retire`."""

    @property
    def pick(self) -> Pick | None:
        """The manual navigator's request on this walk, waiting for a person (answered only while it is shown)."""
        return self._pick

    @pick.setter
    def pick(self, pick: Pick | None) -> None:
        if pick is not self._pick:
            self._pick = pick
            for watcher in list(self._watchers):
                watcher(Change.PICK)

    def watch(self, watcher: Watcher) -> Callable[[], None]:
        """Tell ``watcher`` each change of this walk from now on: its history's (read now if it is a saved walk's;
        :class:`WalkUnreadable` when it cannot be) and its pick's. Returns the call that stops it."""
        stop_history = self.history.watch(watcher)
        self._watchers.append(watcher)

        def stop() -> None:
            stop_history()
            if watcher in self._watchers:
                self._watchers.remove(watcher)

        return stop

    @property
    def history(self) -> WalkHistory:
        """Its history: a saved walk's is read here the first time (:meth:`read`, which says when it cannot be)."""
        return self._history if self._history is not None else self.read()

    @property
    def loaded(self) -> WalkHistory | None:
        """Its history if it is at hand (``None``: a saved walk not read yet, or one that could not be)."""
        return self._history

    def read(self) -> WalkHistory:
        """Its history, a saved walk's read from its file the first time and kept; :class:`WalkUnreadable` when it
        cannot be (read once: asked again, it says the same)."""
        if self._history is not None:
            return self._history
        if self._unreadable is None and self.saved is not None:
            try:
                trace = self.saved.read()
            except ValueError as exc:
                self._unreadable = one_line(str(exc))
            else:
                self._history = WalkHistory.from_trace(trace, number=self._number)
                return self._history
        raise WalkUnreadable(f"walk {self._number} cannot be shown: {self._unreadable}")

    @property
    def settings(self) -> WalkSettings:
        """What it is walked with: its history's, or the saved walk's header's (without reading it)."""
        if self._history is None and self.saved is not None:
            return self.saved.header.settings
        return self.history.settings

    @property
    def came_from(self) -> str:
        """Where it came from, as the walk list says it: what its maker said (``from session 2026-12-05 10:31``,
        ``from the evaluation``), else ``opened from FILE`` for a saved walk, ``live`` for one walked here."""
        if self._came_from is not None:
            return self._came_from
        return f"opened from {self.saved.path.name}" if self.saved is not None else "live"

    @property
    def session(self) -> WalkSession | None:
        """Its session while live: from when its worker starts until it ends or is cancelled (:meth:`retire`)."""
        return None if self.retired else self.walked_in

    @property
    def navigator(self) -> TreeNavigator | None:
        """What it is walked with, and what a fork of it goes on with (``None``: read from a trace, made elsewhere,
        or a re-walk that only replays): its session's (:attr:`WalkSession.walked_with`)."""
        return self.walked_in.walked_with if self.walked_in is not None else None

    @property
    def number(self) -> int:
        return self._history.number if self._history is not None else self._number

    @number.setter
    def number(self, number: int) -> None:
        self._number = number
        if self._history is not None:
            self._history.number = number

    @property
    def name(self) -> str:
        """Its history's name; a saved walk's, the same without reading it (:func:`~.history.trace_label`)."""
        if self._history is None and self.saved is not None:
            return walk_name(self._number, trace_label(self.saved.path, self.saved.header))
        return self.history.name

    @property
    def id(self) -> int | None:
        """Its session's id while live: the tag on its worker's messages."""
        return self.session.id if self.session is not None else None

    @property
    def live(self) -> bool:
        """Whether it can still take a step: its worker runs and the walk has not ended."""
        return self.session is not None and not self.history.ended

    def retire(self) -> WalkSession | None:
        """The walk ended (or was cancelled): its session is no longer live, and any request left on it is dropped;
        returns the session (``None``: it had none, or was retired already)."""
        session, self.retired, self.pick = self.session, True, None
        return session

    def record(self, seq: int, event: WalkEvent, *, forced: bool, replayed: bool = False, at: int | None = None,
               pinned: bool = False) -> bool:
        """An event its worker sent, numbered ``seq`` (forced, replayed, pulled ``at``: as the message says):
        recorded unless it is stale (the walk was cancelled here, or the message was overtaken); ``pinned`` keeps the
        cursor where it is (a fork's picker shows its offer, and an answer arriving now must not move it).
        ``False``: dropped."""
        history = self.history
        if history.ended or seq != len(history.events) + 1:
            return False
        cursor = history.cursor
        history.append(event, forced=forced, replayed=replayed, at=at)
        if pinned:
            history.go(cursor)
        return True

    def finished(self, corpus: Corpus) -> FinishedWalk:
        """Its one record: the one its session made as it ended (the trace, the spans and the session folder took
        that one), else what its history holds now (a walk still going, as cancelled; a saved walk's own header)."""
        session = self.walked_in
        if session is not None and session.finished is not None:
            return session.finished
        return self.history.finished(corpus)

    def end(self, end: WalkEnd, error: str | None = None) -> None:
        """The walk ended (its worker says so, or it was cancelled here): its session finishes it (the history says
        how, and the walk's one record goes through the session's hook to its sinks) and goes."""
        if self.walked_in is not None:
            self.walked_in.finish(end, error)
        else:
            self.history.finish(end, error)
        self.retire()

    def cancel(self) -> bool:
        """Cancel the walk while it runs: its token trips (its worker ends at once), its history ends cancelled at
        its latest event, and the session goes. ``False``: it was not running."""
        if self.session is None or self.history.ended:
            return False
        self.session.cancel()
        self.end(WalkEnd.CANCELLED)
        self.history.latest()
        return True


class WalkList:
    """Every walk of a session, numbered from 1 in the order made."""

    def __init__(self) -> None:
        self.items: list[Walk] = []

    def __len__(self) -> int:
        return len(self.items)

    def __iter__(self) -> Iterator[Walk]:
        return iter(self.items)

    @property
    def next_number(self) -> int:
        return len(self.items) + 1

    def add(self, walk: Walk) -> Walk:
        """Keep ``walk``, numbered next. A walk or restart whose maker gave it no label is named for its query and
        what differs from the walk before it (:func:`~explorer.walks.history.label_for`)."""
        history = walk.loaded
        if history is not None and not history.label_given and history.trace is None and self.items:
            history.label = label_for(history.settings, self.items[-1].settings, history.origin)
        walk.number = self.next_number
        self.items.append(walk)
        return walk

    def number(self, number: int) -> Walk:
        """Walk ``number`` (1-based); IndexError says how many there are."""
        if not 1 <= number <= len(self.items):
            raise IndexError(f"no walk {number}: there are {len(self.items)}")
        return self.items[number - 1]

    def holding(self, history: WalkHistory) -> Walk | None:
        """The walk whose history is ``history`` (one made elsewhere, an evaluation's, is not in the list yet)."""
        return next((w for w in self.items if w.loaded is history), None)

    def by_id(self, walk_id: int) -> Walk | None:
        """The live walk whose worker tags its messages ``walk_id`` (``None``: it ended, or was replaced)."""
        return next((w for w in self.items if w.id == walk_id), None)

    def by_token(self, token: CancellationToken) -> Walk | None:
        """The live walk whose session holds ``token`` (the manual navigator's request names only its token)."""
        return next((w for w in self.items if w.session is not None and w.session.token is token), None)

    def live(self) -> list[Walk]:
        return [w for w in self.items if w.session is not None]
