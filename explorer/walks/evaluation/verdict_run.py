"""An evaluation's outcomes judged as they come, for the evaluation screen: each miss's verdict (whose fault it was,
:mod:`.blame`) and every question's flat-search rank, by one judge made only once a miss is seen (an evaluation
with no miss loads no judge and computes nothing).

A :class:`VerdictRun` is told of each outcome as its walk ends (:meth:`VerdictRun.offer`, from any thread); the
outcomes wait until the first miss comes, then a caller's worker drains them (:meth:`VerdictRun.drain`), one at a
time, telling ``told`` of each judged one. No thread waits for more: a drain ends when nothing is left, and
:meth:`~VerdictRun.offer` says when another is needed. :class:`OneJudge` is the judge a screen's runs share (the
one ``--judge`` names, else the default: :func:`~explorer.navigators.judge.default_judge`), made on first use, one
outcome judged at a time.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable

from core import TreeNavigator

from ...corpora import Corpus
from ...navigators.judge import Judge
from ...navigators.navigator_judge import judge_named
from ..wiring import Wiring
from .blame import flat_rank
from .outcome import QuestionOutcome, judged

__all__ = ["OneJudge", "VerdictRun", "flat_hits_at_3"]


class OneJudge:
    """The judge of ``corpus`` ``name`` names (``None``: the default judge, BM25 when the embeddings cannot load,
    which ``told`` hears; an LLM's navigator wired by ``wire``), made when first needed and used by one thread at a
    time."""

    def __init__(self, corpus: Corpus, name: str | None = None,
                 wire: Callable[[TreeNavigator], TreeNavigator] = lambda navigator: navigator,
                 told: Callable[[str], None] | None = None) -> None:
        self.corpus = corpus
        self.name = name
        self._wire = wire
        self._told = told
        self._judge: Judge | None = None
        self._lock = threading.Lock()

    @classmethod
    def of(cls, corpus: Corpus, wiring: Wiring, told: Callable[[str], None] | None = None) -> OneJudge | None:
        """The judge ``wiring`` was asked for (``--judge``), on ``corpus``; ``None`` when verdicts are off."""
        return cls(corpus, wiring.judge, wiring.wire, told) if wiring.judging else None

    @property
    def made(self) -> bool:
        """Whether the judge was made (it reads the whole corpus the first time)."""
        return self._judge is not None

    def _made(self) -> Judge:
        if self._judge is None:
            self._judge = judge_named(self.name, self.corpus, self._wire, self._told)
        return self._judge

    def judged(self, outcome: QuestionOutcome, model: str) -> QuestionOutcome:
        """``outcome`` with its verdict and its flat-search rank (:func:`~.outcome.judged`)."""
        with self._lock:
            return judged(outcome, self._made(), model)

    def flat_hits_at_3(self, questions: list[tuple[str, tuple[str, ...]]]) -> int:
        """How many of ``questions`` (query, expected ids) a flat search ranks an expected node of in its first 3."""
        with self._lock:
            return flat_hits_at_3(self._made(), questions)


def flat_hits_at_3(judge: Judge, questions: list[tuple[str, tuple[str, ...]]]) -> int:
    """How many of ``questions`` (query, expected ids) ``judge``'s flat search ranks an expected node of in its
    first 3: the flat line of the cost/quality curve (it needs no navigator and no budget)."""
    return sum(1 for query, expect in questions if (rank := flat_rank(judge, query, expect)) is not None
               and rank <= 3)


def needs_judging(outcome: QuestionOutcome) -> bool:
    """Whether ``outcome`` is one to judge: walked here (a kept run's held outcome is as it was kept) and not yet
    judged."""
    return outcome.history is not None and outcome.flat is None and outcome.blame is None


class VerdictRun:
    """The outcomes of one side's run judged by ``judge`` (``model``: the navigator that walked them), each told
    to ``told(number, outcome)`` on the draining thread, none before a miss comes (see the module)."""

    def __init__(self, judge: OneJudge, model: str, told: Callable[[int, QuestionOutcome], None]) -> None:
        self.judge = judge
        self.model = model
        self.told = told
        self._lock = threading.Lock()
        self._waiting: deque[tuple[int, QuestionOutcome]] = deque()
        self._begun = False
        self._draining = False
        self._judging = 0
        self._cancelled = False

    @property
    def begun(self) -> bool:
        """Whether a miss came, so that judging began."""
        with self._lock:
            return self._begun

    @property
    def left(self) -> int:
        """Outcomes still to judge once judging began (0 before: none will be judged until a miss comes)."""
        with self._lock:
            return len(self._waiting) + self._judging if self._begun else 0

    def offer(self, number: int, outcome: QuestionOutcome) -> bool:
        """Take question ``number``'s ``outcome`` to judge (if it is one: :func:`needs_judging`); ``True`` when the
        caller must now start :meth:`drain` on a worker (a miss came and no drain is under way)."""
        with self._lock:
            if self._cancelled or not needs_judging(outcome):
                return False
            self._waiting.append((number, outcome))
            self._begun = self._begun or not outcome.hit
            if self._begun and not self._draining:
                self._draining = True
                return True
            return False

    def drain(self) -> None:
        """Judge the outcomes waiting, one at a time, telling ``told`` of each, until none is left or the run is
        cancelled (a worker's body). A judge that breaks ends the run (what it raised goes to the caller)."""
        try:
            while True:
                with self._lock:
                    if self._cancelled or not self._waiting:
                        # said done in the same hold that found nothing left: an outcome offered after it starts
                        # a drain of its own (set apart, it would wait unjudged for ever)
                        self._draining = False
                        return
                    number, outcome = self._waiting.popleft()
                    self._judging = 1
                try:
                    found = self.judge.judged(outcome, self.model)
                except Exception:
                    self.cancel()
                    raise
                finally:
                    with self._lock:
                        self._judging = 0
                with self._lock:
                    if self._cancelled:
                        self._draining = False
                        return
                self.told(number, found)
        except BaseException:
            with self._lock:
                self._draining = False
            raise

    def cancel(self) -> None:
        """Judge nothing more (the run was replaced, or the screen is going away)."""
        with self._lock:
            self._cancelled = True
            self._waiting.clear()
