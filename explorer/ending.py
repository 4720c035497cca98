"""How a walk ended, named once: every layer (trace, session, history, screen, CLI) uses this enum."""

from __future__ import annotations

from enum import StrEnum


class WalkEnd(StrEnum):
    """The end of a walk as a whole (a path's end is a ``core.StopReason``)."""

    FINISHED = "finished"
    """The walk ran to its ``WalkFinished`` event."""
    CANCELLED = "cancelled"
    """The walk's cancellation token tripped (or it was saved before it ended)."""
    FAILED = "failed"
    """The navigator failed under ``OnFailure.THROW``, or something unexpected broke the walk."""
