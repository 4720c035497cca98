"""An evaluation's outcomes judged as they come (explorer/walks/evaluation/verdict_run.py): nothing before a miss,
then every outcome walked here, in the order offered, by one judge made on first use; a kept run's held outcome and
one judged already are left as they are; a cancelled run judges nothing more."""

from __future__ import annotations

from dataclasses import replace

from explorer.corpora.questions import load_questions
from explorer.navigators.judge import judge_for
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import evaluate, flat_rank, judged
from explorer.walks.evaluation.verdict_run import OneJudge, VerdictRun, flat_hits_at_3
from tests.explorer.app.helpers import HANDBOOK
from tests.samples import SAMPLES

PICKED = ("trial-ends", "eu-vat-number", "money-back", "mistyped-too-often")
"""Two hits (lexical:default lands them), then two misses."""
QUESTIONS = [q for name in PICKED for q in load_questions(SAMPLES / "handbook.questions.yaml").questions
             if q.id == name]
OUTCOMES = evaluate(HANDBOOK, QUESTIONS, WalkSettings("", "lexical:default"))
LEXICAL = judge_for("lexical:default", HANDBOOK)


def test_nothing_is_judged_before_a_miss_then_every_outcome_in_the_order_offered() -> None:
    hits = [n for n, o in enumerate(OUTCOMES) if o.hit]
    misses = [n for n, o in enumerate(OUTCOMES) if not o.hit]
    assert hits and len(misses) >= 2
    judge = OneJudge(HANDBOOK, "lexical:default")
    told: list[tuple[int, object]] = []
    run = VerdictRun(judge, "lexical:default", lambda number, outcome: told.append((number, outcome)))
    assert [run.offer(n, OUTCOMES[n]) for n in hits] == [False] * len(hits)
    assert not run.begun and run.left == 0 and not judge.made
    assert run.offer(misses[0], OUTCOMES[misses[0]]) is True  # the first miss: start a drain
    assert run.offer(misses[1], OUTCOMES[misses[1]]) is False  # one is due already
    assert run.left == len(hits) + 2
    run.drain()
    assert [n for n, _ in told] == [*hits, misses[0], misses[1]] and run.left == 0 and judge.made
    for number, outcome in told:
        assert outcome == judged(OUTCOMES[number], LEXICAL, "lexical:default")
        assert outcome.flat == flat_rank(LEXICAL, QUESTIONS[number].query, QUESTIONS[number].expect)
        assert (outcome.blame is None) == OUTCOMES[number].hit
    # drained: the next miss starts another; an outcome held from a kept run (no walk) or judged already is not one
    assert run.offer(misses[0], OUTCOMES[misses[0]]) is True
    told.clear()
    run.drain()
    assert [n for n, _ in told] == [misses[0]]
    assert run.offer(0, replace(OUTCOMES[misses[0]], history=None)) is False
    assert run.offer(0, told[0][1]) is False  # type: ignore[arg-type]
    run.cancel()
    assert run.offer(misses[1], OUTCOMES[misses[1]]) is False and run.left == 0


def test_the_flat_search_hit_at_3_counts_the_questions_it_ranks_in_its_first_3() -> None:
    ranks = [flat_rank(LEXICAL, q.query, q.expect) for q in QUESTIONS]
    assert flat_hits_at_3(LEXICAL, [(q.query, q.expect) for q in QUESTIONS]) == sum(
        1 for rank in ranks if rank is not None and rank <= 3)
    assert flat_hits_at_3(LEXICAL, [("anything", ("no-such-node",))]) == 0
    assert OneJudge(HANDBOOK, "lexical:default").flat_hits_at_3([(q.query, q.expect) for q in QUESTIONS]) == sum(
        1 for rank in ranks if rank is not None and rank <= 3)


class _PausingLock:
    """A lock that runs ``then`` once, right after its next release (another thread's step, made to come there)."""

    def __init__(self) -> None:
        import threading

        self._inner = threading.Lock()
        self.then: object = None

    def __enter__(self) -> None:
        self._inner.acquire()

    def __exit__(self, *_: object) -> None:
        self._inner.release()
        then, self.then = self.then, None
        if callable(then):
            then()


def test_an_outcome_offered_as_a_drain_finds_nothing_left_is_not_lost() -> None:
    """The walk of the next question can end just as the drain sees nothing left and is about to stop: that
    outcome must start a drain of its own (offer says so), else it waits unjudged for ever."""
    misses = [n for n, o in enumerate(OUTCOMES) if not o.hit]
    run = VerdictRun(OneJudge(HANDBOOK, "lexical:default"), "lexical:default", lambda *_: arm())
    lock = _PausingLock()
    run._lock = lock  # type: ignore[assignment]  # the one way to stand a second thread between two steps
    offered: list[bool] = []

    def arm() -> None:  # told of the first: the drain's next release is the one after it found nothing left
        if not offered:
            lock.then = lambda: offered.append(run.offer(misses[1], OUTCOMES[misses[1]]))

    assert run.offer(misses[0], OUTCOMES[misses[0]]) is True
    run.drain()
    assert offered == [True] and run.left == 1  # the caller starts a drain for it
    run.drain()
    assert run.left == 0
