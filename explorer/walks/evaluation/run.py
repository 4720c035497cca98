"""Walking a question set: every question walked with one navigator and settings, ``jobs`` at a time, on threads,
each walk kept so a person can open it, the whole run cancellable (:class:`EvaluationRun`, :func:`evaluate`)."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

from core import TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import Question
from ...ending import WalkEnd
from ...navigators import resolve_navigator, shared_across_threads
from ...walk_settings import WalkSettings
from ..history import Origin, WalkHistory
from ..session import NO_SINKS, EndHook, WalkSession, run_each
from ..settings import describe_settings
from .outcome import QuestionOutcome, outcome_of

__all__ = ["EvaluationRun", "evaluate"]


class EvaluationRun:
    """Every question of a set walked with ``settings`` (the query set per question), ``jobs`` at a time.

    ``navigator`` walks every question; threads share it unless it cannot be
    shared (:func:`~explorer.navigators.shared_across_threads`), and then each
    thread resolves ``settings.model`` once, as it does without one. ``held``: outcomes a run kept before holds, by
    question number (a run resumed): they are outcomes from the start and those questions are never walked, so no
    navigator is asked about them. :meth:`run` returns the outcomes in question order
    (``None`` for a question never walked because the run was cancelled);
    :meth:`cancel`, from any thread, trips the token of every walk under way
    and starts no other. ``on_done(number, outcome)`` (``number`` 0-based) is
    told of each walk as it ends, on the thread that walked it.
    """

    def __init__(
        self,
        corpus: Corpus,
        questions: Sequence[Question],
        settings: WalkSettings,
        *,
        navigator: TreeNavigator | None = None,
        jobs: int = 1,
        hook: EndHook = NO_SINKS,
        held: Mapping[int, QuestionOutcome] | None = None,
    ) -> None:
        self.corpus = corpus
        self.questions = tuple(questions)
        self.settings = settings
        self.navigator = navigator
        self.jobs = max(1, jobs)
        self.hook = hook
        self.held = dict(held or {})
        self.outcomes: list[QuestionOutcome | None] = [self.held.get(n) for n in range(len(self.questions))]
        self._lock = threading.Lock()
        self._live: set[WalkSession] = set()
        self._cancelled = False
        self._local = threading.local()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    @property
    def to_walk(self) -> list[int]:
        """The questions this run walks (0-based): those it does not hold already."""
        return [n for n in range(len(self.questions)) if n not in self.held]

    @property
    def done(self) -> int:
        """Questions walked so far."""
        with self._lock:
            return sum(o is not None for o in self.outcomes)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            live = list(self._live)
        for session in live:
            session.cancel()

    def _navigator(self) -> TreeNavigator:
        if self.navigator is not None and (self.jobs == 1 or shared_across_threads(self.navigator)):
            return self.navigator
        navigator: TreeNavigator | None = getattr(self._local, "navigator", None)
        if navigator is None:
            navigator = self._local.navigator = resolve_navigator(self.settings.model)
        return navigator

    def walk(self, number: int) -> QuestionOutcome | None:
        """Walk question ``number`` (0-based) on this thread; ``None`` once the run is cancelled."""
        question = self.questions[number]
        settings = self.settings.but(query=question.query)
        history = WalkHistory(settings, Origin.WALK, label=f"question {question.id} · {describe_settings(settings)}")
        with self._lock:
            if self._cancelled:
                return None
        session = WalkSession(self.corpus, history, self._navigator(), hook=self.hook)
        with self._lock:
            if self._cancelled:
                return None
            self._live.add(session)
        try:
            events = session.run_headless()
        finally:
            with self._lock:
                self._live.discard(session)
        outcome = outcome_of(self.corpus, question, events, history.end or WalkEnd.FINISHED, history.error, history)
        with self._lock:
            self.outcomes[number] = outcome
        return outcome

    def run(self, on_done: Callable[[int, QuestionOutcome], None] | None = None) -> list[QuestionOutcome | None]:
        def walk(number: int) -> None:
            outcome = self.walk(number)
            if outcome is not None and on_done is not None:
                on_done(number, outcome)

        run_each(walk, self.to_walk, jobs=self.jobs, cancel=self.cancel, thread_name="eval")
        return list(self.outcomes)


def evaluate(
    corpus: Corpus,
    questions: Sequence[Question],
    settings: WalkSettings,
    *,
    jobs: int = 1,
    navigator: TreeNavigator | None = None,
    on_done: Callable[[QuestionOutcome], None] | None = None,
    hook: EndHook = NO_SINKS,
    held: Mapping[int, QuestionOutcome] | None = None,
) -> list[QuestionOutcome]:
    """Walk every question (``jobs`` at a time; those ``held`` already are not walked again) and return the outcomes
    in question order.

    ``hook`` is each walk's end (its sinks told on the thread that walked it), e.g. a tracing export."""
    run = EvaluationRun(corpus, questions, settings, navigator=navigator, jobs=jobs, hook=hook, held=held)
    outcomes = run.run(None if on_done is None else lambda _, outcome: on_done(outcome))
    return [o for o in outcomes if o is not None]
