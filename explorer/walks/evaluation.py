"""Evaluating a navigator on a question set: per question, did the walk land an answer, and if not,
where did it go wrong? UI-free; the command line prints it and the explorer's evaluation screen shows it.

An :class:`EvaluationRun` walks every question (``jobs`` at a time, on
threads), keeps each walk's :class:`~explorer.walks.history.WalkHistory` so a
person can open it, and can be cancelled as a whole. Two navigators over the
same set are compared question by question (:func:`compare_outcomes`).
"""

from __future__ import annotations

import re
import threading
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path

from core import HierarchyIndex, NavigatorChose, NodeEntered, TreeNavigator, WalkEvent

from ..corpora import Corpus
from ..corpora.questions import Question
from ..corpora.validate import CorpusStats
from ..ending import WalkEnd
from ..navigators import resolve_navigator, shared_across_threads
from ..safe_text import visible
from .history import Origin, WalkHistory
from .session import WalkObserver, WalkSession, WalkSettings, run_each
from .state import WalkState


@dataclass(frozen=True)
class QuestionOutcome:
    """How one question's walk went.

    ``hit``: an expected node landed. ``branch_entered``: the walk entered a
    node below the top level on the way to an expected node (an ancestor of
    it, or the node itself, at depth 1 or more). ``first_wrong_turn``: the
    depth at which the walk left every path to an expected node — the depth
    of the first node on the best such path that it did not enter (0: it
    never entered the right root); ``None`` when it entered an expected node.
    ``answers``: navigator answers (choices and failures); ``valid_answers``:
    choices with no hallucinated id. ``missed``: the node at the first wrong
    turn — the first node on that best path that the walk did not enter.
    ``history``: the walk itself, to open it (not compared, not printed).
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

    @property
    def hit_rate(self) -> float:
        return self.hits / self.questions if self.questions else 0.0

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
    state = WalkState.from_events(events)
    entered_set = set(state.entered)
    landed = tuple(d.id for d in state.result.documents) if state.result else ()
    expected = [e for e in question.expect if e in index]
    on_paths = {node for e in expected for node in index.path(e)}
    branch_entered = any(index.depth(n) >= 1 and n in on_paths for n in entered_set)
    wrong: int | None = None
    missed: str | None = None
    if not entered_set & set(expected):
        reached = 0
        for e in expected:  # the best path: the one the walk followed deepest (a tie: the first expected)
            path = index.path(e)
            depth = 0
            while depth < len(path) and path[depth] in entered_set:
                depth += 1
            if missed is None or depth > reached:
                reached, missed = depth, path[depth]
        wrong = reached if expected else 0
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    stops = Counter(s.reason.value for s in state.stops)
    return QuestionOutcome(
        question=question,
        landed=landed,
        hit=bool(set(landed) & set(expected)),
        branch_entered=branch_entered,
        first_wrong_turn=wrong,
        visits_used=state.visits_used,
        calls=state.calls,
        chars_shipped=state.chars_shipped,
        stop_reasons=dict(sorted(stops.items())),
        answers=state.calls,
        valid_answers=sum(1 for c in chose if not c.hallucinated),
        end=end,
        error=error,
        missed=missed,
        history=history,
    )


def wrong_turn_step(outcome: QuestionOutcome, index: HierarchyIndex) -> int | None:
    """The step of a question's walk to look at: the offer where it took its first wrong turn.

    That is the offer of the missed node's siblings (the children of its
    parent, or the roots) — where the navigator was shown the right branch and
    did not take it. When the walk never got that offer (no visit left, the
    depth limit), the step where it entered the parent; with no wrong turn (or
    no history), ``None``: the end of the walk.
    """
    history = outcome.history
    if history is None or outcome.missed is None or outcome.missed not in index:
        return None
    path = index.path(outcome.missed)
    parent = path[-2] if len(path) > 1 else None
    for decision in history.decisions():
        if decision.node == parent:
            return decision.offer_seq
    if parent is not None:
        for seq, event in enumerate(history.events, start=1):
            if isinstance(event, NodeEntered) and event.node.id == parent:
                return seq
    return None


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


# -- recognising a question set --------------------------------------------------------------------------------

_QUESTIONS_KEY = re.compile(r"^questions\s*:", re.MULTILINE)
SNIFF_BYTES = 65_536


def looks_like_question_set(path: str | Path) -> bool:
    """Whether ``path`` is a question set rather than a corpus: named ``*.questions.yaml`` (or ``.yml``), or a YAML
    file with a top-level ``questions:`` key (a corpus has ``nodes:``; the key comes early in a question set)."""
    path = Path(path)
    name = path.name.lower()
    if name.endswith((".questions.yaml", ".questions.yml")):
        return True
    if not name.endswith((".yaml", ".yml")):
        return False
    try:
        if not path.is_file():  # a folder, or a FIFO that would block the read
            return False
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return False
    return bool(_QUESTIONS_KEY.search(head)) and not re.search(r"^nodes\s*:", head, re.MULTILINE)


def outcome_to_json(o: QuestionOutcome) -> dict[str, object]:
    """One question's result as ``eval --json`` prints it."""
    return {"id": o.question.id, "query": o.question.query, "expect": list(o.question.expect),
            "landed": list(o.landed), "hit": o.hit, "branch_entered": o.branch_entered,
            "first_wrong_turn": o.first_wrong_turn, "visits_used": o.visits_used, "navigator_calls": o.calls,
            "chars_shipped": o.chars_shipped, "stop_reasons": o.stop_reasons, "end": str(o.end), "error": o.error}


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
            "summary": {"questions": b.questions, "hits": b.hits, "hit_rate": b.hit_rate,
                        "branch_entry_rate": b.branch_rate, "valid_answer_rate": b.valid_answer_rate,
                        "failed_walks": b.failed},
            "hit_rates": {"a": self.a_summary.hit_rate, "b": b.hit_rate},
            "differ": [{"id": d.a.question.id, "change": d.change.value, "a_hit": d.a.hit, "b_hit": d.b.hit,
                        "a_landed": list(d.a.landed), "b_landed": list(d.b.landed)} for d in self.differences],
        }
