"""The walk on the walk screen, as its parts see it: which walk is shown, the pick open on it, whether it plays,
and the one call that says it changed. The screen holds these as reactives; a part is handed this view and the
collaborators it uses by name, never the screen itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from ...walks.history import WalkHistory
from ...walks.picking import Pick
from ...walks.session import WalkSession, Wiring
from ...walks.walk_list import Walk, WalkList

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget
    from textual.worker import Worker

    from ...corpora import Corpus
    from ..say import Say, Severity


class Pullable(Protocol):
    """The walk on screen as a part that moves through it sees it: its history, its live session, the pick open on
    it, and the one call that says it changed."""

    @property
    def history(self) -> WalkHistory | None: ...

    @property
    def session(self) -> WalkSession | None: ...

    @property
    def picker(self) -> Pick | None:
        """The pick open on the shown walk: a fork being made, or the manual navigator waiting on it."""

    def walk_changed(self, *, burst: bool = ...) -> None:
        """The shown walk's history changed in place: redraw what shows it."""


class ShownWalk(Pullable, Protocol):
    """The walk on screen (the walk screen is one): which walk, a fork being picked, whether it plays."""

    shown: Walk | None
    fork: Pick | None
    """A fork of the shown walk being picked."""
    playing: bool


class FilesHost(Protocol):
    """What the parts that write files (traces, screenshots, the HTML export) need of the screen they belong to."""

    corpus: Corpus
    allow_files: bool

    @property
    def app(self) -> App[int]: ...

    @property
    def history(self) -> WalkHistory | None: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def run_worker(self, work: Callable[[], None], *, thread: bool, group: str,
                   exit_on_error: bool) -> Worker[Any]: ...


@dataclass(frozen=True)
class Grounds:
    """What every part that starts or changes walks stands on, handed over once: the walk on screen (``view``), the
    node its prompts and workers belong to, the corpus, the session's walks, the program's wiring, how to say
    things, and whether files may be opened and saved."""

    view: ShownWalk
    node: Widget
    corpus: Corpus
    walks: WalkList
    wiring: Wiring
    say: Say
    allow_files: bool


class Part:
    """A part of the walk screen made on its :class:`Grounds` (each kept as an attribute of the same name)."""

    def __init__(self, grounds: Grounds) -> None:
        self.view = grounds.view
        self.node = grounds.node
        self.corpus = grounds.corpus
        self.walks = grounds.walks
        self.wiring = grounds.wiring
        self.say = grounds.say
        self.allow_files = grounds.allow_files
