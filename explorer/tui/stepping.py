"""Stepping through a walk on the walk screen: next, continue, play, back, forward, first and latest.

A step key moves the shown walk's cursor through what already happened (no navigator call) or, at its latest
event, lets the live walk's session pull one more (``n``), all the rest (``c``) or one per beat (``p``). Past the
end of a walk, a step key starts the next one. While presenting, ``n``, ``b`` and play move a decision at a time
(:mod:`.presenting`).
"""

from __future__ import annotations

from typing import Protocol

from ..walks.history import WalkHistory
from ..walks.picking import Pick
from ..walks.session import WalkSession
from ..walks.walk_list import Walk
from .playing import next_pace
from .presenting import Presenter
from .say import Severity


class Host(Protocol):
    """What stepping needs of the walk screen."""

    shown: Walk | None
    playing: bool
    pace: float
    presenting: bool
    presenter: Presenter

    @property
    def history(self) -> WalkHistory | None: ...

    @property
    def session(self) -> WalkSession | None: ...

    @property
    def picker(self) -> Pick | None: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def walk_changed(self, *, burst: bool = ...) -> None: ...

    def walk_anew(self) -> None: ...

    def refresh_status_soon(self) -> None: ...


class Stepping:
    """The step keys of the walk screen ``host``."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def _moved(self, moved: bool) -> None:
        if moved:
            self.host.walk_changed()

    def next(self) -> None:
        host = self.host
        history, session = host.history, host.session
        if host.presenting and host.presenter.next():
            return  # the next decision, not the next event
        if history is not None and history.forward():
            host.walk_changed()  # what already happened: no navigator call
        elif history is None or history.ended or session is None:
            host.walk_anew()
        elif host.picker is not None and host.picker.pending is not None:
            host.say("The navigator waits for you: 1-9 pick, a answer, s stop here, i type an id.")
        else:
            session.step()  # permits add up: quick presses are all honoured, in order
            host.refresh_status_soon()

    def to_the_end(self) -> None:
        host = self.host
        host.playing = False
        history = host.history
        if history is not None and not history.at_latest:
            self._moved(history.latest())  # to what already happened first
            return
        if history is None or history.ended or host.session is None:
            host.walk_anew()
        session = host.session
        if session is not None and host.shown is not None and host.shown.live:
            session.run_to_end()
            host.walk_changed()

    def play_pause(self) -> None:
        host = self.host
        if host.playing:
            host.playing = False
            return
        history = host.history
        if history is None or (history.at_latest and (history.ended or host.session is None)):
            host.walk_anew()
            if host.shown is None or not host.shown.live:
                return
        host.playing = True

    def tick(self) -> None:
        """One beat of play: the next step, or the end of play."""
        host = self.host
        history, session = host.history, host.session
        if host.presenting:
            if not host.presenter.tick():
                host.playing = False
            return
        if history is not None and history.forward():
            host.walk_changed()
        elif session is not None and host.shown is not None and host.shown.live:
            if session.waiting and host.picker is None:
                session.step()
        else:
            host.playing = False

    def faster(self) -> None:
        self.host.pace = next_pace(self.host.pace, -1)

    def slower(self) -> None:
        self.host.pace = next_pace(self.host.pace, 1)

    def back(self) -> None:
        host = self.host
        host.playing = False
        history = host.history
        if history is None:
            return
        if host.presenting and host.presenter.back():
            return
        if not host.presenting and history.back():
            host.walk_changed()
        elif history.events:
            host.say("This is the first step.", timeout=2)

    def forward(self) -> None:
        host = self.host
        if host.presenting:
            host.presenter.forward()
        elif host.history is not None:
            self._moved(host.history.forward())

    def first(self) -> None:
        self.host.playing = False
        if self.host.history is not None:
            self._moved(self.host.history.first())

    def latest(self) -> None:
        if self.host.history is not None:
            self._moved(self.host.history.latest())
