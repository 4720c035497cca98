"""An evaluation's walks, each held from its end until the evaluation has scored it, then sent with its score."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ...trace import FinishedWalk
from .question_facts import QuestionFacts

if TYPE_CHECKING:
    from ..evaluation import QuestionOutcome

__all__ = ["EvaluationSpans", "Export"]

Export = Callable[[FinishedWalk, QuestionFacts | None], None]
"""Sends one walk's record, with what the evaluation made of it (``None``: no score came); never raises."""


class EvaluationSpans:
    """An evaluation's walks, each sent once the evaluation has scored it, with its :class:`QuestionFacts`.

    Give :meth:`observe` to the evaluation as an observer and :meth:`scored`
    as its ``on_done``: a walk's record is held from its end until its score arrives
    (on the same thread, at once), then sent. A walk and its score are paired by the walk's events: the very
    objects the outcome's history holds. A walk whose score never came
    (the run was interrupted) is sent without one when the telemetry closes.
    Made by :meth:`~explorer.walks.telemetry.WalkTelemetry.for_evaluation`, which hands it how to send a walk.
    """

    def __init__(self, export: Export) -> None:
        self._export = export
        self._lock = threading.Lock()
        self._held: list[FinishedWalk] = []

    def observe(self, walk: FinishedWalk) -> None:
        """A :data:`explorer.walks.wiring.WalkObserver`: hold the walk until :meth:`scored` tells its score."""
        with self._lock:
            self._held.append(walk)

    def scored(self, outcome: QuestionOutcome) -> None:
        """The evaluation's ``on_done``: send the walk of ``outcome`` with what the evaluation made of it."""
        events = outcome.history.events if outcome.history is not None else None
        with self._lock:
            at = next((n for n, held in enumerate(self._held) if events is not None and _same(held.events, events)),
                      None)
            walk = self._held.pop(at) if at is not None else None
        if walk is not None:
            self._export(walk, QuestionFacts.of(outcome))

    def flush(self) -> None:
        """Send every walk still held, without a score."""
        with self._lock:
            held, self._held = self._held, []
        for walk in held:
            self._export(walk, None)


def _same(recorded: Sequence[object], events: Sequence[object]) -> bool:
    """Whether a held record is of the walk whose history holds ``events``: the same event objects, in order."""
    return len(recorded) == len(events) and all(a is b for a, b in zip(recorded, events, strict=True))
