"""The walk on the walk screen, as its parts see it: which walk is shown, the pick open on it, whether it plays,
and the one call that says it changed. The screen holds these as reactives; a part is handed this view and the
collaborators it uses by name, never the screen itself."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from ...walks.history import WalkHistory
from ...walks.picking import Pick
from ...walks.session import WalkSession, Wiring
from ...walks.walk_list import Walk, WalkList

if TYPE_CHECKING:
    from textual.widget import Widget

    from ...corpora import Corpus
    from ..say import Say


class ShownWalk(Protocol):
    """The walk on screen (the walk screen is one)."""

    shown: Walk | None
    fork: Pick | None
    """A fork of the shown walk being picked."""
    playing: bool

    @property
    def history(self) -> WalkHistory | None: ...

    @property
    def session(self) -> WalkSession | None: ...

    @property
    def picker(self) -> Pick | None:
        """The pick open on the shown walk: a fork being made, or the manual navigator waiting on it."""

    def walk_changed(self, *, burst: bool = ...) -> None:
        """The shown walk's history changed in place: redraw what shows it."""


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
