"""The walks of a session: one record per walk, in the order they were made.

UI-free. A :class:`Walk` holds everything about one walk, once: its history (events, cursor, how it ended,
the settings it is walked with), the session it is walked in (live while its worker may still take a step;
the navigator it is walked with is the session's, and a fork goes on with it), and the manual navigator's
open request on it. Which walk is on screen is the screen's business, not the list's.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

from core import CancellationToken, TreeNavigator, WalkEvent

from ..ending import WalkEnd
from .history import WalkHistory, label_for
from .picking import Pick
from .session import WalkSession


@dataclass(eq=False)
class Walk:
    """One walk of the session."""

    history: WalkHistory
    walked_in: WalkSession | None = None
    """The session it is walked in, whose history is :attr:`history` (``None``: read from a trace, or made
    elsewhere); kept once the walk is over, for the navigator it was walked with."""
    pick: Pick | None = None
    """The manual navigator's request on this walk, waiting for a person (answered only while it is shown)."""
    verdict: str = ""
    """What an evaluation made of this walk (why its question was missed), said beside it on screen."""
    retired: bool = field(default=False, init=False)
    """Whether its session is over for the screen (it ended, or was cancelled): see :meth:`retire`."""

    def __post_init__(self) -> None:
        if self.walked_in is not None and self.walked_in.history is not self.history:
            raise ValueError("a walk's session must write into the walk's own history")

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
        return self.history.number

    @property
    def name(self) -> str:
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

    def record(self, seq: int, event: WalkEvent, *, forced: bool, pinned: bool = False) -> bool:
        """An event its worker sent, numbered ``seq``: recorded unless it is stale (the walk was cancelled here, or
        the message was overtaken); ``pinned`` keeps the cursor where it is (a fork's picker shows its offer, and an
        answer arriving now must not move it). ``False``: dropped."""
        history = self.history
        if history.ended or seq != len(history.events) + 1:
            return False
        cursor = history.cursor
        history.append(event, forced=forced)
        if pinned:
            history.go(cursor)
        return True

    def end(self, end: WalkEnd, error: str | None = None) -> None:
        """Its worker says the walk ended: the history says how, and the session goes."""
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
        history = walk.history
        if not history.label_given and history.trace is None and self.items:
            history.label = label_for(history.settings, self.items[-1].history.settings, history.origin)
        history.number = self.next_number
        self.items.append(walk)
        return walk

    def number(self, number: int) -> Walk:
        """Walk ``number`` (1-based); IndexError says how many there are."""
        if not 1 <= number <= len(self.items):
            raise IndexError(f"no walk {number}: there are {len(self.items)}")
        return self.items[number - 1]

    def holding(self, history: WalkHistory) -> Walk | None:
        """The walk whose history is ``history`` (one made elsewhere, an evaluation's, is not in the list yet)."""
        return next((w for w in self.items if w.history is history), None)

    def by_id(self, walk_id: int) -> Walk | None:
        """The live walk whose worker tags its messages ``walk_id`` (``None``: it ended, or was replaced)."""
        return next((w for w in self.items if w.id == walk_id), None)

    def by_token(self, token: CancellationToken) -> Walk | None:
        """The live walk whose session holds ``token`` (the manual navigator's request names only its token)."""
        return next((w for w in self.items if w.session is not None and w.session.token is token), None)

    def live(self) -> list[Walk]:
        return [w for w in self.items if w.session is not None]
