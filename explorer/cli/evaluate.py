"""``reasoning-explorer eval``: every question of a question set walked and scored."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..corpora import CorpusError
from ..walks.session import Wiring
from .inputs import corpus_at
from .options import (
    EXIT_OK,
    PROG,
    Parser,
    add_llm_options,
    add_telemetry_options,
    add_walk_options,
    budget_list,
    check_apart,
    check_writable,
    console,
    fail,
    folders_from,
    jobs,
    llm_model,
    navigator_for,
    path_text,
    read_by,
    report_local_model_loading,
    settings_from,
    telemetry_from,
    write_json,
)

if TYPE_CHECKING:
    from core import TreeNavigator

    from ..corpora import Corpus
    from ..corpora.questions import Question
    from ..walk_settings import WalkSettings
    from ..walks.evaluation import QuestionOutcome
    from ..walks.session import WalkObserver


def cmd_eval(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} eval", description="Walk every question of a question set and score the walks.")
    parser.add_argument("questions", metavar="QUESTIONS", type=path_text, help="a question set (*.questions.yaml)")
    parser.add_argument("--corpus", metavar="C", type=path_text,
                        help="the corpus (default: the one the question set names)")
    add_walk_options(parser)
    parser.add_argument("--jobs", type=jobs, default=1, metavar="N", help="questions walked at once")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument("--compare", metavar="MODEL",
                        help="also walk every question with navigator MODEL: both hit rates, and the questions where "
                             "the two navigators land differently (give it its own LLM options in its id, e.g. "
                             "local:smollm2@system=b.txt)")
    parser.add_argument("--budgets", type=budget_list, metavar="N,N,...",
                        help="walk every question at each of these visit budgets (3,5,8,15): a row per budget, and "
                             "for each question the smallest budget that lands an expected node; over an LLM only "
                             "the largest budget's calls are made, the smaller ones re-walk its decisions")
    parser.add_argument("--save-run", metavar="FILE", type=path_text,
                        help="keep this run in FILE: its settings, the model id with its options, the question set's "
                             "path and hash, and every question's result")
    parser.add_argument("--against", metavar="FILE", type=path_text,
                        help="compare this run with one kept by --save-run: hit, hit@3 and precision deltas, and the "
                             "questions fixed and broken")
    add_llm_options(parser)
    add_telemetry_options(parser)
    args = parser.parse_args(argv)
    if args.budgets is not None and (args.save_run is not None or args.against is not None):
        fail("--budgets cannot go with --save-run or --against; keep or compare one budget's run at a time")
    if args.budgets is not None and args.compare is not None:
        fail("--budgets and --compare cannot go together; sweep one navigator at a time")
    if args.budgets is not None and args.max_visits is not None:
        fail("--budgets and --max-visits cannot go together; the budgets are the visit budgets to walk with")
    args.navigator = llm_model(args, args.navigator)
    wiring = Wiring(hearing=report_local_model_loading(), folders=folders_from(args))
    from ..corpora.questions import fit_problem, load_questions
    from ..corpora.validate import stats
    from ..walks.evaluation import evaluate, summarize

    try:
        questions = load_questions(args.questions)
    except CorpusError as exc:
        fail(str(exc))
    corpus_path = args.corpus or questions.corpus_path
    if corpus_path is None:
        fail(f"{args.questions}: the question set names no corpus; pass --corpus PATH")
    corpus = corpus_at(corpus_path)
    problem = fit_problem(questions, corpus)
    if problem is not None:
        fail(problem)
    kept = None
    if args.against is not None:
        from ..walks.evaluation.kept_run import RunError, check_fit, file_sha256, read_run

        try:
            kept = read_run(args.against)
            check_fit(kept, file_sha256(questions.path), corpus.sha256)
        except RunError as exc:
            fail(str(exc))
    if args.save_run is not None:
        check_writable(args.save_run, "write the kept run", "run.json")
    navigator = navigator_for(args.navigator, wiring=wiring)
    compare_navigator = navigator_for(args.compare, wiring=wiring) if args.compare is not None else None
    check_apart(args, ("the question set", args.questions), ("the corpus", corpus.path),
                ("the kept run --against reads", args.against), *read_by(args.navigator),
                *read_by(args.compare, "--compare"))
    settings = settings_from(args, "", args.navigator, args.on_failure)
    telemetry = telemetry_from(args)
    spans = telemetry.for_evaluation() if telemetry is not None else None  # each walk sent with its score
    observers = [spans.observe] if spans is not None else []
    scored = spans.scored if spans is not None else None
    progress_console = console(stderr=True)
    show_progress = progress_console.is_terminal and not args.json
    if args.budgets is not None:
        try:
            return _sweep(args, questions.path, corpus, questions.questions, settings, navigator, observers, scored)
        finally:
            if telemetry is not None:
                telemetry.close()
    try:
        if show_progress:
            from rich.progress import Progress

            with Progress(console=progress_console, transient=True) as progress:
                task = progress.add_task("walking", total=len(questions.questions))

                def done(outcome: QuestionOutcome) -> None:
                    if scored is not None:
                        scored(outcome)
                    progress.advance(task)

                outcomes = evaluate(corpus, questions.questions, settings, jobs=args.jobs,
                                    navigator=navigator, on_done=done, observers=observers)
        else:
            outcomes = evaluate(corpus, questions.questions, settings, jobs=args.jobs,
                                navigator=navigator, on_done=scored, observers=observers)
        summary = summarize(outcomes, stats(corpus))
        compared = None
        if compare_navigator is not None:
            from ..walks.evaluation import EvalComparison

            b_outcomes = evaluate(corpus, questions.questions, settings.but(model=args.compare), jobs=args.jobs,
                                  navigator=compare_navigator, on_done=scored, observers=observers)
            compared = EvalComparison(args.navigator, args.compare, tuple(outcomes), tuple(b_outcomes), summary,
                                      summarize(b_outcomes, stats(corpus)))
    finally:  # after the second navigator's walks too: they are sent like the first's
        if telemetry is not None:
            telemetry.close()
    against = None
    if kept is not None:
        from ..walks.evaluation import KeptRun, RunComparison, RunError

        try:
            against = RunComparison(kept, KeptRun.of("this run", args.navigator, questions.path, corpus, outcomes,
                                                     summary))
        except RunError as exc:
            fail(str(exc))
    if args.save_run is not None:
        from ..walks.evaluation import keep_run

        try:
            keep_run(args.save_run, questions.path, corpus, settings, outcomes, summary)
        except OSError as exc:
            fail(f"cannot keep the run in {args.save_run}: {exc.strerror or exc}")
    if args.json:
        from ..walks.evaluation import evaluation_to_json

        document = evaluation_to_json(questions.path, corpus, settings, outcomes, summary, compared)
        if against is not None:
            document["against"] = against.to_json()
        write_json(document)
    else:
        from .render import eval_summary, eval_table, miss_lines

        out = console()
        out.print(eval_table(outcomes))
        out.print(miss_lines(outcomes))
        out.print(eval_summary(summary))
        if compared is not None:
            out.print("\n".join(compared.lines()), markup=False, highlight=False)
        if against is not None:
            out.print("\n".join(against.lines()), markup=False, highlight=False)
    return EXIT_OK


def _sweep(args: argparse.Namespace, questions_path: Path, corpus: Corpus, questions: Sequence[Question],
           settings: WalkSettings, navigator: TreeNavigator, observers: Sequence[WalkObserver],
           scored: Callable[[QuestionOutcome], None] | None) -> int:
    """``eval --budgets``: the sweep's rows and each question's budget, or (``--json``) the largest budget's
    evaluation document with the sweep in it."""
    from ..corpora.validate import stats
    from ..walks.evaluation import evaluation_to_json, summarize, sweep

    found = sweep(corpus, questions, settings, args.budgets, navigator=navigator, jobs=args.jobs,
                  observers=observers, on_done=scored)
    if args.json:
        top = found.rows[-1]
        document = evaluation_to_json(questions_path, corpus, settings.but(max_nodes_visited=top.budget),
                                      top.outcomes, summarize(top.outcomes, stats(corpus)))
        document["sweep"] = found.to_json()
        write_json(document)
    else:
        console().print("\n".join(found.lines()), markup=False, highlight=False)
    return EXIT_OK
