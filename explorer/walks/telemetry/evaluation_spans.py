"""An evaluation's walks, each held from its end until the evaluation has scored it, then sent with its score."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from core import WalkEvent

from .observed import Observed, observed
from .question_facts import QuestionFacts

if TYPE_CHECKING:
    from ..evaluation import QuestionOutcome
    from ..session import SessionEnded, WalkSession

__all__ = ["EvaluationSpans", "Export", "Problem"]

Export = Callable[[Observed, QuestionFacts | None], None]
"""Sends one observed walk, with what the evaluation made of it (``None``: no score came); never raises."""
Problem = Callable[[str, str], None]
"""Reports a problem of a kind (``"bug"``...) once: ``problem(kind, message)``."""


class EvaluationSpans:
    """An evaluation's walks, each sent once the evaluation has scored it, with its :class:`QuestionFacts`.

    Give :meth:`observe` to the evaluation as an observer and :meth:`scored`
    as its ``on_done``: a walk is held from its end until its score arrives
    (on the same thread, at once), then sent. A walk whose score never came
    (the run was interrupted) is sent without one when the telemetry closes.
    Made by :meth:`~explorer.walks.telemetry.WalkTelemetry.for_evaluation`, which hands it how to send a walk
    and how to report a problem.
    """

    def __init__(self, export: Export, problem: Problem) -> None:
        self._export = export
        self._problem = problem
        self._lock = threading.Lock()
        self._held: dict[int, Observed] = {}

    def observe(self, session: WalkSession, ended: SessionEnded, events: Sequence[WalkEvent],
                times: Sequence[int]) -> None:
        """A :data:`explorer.walks.session.WalkObserver`: hold the walk until :meth:`scored` tells its score."""
        try:
            walk = observed(session, ended, events, times)
        except Exception as exc:  # telemetry never breaks a walk
            self._problem("bug", f"tracing export failed: {type(exc).__name__}: {exc}")
            return
        with self._lock:
            self._held[id(session.history)] = walk  # the history is the outcome's: the key the score comes with

    def scored(self, outcome: QuestionOutcome) -> None:
        """The evaluation's ``on_done``: send the walk of ``outcome`` with what the evaluation made of it."""
        with self._lock:
            walk = self._held.pop(id(outcome.history), None) if outcome.history is not None else None
        if walk is not None:
            self._export(walk, QuestionFacts.of(outcome))

    def flush(self) -> None:
        """Send every walk still held, without a score."""
        with self._lock:
            held, self._held = list(self._held.values()), {}
        for walk in held:
            self._export(walk, None)
