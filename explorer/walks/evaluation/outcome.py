"""How one question's walk went (:class:`QuestionOutcome`), scored from its events (:func:`outcome_of`), and the
outcome's words and JSON: the "why missed" cell, the step panel's line, ``eval --json``'s result."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from core import HierarchyIndex, NavigatorChose, WalkEvent

from ...corpora import Corpus
from ...corpora.questions import Question
from ...ending import WalkEnd
from ...navigators.answered import Answered
from ...navigators.judge import Judge
from ...walk_settings import WalkSettings
from ..decisions import decisions_of
from ..habits import HabitCounts, count_habits, habits_by_answer
from ..history import WalkHistory
from ..state import Cost, WalkState
from .blame import Blame, blame_of, flat_rank
from .misses import Miss, MissReason, best_miss_path, miss_of

__all__ = ["QuestionOutcome", "judged", "miss_column", "miss_sentence", "outcome_from_json", "outcome_of",
           "outcome_to_json",
           "wrong_turn_shown", "wrong_turn_step"]


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
    chars_saved: int = 0
    """Characters the offers answered from the response cache would have shipped live (what the cache saved)."""
    habits: HabitCounts = field(default_factory=HabitCounts)
    """The LLM's habits its decisions showed (:mod:`explorer.walks.habits`), counted over the walk."""
    blame: Blame | None = None
    """Whose fault the miss was (:mod:`.blame`), once a judge has judged it (:func:`judged`); ``None`` for a hit."""
    flat: int | None = None
    """Where a flat search by the judge ranks the expected node (1: first), once judged; ``None`` before."""

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
        chars_saved=sum(d.offer.chars_shipped for d in decisions_of(events, forced) if d.how is Answered.CACHED),
        habits=count_habits(habits_by_answer(events, forced).values()),
    )


def judged(outcome: QuestionOutcome, judge: Judge, navigator: str) -> QuestionOutcome:
    """``outcome`` with its verdict (a miss's) and the flat search's rank of its expected node, by ``judge`` (the
    walk's navigator was ``navigator``: the verdict says when they score alike)."""
    query = outcome.question.query
    blame = blame_of(outcome.miss, query, judge, navigator) if outcome.miss is not None else None
    return replace(outcome, blame=blame, flat=flat_rank(judge, query, outcome.question.expect))


def wrong_turn_step(outcome: QuestionOutcome, index: HierarchyIndex | None = None) -> int | None:
    """The step of a question's walk to look at: where its miss is (:attr:`Miss.step`); ``None`` for a hit, a
    walk not kept, or a miss with no step (the end of the walk).

    A decision the navigator made: its offer, where it was shown the right branch and did not take it. The
    budget: the offer that chose the branches that spent the visits. The depth limit: its stop.
    """
    if outcome.history is None or outcome.miss is None:
        return None
    return outcome.miss.step


def wrong_turn_shown(outcome: QuestionOutcome) -> int | None:
    """Where the explorer opens a missed question's walk: the answer to the offer :func:`wrong_turn_step` names
    (the wrong decision itself, its choice on show, not the offer before it), else that step (a stop, for the
    depth limit; an offer the walk never answered); ``None`` as for :func:`wrong_turn_step`."""
    step = wrong_turn_step(outcome)
    if step is None or outcome.history is None:
        return step
    for decision in decisions_of(outcome.history.events):
        if decision.offer_seq == step:
            return decision.answer_seq if decision.answer_seq is not None else step
    return step


def miss_column(outcome: QuestionOutcome) -> str:
    """The evaluation table's "why missed" cell: the reason's short name (``"budget ran out"``), ``""`` for a hit."""
    return outcome.miss.reason.value if outcome.miss is not None else ""


def miss_sentence(outcome: QuestionOutcome) -> str:
    """The step panel's line for an opened miss (plain; pass it through ``safe_text``): ``""`` for a hit."""
    return outcome.miss.sentence() if outcome.miss is not None else ""


def outcome_to_json(o: QuestionOutcome) -> dict[str, object]:
    """One question's result as ``eval --json`` prints it (``habits`` only for a walk an LLM answered)."""
    return {"id": o.question.id, "query": o.question.query, "expect": list(o.question.expect),
            "landed": list(o.landed), "hit": o.hit, "hit_at_1": o.hit_at_1, "hit_at_3": o.hit_at_3,
            "landed_count": o.landed_count, "precision": o.precision, "branch_entered": o.branch_entered,
            "first_wrong_turn": o.first_wrong_turn, "miss": o.miss.to_json() if o.miss is not None else None,
            "blame": o.blame.to_json() if o.blame is not None else None, "flat": o.flat,
            "visits_used": o.visits_used, "navigator_calls": o.calls, "decisions": o.answers, "cached": o.cached,
            "valid_answers": o.valid_answers, "chars_shipped": o.chars_shipped, "chars_saved": o.chars_saved,
            "stop_reasons": o.stop_reasons, "end": str(o.end), "error": o.error,
            **({"habits": o.habits.to_json()} if o.habits.decisions else {})}  # only when an LLM answered


def outcome_from_json(data: Mapping[str, Any], question: Question, settings: WalkSettings) -> QuestionOutcome:
    """A result as :func:`outcome_to_json` wrote it (a kept run's, walked with ``settings``), read back: every figure
    of the walk, not the walk itself (``history`` is ``None``), so a run resumed holds it without walking it again.
    ``ValueError`` says which field is not what a result holds. A result kept before ``valid_answers`` and
    ``chars_saved`` were written counts every answer valid and no characters saved."""

    def whole(key: str, default: int | None = None) -> int:
        value = data.get(key, default)
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise ValueError(f"{key!r} is not a count")
        return value

    def flag(key: str) -> bool:
        value = data.get(key)
        if not isinstance(value, bool):
            raise ValueError(f"{key!r} is not true or false")
        return value

    landed, stops, wrong = data.get("landed"), data.get("stop_reasons", {}), data.get("first_wrong_turn")
    end, error, miss = data.get("end"), data.get("error"), data.get("miss")
    blame, flat = data.get("blame"), data.get("flat")
    if not (blame is None or isinstance(blame, dict)):
        raise ValueError("'blame' is not an object")
    if not (flat is None or (isinstance(flat, int) and not isinstance(flat, bool) and flat > 0)):
        raise ValueError("'flat' is not a rank")
    if not isinstance(landed, list) or not all(isinstance(node, str) for node in landed):
        raise ValueError("'landed' is not a list of ids")
    if not isinstance(stops, dict) or not all(isinstance(n, int) and not isinstance(n, bool) for n in stops.values()):
        raise ValueError("'stop_reasons' is not counts by reason")
    if end not in {str(kind) for kind in WalkEnd}:
        raise ValueError(f"'end' {end!r} is not finished, cancelled or failed")
    if not (wrong is None or (isinstance(wrong, int) and not isinstance(wrong, bool))):
        raise ValueError("'first_wrong_turn' is not a depth")
    if not (error is None or isinstance(error, str)) or not (miss is None or isinstance(miss, dict)):
        raise ValueError("'error' is not text, or 'miss' not an object")
    calls, answers, cached = whole("navigator_calls"), whole("decisions"), whole("cached")
    found = Miss.from_json(miss, settings) if miss is not None else None
    return QuestionOutcome(
        question=question, landed=tuple(landed), hit=flag("hit"), branch_entered=flag("branch_entered"),
        first_wrong_turn=wrong, visits_used=whole("visits_used"), calls=calls, chars_shipped=whole("chars_shipped"),
        stop_reasons={str(reason): count for reason, count in stops.items()}, answers=answers,
        valid_answers=whole("valid_answers", answers), end=str(end), error=error,
        missed=found.missed if found is not None else None, miss=found,
        cost=Cost(whole("visits_used"), calls, cached=cached, chars=whole("chars_shipped")),
        chars_saved=whole("chars_saved", 0), habits=HabitCounts.from_json(data.get("habits")),
        blame=Blame.from_json(blame) if blame is not None else None, flat=flat)
