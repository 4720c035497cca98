"""The replay navigator: repeats the decisions recorded in a trace, for free.

``replay:PATH`` answers each offer with what the traced navigator answered
for the same node (``start`` for the roots): the same ids, rationale and
usage, or the same failure. A node the trace never judged (reachable now
because the budget or depth limit changed) stops there, with a rationale
that says so. This is how an expensive LLM walk is re-run with another budget.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from core import NavigatorChoice, NavigatorChose, NavigatorFailed, NavigatorRequest, TreeNavigator

from ..trace import Trace, TraceError, read_trace
from . import NavigatorConfigError

PREFIX = "replay:"


class ReplayedFailure(RuntimeError):
    """The failure the traced navigator had at this node."""


@dataclass(frozen=True)
class Recorded:
    choice: NavigatorChoice | None
    error: str | None


def recorded_decisions(trace: Trace) -> dict[str | None, Recorded]:
    """What the traced navigator answered, by the id of the node it judged (``None``: the roots)."""
    decisions: dict[str | None, Recorded] = {}
    for event in trace.events:
        if isinstance(event, NavigatorChose):
            choice = NavigatorChoice(event.selected, event.rationale, event.usage)
            decisions.setdefault(event.current, Recorded(choice, None))
        elif isinstance(event, NavigatorFailed):
            decisions.setdefault(event.current, Recorded(None, event.error))
    return decisions


class ReplayNavigator(TreeNavigator):
    """``replay:PATH`` — the decisions of a saved trace."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[Path, tuple[float, dict[str | None, Recorded]]] = {}

    def supports(self, model: str) -> bool:
        return model.startswith(PREFIX)

    def check_model(self, model: str) -> None:
        self.decisions(model)

    def decisions(self, model: str) -> dict[str | None, Recorded]:
        raw = model[len(PREFIX):].strip()
        if not raw:
            raise NavigatorConfigError("replay: needs a trace file, e.g. replay:walk.trace.jsonl")
        path = Path(raw).expanduser()
        try:
            mtime = path.stat().st_mtime
        except OSError:
            mtime = -1.0
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached[0] == mtime:
                return cached[1]
        try:
            decisions = recorded_decisions(read_trace(path))
        except TraceError as exc:
            raise NavigatorConfigError(str(exc)) from None
        with self._lock:
            self._cache[path] = (mtime, decisions)
        return decisions

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        request.cancellation.raise_if_cancelled()
        current = request.current.id if request.current else None
        recorded = self.decisions(request.model).get(current)
        if recorded is None:
            where = "the roots" if current is None else repr(current)
            return NavigatorChoice((), f"the trace never judged {where}; stopping here")
        if recorded.error is not None:
            raise ReplayedFailure(recorded.error)
        assert recorded.choice is not None
        return recorded.choice
