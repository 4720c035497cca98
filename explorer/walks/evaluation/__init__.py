"""Evaluating a navigator on a question set: per question, did the walk land an answer, and if not,
where did it go wrong? UI-free; the command line prints it and the explorer's evaluation screen shows it.

An :class:`EvaluationRun` walks every question (``jobs`` at a time, on
threads), keeps each walk's :class:`~explorer.walks.history.WalkHistory` so a
person can open it, and can be cancelled as a whole. Two navigators over the
same set are compared question by question (:func:`compare_outcomes`).

The package's modules, from the top: :mod:`.check_set` (the small set to verify a fix on: the cases kept with K,
the misses and flips of the last kept run) and :mod:`.run_comparison` (a run now
against a kept one, was → now) over :mod:`.kept_run` (a run kept as a file,
whole or partial) over :mod:`.document` (the ``eval --json`` document) over
:mod:`.comparison` (two navigators) and :mod:`.run` (walking the set), over
:mod:`.summary` (the set's figures), over :mod:`.outcome` (one question's),
over :mod:`.blame` (whose fault a miss was, by an independent judge, and the flat search's rank) over
:mod:`.misses` (why one was missed), :mod:`.pace` (the time left) and :mod:`.chart` (a figure by visit
budget, drawn as text). Import the names below
from here.
"""

from __future__ import annotations

from ...corpora.questions import looks_like_question_set
from .blame import Blame, BlameKind, blame_of, flat_rank, flat_words
from .chart import BudgetChart, Series, draw_chart
from .check_set import CheckSet, check_path, check_set, write_check_set
from .comparison import Change, Difference, EvalComparison, Side, compare_outcomes, comparison_lines, differs
from .document import evaluation_to_json
from .kept_run import KeptRun, RunError, check_resumable, held_outcomes, holds, keep_run, read_run
from .misses import Miss, MissReason, best_miss_path, miss_of
from .outcome import (
    QuestionOutcome,
    judged,
    miss_column,
    miss_sentence,
    outcome_from_json,
    outcome_of,
    outcome_to_json,
    wrong_turn_shown,
    wrong_turn_step,
)
from .pace import Pace, time_left, time_left_words
from .policy_curve import FLAT_LINE, PolicyCurve, PolicyPoint, curve_lines, flat_line, policy_curve
from .run import EvaluationRun, evaluate
from .run_comparison import RunComparison
from .summary import EvalSummary, cached_words, summarize, summary_to_json
from .sweep import (
    BudgetRow,
    Sweep,
    SweepRun,
    figures_lines,
    hit_at_3_chart,
    parse_budgets,
    reuses_answers,
    sweep,
    sweep_to_json,
)

__all__ = [
    "FLAT_LINE",
    "Blame",
    "BlameKind",
    "BudgetChart",
    "BudgetRow",
    "Change",
    "CheckSet",
    "Difference",
    "EvalComparison",
    "EvalSummary",
    "EvaluationRun",
    "KeptRun",
    "Miss",
    "MissReason",
    "Pace",
    "PolicyCurve",
    "PolicyPoint",
    "QuestionOutcome",
    "RunComparison",
    "RunError",
    "Series",
    "Side",
    "Sweep",
    "SweepRun",
    "best_miss_path",
    "blame_of",
    "cached_words",
    "check_path",
    "check_resumable",
    "check_set",
    "compare_outcomes",
    "comparison_lines",
    "curve_lines",
    "differs",
    "draw_chart",
    "evaluate",
    "evaluation_to_json",
    "figures_lines",
    "flat_line",
    "flat_rank",
    "flat_words",
    "held_outcomes",
    "hit_at_3_chart",
    "holds",
    "judged",
    "keep_run",
    "looks_like_question_set",
    "miss_column",
    "miss_of",
    "miss_sentence",
    "outcome_from_json",
    "outcome_of",
    "outcome_to_json",
    "parse_budgets",
    "policy_curve",
    "read_run",
    "reuses_answers",
    "summarize",
    "summary_to_json",
    "sweep",
    "sweep_to_json",
    "time_left",
    "time_left_words",
    "write_check_set",
    "wrong_turn_shown",
    "wrong_turn_step",
]
