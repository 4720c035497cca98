"""``reasoning-explorer eval``: every question of a question set walked and scored."""

from __future__ import annotations

from collections.abc import Sequence

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
    console,
    fail,
    jobs,
    llm_model,
    navigator_for,
    path_text,
    report_local_model_loading,
    settings_from,
    telemetry_from,
    write_json,
)


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
    report_local_model_loading()
    from ..corpora.questions import load_questions
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
    problems = questions.check(corpus)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        fail(f"{problems[0]}{more}")
    navigator = navigator_for(args.navigator)
    compare_navigator = navigator_for(args.compare) if args.compare is not None else None
    settings = settings_from(args, "", args.navigator, args.on_failure)
    telemetry = telemetry_from(args)
    observers = [telemetry.observe] if telemetry is not None else []
    progress_console = console(stderr=True)
    show_progress = progress_console.is_terminal and not args.json
    try:
        if show_progress:
            from rich.progress import Progress

            with Progress(console=progress_console, transient=True) as progress:
                task = progress.add_task("walking", total=len(questions.questions))
                outcomes = evaluate(corpus, questions.questions, settings, jobs=args.jobs,
                                    navigator=navigator,
                                    on_done=lambda _: progress.advance(task), observers=observers)
        else:
            outcomes = evaluate(corpus, questions.questions, settings, jobs=args.jobs,
                                navigator=navigator, observers=observers)
    finally:
        if telemetry is not None:
            telemetry.close()
    summary = summarize(outcomes, stats(corpus))
    compared = None
    if compare_navigator is not None:
        from ..walks.evaluation import EvalComparison

        b_outcomes = evaluate(corpus, questions.questions, settings.but(model=args.compare), jobs=args.jobs,
                              navigator=compare_navigator)
        compared = EvalComparison(args.navigator, args.compare, tuple(outcomes), tuple(b_outcomes), summary,
                                  summarize(b_outcomes, stats(corpus)))
    if args.json:
        document = {
            "questions": str(questions.path), "corpus": str(corpus.path), "navigator": args.navigator,
            "settings": {"max_nodes_visited": settings.max_nodes_visited, "max_depth": settings.max_depth,
                         "on_failure": settings.on_failure.value},
            "results": [
                {"id": o.question.id, "query": o.question.query, "expect": list(o.question.expect),
                 "landed": list(o.landed), "hit": o.hit, "branch_entered": o.branch_entered,
                 "first_wrong_turn": o.first_wrong_turn, "visits_used": o.visits_used, "navigator_calls": o.calls,
                 "chars_shipped": o.chars_shipped, "stop_reasons": o.stop_reasons, "end": o.end, "error": o.error}
                for o in outcomes
            ],
            "summary": {
                "questions": summary.questions, "hit_rate": summary.hit_rate, "hits": summary.hits,
                "branch_entry_rate": summary.branch_rate, "mean_visits": summary.mean_visits,
                "mean_navigator_calls": summary.mean_calls, "mean_chars_shipped": summary.mean_chars,
                "chars_vs_titles_summaries": summary.chars_vs_titles_summaries,
                "chars_vs_content": summary.chars_vs_content, "valid_answer_rate": summary.valid_answer_rate,
                "failed_walks": summary.failed, "stop_reasons": summary.stop_reasons,
            },
        }
        if compared is not None:
            document["compare"] = compared.to_json()
        write_json(document)
    else:
        from .render import eval_summary, eval_table

        out = console()
        out.print(eval_table(outcomes))
        out.print(eval_summary(summary))
        if compared is not None:
            out.print("\n".join(compared.lines()), markup=False, highlight=False)
    return EXIT_OK
