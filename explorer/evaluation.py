"""Evaluating a navigator on a question set: per question, did the walk land an answer, and if not,
where did it go wrong? UI-free; the command line prints it."""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from core import NavigatorChose, TreeNavigator, WalkEvent

from .corpora import Corpus
from .corpora.questions import Question
from .corpora.validate import CorpusStats
from .navigators import resolve_navigator
from .session import WalkObserver, WalkSession, WalkSettings
from .walk_state import WalkState


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
    choices with no hallucinated id.
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
               error: str | None) -> QuestionOutcome:
    """Score one walk's events against a question."""
    index = corpus.index
    state = WalkState.from_events(events)
    entered_set = set(state.entered)
    landed = tuple(d.id for d in state.result.documents) if state.result else ()
    expected = [e for e in question.expect if e in index]
    on_paths = {node for e in expected for node in index.path(e)}
    branch_entered = any(index.depth(n) >= 1 and n in on_paths for n in entered_set)
    if entered_set & set(expected):
        wrong: int | None = None
    else:
        reached = 0
        for e in expected:
            path = index.path(e)
            depth = 0
            while depth < len(path) and path[depth] in entered_set:
                depth += 1
            reached = max(reached, depth)
        wrong = reached
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
    )


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
    local = threading.local()

    def run(question: Question) -> QuestionOutcome:
        nav = navigator or getattr(local, "navigator", None)
        if nav is None:
            nav = local.navigator = resolve_navigator(settings.model)
        session = WalkSession(corpus, settings.but(query=question.query), nav, observers=observers)
        events = session.run_headless()
        outcome = outcome_of(corpus, question, events, session.end or "finished", session.error)
        if on_done is not None:
            on_done(outcome)
        return outcome

    if jobs <= 1:
        return [run(q) for q in questions]
    with ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="eval") as pool:
        return list(pool.map(run, questions))


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
        failed=sum(1 for o in outcomes if o.end != "finished"),
        stop_reasons=dict(sorted(reasons.items())),
    )
