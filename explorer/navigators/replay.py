"""The replay navigator: repeats the decisions recorded in a trace, for free.

``replay:PATH`` answers each offer with what the traced navigator answered
for the same node (``start`` for the roots): the same ids, rationale,
usage and transcript, or the same failure, each marked replayed (no call,
nothing sent: :mod:`.answered`). A node the trace never judged (reachable now
because the budget or depth limit changed) stops there, with a rationale
that says so and the mark of :func:`.answered.never_judged_pair` (shown
``never judged``). This is how an expensive LLM walk is re-run with another budget.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from core import NavigatorChoice, NavigatorChose, NavigatorFailed, NavigatorRequest, Transcript, TreeNavigator

from ..trace import Trace, read_trace
from .answer_size import capped
from .answered import Answered, never_judged_pair
from .file_cache import FileCache
from .forcing import marked

PREFIX = "replay:"


class ReplayedFailure(RuntimeError):
    """The failure the traced navigator had at this node (with the transcript it recorded)."""

    def __init__(self, message: str, transcript: Transcript | None = None) -> None:
        super().__init__(message)
        self.transcript = transcript


@dataclass(frozen=True)
class Recorded:
    choice: NavigatorChoice | None
    error: str | None
    transcript: Transcript | None = None


def recorded_decisions(trace: Trace) -> dict[str | None, Recorded]:
    """What the traced navigator answered, by the id of the node it judged (``None``: the roots)."""
    decisions: dict[str | None, Recorded] = {}
    for event in trace.events:
        if isinstance(event, NavigatorChose):
            choice = NavigatorChoice(event.selected, event.rationale, event.usage, event.transcript,
                                     scores=event.scores)
            decisions.setdefault(event.current, Recorded(choice, None))
        elif isinstance(event, NavigatorFailed):
            decisions.setdefault(event.current, Recorded(None, event.error, event.transcript))
    return decisions


class ReplayNavigator(TreeNavigator):
    """``replay:PATH`` — the decisions of a saved trace."""

    def __init__(self) -> None:
        self._traces = FileCache(PREFIX, "walk.trace.jsonl", lambda path: recorded_decisions(read_trace(path)))

    def supports(self, model: str) -> bool:
        return model.startswith(PREFIX)

    def reads_file(self, model: str) -> bool:
        """Every ``replay:`` model names a file (a session with files off refuses it before it is read)."""
        return True

    def files_read(self, model: str) -> tuple[Path, ...]:
        """The trace ``model`` names (no output may be written over it)."""
        path = self._traces.path_of(model)
        return (path,) if path is not None else ()

    def check_model(self, model: str) -> None:
        """Read the trace now, so a bad one is a configuration error before the walk."""
        self.decisions(model)

    def decisions(self, model: str) -> dict[str | None, Recorded]:
        return self._traces.get(model)

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        request.cancellation.raise_if_cancelled()
        current = request.current.id if request.current else None
        recorded = self.decisions(request.model).get(current)
        if recorded is None:
            where = "the roots" if current is None else repr(current)
            note = f"the trace never judged {where}; stopping here"
            return NavigatorChoice((), note, transcript=(never_judged_pair(note),))
        if recorded.error is not None:
            raise ReplayedFailure(recorded.error, marked(recorded.transcript, Answered.REPLAYED, "the failure traced"))
        choice = recorded.choice
        assert choice is not None
        replayed = NavigatorChoice(choice.selected, choice.rationale, choice.usage,
                                   marked(choice.transcript, Answered.REPLAYED, "the answer traced at this node"),
                                   scores=choice.scores)
        # A trace may hold any answer (100,000 ids in one took a replay 29 s and 520 MB): cut as a live one is.
        return capped(replayed, len(request.candidates))  # type: ignore[return-value]
