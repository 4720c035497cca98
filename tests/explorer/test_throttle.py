"""A throttle draws the first change at once, a burst of changes once at the end of its interval, nothing when
nothing changed, and at once when asked to (a run's end). Its timers are driven by hand here: what is tested is
which draws happen, not how long anything takes."""

from __future__ import annotations

from collections.abc import Callable

from explorer.tui.throttle import Throttle


class HandTimer:
    def __init__(self, delay: float, callback: Callable[[], None]) -> None:
        self.delay = delay
        self.callback = callback
        self.stopped = False

    def stop(self) -> None:
        self.stopped = True


class Timers:
    """The one-shot timers a throttle started, fired by the test as time would."""

    def __init__(self) -> None:
        self.started: list[HandTimer] = []

    def __call__(self, delay: float, callback: Callable[[], None]) -> HandTimer:
        timer = HandTimer(delay, callback)
        self.started.append(timer)
        return timer

    def fire(self) -> None:
        timer = self.started[-1]
        assert not timer.stopped
        timer.callback()


def made() -> tuple[Throttle, Timers, list[int]]:
    timers, draws = Timers(), []
    throttle = Throttle(timers, lambda: draws.append(len(draws) + 1), 0.2)
    return throttle, timers, draws


def test_the_first_change_is_drawn_at_once_and_a_burst_after_it_once_when_the_interval_ends() -> None:
    throttle, timers, draws = made()
    throttle.ask()
    assert draws == [1] and [t.delay for t in timers.started] == [0.2]
    for _ in range(50):
        throttle.ask()
    assert draws == [1] and throttle.pending
    timers.fire()
    assert draws == [1, 2] and not throttle.pending
    assert len(timers.started) == 2  # the draw at the beat starts the next interval


def test_an_interval_with_no_change_draws_nothing_and_the_next_change_is_drawn_at_once() -> None:
    throttle, timers, draws = made()
    throttle.ask()
    timers.fire()
    assert draws == [1] and len(timers.started) == 1  # quiet: no timer runs
    throttle.ask()
    assert draws == [1, 2]


def test_now_draws_at_once_mid_interval_and_the_old_interval_draws_nothing_more() -> None:
    throttle, timers, draws = made()
    throttle.ask()
    throttle.ask()
    first = timers.started[0]
    throttle.now()
    assert draws == [1, 2] and first.stopped and not throttle.pending
    throttle.now()  # a run's end with nothing pending still draws: what changed outside the throttle shows
    assert draws == [1, 2, 3]


def test_a_change_once_the_stream_has_settled_is_drawn_at_once_mid_interval() -> None:
    timers, draws, settled = Timers(), [], [False]
    throttle = Throttle(timers, lambda: draws.append(len(draws) + 1), 0.2, at_once=lambda: settled[0])
    throttle.ask()
    throttle.ask()
    assert draws == [1]
    settled[0] = True  # the last walk and verdict are in
    throttle.ask()
    assert draws == [1, 2] and timers.started[0].stopped and not throttle.pending
