"""The cost/quality curve of walk policies: a question set walked by the same navigator under each policy (depth-first,
best-first) at each visit budget, and per budget and policy its hit@3, nodes landed, precision, navigator calls and
tokens (``eval --policy P --compare-policy Q [--budgets 3,5,8,15]``; ``bench/policies.py`` sums it over sets).

Each policy's walks are a :func:`~explorer.walks.evaluation.sweep` (so over an LLM only the largest budget's calls are
made, the smaller budgets re-walked from its decisions). The figures of a point are totals, so points of several
question sets add up (:meth:`PolicyPoint.plus`): hit@3 over the questions, nodes landed per question, precision
(expected nodes landed / nodes landed), the navigator's answers per question (a re-walked budget's are the recorded
answers it replayed: what a walk at that budget asks), and the tokens of its live calls per question. Each question
says, per policy and budget, whether an expected node landed, so a miss of one policy says whether the other lands it
at the same budget (:meth:`PolicyCurve.other_lands`). Beside the policies, the flat search's hit@3
(:attr:`PolicyCurve.flat`: the judge ranking every node of the corpus, no tree, no navigator call) is a line of its
own, level: it depends on no budget.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core import Policy, TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import Question
from ...numbers import counted
from ...walk_settings import WalkSettings, policy_text
from ..session import NO_SINKS, EndHook
from .chart import BudgetChart, Series
from .outcome import QuestionOutcome
from .summary import PerQuestion
from .sweep import BudgetRow, Sweep, sweep

__all__ = ["FLAT_LINE", "PolicyCurve", "PolicyPoint", "curve_lines", "flat_line", "flat_words", "policy_curve"]

FLAT_LINE = "flat search (no tree)"
"""The flat search's line on a chart by budget: its legend."""


@dataclass(frozen=True)
class PolicyPoint(PerQuestion):
    """One policy at one budget: totals over the questions walked (add two with :meth:`plus`)."""

    policy: str
    budget: int
    questions: int
    hits_at_3: int
    landed: int
    correct: int
    calls: int
    tokens: int
    reused: bool = False
    """Re-walked from the largest budget's decisions (its calls are answers replayed, its tokens none)."""

    @classmethod
    def of(cls, policy: str, row: BudgetRow) -> PolicyPoint:
        outcomes = row.outcomes
        return cls(policy, row.budget, len(outcomes), row.summary.hits_at_3, row.summary.landed, row.summary.correct,
                   sum(o.answers for o in outcomes),
                   sum(o.cost.prompt_tokens + o.cost.completion_tokens for o in outcomes), row.reused)

    def plus(self, other: PolicyPoint) -> PolicyPoint:
        """Both sets' totals: the same policy and budget over more questions."""
        return PolicyPoint(self.policy, self.budget, self.questions + other.questions,
                           self.hits_at_3 + other.hits_at_3, self.landed + other.landed, self.correct + other.correct,
                           self.calls + other.calls, self.tokens + other.tokens, self.reused or other.reused)

    @property
    def mean_calls(self) -> float:
        return self.per_question(self.calls)

    @property
    def mean_tokens(self) -> float:
        return self.per_question(self.tokens)

    def to_json(self) -> dict[str, object]:
        return {"budget": self.budget, "policy": self.policy, "questions": self.questions,
                "hits_at_3": self.hits_at_3, "landed": self.landed, "correct": self.correct, "calls": self.calls,
                "tokens": self.tokens, "mean_landed": round(self.mean_landed, 4),
                "precision": None if self.precision is None else round(self.precision, 4),
                "mean_calls": round(self.mean_calls, 4), "mean_tokens": round(self.mean_tokens, 4),
                "reused": self.reused}


def curve_lines(points: Sequence[PolicyPoint]) -> list[str]:
    """The curve as a table: a row per budget and policy (smallest budget first, the policies in their order)."""
    if not points:
        return []
    policy = max(len("policy"), *(len(p.policy) for p in points))
    hits = max(len("hit@3"), *(len(f"{p.hits_at_3}/{p.questions}") for p in points))
    lines = [f"{'budget':>6}  {'policy':<{policy}}  {'hit@3':>{hits}}  landed  precision  calls  tokens"]
    for p in sorted(points, key=lambda p: p.budget):  # stable: the policies stay in their order
        precision = "—" if p.precision is None else f"{p.precision:.2f}"
        lines.append(f"{p.budget:>6}  {p.policy:<{policy}}  {f'{p.hits_at_3}/{p.questions}':>{hits}}  "
                     f"{p.mean_landed:>6.2f}  {precision:>9}  {p.mean_calls:>5.1f}  {p.mean_tokens:>6,.0f}")
    return lines


@dataclass(frozen=True)
class PolicyCurve:
    """Each policy's sweep of the same questions at the same budgets, the policies in the order given."""

    policies: tuple[str, ...]
    sweeps: tuple[Sweep, ...]
    flat: int | None = None
    """The questions a flat search by the judge ranks an expected node of in its first 3 (``None``: not searched)."""

    @property
    def budgets(self) -> tuple[int, ...]:
        return self.sweeps[0].budgets if self.sweeps else ()

    @property
    def questions(self) -> tuple[Question, ...]:
        return self.sweeps[0].questions if self.sweeps else ()

    def points(self) -> list[PolicyPoint]:
        """A point per budget and policy, smallest budget first."""
        return [PolicyPoint.of(policy, found.rows[number])
                for number in range(len(self.budgets)) for policy, found in zip(self.policies, self.sweeps,
                                                                                  strict=True)]

    def outcomes(self, policy: int, budget: int) -> tuple[QuestionOutcome, ...]:
        """Policy number ``policy``'s outcomes at budget number ``budget`` (both 0-based)."""
        return self.sweeps[policy].rows[budget].outcomes

    def other_lands(self, policy: int, budget: int, question: int) -> bool:
        """Whether the other policy (of two) landed an expected node for ``question`` at the same budget."""
        return self.outcomes(1 - policy, budget)[question].hit

    def other_words(self, policy: int, budget: int, question: int) -> str:
        """A miss's line about the other policy: ``best-first lands it at the same budget (15)`` or ``best-first
        misses it too (budget 15)``."""
        other, at = self.policies[1 - policy], self.budgets[budget]
        if self.other_lands(policy, budget, question):
            return f"{other} lands it at the same budget ({at})"
        return f"{other} misses it too (budget {at})"

    def chart(self) -> BudgetChart:
        """hit@3 by budget, a line per policy, and the flat search's, level, when it was searched."""
        questions = len(self.questions)
        chart = BudgetChart(f"hit@3 of {counted(questions, 'question')}, by visit budget",
                            tuple(Series(policy, tuple((p.budget, float(p.hits_at_3)) for p in self.points()
                                                       if p.policy == policy)) for policy in self.policies),
                            questions)
        return flat_line(chart, self.flat)

    def flat_words(self) -> str:
        """``flat search hit@3 26/31 at any budget: the judge ranking every node, no tree, no navigator call``
        (``""``: not searched)."""
        return flat_words(self.flat, len(self.questions))

    def lines(self) -> list[str]:
        return curve_lines(self.points())

    def to_json(self) -> dict[str, object]:
        """``eval --compare-policy … --json``'s ``policy_curve`` (docs/formats.md)."""
        return {
            "policies": list(self.policies),
            "budgets": list(self.budgets),
            "rows": [point.to_json() for point in self.points()],
            **({"flat_hits_at_3": self.flat} if self.flat is not None else {}),
            "questions": [{"id": question.id,
                           "lands": {policy: [row.outcomes[number].hit for row in found.rows]
                                     for policy, found in zip(self.policies, self.sweeps, strict=True)}}
                          for number, question in enumerate(self.questions)],
        }


def flat_words(hits: int | None, questions: int) -> str:
    """``flat search hit@3 26/31 at any budget: the judge ranking every node, no tree, no navigator call``, the line
    ``eval`` prints under a sweep's or a curve's rows (``""``: ``hits`` is ``None``, not searched)."""
    if hits is None:
        return ""
    return (f"flat search hit@3 {hits}/{questions} at any budget: the judge ranking every node, no tree, no navigator "
            "call")


def flat_line(chart: BudgetChart, hits: int | None) -> BudgetChart:
    """``chart`` with the flat search's hit@3 (``hits`` questions; ``None``: not searched) as a level line of its
    own, :data:`FLAT_LINE`."""
    return chart if hits is None else chart.level(FLAT_LINE, float(hits))


def policy_curve(
    corpus: Corpus,
    questions: Sequence[Question],
    settings: WalkSettings,
    policies: Sequence[tuple[Policy, float]],
    budgets: Sequence[int],
    *,
    navigator: TreeNavigator | None = None,
    jobs: int = 1,
    hook: EndHook = NO_SINKS,
    on_done: Callable[[QuestionOutcome], None] | None = None,
) -> PolicyCurve:
    """Walk ``questions`` at each of ``budgets`` under each policy (with its alpha), the navigator and the rest of
    ``settings`` the same."""
    names, sweeps = [], []
    for policy, alpha in policies:
        names.append(policy_text(policy, alpha))
        sweeps.append(sweep(corpus, questions, settings.but(policy=policy, alpha=alpha), budgets,
                            navigator=navigator, jobs=jobs, hook=hook, on_done=on_done))
    return PolicyCurve(tuple(names), tuple(sweeps))
