"""The walk on the walk screen, as its parts see it: which walk is shown, the pick open on it, whether it plays,
and the one call that says it changed. The screen holds these as reactives; a part is handed this view and the
collaborators it uses by name, never the screen itself."""

from __future__ import annotations

from typing import Protocol

from ...walks.history import WalkHistory
from ...walks.picking import Pick
from ...walks.session import WalkSession
from ...walks.walk_list import Walk


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
