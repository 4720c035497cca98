"""Evaluating a navigator on a question set: per question, did the walk land an answer, and if not,
where did it go wrong? UI-free; the command line prints it and the explorer's evaluation screen shows it.

An :class:`EvaluationRun` walks every question (``jobs`` at a time, on
threads), keeps each walk's :class:`~explorer.walks.history.WalkHistory` so a
person can open it, and can be cancelled as a whole. Two navigators over the
same set are compared question by question (:func:`compare_outcomes`).
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from core import (
    HierarchyIndex,
    NavigatorChose,
    NavigatorFailed,
    PathStopped,
    StopReason,
    TreeNavigator,
    WalkEvent,
)

from ..corpora import Corpus
from ..corpora.questions import Question, looks_like_question_set
from ..corpora.validate import CorpusStats
from ..ending import WalkEnd
from ..navigators import resolve_navigator, shared_across_threads
from ..safe_text import visible
from .history import Origin, WalkHistory
from .session import WalkObserver, WalkSession, WalkSettings, run_each
from .state import Cost, WalkState

__all__ = [
    "Change", "Difference", "EvalComparison", "EvalSummary", "EvaluationRun", "Miss", "MissReason",
    "QuestionOutcome", "compare_outcomes", "comparison_lines", "differs", "evaluate", "evaluation_to_json",
    "looks_like_question_set", "miss_of", "outcome_of", "outcome_to_json", "summarize", "summary_to_json",
    "wrong_turn_step",
]

class MissReason(StrEnum):
    """Why a question was missed: one of these, said in the evaluation table, ``eval`` and the step panel."""

    TURNED_AWAY = "turned away"
    """Offered the next node on the way to an expected node, the navigator chose others (or nothing)."""
    NEVER_OFFERED = "id never offered"
    """Offered the next node on the way, the navigator answered only with ids that were not offered."""
    BUDGET = "budget ran out"
    """No visit was left to go on toward the expected node: the visits went to other branches first."""
    DEPTH = "depth limit"
    """The depth limit stopped the walk on the way to the expected node."""
    FAILED = "navigator failed"
    """The navigator failed on the way to the expected node (or a failure ended or emptied the walk)."""
    CANCELLED = "cancelled"
    """The walk was cancelled before it reached the expected node."""
    WENT_PAST = "went past it"
    """The walk entered the expected node and went on below it: an expected node with children lands only when
    the navigator stops there (``validate`` warns of such a question)."""

    @property
    def wrong_turn(self) -> bool:
        """Whether this miss is a first wrong turn: the navigator, offered the way on, did not take it (not a
        limit, an end, or a walk that went past the expected node it had entered)."""
        return self in (MissReason.TURNED_AWAY, MissReason.NEVER_OFFERED)


@dataclass(frozen=True)
class Miss:
    """Why one question was missed, and the step of its walk to look at.

    ``step`` (1-based; ``None``: the end of the walk) is: for a decision the navigator made, the offer it
    answered; for the budget, the offer where the branch that spent most of the visits was chosen (the first
    ``visit_budget_exhausted`` stop when the visits all went to the way itself); for the depth limit, its stop;
    for a failure, the failed offer. ``node`` is where (the node judged, ``None``: the roots; or the node the
    walk stopped at), ``missed`` the next node on the way to the expected one that the walk did not enter,
    ``chose`` what the navigator chose instead, ``spent`` the branches that took the visits (each with its
    visits, in the order entered), ``error`` a failure's message.
    """

    reason: MissReason
    step: int | None
    node: str | None = None
    missed: str | None = None
    chose: tuple[str, ...] = ()
    spent: tuple[tuple[str, int], ...] = ()
    error: str | None = None
    budget: int = 0
    depth_limit: int = 0

    def sentence(self) -> str:
        """The reason in words, plain (ids are corpus text: pass it through ``safe_text``):

        ``turned away: at step 8, judging sign-in-methods, the navigator chose nothing, not single-sign-on``.
        """
        where = "the roots" if self.node is None else self.node
        at = f"at step {self.step}, " if self.step is not None else ""
        toward = f" toward {self.missed}" if self.missed else ""
        reason = self.reason
        if reason is MissReason.TURNED_AWAY:
            chose = ", ".join(self.chose) if self.chose else "nothing"
            return f"turned away: {at}judging {where}, the navigator chose {chose}, not {self.missed}"
        if reason is MissReason.NEVER_OFFERED and self.missed is None:
            return "an id never offered: no expected id is in the corpus"
        if reason is MissReason.NEVER_OFFERED:
            return (f"an id never offered: {at}judging {where}, the navigator answered {', '.join(self.chose)}, "
                    f"ids that were not offered, not {self.missed}")
        if reason is MissReason.WENT_PAST:
            chose = ", ".join(self.chose) if self.chose else "nothing"
            return f"went past it: {at}judging {where} (expected), the navigator chose {chose} below it"
        if reason is MissReason.BUDGET:
            if not self.spent:
                none_left = f"; none was left at step {self.step}" if self.step is not None else ""
                return f"the budget ran out{toward}: all {self.budget} visits went to the way itself{none_left}"
            used = sum(visits for _, visits in self.spent)
            spent = ", ".join(f"{branch} ({visits})" for branch, visits in self.spent)
            return (f"the budget ran out{toward}: {used} of {self.budget} visits went to other branches first — "
                    f"{spent}; {at}judging {where}, the navigator chose them")
        if reason is MissReason.DEPTH:
            return f"the depth limit ({self.depth_limit}) stopped the walk at {where}{toward}"
        if reason is MissReason.FAILED:
            return f"the navigator failed{toward}: {at}judging {where}: {self.error or 'no message'}"
        return f"cancelled{toward}: the walk ended {at.rstrip(', ')}" if at else f"cancelled{toward}"

    def to_json(self) -> dict[str, object]:
        return {"reason": self.reason.value, "step": self.step, "node": self.node, "missed": self.missed,
                "chose": list(self.chose), "spent": [{"branch": b, "visits": v} for b, v in self.spent],
                "error": self.error, "says": self.sentence()}


@dataclass(frozen=True)
class QuestionOutcome:
    """How one question's walk went.

    ``hit``: an expected node landed. ``branch_entered``: the walk entered a
    node below the top level on the way to an expected node (an ancestor of
    it, or the node itself, at depth 1 or more). ``first_wrong_turn``: when
    the navigator itself turned away (``miss.reason.wrong_turn``), the
    depth of the first node on the best path to an expected node that the walk
    did not enter (0: it never entered the right root); ``None`` for a hit and
    for a miss that a limit or an end made (the budget, the depth limit, a
    failure, a cancel: see ``miss``). ``calls``: live navigator calls;
    ``answers``: every answer (choices and failures, live or not);
    ``valid_answers``: choices with no hallucinated id. ``missed``: the first
    node on that best path that the walk did not enter. ``miss``: why it was
    missed (``None`` for a hit). ``history``: the walk itself, to open it (not
    compared, not printed).
    """

    question: Question
    landed: tuple[str, ...]
    hit: bool
    branch_entered: bool
    first_wrong_turn: int | None
    visits_used: int
    calls: int
    chars_shipped: int
    stop_reasons: dict[str, int]
    answers: int
    valid_answers: int
    end: str
    error: str | None = None
    missed: str | None = None
    history: WalkHistory | None = field(default=None, compare=False, repr=False)
    miss: Miss | None = None
    cost: Cost = field(default_factory=lambda: Cost(0, 0))
    """What the walk cost: live calls apart from the answers that needed none (cached ones, for an evaluation)."""

    @property
    def cached(self) -> int:
        """Answers read from the response cache (no call)."""
        return self.cost.cached

    @property
    def question_id(self) -> str:
        return self.question.id

    @property
    def expected(self) -> tuple[str, ...]:
        return self.question.expect

    @property
    def miss_reason(self) -> MissReason | None:
        return self.miss.reason if self.miss is not None else None

    @property
    def landed_count(self) -> int:
        return len(self.landed)

    @property
    def correct(self) -> int:
        """How many of the landed nodes are expected."""
        expected = set(self.question.expect)
        return sum(1 for node in self.landed if node in expected)

    @property
    def precision(self) -> float | None:
        """Landed ∩ expected / landed (``None`` when nothing landed)."""
        return self.correct / len(self.landed) if self.landed else None

    def hit_at(self, count: int) -> bool:
        """Whether an expected node is among the first ``count`` nodes landed, in the order the walk landed them."""
        return bool(set(self.landed[:count]) & set(self.question.expect))

    @property
    def hit_at_1(self) -> bool:
        return self.hit_at(1)

    @property
    def hit_at_3(self) -> bool:
        return self.hit_at(3)


@dataclass(frozen=True)
class EvalSummary:
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

    @property
    def hit_rate(self) -> float:
        return self.hits / self.questions if self.questions else 0.0

    @property
    def hit_at_1_rate(self) -> float:
        return self.hits_at_1 / self.questions if self.questions else 0.0

    @property
    def hit_at_3_rate(self) -> float:
        return self.hits_at_3 / self.questions if self.questions else 0.0

    @property
    def mean_landed(self) -> float:
        return self.landed / self.questions if self.questions else 0.0

    @property
    def precision(self) -> float | None:
        """Expected nodes landed / nodes landed, over all questions (``None`` when nothing landed)."""
        return self.correct / self.landed if self.landed else None

    @property
    def branch_rate(self) -> float:
        return self.branch_entries / self.questions if self.questions else 0.0

    @property
    def valid_answer_rate(self) -> float:
        return self.valid_answers / self.answers if self.answers else 1.0


def outcome_of(corpus: Corpus, question: Question, events: Sequence[WalkEvent], end: str,
               error: str | None, history: WalkHistory | None = None) -> QuestionOutcome:
    """Score one walk's events against a question."""
    index = corpus.index
    forced = history.forced if history is not None else set()
    state = WalkState.from_events(events, forced)
    entered_set = set(state.entered)
    # Cancelled or failed: what had landed by then.
    landed = tuple(d.id for d in state.result.documents) if state.result is not None else tuple(state.landed)
    expected = [e for e in question.expect if e in index]
    on_paths = {node for e in expected for node in index.path(e)}
    branch_entered = any(index.depth(n) >= 1 and n in on_paths for n in entered_set)
    hit = bool(set(landed) & set(expected))
    missed = best_miss_path(index, expected, entered_set)[1] if not entered_set & set(expected) else None
    miss = None if hit else miss_of(index, question, events, WalkEnd(end), error, forced)
    wrong: int | None = None
    if miss is not None and miss.reason.wrong_turn:
        wrong = index.depth(miss.missed) if miss.missed is not None and miss.missed in index else 0
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    stops = Counter(s.reason.value for s in state.stops)
    return QuestionOutcome(
        question=question,
        landed=landed,
        hit=hit,
        branch_entered=branch_entered,
        first_wrong_turn=wrong,
        visits_used=state.visits_used,
        calls=state.live_calls,
        chars_shipped=state.chars_shipped,
        stop_reasons=dict(sorted(stops.items())),
        answers=state.answers,
        valid_answers=sum(1 for c in chose if not c.hallucinated),
        end=end,
        error=error,
        missed=missed,
        history=history,
        miss=miss,
        cost=state.cost(),
    )


def best_miss_path(index: HierarchyIndex, expected: Sequence[str],
                   entered: set[str]) -> tuple[tuple[str, ...], str | None]:
    """The path (root first) to the expected node that the walk followed deepest (a tie: the first expected), and
    its first node the walk did not enter (``None``: it entered the whole path)."""
    best: tuple[str, ...] = ()
    missed: str | None = None
    reached = -1
    for e in expected:
        path = tuple(index.path(e))
        depth = 0
        while depth < len(path) and path[depth] in entered:
            depth += 1
        if depth > reached:
            best, reached = path, depth
            missed = path[depth] if depth < len(path) else None
    return best, missed


def miss_of(index: HierarchyIndex, question: Question, events: Sequence[WalkEvent], end: WalkEnd,
            error: str | None = None, forced: set[int] | frozenset[int] = frozenset()) -> Miss:
    """Why a walk missed ``question`` (call it for a walk that landed no expected node).

    Follows the best path to an expected node (the one the walk went deepest on) to the first node the walk
    did not enter, and asks what happened at its parent: the navigator turned away there (or answered ids never
    offered), no visit was left, the depth limit stopped it, the navigator failed, or the walk was cancelled.
    """
    history = WalkHistory(WalkSettings(""))
    for seq, event in enumerate(events, start=1):
        history.append(event, forced=seq in forced)
    state = history.state()
    path, missed = best_miss_path(index, [e for e in question.expect if e in index], set(state.entered))
    emptied = state.result.failure if state.result is not None else None

    def miss(reason: MissReason, step: int | None, node: str | None, chose: tuple[str, ...] = (),
             spent: tuple[tuple[str, int], ...] = (), failure: str | None = None) -> Miss:
        return Miss(reason, step, node, missed, chose, spent, failure, state.budget, state.max_depth)

    def ended_early(node: str | None, step: int | None) -> Miss:
        """The walk ended (a cancel, a failure) before it went on toward ``missed``."""
        if end is WalkEnd.CANCELLED:
            return miss(MissReason.CANCELLED, step, node)
        return miss(MissReason.FAILED, step, node, failure=error or emptied)

    def out_of_visits(node: str | None) -> Miss:
        """No visit was left to go on: which branches off the way took the visits, and where they were chosen."""
        spent = _spent_off(index, path, state.entered)
        if not spent:
            return miss(MissReason.BUDGET, history.budget_ran_out_at(), node)
        biggest = max(spent, key=lambda head: spent[head])  # the first of the biggest: dicts keep their order
        chooser = next((d for d in history.decisions() if d.node == _parent_of(index, biggest)), None)
        at = chooser.node if chooser is not None else None
        heads = tuple(h for h in spent if _parent_of(index, h) == at)
        return miss(MissReason.BUDGET, chooser.offer_seq if chooser is not None else None, at, heads,
                    tuple(spent.items()))

    if not path:  # no expected id is in the corpus (``fit_problem`` refuses such a set before any walk)
        return miss(MissReason.NEVER_OFFERED, None, None)
    decisions = {d.node: d for d in history.decisions()}
    if missed is None:  # the whole way entered, the expected node too, and it did not land
        node = path[-1] if path else None
        decision = decisions.get(node)
        step = decision.offer_seq if decision is not None else None
        if end is not WalkEnd.FINISHED or emptied is not None or decision is None:
            return ended_early(node, step)
        answer = decision.answer
        return miss(MissReason.WENT_PAST, step, node, answer.valid if isinstance(answer, NavigatorChose) else ())
    position = path.index(missed)
    parent = path[position - 1] if position > 0 else None
    decision = decisions.get(parent)
    if decision is not None:
        answer = decision.answer
        if isinstance(answer, NavigatorFailed):
            return miss(MissReason.FAILED, decision.offer_seq, parent, failure=answer.error)
        if isinstance(answer, NavigatorChose) and missed not in answer.valid:
            if answer.hallucinated and not answer.valid:
                return miss(MissReason.NEVER_OFFERED, decision.offer_seq, parent, answer.hallucinated)
            return miss(MissReason.TURNED_AWAY, decision.offer_seq, parent, answer.valid)
        stop = state.stopped_branches.get(missed)  # chosen, never entered
        if isinstance(answer, NavigatorChose) and stop is not None \
                and stop.reason is StopReason.VISIT_BUDGET_EXHAUSTED:
            return out_of_visits(parent)
        return ended_early(parent, decision.offer_seq)  # chosen and never entered, or never answered
    # The parent was entered but never judged: the depth limit, no visit left to go deeper, or the walk ended.
    for seq, event in enumerate(history.events, start=1):
        if isinstance(event, PathStopped) and event.record.branch is None and event.record.node == parent \
                and parent is not None:
            if event.record.reason is StopReason.MAX_DEPTH:
                return miss(MissReason.DEPTH, seq, parent)
            if event.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED:
                return out_of_visits(parent)
    return ended_early(parent, None)


def _spent_off(index: HierarchyIndex, way: Sequence[str], entered: Sequence[str]) -> dict[str, int]:
    """The visits spent off ``way``: per branch off it (its top node), in the order first entered."""
    on_way = set(way)
    spent: dict[str, int] = {}
    for node in entered:
        if node not in on_way:
            head = next(n for n in index.path(node) if n not in on_way)
            spent[head] = spent.get(head, 0) + 1
    return spent


def _parent_of(index: HierarchyIndex, node: str) -> str | None:
    path = index.path(node)
    return path[-2] if len(path) > 1 else None


def wrong_turn_step(outcome: QuestionOutcome, index: HierarchyIndex | None = None) -> int | None:
    """The step of a question's walk to look at: where its miss is (:attr:`Miss.step`); ``None`` for a hit, a
    walk not kept, or a miss with no step (the end of the walk).

    A decision the navigator made: its offer, where it was shown the right branch and did not take it. The
    budget: the offer that chose the branches that spent the visits. The depth limit: its stop.
    """
    if outcome.history is None or outcome.miss is None:
        return None
    return outcome.miss.step


def miss_column(outcome: QuestionOutcome) -> str:
    """The evaluation table's "why missed" cell: the reason's short name (``"budget ran out"``), ``""`` for a hit."""
    return outcome.miss.reason.value if outcome.miss is not None else ""


def miss_sentence(outcome: QuestionOutcome) -> str:
    """The step panel's line for an opened miss (plain; pass it through ``safe_text``): ``""`` for a hit."""
    return outcome.miss.sentence() if outcome.miss is not None else ""


class EvaluationRun:
    """Every question of a set walked with ``settings`` (the query set per question), ``jobs`` at a time.

    ``navigator`` walks every question; threads share it unless it cannot be
    shared (:func:`~explorer.navigators.shared_across_threads`), and then each
    thread resolves ``settings.model`` once, as it does without one. :meth:`run` returns the outcomes in question order
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
        observers: Sequence[WalkObserver] = (),
    ) -> None:
        self.corpus = corpus
        self.questions = tuple(questions)
        self.settings = settings
        self.navigator = navigator
        self.jobs = max(1, jobs)
        self.observers = tuple(observers)
        self.outcomes: list[QuestionOutcome | None] = [None] * len(self.questions)
        self._lock = threading.Lock()
        self._live: set[WalkSession] = set()
        self._cancelled = False
        self._local = threading.local()

    @property
    def cancelled(self) -> bool:
        return self._cancelled

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
        history = WalkHistory(settings, Origin.WALK, label=f"question {question.id} · {settings.describe()}")
        with self._lock:
            if self._cancelled:
                return None
        session = WalkSession(self.corpus, settings, self._navigator(), history=history, observers=self.observers)
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

        run_each(walk, range(len(self.questions)), jobs=self.jobs, cancel=self.cancel, thread_name="eval")
        return list(self.outcomes)


def evaluate(
    corpus: Corpus,
    questions: Sequence[Question],
    settings: WalkSettings,
    *,
    jobs: int = 1,
    navigator: TreeNavigator | None = None,
    on_done: Callable[[QuestionOutcome], None] | None = None,
    observers: Sequence[WalkObserver] = (),
) -> list[QuestionOutcome]:
    """Walk every question (``jobs`` at a time) and return the outcomes in question order.

    ``observers`` are told of each walk as it ends (on the thread that walked it), e.g. a tracing export."""
    run = EvaluationRun(corpus, questions, settings, navigator=navigator, jobs=jobs, observers=observers)
    outcomes = run.run(None if on_done is None else lambda _, outcome: on_done(outcome))
    return [o for o in outcomes if o is not None]


def summarize(outcomes: Sequence[QuestionOutcome], stats: CorpusStats) -> EvalSummary:
    count = len(outcomes)

    def mean(values: Sequence[int]) -> float:
        return sum(values) / count if count else 0.0

    mean_chars = mean([o.chars_shipped for o in outcomes])
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
    )


# -- two navigators over the same set ------------------------------------------------------------------------


class Change(StrEnum):
    """How a question fared with navigator B against navigator A."""

    B_HITS = "only B hits"
    """B landed an expected node; A did not."""
    A_HITS = "only A hits"
    """A landed an expected node; B did not."""
    LANDED_DIFFERENTLY = "landed differently"
    """Both hit, or both missed, but they landed different nodes."""


@dataclass(frozen=True)
class Difference:
    """One question where two navigators differ."""

    number: int
    """0-based, in question order."""
    a: QuestionOutcome
    b: QuestionOutcome

    @property
    def change(self) -> Change:
        if self.a.hit != self.b.hit:
            return Change.B_HITS if self.b.hit else Change.A_HITS
        return Change.LANDED_DIFFERENTLY


def differs(a: QuestionOutcome, b: QuestionOutcome) -> bool:
    """Whether two walks of one question differ in what they landed (a hit that changed always does)."""
    return a.hit != b.hit or set(a.landed) != set(b.landed)


def compare_outcomes(a: Sequence[QuestionOutcome | None], b: Sequence[QuestionOutcome | None]) -> list[Difference]:
    """The questions (walked by both) where navigator A and navigator B landed differently, in question order."""
    return [Difference(n, x, y) for n, (x, y) in enumerate(zip(a, b, strict=True))
            if x is not None and y is not None and differs(x, y)]


def comparison_lines(a_model: str, b_model: str, a: EvalSummary, b: EvalSummary,
                     differences: Sequence[Difference]) -> list[str]:
    """``eval --compare``: both hit rates and the questions where the navigators differ, as plain lines."""
    lines = [
        visible(f"Compared: A {a_model} · B {b_model}"),
        f"  hit rate           A {a.hit_rate:.0%} ({a.hits}/{a.questions}) · "
        f"B {b.hit_rate:.0%} ({b.hits}/{b.questions})",
        f"  branch-entry rate  A {a.branch_rate:.0%} · B {b.branch_rate:.0%}",
        f"  valid answers      A {a.valid_answer_rate:.0%} · B {b.valid_answer_rate:.0%}",
    ]
    if not differences:
        lines.append("The two navigators landed the same nodes on every question.")
        return lines
    lines.append(f"{len(differences)} question(s) where they differ (✓ hit, ✗ miss; what each landed):")
    width = max(len(visible(d.a.question.id)) for d in differences)
    for d in differences:
        lines.append(f"  {visible(d.a.question.id):<{width}}  {d.change.value:<18}  "
                     f"A {_landed_briefly(d.a)} · B {_landed_briefly(d.b)}")
    return lines


def _landed_briefly(outcome: QuestionOutcome, shown: int = 3) -> str:
    mark = "✓" if outcome.hit else "✗"
    if not outcome.landed:
        return f"{mark} nothing"
    more = len(outcome.landed) - shown
    return visible(f"{mark} {', '.join(outcome.landed[:shown])}" + (f" +{more} more" if more > 0 else ""))


def outcome_to_json(o: QuestionOutcome) -> dict[str, object]:
    """One question's result as ``eval --json`` prints it."""
    return {"id": o.question.id, "query": o.question.query, "expect": list(o.question.expect),
            "landed": list(o.landed), "hit": o.hit, "hit_at_1": o.hit_at_1, "hit_at_3": o.hit_at_3,
            "landed_count": o.landed_count, "precision": o.precision, "branch_entered": o.branch_entered,
            "first_wrong_turn": o.first_wrong_turn, "miss": o.miss.to_json() if o.miss is not None else None,
            "visits_used": o.visits_used, "navigator_calls": o.calls, "decisions": o.answers, "cached": o.cached,
            "chars_shipped": o.chars_shipped, "stop_reasons": o.stop_reasons, "end": str(o.end), "error": o.error}


def summary_to_json(summary: EvalSummary) -> dict[str, object]:
    """The totals as ``eval --json`` prints them (``summary``)."""
    return {
        "questions": summary.questions, "hit_rate": summary.hit_rate, "hits": summary.hits,
        "hits_at_1": summary.hits_at_1, "hit_at_1_rate": summary.hit_at_1_rate,
        "hits_at_3": summary.hits_at_3, "hit_at_3_rate": summary.hit_at_3_rate,
        "mean_landed": summary.mean_landed, "precision": summary.precision, "misses": summary.misses,
        "branch_entry_rate": summary.branch_rate, "mean_visits": summary.mean_visits,
        "mean_navigator_calls": summary.mean_calls, "mean_chars_shipped": summary.mean_chars,
        "chars_vs_titles_summaries": summary.chars_vs_titles_summaries,
        "chars_vs_content": summary.chars_vs_content, "valid_answer_rate": summary.valid_answer_rate,
        "cached_answers": summary.cached, "failed_walks": summary.failed, "stop_reasons": summary.stop_reasons,
    }


def evaluation_to_json(questions_path: str | Path, corpus: Corpus, settings: WalkSettings,
                       outcomes: Sequence[QuestionOutcome], summary: EvalSummary,
                       comparison: EvalComparison | None = None) -> dict[str, object]:
    """The whole ``eval --json`` document: the set, the corpus, the navigator and settings, every question's
    result, the totals, and (``--compare``) the second navigator's."""
    document: dict[str, object] = {
        "questions": str(questions_path), "corpus": str(corpus.path), "navigator": settings.model,
        "settings": {"max_nodes_visited": settings.max_nodes_visited, "max_depth": settings.max_depth,
                     "on_failure": settings.on_failure.value},
        "results": [outcome_to_json(o) for o in outcomes],
        "summary": summary_to_json(summary),
    }
    if comparison is not None:
        document["compare"] = comparison.to_json()
    return document


@dataclass(frozen=True)
class EvalComparison:
    """Navigator A and navigator B over the same question set."""

    a_model: str
    b_model: str
    a: tuple[QuestionOutcome, ...]
    b: tuple[QuestionOutcome, ...]
    a_summary: EvalSummary
    b_summary: EvalSummary

    @property
    def differences(self) -> list[Difference]:
        return compare_outcomes(self.a, self.b)

    def lines(self) -> list[str]:
        return comparison_lines(self.a_model, self.b_model, self.a_summary, self.b_summary, self.differences)

    def to_json(self) -> dict[str, object]:
        """What ``eval --compare --json`` adds: B's results and rates, and the questions where A and B differ."""
        b = self.b_summary
        return {
            "navigator": self.b_model,
            "results": [outcome_to_json(o) for o in self.b],
            "summary": summary_to_json(b),
            "hit_rates": {"a": self.a_summary.hit_rate, "b": b.hit_rate},
            "hit_at_3_rates": {"a": self.a_summary.hit_at_3_rate, "b": b.hit_at_3_rate},
            "differ": [{"id": d.a.question.id, "change": d.change.value, "a_hit": d.a.hit, "b_hit": d.b.hit,
                        "a_landed": list(d.a.landed), "b_landed": list(d.b.landed)} for d in self.differences],
        }
