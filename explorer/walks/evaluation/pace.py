"""How long an evaluation has left, from the walks done so far: the mean seconds a walk took (the time since the run
started over the walks ended since, so walks run at once count once) times the walks left, in words (``about 27
min left``, ``about 40 s left``); nothing before the first walk ends. The evaluation screen says it beside its
progress bar and ``eval`` in its progress line on a terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from time import monotonic

__all__ = ["Pace", "time_left", "time_left_words"]


def clock() -> float:
    """Seconds on a clock that only goes forward (a test sets this module's ``monotonic`` to tell the time)."""
    return monotonic()


@dataclass
class Pace:
    """One run's walks as they end: when it started (:func:`clock`'s time) and how many walks ended since."""

    started: float = field(default_factory=clock)
    walked: int = 0

    def walk_ended(self) -> None:
        self.walked += 1


def time_left(paces: Iterable[tuple[Pace, int]], now: Callable[[], float] = clock) -> str:
    """``about 27 min left`` for runs under way, each with the walks it has left, from the mean seconds a walk took
    since the first of them started; ``""`` before any walk ended, or with none left."""
    running = [(pace, left) for pace, left in paces if left > 0]
    walked = sum(pace.walked for pace, _ in running)
    if not running or not walked:
        return ""
    elapsed = max(0.0, now() - min(pace.started for pace, _ in running))
    return time_left_words(elapsed / walked * sum(left for _, left in running))


def time_left_words(seconds: float) -> str:
    """``about 40 s left`` under a minute (at least 1 s), else ``about 27 min left`` (whole minutes, rounded)."""
    if seconds < 59.5:
        return f"about {max(1, int(seconds + 0.5))} s left"
    return f"about {int(seconds / 60 + 0.5)} min left"
