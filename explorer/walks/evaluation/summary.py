"""The figures of a whole question set: hits, hit@k, precision, misses by reason, cost (:class:`EvalSummary`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ...corpora.validate import CorpusStats
from ...ending import WalkEnd
from ..habits import HabitCounts
from .blame import BlameKind
from .misses import MissReason
from .outcome import QuestionOutcome

__all__ = ["EvalSummary", "PerQuestion", "cached_words", "summarize", "summary_to_json"]


class PerQuestion:
    """Totals over the questions walked, as rates: the one place a count becomes a rate per question, and the nodes
    landed a mean and a precision (an evaluation's summary and a policy's point on the cost curve alike)."""

    questions: int
    landed: int
    """Nodes landed, over all questions."""
    correct: int
    """Expected nodes landed, over all questions."""

    def per_question(self, count: float) -> float:
        """``count`` per question walked (0 when none was)."""
        return count / self.questions if self.questions else 0.0

    @property
    def mean_landed(self) -> float:
        return self.per_question(self.landed)

    @property
    def precision(self) -> float | None:
        """Expected nodes landed / nodes landed, over all questions (``None`` when nothing landed)."""
        return self.correct / self.landed if self.landed else None


@dataclass(frozen=True)
class EvalSummary(PerQuestion):
    questions: int
    hits: int
    branch_entries: int
    mean_visits: float
    mean_calls: float
    mean_chars: float
    chars_vs_titles_summaries: float
    """Mean characters shipped per question / the corpus's title and summary characters."""
    chars_vs_content: float
    """Mean characters shipped per question / the corpus's content characters."""
    answers: int
    valid_answers: int
    failed: int
    stop_reasons: dict[str, int] = field(default_factory=dict)
    hits_at_1: int = 0
    hits_at_3: int = 0
    landed: int = 0
    """Nodes landed, over all questions."""
    correct: int = 0
    """Expected nodes landed, over all questions."""
    misses: dict[str, int] = field(default_factory=dict)
    """Misses by reason (:class:`MissReason` values), in the enum's order."""
    cached: int = 0
    """Answers read from the response cache (no call): each a live call saved."""
    mean_chars_saved: float = 0.0
    """Mean characters a question's cached answers would have shipped live."""
    habits: HabitCounts = field(default_factory=HabitCounts)
    """Each LLM habit (:mod:`explorer.walks.habits`) counted over every question's decisions."""
    verdicts: dict[str, int] = field(default_factory=dict)
    """Misses by verdict (:class:`BlameKind` values, in the enum's order), for a judged run."""
    flat_hits_at_3: int | None = None
    """Questions whose expected node a flat search by the judge ranks in its first 3 (``None``: not judged)."""
    judged: int = 0
    """Questions judged (the flat search ran for them)."""

    @property
    def flat_hit_at_3_rate(self) -> float | None:
        return self.flat_hits_at_3 / self.judged if self.flat_hits_at_3 is not None and self.judged else None

    @property
    def hit_rate(self) -> float:
        return self.per_question(self.hits)

    @property
    def hit_at_1_rate(self) -> float:
        return self.per_question(self.hits_at_1)

    @property
    def hit_at_3_rate(self) -> float:
        return self.per_question(self.hits_at_3)

    @property
    def branch_rate(self) -> float:
        return self.per_question(self.branch_entries)

    @property
    def valid_answer_rate(self) -> float:
        return self.valid_answers / self.answers if self.answers else 1.0


def summarize(outcomes: Sequence[QuestionOutcome], stats: CorpusStats) -> EvalSummary:
    count = len(outcomes)

    def mean(values: Sequence[int]) -> float:
        return sum(values) / count if count else 0.0

    mean_chars = mean([o.chars_shipped for o in outcomes])
    mean_saved = mean([o.chars_saved for o in outcomes])  # before the misses' ``count :=`` below rebinds count
    flat = [o for o in outcomes if o.flat is not None]
    reasons: Counter[str] = Counter()
    for o in outcomes:
        reasons.update(o.stop_reasons)
    return EvalSummary(
        questions=count,
        hits=sum(o.hit for o in outcomes),
        branch_entries=sum(o.branch_entered for o in outcomes),
        mean_visits=mean([o.visits_used for o in outcomes]),
        mean_calls=mean([o.calls for o in outcomes]),
        mean_chars=mean_chars,
        chars_vs_titles_summaries=mean_chars / stats.title_summary_chars if stats.title_summary_chars else 0.0,
        chars_vs_content=mean_chars / stats.content_chars if stats.content_chars else 0.0,
        answers=sum(o.answers for o in outcomes),
        valid_answers=sum(o.valid_answers for o in outcomes),
        failed=sum(1 for o in outcomes if o.end != WalkEnd.FINISHED),
        stop_reasons=dict(sorted(reasons.items())),
        hits_at_1=sum(o.hit_at_1 for o in outcomes),
        hits_at_3=sum(o.hit_at_3 for o in outcomes),
        landed=sum(o.landed_count for o in outcomes),
        correct=sum(o.correct for o in outcomes),
        misses={reason.value: count for reason in MissReason
                if (count := sum(1 for o in outcomes if o.miss_reason is reason))},
        cached=sum(o.cached for o in outcomes),
        mean_chars_saved=mean_saved,
        habits=sum((o.habits for o in outcomes), HabitCounts()),
        verdicts={kind.value: count for kind in BlameKind
                  if (count := sum(1 for o in outcomes if o.blame is not None and o.blame.kind is kind))},
        flat_hits_at_3=sum(1 for o in outcomes if o.flat is not None and o.flat <= 3) if flat else None,
        judged=len(flat),
    )


def summary_to_json(summary: EvalSummary) -> dict[str, object]:
    """The totals as ``eval --json`` prints them (``summary``; ``habits`` only for a run an LLM answered)."""
    return {
        "questions": summary.questions, "hit_rate": summary.hit_rate, "hits": summary.hits,
        "hits_at_1": summary.hits_at_1, "hit_at_1_rate": summary.hit_at_1_rate,
        "hits_at_3": summary.hits_at_3, "hit_at_3_rate": summary.hit_at_3_rate,
        "mean_landed": summary.mean_landed, "precision": summary.precision, "misses": summary.misses,
        "branch_entry_rate": summary.branch_rate, "mean_visits": summary.mean_visits,
        "mean_navigator_calls": summary.mean_calls, "mean_chars_shipped": summary.mean_chars,
        "chars_vs_titles_summaries": summary.chars_vs_titles_summaries,
        "chars_vs_content": summary.chars_vs_content, "valid_answer_rate": summary.valid_answer_rate,
        "cached_answers": summary.cached, "mean_chars_saved": summary.mean_chars_saved,
        "failed_walks": summary.failed, "stop_reasons": summary.stop_reasons,
        "verdicts": summary.verdicts, "flat_hits_at_3": summary.flat_hits_at_3,
        **({"habits": summary.habits.to_json()} if summary.habits.decisions else {}),  # only a run an LLM answered
    }


def cached_words(cached: int, questions: int, mean_chars_saved: float) -> str:
    """A run whose answers came (some or all) from the response cache, in words, with the live cost it saved:
    ``cached: 6 answers from the response cache · saved live: 2.0 calls and 2,469 chars a question``; ``""`` for
    a run with none."""
    if not cached:
        return ""
    answers = "1 answer" if cached == 1 else f"{cached:,} answers"
    per = cached / questions if questions else 0.0
    return (f"cached: {answers} from the response cache · saved live: {per:.1f} calls and "
            f"{mean_chars_saved:,.0f} chars a question")
