"""One deadline for a whole call: connecting, sending, every retry and every wait between them."""

from __future__ import annotations

import time

__all__ = ["Deadline"]


class Deadline:
    """A point in time ``seconds`` from now, on the monotonic clock: the limit of one call as a whole."""

    __slots__ = ("_at", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._at = time.monotonic() + seconds

    def left(self) -> float:
        """Seconds until the deadline, 0 once it passed."""
        return max(0.0, self._at - time.monotonic())

    @property
    def passed(self) -> bool:
        """Whether the deadline is reached."""
        return time.monotonic() >= self._at
