"""A miss judged on the walk screen: when the walk on screen has ended and its query expects a node it did not land
(an evaluation's walk, or a question of a set beside the corpus), an independent judge says, on a worker, whose
fault it was and where a flat search ranks the expected node; the step panel says it at the first wrong turn
(:mod:`explorer.walks.evaluation.walk_verdict`). The walk it is compared with (``D``, ``T``'s re-walk) is judged as
well, once it ends, so that each side of the comparison says its own verdict. Each walk is judged once; the judge
is made once per screen (the bundled embeddings load once per process), so the screen never waits on it."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
import weakref
from collections.abc import Collection, Sequence

from ...corpora.questions import expected_for, sets_beside
from ...navigators import NavigatorConfigError
from ...navigators.judge import Judge
from ...walks.evaluation.walk_verdict import verdict_lines, walk_verdict
from ...walks.history import Change, WalkHistory
from ...walks.walk_list import Walk
from .shown import Aspect, Grounds, Part


class Judging(Part):
    """Judge the miss of each walk shown once it has ended, against the nodes marked expected on the tree, else
    those of the question that asks its query in a set beside the corpus (read on the worker too)."""

    def __init__(self, grounds: Grounds) -> None:
        super().__init__(grounds)
        self._judge: Judge | None = None
        self._lock = threading.Lock()
        self._asked: weakref.WeakSet[Walk] = weakref.WeakSet()
        """The walks judged or being judged."""
        self.view.watch(self._changed)

    def judge(self, told: list[str] | None = None) -> Judge | None:
        """The screen's judge, the one ``--judge`` named (the wiring's; default: the bundled embeddings, BM25 when
        they cannot load, which ``told`` is given to say), made on first use (a worker's); ``None``: ``--judge
        none``."""
        with self._lock:
            if self._judge is None:
                self._judge = self.wiring.judge_of(self.corpus, told.append if told is not None else None)
            return self._judge

    def lines(self, history: WalkHistory, expected: Collection[str]) -> tuple[str, ...]:
        """What is said of ``history``'s miss (:func:`~explorer.walks.evaluation.walk_verdict.verdict_lines`) by the
        screen's judge; none when verdicts are off. Worth a worker (the export's)."""
        judge = self.judge() if self.wiring.judging else None
        return () if judge is None else verdict_lines(self.corpus, history, expected, judge)

    def forget_judge(self) -> None:
        """The map changed (``M``): the next judge is made on the corpus as it reads now; the walks judged stay so."""
        with self._lock:
            self._judge = None

    def _changed(self, change: Change | Aspect) -> None:
        if change in (Aspect.WALK, Aspect.OVERLAY, Aspect.PRESENTING, Change.ENDED):
            self.consider(self.view.walk)
        if change in (Aspect.PARTNER, Aspect.OVERLAY, Aspect.PRESENTING):  # the partner grew, ended or came
            self.consider(self.view.partner)

    def consider(self, walk: Walk | None) -> None:
        """Judge ``walk`` on a worker when it has ended and its query expects a node (once per walk); not while
        presenting, which shows no step panel (an export's drawing presents: it never waits on a judge)."""
        if walk is None or walk.judged is not None or walk in self._asked or self.view.presenting \
                or not self.wiring.judging:  # --judge none: the step panel says nothing of a verdict
            return
        history = walk.history
        if history.end is None:
            return
        marked = self.view.expected
        self._asked.add(walk)
        # Said back on the screen's loop, in its context, without waiting: a screen gone by then hears nothing.
        loop, context = asyncio.get_running_loop(), contextvars.copy_context()

        def work() -> None:
            expected = marked or expected_for(history.settings.query, sets_beside(self.corpus))
            told: list[str] = []  # the default judge's fallback to BM25, said once it is made
            try:
                judge = self.judge(told) if expected else None
            except NavigatorConfigError as exc:  # --judge semantic:default named, and the embeddings cannot load
                told.append(f"--judge: {exc}")
                judge = None
            verdict = walk_verdict(self.corpus, history, expected, judge) if judge is not None else None
            lines = (verdict.says, verdict.flat) if verdict is not None else ()
            judged = (verdict.step if verdict is not None else None, lines)
            blamed = verdict.node if verdict is not None else None
            with contextlib.suppress(RuntimeError):  # the app closed while the judge looked: nothing to say
                loop.call_soon_threadsafe(self._judged, walk, judged, blamed, told, context=context)

        self.stage.run_worker(work, thread=True, group="judging", exit_on_error=False, name="judge a miss")

    def _judged(self, walk: Walk, judged: tuple[int | None, tuple[str, ...]], blamed: str | None = None,
                told: Sequence[str] = ()) -> None:
        for line in told:
            self.say(line[:1].upper() + line[1:] + ".", severity="warning", timeout=8)
        walk.judged, walk.blamed = judged, blamed
        if walk is self.view.walk or walk is self.view.partner:
            self.view.announce(Aspect.JUDGED)
