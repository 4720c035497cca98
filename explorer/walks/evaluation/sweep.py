"""A budget sweep: every question walked at several visit budgets, and for each question the smallest budget at
which an expected node lands ("at what budget does the answer land?"), as ``eval --budgets 3,5,8,15`` prints it.

How the smaller budgets are walked: a navigator whose answers are model calls (``costly_calls = True``, as the
LLM navigators are) is asked only for the largest budget's walks; every smaller budget re-walks each question from
those walks' recorded decisions (:func:`~explorer.walks.session.rewalk`), with no call. Under either policy the
order nodes are entered in does not depend on the budget (depth-first: the navigator's order; best-first: the
frontier's path scores, from the same answers), and a smaller budget stops that walk sooner, so every node a
smaller walk judges was judged by the largest one. What a re-walk cannot know is whether the navigator would have
answered differently when told fewer visits were left (an LLM asked for at most that many ids); each re-walked outcome
counts as replayed, never as a live call. Any other navigator answers for free and is walked live at every budget.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core import TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import Question
from ...corpora.validate import stats
from ...ending import WalkEnd
from ...numbers import counted, whole
from ...walk_settings import WalkSettings
from ..session import NO_SINKS, EndHook, rewalk, run_each
from .chart import BudgetChart, Series
from .outcome import QuestionOutcome, outcome_of
from .run import EvaluationRun
from .summary import EvalSummary, summarize

__all__ = ["MAX_BUDGETS", "BudgetRow", "Sweep", "SweepRun", "figures_lines", "hit_at_3_chart", "parse_budgets",
           "reuses_answers", "sweep", "sweep_to_json"]


def reuses_answers(navigator: TreeNavigator | None) -> bool:
    """Whether a sweep asks ``navigator`` only at the largest budget (its answers are calls that cost)."""
    return bool(getattr(navigator, "costly_calls", False))


@dataclass(frozen=True)
class BudgetRow:
    """One budget of a sweep: every question's outcome at it, and the totals."""

    budget: int
    outcomes: tuple[QuestionOutcome, ...]
    summary: EvalSummary
    reused: bool
    """Re-walked from the largest budget's decisions (no navigator call), not walked live."""

    @property
    def live_calls(self) -> int:
        return sum(o.calls for o in self.outcomes)


@dataclass(frozen=True)
class Sweep:
    """The rows, smallest budget first, over the same questions in the same order."""

    rows: tuple[BudgetRow, ...]

    @property
    def budgets(self) -> tuple[int, ...]:
        return tuple(row.budget for row in self.rows)

    @property
    def questions(self) -> tuple[Question, ...]:
        return tuple(o.question for o in self.rows[0].outcomes) if self.rows else ()

    def lands_from(self, number: int) -> int | None:
        """The smallest budget at which question ``number`` (0-based) landed an expected node (``None``: not within
        the largest). A question that lands at a budget and not at a larger one still lands from the smallest."""
        return next((row.budget for row in self.rows if row.outcomes[number].hit), None)

    def needs(self) -> list[tuple[int | None, Question]]:
        """Every question with the budget it needs, the cheapest first, those never landed last."""
        found = [(self.lands_from(n), q) for n, q in enumerate(self.questions)]
        largest = max(self.budgets, default=0)
        return sorted(found, key=lambda pair: largest + 1 if pair[0] is None else pair[0])

    def lines(self) -> list[str]:
        """The sweep as ``eval --budgets`` prints it: a row per budget, then each question's budget."""
        width = max(len(str(b)) for b in self.budgets)
        lines = ["Budget sweep" + ("  (smaller budgets re-walked from the largest one's decisions: no call)"
                                   if any(row.reused for row in self.rows) else "")]
        for row in self.rows:
            s = row.summary
            precision = "—" if s.precision is None else f"{s.precision:.0%}"
            lines.append(f"  budget {row.budget:>{width}}  hit {s.hits}/{s.questions} ({s.hit_rate:.0%}) · "
                         f"hit@3 {round(s.hit_at_3_rate * s.questions)}/{s.questions} · landed "
                         f"{s.mean_landed:.1f} · precision {precision} · live calls {row.live_calls}")
        lines.append("Per question:")
        largest = max(self.budgets)
        for budget, question in self.needs():
            said = f"lands from {budget}" if budget is not None else f"not within {largest}"
            lines.append(f"  {question.id}  {said}")
        return lines

    def to_json(self) -> dict[str, object]:
        return sweep_to_json(self)

    def hit_at_3(self, name: str) -> Series:
        """The sweep's hit@3 at each budget, as a line of a chart named ``name``."""
        return Series(name, tuple((row.budget, float(row.summary.hits_at_3)) for row in self.rows))


def figures_lines(named: Sequence[tuple[str, Sweep]]) -> list[str]:
    """Each budget's figures, a row per sweep (named, when there are several: ``A``, ``B``) at each budget: hits of
    all, hit@3, precision and the live calls, under a heading; the table beside the chart."""
    if not named:
        return []
    side = max(len(name) for name, _ in named)
    questions = max(len(found.questions) for _, found in named)
    hits = max(len("hits"), 2 * len(str(questions)) + 1)
    lead = f"{'':<{side}} " if side else ""
    lines = [f"{lead}{'budget':>6}  {'hits':>{hits}}  hit@3  prec.  calls"]
    for number, budget in enumerate(named[0][1].budgets):
        for name, found in named:
            s = found.rows[number].summary
            precision = "—" if s.precision is None else f"{s.precision:.0%}"
            row = f"{name:<{side}} " if side else ""
            lines.append(f"{row}{budget:>6}  {f'{s.hits}/{s.questions}':>{hits}}  {s.hits_at_3:>5}  {precision:>5}  "
                         f"{found.rows[number].live_calls:>5,}")
    return lines


def hit_at_3_chart(named: Sequence[tuple[str, Sweep]]) -> BudgetChart:
    """hit@3 by budget, a line per sweep (a side of an A/B evaluation, each named), over the same questions."""
    questions = max((len(found.questions) for _, found in named), default=0)
    return BudgetChart(f"hit@3 of {counted(questions, 'question')}, by visit budget",
                       tuple(found.hit_at_3(name) for name, found in named), questions)


def sweep_to_json(found: Sweep) -> dict[str, object]:
    """``eval --budgets … --json``: a row per budget and each question's smallest landing budget."""
    from .summary import summary_to_json

    return {
        "budgets": list(found.budgets),
        "rows": [{"budget": row.budget, "reused": row.reused, "live_calls": row.live_calls,
                  "summary": summary_to_json(row.summary)} for row in found.rows],
        "questions": [{"id": q.id, "lands_from": found.lands_from(n)} for n, q in enumerate(found.questions)],
    }


def _rewalked(corpus: Corpus, source: QuestionOutcome, budget: int,
              hook: EndHook) -> QuestionOutcome:
    assert source.history is not None
    session = rewalk(source.history, corpus, max_nodes_visited=budget, hook=hook)
    events = session.run_headless()
    history = session.history
    return outcome_of(corpus, source.question, events, history.end or WalkEnd.FINISHED, history.error, history)


MAX_BUDGETS = 20
"""The most budgets one sweep takes (``--budgets``, and the evaluation screen's prompt)."""


def parse_budgets(text: str) -> tuple[int, ...]:
    """``3,5,8,15`` as visit budgets, smallest first with repeats dropped: each a whole number from 1 to 100,000, at
    most :data:`MAX_BUDGETS` of them; a :class:`ValueError` that says which is wrong and how to write them."""
    parts = text.split(",")
    if len(parts) > MAX_BUDGETS:
        raise ValueError(f"{len(parts)} budgets; give at most {MAX_BUDGETS}")
    try:
        return tuple(sorted({whole(part, 1, 100_000, "a visit budget") for part in parts}))
    except ValueError as exc:
        raise ValueError(f"{exc}; give budgets as whole numbers separated by commas: 3,5,8,15") from None


class SweepRun:
    """A sweep that can be cancelled from any thread (the evaluation screen's ``x``): :meth:`run` walks it and
    returns the :class:`Sweep`, or ``None`` when it was cancelled before every budget was walked. The walks under
    way when it is cancelled are stopped; no other is started."""

    def __init__(self, corpus: Corpus, questions: Sequence[Question], settings: WalkSettings, budgets: Sequence[int],
                 *, navigator: TreeNavigator | None = None, jobs: int = 1,
                 hook: EndHook = NO_SINKS) -> None:
        self.budgets = tuple(sorted(set(budgets)))
        if not self.budgets or self.budgets[0] < 1:
            raise ValueError(f"budgets must be whole numbers of at least 1, got {list(budgets)}")
        self.corpus, self.questions, self.settings = corpus, tuple(questions), settings
        self.navigator, self.jobs, self.hook = navigator, jobs, hook
        self._lock = threading.Lock()
        self._cancelled = False
        self._run: EvaluationRun | None = None

    @property
    def walks(self) -> int:
        """How many walks the sweep makes: every question at every budget."""
        return len(self.questions) * len(self.budgets)

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            run = self._run
        if run is not None:
            run.cancel()

    def _evaluate(self, budget: int, on_done: Callable[[QuestionOutcome], None] | None) -> list[QuestionOutcome]:
        run = EvaluationRun(self.corpus, self.questions, self.settings.but(max_nodes_visited=budget),
                            navigator=self.navigator, jobs=self.jobs, hook=self.hook)
        with self._lock:
            if self._cancelled:
                return []
            self._run = run
        outcomes = run.run(None if on_done is None else lambda _, outcome: on_done(outcome))
        return [o for o in outcomes if o is not None]

    def run(self, on_done: Callable[[QuestionOutcome], None] | None = None) -> Sweep | None:
        """Walk the sweep (the module docstring says which walks call the navigator); ``on_done`` is told of each
        walk as it ends, on the thread that walked it."""
        corpus_stats = stats(self.corpus)
        largest = self.budgets[-1]
        top = self._evaluate(largest, on_done)
        if self._cancelled:
            return None
        rows: dict[int, BudgetRow] = {largest: BudgetRow(largest, tuple(top), summarize(top, corpus_stats), False)}
        reuse = reuses_answers(self.navigator)
        for budget in self.budgets[:-1]:
            if reuse:
                found: list[QuestionOutcome | None] = [None] * len(top)

                def walk(number: int, budget: int = budget, found: list[QuestionOutcome | None] = found) -> None:
                    if self._cancelled:
                        return
                    found[number] = outcome = _rewalked(self.corpus, top[number], budget, self.hook)
                    if on_done is not None:
                        on_done(outcome)

                run_each(walk, range(len(top)), jobs=self.jobs, cancel=lambda: None, thread_name="sweep")
                outcomes = [o for o in found if o is not None]
            else:
                outcomes = self._evaluate(budget, on_done)
            if self._cancelled:
                return None
            rows[budget] = BudgetRow(budget, tuple(outcomes), summarize(outcomes, corpus_stats), reuse)
        return Sweep(tuple(rows[b] for b in self.budgets))


def sweep(
    corpus: Corpus,
    questions: Sequence[Question],
    settings: WalkSettings,
    budgets: Sequence[int],
    *,
    navigator: TreeNavigator | None = None,
    jobs: int = 1,
    hook: EndHook = NO_SINKS,
    on_done: Callable[[QuestionOutcome], None] | None = None,
) -> Sweep:
    """Walk every question at each budget (the module docstring says which walks call the navigator)."""
    found = SweepRun(corpus, questions, settings, budgets, navigator=navigator, jobs=jobs, hook=hook).run(
        on_done)
    assert found is not None  # nobody else holds the run to cancel it
    return found
