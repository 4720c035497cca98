"""What the recording tests share: the handbook, a lexical strategy over it, and eight threads walking at once
through one recorder (:mod:`tests.explorer.test_recording`, :mod:`tests.explorer.test_recording_otlp`)."""

from __future__ import annotations

import threading

from core import ReasoningRAGStrategy, TreeNavigator
from explorer.corpora import Corpus
from explorer.navigators import resolve_navigator
from explorer.recording import WalkRecorder
from tests.samples import SAMPLES

HANDBOOK = SAMPLES / "handbook.yaml"
HANG_GUARD = 60.0
"""Seconds a thread is waited for: only stops a hang, no promise of speed."""
EIGHT_QUERIES = [f"refunds {n}" if n % 2 else f"sign in {n}" for n in range(8)]
"""One query per thread, half about refunds and half about signing in."""


def strategy_for(corpus: Corpus, navigator: TreeNavigator | None = None, model: str = "lexical:default",
                 **settings: object) -> ReasoningRAGStrategy:
    return ReasoningRAGStrategy(corpus.index, navigator or resolve_navigator(model), model, **settings)  # type: ignore[arg-type]


def walk_on_eight_threads(recorder: WalkRecorder, strategy: ReasoningRAGStrategy, times: int) -> list[BaseException]:
    """Eight threads, started together, each retrieving its query of :data:`EIGHT_QUERIES` ``times`` times through
    ``recorder``; what any of them raised."""
    start = threading.Barrier(len(EIGHT_QUERIES))
    errors: list[BaseException] = []

    def walk(query: str) -> None:
        try:
            start.wait(HANG_GUARD)
            for _ in range(times):
                recorder.retrieve(strategy, query)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=walk, args=(q,)) for q in EIGHT_QUERIES]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(HANG_GUARD)
    return errors
