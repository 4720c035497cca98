"""What a step key does to the walk on screen, UI-free: the screen's step keys (and play) ask these, then show
what they did.

A step first moves through what already happened (no navigator call); at the walk's latest event it lets the
live session pull one more, unless a person must answer first. A walk that is over stays on its end (the screen
says which keys go on); with no walk at all, the screen starts the first.
"""

from __future__ import annotations

from enum import Enum

from .picking import Pick
from .walk_list import Walk


class Step(Enum):
    """What a step did."""

    SHOWN = "shown"
    """An event already recorded is shown: the cursor moved on to it."""
    OVER = "over"
    """There is no walk, or it cannot take another step: nothing moved."""
    WAITING = "waiting"
    """The manual navigator waits for the person: nothing moved."""
    PULLED = "pulled"
    """The live walk's session was let pull one more event."""


def step_next(walk: Walk | None, pick: Pick | None) -> Step:
    """The next step of ``walk`` (with ``pick`` open on it): to the next recorded event, else one more pulled.
    Quick presses are all honoured, in order: each lets the session pull one more (its permits add up)."""
    if walk is not None and walk.history.forward():
        return Step.SHOWN
    if walk is None or walk.session is None or walk.history.ended:
        return Step.OVER
    if pick is not None and pick.pending is not None:
        return Step.WAITING
    walk.session.step()
    return Step.PULLED


def play_beat(walk: Walk | None, pick: Pick | None) -> Step:
    """One beat of play on ``walk``: the next recorded event, else one more pulled once the session has taken the
    one before and no pick is open (``OVER``: play stops)."""
    if walk is not None and walk.history.forward():
        return Step.SHOWN
    if walk is None or walk.session is None or not walk.live:
        return Step.OVER
    if not walk.session.waiting or pick is not None:
        return Step.WAITING
    walk.session.step()
    return Step.PULLED
