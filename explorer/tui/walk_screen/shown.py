"""The walk on the walk screen, as its parts see it, and what else a part is handed.

:class:`ShownWalk` is the one observable "walk on screen": which walk is shown, its cursor (its history's), the pick
open on it, the walk it is compared with, whether it plays and at what pace, whether it is presented, and what lies
over it on the tree. A part moves it (``view.history.go(3)``, ``view.playing = False``, ``view.walk = walk``) and
says nothing more: the walk and its history tell the view, and the view tells its watchers — each pane that shows
what changed repaints itself (:mod:`.panes`), and the screen keeps its own chrome (footer, classes). A part is
handed this view, a :class:`Stage` (the three calls it makes on the screen it belongs to) and the collaborators it
uses by name, never the screen itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol

from ...walks.history import Change, WalkHistory
from ...walks.picking import Pick
from ...walks.session import WalkSession, Wiring
from ...walks.walk_list import Walk, WalkList

if TYPE_CHECKING:
    from textual.app import App
    from textual.message import Message
    from textual.screen import Screen
    from textual.worker import Worker

    from ...corpora import Corpus
    from ..say import Say


class Aspect(Enum):
    """What changed about the walk on screen, beyond its history and pick (:class:`~explorer.walks.history.Change`)."""

    WALK = "walk"
    """Another walk is on screen (or the same one, shown anew: what belonged to the one before goes in the same
    change: its fork, its partner, its play and what lay over it on the tree)."""
    FORK = "fork"
    """A fork of it is being picked, or no more."""
    PLAYING = "playing"
    """It started or stopped playing."""
    PACE = "pace"
    """The pace it plays at changed."""
    PARTNER = "partner"
    """The walk it is compared with changed, or how the comparison is shown."""
    PRESENTING = "presenting"
    """Presenting mode began or ended."""
    OVERLAY = "overlay"
    """What lies over its marks on the tree changed: the nodes its question expects, how often N walks chose each."""
    SETTINGS = "settings"
    """The next walk's settings changed (the meter says its limits)."""
    CLOCK = "clock"
    """A beat of the clock while its navigator thinks (the status and its seconds)."""
    JUDGED = "judged"
    """Its miss was judged: whose fault it was, and where a flat search ranks the expected node."""


ViewChanged = Callable[[Change | Aspect], None]
"""Told each change of the walk on screen."""


class ShownWalk:
    """The walk on screen, observable: every change to it, or to its history or pick, is told to each watcher
    (:meth:`watch`) once. It keeps its own rules: a walk shown (:meth:`show`) clears its fork, partner, play and
    overlay in the one change :attr:`Aspect.WALK`."""

    def __init__(self) -> None:
        self._watchers: list[ViewChanged] = []
        self._walk: Walk | None = None
        self._stop_watching: Callable[[], None] = _nothing
        self._fork: Pick | None = None
        self._partner: Walk | None = None
        self._stop_watching_partner: Callable[[], None] = _nothing
        self._unfolded = False
        self._playing = False
        self._pace = 1.0
        self._presenting = False
        self._expected: frozenset[str] = frozenset()
        self._counts: dict[str, str] = {}
        self._heat: dict[str, int] = {}
        self._asked: str | None = None

    def watch(self, watcher: ViewChanged) -> Callable[[], None]:
        """Tell ``watcher`` each change from now on; returns the call that stops it."""
        self._watchers.append(watcher)
        return lambda: self._watchers.remove(watcher) if watcher in self._watchers else None

    def _tell(self, change: Change | Aspect) -> None:
        for watcher in tuple(self._watchers):
            watcher(change)

    def announce(self, aspect: Aspect) -> None:
        """Something the panes read beside the walk changed (:attr:`Aspect.SETTINGS`, :attr:`Aspect.CLOCK`)."""
        self._tell(aspect)

    @property
    def walk(self) -> Walk | None:
        """The walk on screen (``None``: none yet)."""
        return self._walk

    @walk.setter
    def walk(self, walk: Walk | None) -> None:
        """Show ``walk``; the same walk again is shown anew (the comparison and any fork of it go)."""
        self.show(walk)

    def show(self, walk: Walk | None, *, expected: frozenset[str] = frozenset(), asked: str | None = None) -> None:
        """Show ``walk``, the nodes its question ``expected`` marked on the tree and, when it came from elsewhere,
        the query it ``asked`` offered in the query box: one change, what belonged to the walk before gone."""
        if walk is not self._walk:
            self._stop_watching()
            self._stop_watching = walk.watch(self._tell) if walk is not None else _nothing
            self._walk = walk
        self._fork, self._partner, self._unfolded, self._playing = None, None, False, False
        self._expected, self._counts, self._heat, self._asked = expected, {}, {}, asked
        self._tell(Aspect.WALK)

    @property
    def asked(self) -> str | None:
        """The query of a walk put on screen from elsewhere, for the query box (``None``: the box keeps its own)."""
        return self._asked

    @property
    def history(self) -> WalkHistory | None:
        """The history of the walk on screen: its events and its cursor."""
        return self._walk.history if self._walk is not None else None

    @property
    def session(self) -> WalkSession | None:
        """The live session of the walk on screen (``None`` for a trace, an ended walk, or before any walk)."""
        return self._walk.session if self._walk is not None else None

    @property
    def fork(self) -> Pick | None:
        """A fork of the walk on screen being picked."""
        return self._fork

    @fork.setter
    def fork(self, fork: Pick | None) -> None:
        if fork is not self._fork:
            self._fork = fork
            self._tell(Aspect.FORK)

    @property
    def picker(self) -> Pick | None:
        """The pick open on the walk on screen: a fork being made, or the manual navigator waiting on it."""
        return self._fork if self._fork is not None else (self._walk.pick if self._walk is not None else None)

    @property
    def partner(self) -> Walk | None:
        """The walk the one on screen is compared with (``None``: no comparison)."""
        return self._partner

    @partner.setter
    def partner(self, partner: Walk | None) -> None:
        """Compare the walk on screen with ``partner`` (``None``: no more), the prompts where they part folded."""
        if partner is not self._partner:
            self._stop_watching_partner()
            # A partner still walking (T's re-walk, run to its end beside the original) redraws the comparison
            # as it grows and when it ends; its cursor is not shown, so its moves are not told.
            self._stop_watching_partner = partner.watch(self._partner_changed) if partner is not None else _nothing
            self._partner, self._unfolded = partner, False
            self._tell(Aspect.PARTNER)

    def _partner_changed(self, change: Change) -> None:
        if change is not Change.MOVED:
            self._tell(Aspect.PARTNER)

    @property
    def unfolded(self) -> bool:
        """Whether the prompts each compared walk sent where they part are unfolded."""
        return self._unfolded

    @unfolded.setter
    def unfolded(self, unfolded: bool) -> None:
        if unfolded != self._unfolded:
            self._unfolded = unfolded
            self._tell(Aspect.PARTNER)

    @property
    def playing(self) -> bool:
        """Whether the walk on screen plays (a step per beat)."""
        return self._playing

    @playing.setter
    def playing(self, playing: bool) -> None:
        if playing != self._playing:
            self._playing = playing
            self._tell(Aspect.PLAYING)

    @property
    def pace(self) -> float:
        """The seconds between two steps while it plays."""
        return self._pace

    @pace.setter
    def pace(self, pace: float) -> None:
        if pace != self._pace:
            self._pace = pace
            self._tell(Aspect.PACE)

    @property
    def presenting(self) -> bool:
        """Presenting mode (:mod:`.presenting`): a decision per step, said in words, the answer on a card."""
        return self._presenting

    @presenting.setter
    def presenting(self, presenting: bool) -> None:
        if presenting != self._presenting:
            self._presenting = presenting
            self._tell(Aspect.PRESENTING)

    @property
    def expected(self) -> frozenset[str]:
        """The nodes the question of the walk on screen expects (an evaluation's walk), marked on the tree."""
        return self._expected

    @property
    def counts(self) -> dict[str, str]:
        """Beside each node chosen by some of N other walks, in how many (a stability run's), until another walk."""
        return self._counts

    @property
    def heat(self) -> dict[str, int]:
        """A heat level 1-4 per node of :attr:`counts`."""
        return self._heat

    def lay_over(self, counts: dict[str, str], heat: dict[str, int]) -> None:
        """Lay a stability run's counts and heat over the walk on screen's marks (until another walk is shown)."""
        self._counts, self._heat = counts, heat
        self._tell(Aspect.OVERLAY)

    @property
    def comparing(self) -> tuple[WalkHistory, WalkHistory] | None:
        """Walk A (on screen) and walk B while two walks are compared."""
        if self._walk is None or self._partner is None:
            return None
        return self._walk.history, self._partner.history


def _nothing() -> None:
    return None


class RunWorker(Protocol):
    """Start ``work`` on a worker of the screen (cancelled with it)."""

    def __call__(self, work: Callable[[], Any], *, thread: bool = ..., group: str = ..., name: str = ...,
                 exit_on_error: bool = ...) -> Worker[Any]: ...


@dataclass(frozen=True)
class Stage:
    """The calls a part makes on the screen it belongs to, and nothing else of it: the app it runs in (to push a
    dialog, copy, post to the app), start a worker of the screen, and post a message to the screen (from any
    thread)."""

    running_in: Callable[[], App[int]]
    run_worker: RunWorker
    post: Callable[[Message], bool]

    @property
    def app(self) -> App[int]:
        """The app the screen runs in (asked when needed: the screen joins it after the parts are made)."""
        return self.running_in()

    @classmethod
    def of(cls, screen: Screen[Any]) -> Stage:
        return cls(lambda: screen.app, screen.run_worker, screen.post_message)


@dataclass(frozen=True)
class Grounds:
    """What every part that starts, changes or saves walks stands on, handed over once: the walk on screen
    (``view``), the calls it makes on its screen (``stage``), the corpus, the session's walks, the program's wiring,
    how to say things, and whether files may be opened and saved."""

    view: ShownWalk
    stage: Stage
    corpus: Corpus
    walks: WalkList
    wiring: Wiring
    say: Say
    allow_files: bool


class Part:
    """A part of the walk screen made on its :class:`Grounds` (each kept as an attribute of the same name)."""

    def __init__(self, grounds: Grounds) -> None:
        self.view = grounds.view
        self.stage = grounds.stage
        self.corpus = grounds.corpus
        self.walks = grounds.walks
        self.wiring = grounds.wiring
        self.say = grounds.say
        self.allow_files = grounds.allow_files
