"""``reasoning-explorer eval``: every question of a question set walked and scored."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..corpora import CorpusError
from .inputs import corpus_at
from .options import (
    EXIT_OK,
    PROG,
    Parser,
    add_llm_options,
    add_telemetry_options,
    add_walk_options,
    apply_cache_options,
    check_apart,
    console,
    fail,
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
    from ..walks.evaluation import QuestionOutcome


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
    add_llm_options(parser)
    add_telemetry_options(parser)
    args = parser.parse_args(argv)
    args.navigator = llm_model(args, args.navigator)
    apply_cache_options(args)
    hearing = report_local_model_loading()
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
    navigator = navigator_for(args.navigator, hearing=hearing)
    compare_navigator = navigator_for(args.compare, hearing=hearing) if args.compare is not None else None
    check_apart(args, ("the question set", args.questions), ("the corpus", corpus.path),
                read_by(navigator, args.navigator), read_by(compare_navigator, args.compare, "--compare"))
    settings = settings_from(args, "", args.navigator, args.on_failure)
    telemetry = telemetry_from(args)
    spans = telemetry.for_evaluation() if telemetry is not None else None  # each walk sent with its score
    observers = [spans.observe] if spans is not None else []
    scored = spans.scored if spans is not None else None
    progress_console = console(stderr=True)
    show_progress = progress_console.is_terminal and not args.json
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
    if args.json:
        from ..walks.evaluation import evaluation_to_json

        write_json(evaluation_to_json(questions.path, corpus, settings, outcomes, summary, compared))
    else:
        from .render import eval_summary, eval_table, miss_lines

        out = console()
        out.print(eval_table(outcomes))
        out.print(miss_lines(outcomes))
        out.print(eval_summary(summary))
        if compared is not None:
            out.print("\n".join(compared.lines()), markup=False, highlight=False)
    return EXIT_OK
