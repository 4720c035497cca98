"""Pulling the live walk on screen on, one event at a time, until a condition holds: the loop of ``u`` (run to a
condition, :mod:`.running_to`) and of presenting's ``n`` (to the next decision, :mod:`.presenting`)."""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum

from ...walks.history import WalkHistory
from .shown import ShownWalk


class Pulled(Enum):
    """How one turn of the loop ended."""

    HELD = "held"
    """The condition holds at the newest event: the walk is shown there."""
    PERSON = "person"
    """A person decides the next decision (the manual navigator's picker is on screen): shown there."""
    OVER = "over"
    """The walk gives no more events (it ended, or it is no live walk): shown at its end."""
    PULLED = "pulled"
    """The next event was asked for: it arrives as a message, and the loop takes another turn then."""


def pull_on(view: ShownWalk, holds: Callable[[WalkHistory], bool], *, keep_at: int | None = None) -> Pulled:
    """One turn: stop where ``holds(history)`` is true (or a person decides, or the walk is over) and show the
    newest event; else ask the live walk for its next event, the cursor at ``keep_at`` meanwhile (``None``: at
    the newest event)."""
    history, session = view.history, view.session
    if history is None:
        return Pulled.OVER
    if history.events and holds(history):
        stopped = Pulled.HELD
    elif view.picker is not None and view.picker.pending is not None:
        stopped = Pulled.PERSON
    elif session is None or history.ended:
        stopped = Pulled.OVER
    else:
        if keep_at is not None:
            history.go(keep_at)  # the step on screen stays until the next one is here
        else:
            history.latest()
        session.step()
        return Pulled.PULLED
    history.latest()
    return stopped
