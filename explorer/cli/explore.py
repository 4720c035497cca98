"""``reasoning-explorer [CORPUS | TRACE | QUESTIONS]``: the explorer itself (the only path that imports Textual)."""

from __future__ import annotations

import argparse
import gc
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ..corpora import Corpus, CorpusError
from ..safe_text import one_line
from ..trace import Trace
from .inputs import corpus_at, open_trace, trace_corpus
from .options import (
    DEFAULT_CORPUS,
    DEFAULT_QUERY,
    EXIT_OK,
    EXPLORER_MODEL,
    PROG,
    Parser,
    add_llm_options,
    add_telemetry_options,
    add_walk_options,
    apply_cache_options,
    check_writable,
    fail,
    llm_model,
    navigator_for,
    path_text,
    query_text,
    seconds,
    settings_from,
    telemetry_from,
)

if TYPE_CHECKING:
    from ..corpora.questions import QuestionSet


def question_set_for(args: argparse.Namespace) -> tuple[QuestionSet, Corpus] | None:
    """When the explorer is given a question set (by its ``.questions.yaml`` name or its content): the set and its
    corpus, checked (exit 2 with one line when they do not fit); otherwise ``None`` (and no ``--compare``)."""
    from ..walks.evaluation import looks_like_question_set

    if not args.corpus or not looks_like_question_set(args.corpus):
        if args.compare is not None:
            fail("--compare walks a question set with a second navigator: give QUESTIONS.yaml (or use `eval "
                 "--compare`)")
        return None
    from ..corpora.questions import load_questions

    try:
        questions = load_questions(args.corpus)
    except CorpusError as exc:
        fail(str(exc))
    if questions.corpus_path is None:
        fail(f"{args.corpus}: the question set names no corpus; add `corpus: FILE` to it")
    navigator_for(args.navigator)  # walked headless: a navigator that needs a person is refused now
    if args.compare is not None:
        navigator_for(args.compare)
    corpus = corpus_at(questions.corpus_path)
    problems = questions.check(corpus)
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        fail(f"{problems[0]}{more}")
    return questions, corpus


def freeze_after_full_collection(phase: str, info: dict[str, int]) -> None:
    """A ``gc.callbacks`` hook for the explorer: what survives a full collection is frozen too.

    After a few hundred steps the app holds ~150,000 long-lived objects (mostly Textual's render caches), and
    a full collection over them stalls one step by 100-300 ms (bench/tui_large.py). Frozen, they are no longer
    scanned: the worst step drops to ~25 ms. The price: a cycle that was alive at a full collection and dies
    later is not collected (a closed prompt's widgets, a few hundred KB); resident memory did not grow over
    the bench's 200 steps.
    """
    if phase == "stop" and info.get("generation") == 2:
        gc.freeze()


def cmd_explore(argv: Sequence[str]) -> int:
    parser = Parser(prog=PROG, description="See and debug LLM-guided tree retrieval, one step at a time.",
                    epilog="Sub-commands: walk, validate, eval, replay, serve (see `reasoning-explorer COMMAND "
                           "--help`).")
    parser.add_argument("corpus", metavar="CORPUS", nargs="?", type=path_text,
                        help="a corpus (.yaml, PageIndex .json, .md or a folder), or a trace (.jsonl) to step "
                             "through (default: the sample handbook)")
    parser.add_argument("--query", "-q", metavar="Q", type=query_text, help="start a walk on this question")
    add_walk_options(parser, default_model=EXPLORER_MODEL)
    parser.add_argument("--autoplay", type=seconds, metavar="SECONDS",
                        help="play the walk by itself, one step every SECONDS (demo mode)")
    parser.add_argument("--no-files", action="store_true",
                        help="turn off the keys that open and save files (for a session shared on a network)")
    parser.add_argument("--trace", metavar="FILE", type=path_text, help="save each finished walk as a trace to FILE")
    parser.add_argument("--compare", metavar="MODEL",
                        help="with a question set: walk every question with this navigator too, in a second set of "
                             "columns (the questions where the two differ open side by side)")
    add_llm_options(parser)
    add_telemetry_options(parser)
    args = parser.parse_args(argv)
    args.navigator = llm_model(args, args.navigator)
    apply_cache_options(args)  # every navigator the app resolves reads it at each call
    questions = question_set_for(args)  # QUESTIONS.yaml opens the evaluation screen on its corpus
    opened: Trace | None = None
    navigator = navigator_for(args.navigator, headless=False)
    if questions is not None:
        corpus = questions[1]
    elif args.corpus and args.corpus.endswith(".jsonl"):
        opened = open_trace(args.corpus)
        corpus = trace_corpus(Path(args.corpus), opened, None)
    else:
        path = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
        if not args.corpus and not path.exists():
            fail("no corpus given and the sample corpora are not installed here; pass CORPUS")
        corpus = corpus_at(path, show_progress=True)
    if args.query is not None and not args.query.strip():
        fail("the query is blank; ask a question or leave --query out")
    settings = settings_from(args, args.query or "", args.navigator, args.on_failure)
    if args.trace:
        check_writable(args.trace)
    problems: list[str] = []  # the screen owns stderr while the app runs: say them after it
    telemetry = telemetry_from(args, report=problems.append)
    from ..tui.app import ExplorerApp  # the only path that imports Textual

    # The corpus and the app's widgets live as long as the app: move them out of the cyclic collector's
    # reach, so a full collection never stalls a step on a large corpus (bench/tui_large.py).
    gc.freeze()
    gc.callbacks.append(freeze_after_full_collection)

    app = ExplorerApp(
        corpus,
        settings,
        navigator=navigator,
        start_walk=args.query is not None,
        autoplay=args.autoplay,
        trace_path=args.trace,
        example_query=DEFAULT_QUERY if corpus.path.resolve() == DEFAULT_CORPUS.resolve() else None,
        opened_trace=opened,
        allow_files=not args.no_files,
    )
    if questions is not None:
        app.evaluate_at_start(questions[0], args.compare)
    from ..walks.session import observing

    try:
        with observing(*([telemetry.observe] if telemetry is not None else [])):
            app.run()
    finally:
        if telemetry is not None:
            telemetry.close()
        for problem in problems:
            print(f"{PROG}: warning: {one_line(problem)}", file=sys.stderr)
    return app.return_code or EXIT_OK
