"""A walk's events, pulled on a thread of their own, so that a navigator that never returns holds only that thread.

Core calls the navigator inside the walk's generator, and a navigator is told to stop only through the walk's
cancellation token: one that ignores it (a ``py:`` navigator stuck in a loop, a call with no timeout) used to
hold the thread that pulled the walk for ever. In the explorer, that was a worker of the app's pool: after six, no
walk could start; at quit, the process waited for them and never exited.

:class:`Puller` advances the generator on a daemon thread and hands each event over. The thread that pulls waits
for it in short slices, looking at the token between them: once the token has tripped, a navigator gets
:data:`GRACE_SECONDS` to return (a well-behaved one returns at once, and its walk ends as usual); past that the
walk is given up, :class:`Abandoned` says so in one line, and the daemon thread is left to the navigator. A daemon
thread keeps no process alive, so a quit still exits.

An exception the navigator raises comes back as it was raised; one that is no ``Exception`` (a
``CancelledError``, a ``GeneratorExit``, a custom ``BaseException``) comes back as :class:`NavigatorBroke`, so
the walk fails with a reason instead of its thread dying in silence. ``KeyboardInterrupt`` and ``SystemExit`` are
not the navigator's to raise on this thread: they come back as themselves.
"""

from __future__ import annotations

import contextlib
import queue
import threading
import time
from collections.abc import Generator
from typing import Any, Final

from core import CancellationToken, WalkEvent

GRACE_SECONDS: Final = 5.0
"""How long a navigator may go on after the walk's token tripped before the walk is given up."""

SLICE_SECONDS: Final = 0.05
"""How often the pulling thread looks at the token while it waits."""


class Abandoned(Exception):
    """The navigator did not return within :data:`GRACE_SECONDS` of the walk's cancellation; the message says so."""


class NavigatorBroke(Exception):
    """The navigator raised something that is no ``Exception`` (named in the message)."""


_NEXT: Final = "next"
_CLOSE: Final = "close"


class Puller:
    """Pulls ``events`` (a walk's generator) on a daemon thread named ``name``; see the module's docstring.

    ``inline``: on the thread that asks instead, as a navigator that is not ``shared_across_threads`` needs (one
    made for a thread, holding what belongs to it): such a walk cannot be given up, and waits for its navigator."""

    def __init__(self, events: Generator[WalkEvent, None, Any], name: str, *, inline: bool = False) -> None:
        self._events = events
        self._name = name
        self._inline = inline
        self._orders: queue.SimpleQueue[str] = queue.SimpleQueue()
        self._answers: queue.SimpleQueue[tuple[bool, object]] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self.abandoned = False
        """Whether the walk was given up while the navigator still ran (its thread is left to it)."""
        self._asked = False  # an event was asked for and has not come (an interrupt can leave the wait)

    def _serve(self) -> None:
        while True:
            order = self._orders.get()
            if order == _CLOSE:
                with contextlib.suppress(Exception):  # a clean-up that fails changes nothing for a walk that is over
                    self._events.close()
                self._answers.put((True, None))
                return
            try:
                self._answers.put((True, next(self._events)))
            except (KeyboardInterrupt, SystemExit) as exc:
                self._answers.put((False, exc))
            except Exception as exc:  # StopIteration included: the walk is over
                self._answers.put((False, exc))
            except BaseException as exc:
                self._answers.put((False, NavigatorBroke(f"the navigator raised {type(exc).__name__}: {exc}"
                                                         if str(exc) else
                                                         f"the navigator raised {type(exc).__name__}")))

    def next(self, token: CancellationToken, *, given_up: threading.Event | None = None) -> WalkEvent:
        """The walk's next event (``StopIteration`` when it is over). Raises :class:`Abandoned` when the token has
        tripped and the navigator has not returned within :data:`GRACE_SECONDS`, or at once when ``given_up`` is
        set (the viewer is going away and waits for nothing)."""
        if self.abandoned:
            raise Abandoned("the walk was given up")
        if self._inline:
            return next(self._events)
        if self._thread is None:
            self._thread = threading.Thread(target=self._serve, name=self._name, daemon=True)
            self._thread.start()
        self._orders.put(_NEXT)
        self._asked = True
        cancelled_at: float | None = None
        while True:
            try:
                ok, value = self._answers.get(timeout=SLICE_SECONDS)
                self._asked = False
            except queue.Empty:
                if given_up is not None and given_up.is_set():
                    self.abandoned = True
                    raise Abandoned("the walk was closed while its navigator still ran") from None
                if token.cancelled:
                    now = time.monotonic()
                    cancelled_at = now if cancelled_at is None else cancelled_at
                    if now - cancelled_at >= GRACE_SECONDS:
                        self.abandoned = True
                        raise Abandoned(f"the navigator has not returned after {GRACE_SECONDS:g} s: it ignores the "
                                        "cancellation token") from None
                continue
            if ok:
                assert not isinstance(value, BaseException)
                return value  # type: ignore[return-value]
            assert isinstance(value, BaseException)
            raise value

    def close(self) -> None:
        """End the generator (on its own thread, which then ends: waited for, as long as :data:`GRACE_SECONDS`);
        a walk given up leaves it to the navigator."""
        if self._thread is None:
            self._events.close()
        elif self._asked:  # left the wait (Ctrl+C) while the navigator works: nothing to wait for
            self.abandoned = True
        elif not self.abandoned:
            self._orders.put(_CLOSE)
            with contextlib.suppress(queue.Empty):
                self._answers.get(timeout=GRACE_SECONDS)
