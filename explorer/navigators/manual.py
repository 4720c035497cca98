"""The manual navigator: the person at the keyboard decides.

``choose()`` runs on the walk's worker thread. It hands the request to the
:class:`DecisionDesk` the navigator was made with, where the explorer that
made the desk (attached as its listener) shows the candidates as a picker,
and blocks until a decision arrives or the walk's token is tripped (then it
raises ``RetrievalCancelled``). With no desk, or nobody attached to it — a
headless run — it fails at once with a message saying so. Each explorer has
its own desk and hands it in (``explorer.walks.wiring.Wiring``).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable

from core import NavigatorChoice, NavigatorRequest, RetrievalCancelled, TreeNavigator

PREFIX = "manual:"
POLL_SECONDS = 0.05
NO_ONE = ("the manual: navigator needs the explorer to supply decisions; run `reasoning-explorer CORPUS "
          "--navigator manual:` instead of a headless command")


class NoOneToDecide(RuntimeError):
    """The manual navigator ran without the explorer to supply decisions."""


class PendingDecision:
    """One request waiting for a person; ``decide`` may be called from any thread, once."""

    _ids = itertools.count(1)

    def __init__(self, request: NavigatorRequest) -> None:
        self.id = next(self._ids)
        self.request = request
        self._done = threading.Event()
        self._choice: NavigatorChoice | None = None

    def decide(self, selected: Iterable[str], rationale: str = "chosen by hand", *,
               pressed: Iterable[str] = ()) -> bool:
        """Answer with these ids (any ids: one that was not offered is a hallucination); False if already answered.

        ``pressed`` says what the person did (``"picked 2"``, ``"typed ghost"``...): the choice's transcript.
        """
        if self._done.is_set():
            return False
        selected = tuple(selected)
        keys = "; ".join(pressed) or "answered"
        transcript = (("person", keys), ("answer", ", ".join(selected) or "(nothing: stop here)"))
        self._choice = NavigatorChoice(selected, rationale, transcript=transcript)
        self._done.set()
        return True

    @property
    def decided(self) -> bool:
        return self._done.is_set()

    def wait(self) -> NavigatorChoice:
        token = self.request.cancellation
        while not self._done.wait(POLL_SECONDS):
            if token.cancelled:
                raise RetrievalCancelled()
        token.raise_if_cancelled()
        assert self._choice is not None
        return self._choice


Listener = Callable[[PendingDecision], None]


class DecisionDesk:
    """Where manual requests wait for whoever supplies decisions (one listener at a time)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listener: Listener | None = None

    def attach(self, listener: Listener) -> None:
        with self._lock:
            self._listener = listener

    def detach(self, listener: Listener | None = None) -> None:
        with self._lock:
            if listener is None or self._listener == listener:  # bound methods are equal, not identical
                self._listener = None

    def submit(self, request: NavigatorRequest) -> PendingDecision:
        with self._lock:
            listener = self._listener
        if listener is None:
            raise NoOneToDecide(NO_ONE)
        pending = PendingDecision(request)
        listener(pending)
        return pending


class ManualNavigator(TreeNavigator):
    """``manual:`` — the explorer's user picks the branches, at ``desk`` (none: nobody can, it fails at once)."""

    needs_a_person = True
    """Walks nobody steps through (``walk``, an evaluation, a stability run) refuse it (``resolve_navigator``)."""

    def __init__(self, desk: DecisionDesk | None = None) -> None:
        self.desk = desk

    def supports(self, model: str) -> bool:
        return model == "manual" or model.startswith(PREFIX)

    def wired_with(self, desk: DecisionDesk | None, hearing: object, folders: object) -> TreeNavigator | None:
        """This navigator as a program wires it: answered at the program's ``desk`` (``None``: it needs no wiring,
        it already is or the program has no desk)."""
        return ManualNavigator(desk) if desk is not None and self.desk is not desk else None

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        request.cancellation.raise_if_cancelled()
        if self.desk is None:
            raise NoOneToDecide(NO_ONE)
        return self.desk.submit(request).wait()
