"""A walk's miss judged, for the step panel at its first wrong turn: the verdict in words (whose fault it was:
:mod:`.blame`) and where a flat search ranks the expected node, for any walk whose query has an expected node (an
evaluation's walk, or a walk whose query is a question of a set beside the corpus).

UI-free and worth a worker: the judge reads the whole corpus the first time (the bundled embeddings load once per
process, its tables once per judge)."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ...corpora import Corpus
from ...corpora.questions import Question, expected_for, sets_beside
from ...navigators.judge import Judge, default_judge
from ..history import WalkHistory
from .blame import flat_words
from .outcome import judged, outcome_of, wrong_turn_shown

__all__ = ["WalkVerdict", "verdict_lines", "walk_verdict"]


@dataclass(frozen=True)
class WalkVerdict:
    """Where to say it (``step``: the answer at the first wrong turn, as an evaluation opens a miss; ``None``: the
    end of the walk) and what: the verdict's words and the flat search's (plain: they name corpus text)."""

    step: int | None
    says: str
    flat: str
    node: str | None = None
    """The node whose map the verdict blames (``the map hid it`` / ``misled``: what ``M`` opens); ``None``: none."""


def walk_verdict(corpus: Corpus, history: WalkHistory, expected: Collection[str], judge: Judge) -> WalkVerdict | None:
    """The verdict on ``history`` (an ended walk) against the nodes ``expected`` by ``judge``; ``None`` when it
    landed one of them, none is in the corpus, or the walk has not ended."""
    wanted = tuple(node for node in sorted(expected) if node in corpus.index)
    if history.end is None or not wanted:
        return None
    question = Question("", history.settings.query, wanted, 0)
    outcome = outcome_of(corpus, question, history.events, str(history.end), history.error, history)
    if outcome.hit or outcome.miss is None:
        return None
    miss, outcome = outcome.miss, judged(outcome, judge, history.settings.model)
    says = outcome.blame.says if outcome.blame is not None else miss.sentence()
    return WalkVerdict(wrong_turn_shown(outcome), says, flat_words(outcome.flat, len(corpus.index)),
                       outcome.blame.node if outcome.blame is not None else None)


def verdict_lines(corpus: Corpus, history: WalkHistory, expected: Collection[str] = (),
                  judge: Judge | None = None) -> tuple[str, ...]:
    """What is said of ``history``'s miss (an ended walk): the verdict's words, then the flat search's (the latter
    ``""`` when it has no rank), against the nodes ``expected``, else those of the question that asks its query in a
    set beside the corpus; none when it landed one, none is expected, or it has not ended. ``judge``: the one to ask
    (default: :func:`~explorer.navigators.judge.default_judge`). Plain (corpus text)."""
    if history.end is None:
        return ()
    wanted = expected or expected_for(history.settings.query, sets_beside(corpus))
    if not wanted:
        return ()
    verdict = walk_verdict(corpus, history, wanted, judge if judge is not None else default_judge(corpus))
    return (verdict.says, verdict.flat) if verdict is not None else ()
