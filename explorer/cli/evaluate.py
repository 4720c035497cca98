"""``reasoning-explorer eval``: every question of a question set walked and scored."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import OnFailure

from ..corpora import CorpusError
from ..numbers import counted
from ..outputs import Ledger
from ..safe_text import visible
from ..walks.session import Wiring
from .inputs import corpus_at
from .options import (
    EXIT_OK,
    PROG,
    Input,
    Parser,
    add_judge_option,
    add_llm_options,
    add_map_option,
    add_overwrite_option,
    add_pdf_option,
    add_telemetry_options,
    add_walk_options,
    budget_list,
    check_apart,
    check_writable,
    checked_judge,
    console,
    fail,
    folders_from,
    jobs,
    judge_from,
    llm_model,
    navigator_for,
    path_text,
    pdf_summaries,
    policy_option,
    policy_settings,
    print_whole,
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
    from ..navigators.judge import Judge
    from ..walk_settings import WalkSettings
    from ..walks.evaluation import EvaluationRun, KeptRun, QuestionOutcome, Sweep
    from ..walks.session import EndHook


def cmd_eval(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} eval", description="Walk every question of a question set and score the walks.")
    parser.add_argument("questions", metavar="QUESTIONS", nargs="?", type=path_text,
                        help="a question set (*.questions.yaml)")
    parser.add_argument("--check", metavar="CORPUS", type=path_text,
                        help="walk the check set of CORPUS instead of a question set: the questions kept with K for "
                             "it and the misses and flips of its last kept run, written beside it as "
                             "X.check.questions.yaml")
    parser.add_argument("--corpus", metavar="C", type=path_text,
                        help="the corpus (default: the one the question set names)")
    add_pdf_option(parser)
    add_map_option(parser)
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
                        help="compare this run with one kept by --save-run (the kept run is the was side): on the "
                             "questions both hold, hit, hit@3 and precision deltas, and the questions fixed and broken")
    parser.add_argument("--resume", metavar="FILE", type=path_text,
                        help="walk only the questions a run kept by --save-run does not hold (a partial run: a "
                             "cancelled evaluation kept) with the settings it was kept with, and merge: no navigator "
                             "is asked about a question it holds (--save-run keeps the whole run in another file)")
    parser.add_argument("--compare-policy", type=policy_option, metavar="Q",
                        help="also walk every question under walk policy Q (depth-first, best-first[@alpha=A]) with "
                             "the same navigator and budget: per policy hit@3, landed, precision, calls and tokens, "
                             "and whether the other policy lands each miss; with --budgets, the cost/quality curve")
    add_judge_option(parser)
    parser.set_defaults(navigator=None, on_failure=None)  # given, or the resumed run's, else the usual defaults
    add_llm_options(parser)
    add_telemetry_options(parser)
    add_overwrite_option(parser)
    args = parser.parse_args(argv)
    args.questions, check_sources = _questions_or_check(args)
    checked_judge(args.judge)
    _check_compare_policy(args)
    if args.budgets is not None and (args.save_run is not None or args.against is not None):
        fail("--budgets cannot go with --save-run or --against; keep or compare one budget's run at a time")
    if args.budgets is not None and args.compare is not None:
        fail("--budgets and --compare cannot go together; sweep one navigator at a time")
    if args.budgets is not None and args.max_visits is not None:
        fail("--budgets and --max-visits cannot go together; the budgets are the visit budgets to walk with")
    if args.resume is not None and (args.budgets is not None or args.compare is not None):
        fail("--resume cannot go with --budgets or --compare; resume one navigator's run at a time")
    resumed = _read_kept(args.resume) if args.resume is not None else None
    args.navigator = llm_model(args, args.navigator or (resumed.navigator if resumed else "lexical:default"))
    wiring = Wiring(hearing=report_local_model_loading(), folders=folders_from(args))
    from ..corpora.questions import fit_problem, load_questions
    from ..corpora.validate import stats
    from ..walks.evaluation import EvaluationRun, evaluate, summarize

    try:
        questions = load_questions(args.questions)
    except CorpusError as exc:
        fail(str(exc))
    corpus_path = args.corpus or questions.corpus_path
    if corpus_path is None:
        fail(f"{args.questions}: the question set names no corpus; pass --corpus PATH")
    corpus = corpus_at(corpus_path, pdf=args.pdf, summaries=pdf_summaries(args, corpus_path), map_file=args.map)
    problem = fit_problem(questions, corpus)
    if problem is not None:
        fail(problem)
    judge = judge_from(args, corpus, wiring)
    kept = _fit(_read_kept(args.against), questions.path, corpus, comparing=True) if args.against is not None else None
    settings = _settings(args, resumed)
    held = {}
    if resumed is not None:  # refused before any walk: another set or corpus, other settings
        held = _held(args.resume, _fit(resumed, questions.path, corpus), questions.questions)
        _same_map(resumed, corpus)
    if args.save_run is not None:
        check_writable(args.save_run, "write the kept run", "run.json")
    navigator = navigator_for(args.navigator, wiring=wiring)
    compare_navigator = navigator_for(args.compare, wiring=wiring) if args.compare is not None else None
    check_apart(args, ("the question set", args.questions), ("the corpus", corpus.path), ("the PDF", args.pdf),
                ("the map variant", args.map), ("the kept run --against reads", args.against),
                ("the kept run --resume reads", args.resume),
                *read_by(args.navigator), *read_by(args.compare, "--compare"), *read_by(args.judge, "--judge"),
                *check_sources, ledger=wiring.ledger)
    telemetry = telemetry_from(args, ledger=wiring.ledger)
    spans = telemetry.for_evaluation() if telemetry is not None else None  # each walk sent with its score
    if spans is not None:  # the same wiring (its ledger holds the telemetry's file), observed by the spans
        wiring = replace(wiring, observers=(spans.observe,))
    hook = wiring.hook()  # the evaluation's walks are nobody's walk list: none kept
    scored = spans.scored if spans is not None else None
    if spans is not None and judge is not None:  # each walk's span carries its verdict and the flat search's rank
        scored = partial(_sent_judged, spans.scored, judge, args.navigator)
    progress_console = console(stderr=True)
    show_progress = progress_console.is_terminal and not args.json
    curve = _policies if args.compare_policy is not None else _sweep if args.budgets is not None else None
    if curve is not None:  # the policies compared (at one budget or several), or the budgets swept
        try:
            return curve(args, questions.path, corpus, questions.questions, settings, navigator, hook, scored,
                         judge)
        finally:
            if telemetry is not None:
                telemetry.close()
    if resumed is not None:
        count = len(questions.questions)
        print(visible(f"Resuming {args.resume} ({resumed.label}): it holds {len(held)} of "
                      f"{counted(count, 'question')}; walking the {count - len(held)} it does not hold"),
              file=sys.stderr)
    try:
        run = EvaluationRun(corpus, questions.questions, settings, navigator=navigator, jobs=args.jobs,
                            hook=hook, held=held)
        try:
            walked = _walk(run, scored, progress_console if show_progress else None)
        except KeyboardInterrupt:
            if args.save_run is not None:
                _keep_interrupted(args.save_run, questions.path, corpus, settings,  # judged as a whole run is
                                  _judged(run.outcomes, judge, args.navigator), wiring.ledger)
            _close(navigator, compare_navigator)  # the traceback holds them: their clients end now, not with it
            raise
        walked = _judged(walked, judge, args.navigator)
        outcomes = [o for o in walked if o is not None]
        summary = summarize(outcomes, stats(corpus))
        compared = None
        if compare_navigator is not None:
            from ..walks.evaluation import EvalComparison

            b_outcomes = evaluate(corpus, questions.questions, settings.but(model=args.compare), jobs=args.jobs,
                                  navigator=compare_navigator, on_done=scored, hook=hook)
            b_outcomes = [o for o in _judged(b_outcomes, judge, args.compare) if o is not None]
            compared = EvalComparison(args.navigator, args.compare, tuple(outcomes), tuple(b_outcomes), summary,
                                      summarize(b_outcomes, stats(corpus)))
    finally:  # after the second navigator's walks too: they are sent like the first's
        if telemetry is not None:
            telemetry.close()
    _judge_cost(judge)
    against = None
    if kept is not None:
        from ..walks.evaluation import KeptRun, RunComparison, RunError
        from ..walks.evaluation.kept_run import file_sha256

        try:
            against = RunComparison(kept, KeptRun.of("this run", settings, file_sha256(questions.path), corpus, walked,
                                                     questions.path))
        except RunError as exc:
            fail(str(exc))
    if args.save_run is not None:
        from ..walks.evaluation import keep_run

        try:
            keep_run(args.save_run, questions.path, corpus, settings, walked, wiring.ledger)
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
        if corpus.map is not None:  # a setting like a prompt variant: said before the figures it made
            out.print(visible(f"Map variant {corpus.map.path} (sha256 {corpus.map.sha256[:12]}…) over "
                              f"{corpus.path.name}"), markup=False, highlight=False)
        print_whole(out, eval_table(outcomes))
        out.print(miss_lines(outcomes, nodes=len(corpus.index)))
        out.print(eval_summary(summary))
        if compared is not None:
            out.print("\n".join(compared.lines()), markup=False, highlight=False)
        if against is not None:
            out.print("\n".join(against.lines()), markup=False, highlight=False)
    return EXIT_OK


def _judged(outcomes: Sequence[QuestionOutcome | None], judge: Judge | None,
            model: str) -> list[QuestionOutcome | None]:
    """Each outcome walked now with its verdict and the flat search's rank; one a resumed run held (no walk kept
    with it) as it was kept, and every one as it was with no judge."""
    if judge is None:
        return list(outcomes)
    from ..walks.evaluation import judged

    found: list[QuestionOutcome | None] = []
    for number, o in enumerate(outcomes):
        try:
            found.append(judged(o, judge, model) if o is not None and o.history is not None else o)
        except Exception as exc:  # a navigator judging (an LLM) that fails: the run is kept, its misses unjudged
            print(visible(f"{PROG}: --judge {judge.name} failed ({type(exc).__name__}: {exc}); the "
                          f"{len(outcomes) - number} question(s) left are not judged"), file=sys.stderr)
            return found + list(outcomes[number:])
    return found


def _judge_cost(judge: Judge | None) -> None:
    """What a navigator judging (an LLM) cost, on stderr: its calls."""
    from ..navigators.navigator_judge import NavigatorJudge

    if isinstance(judge, NavigatorJudge):
        print(visible(f"{PROG}: the judge {judge.name} made {counted(judge.calls, 'call')} (two a miss it judged, "
                      "one a question for the flat search's rerank)"), file=sys.stderr)


def _sent_judged(send: Callable[[QuestionOutcome], None], judge: Judge, model: str, outcome: QuestionOutcome) -> None:
    """Send ``outcome``'s walk span judged: whose fault its miss was, where a flat search ranks its expected node (as
    it is when the judge fails: :func:`_judged` says so)."""
    send(next(iter(_judged([outcome], judge, model)), None) or outcome)


def _read_kept(path: str) -> KeptRun:
    """The run kept at ``path``, or one line and exit 2."""
    from ..walks.evaluation.kept_run import RunError, read_run

    try:
        return read_run(path)
    except RunError as exc:
        fail(str(exc))


def _fit(kept: KeptRun, questions_path: Path, corpus: Corpus, *, comparing: bool = False) -> KeptRun:
    """``kept``, a run of this question set over this corpus (``comparing``: or of its check set as it was); else
    one line and exit 2."""
    from ..walks.evaluation.kept_run import RunError, check_fit, file_sha256

    try:
        check_fit(kept, file_sha256(questions_path), corpus.sha256, compared_on=questions_path if comparing else None)
    except RunError as exc:
        fail(str(exc))
    return kept


def _same_map(resumed: KeptRun, corpus: Corpus) -> None:
    """A run resumed with the map variant it was kept with (none, or the same bytes); else one line and exit 2."""
    from ..walks.evaluation.kept_run import RunError, check_same_map

    try:
        check_same_map(resumed, corpus.map)
    except RunError as exc:
        fail(str(exc))


def _settings(args: argparse.Namespace, resumed: KeptRun | None) -> WalkSettings:
    """The settings walked with: those given, else (``--resume``) the kept run's, else the defaults; a run resumed
    with other settings than it was kept with is refused in one line."""
    if resumed is None:
        return settings_from(args, "", args.navigator, args.on_failure or OnFailure.THROW.value)
    kept = resumed.settings
    given = {"max_nodes_visited": args.max_visits, "max_depth": args.max_depth,
             "on_failure": OnFailure(args.on_failure) if args.on_failure is not None else None}
    settings = kept.but(model=args.navigator, **{key: value for key, value in given.items() if value is not None},
                        **policy_settings(args, kept))
    from ..walks.evaluation import RunError, check_resumable

    try:
        check_resumable(resumed, settings)
    except RunError as exc:
        fail(str(exc))
    return settings


def _held(path: str, resumed: KeptRun, questions: Sequence[Question]) -> dict[int, QuestionOutcome]:
    """What the resumed run holds, read back (one line and exit 2 for a result that cannot be)."""
    from ..walks.evaluation import RunError, held_outcomes

    try:
        held = held_outcomes(resumed, questions)
    except RunError as exc:
        fail(str(exc))
    return held


def _walk(run: EvaluationRun, scored: Callable[[QuestionOutcome], None] | None,
          progress_console: Any | None) -> list[QuestionOutcome | None]:
    """Walk the run; on a terminal, with a progress line on stderr that says the time left once a walk has ended
    (``about 3 min left``: :func:`~explorer.walks.evaluation.time_left`)."""
    if progress_console is None:
        return run.run(None if scored is None else lambda _, outcome: scored(outcome))
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from ..walks.evaluation import Pace, time_left

    pace, left = Pace(), len(run.to_walk)
    with Progress(TextColumn("walking"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[left]}"),
                  console=progress_console, transient=True) as progress:
        task = progress.add_task("walking", total=left, left="")

        def done(_: int, outcome: QuestionOutcome) -> None:
            nonlocal left
            if scored is not None:
                scored(outcome)
            pace.walk_ended()
            left -= 1
            progress.update(task, advance=1, left=time_left([(pace, left)]), refresh=True)

        return run.run(done)


def _keep_interrupted(path: str, questions_path: Path, corpus: Corpus, settings: WalkSettings,
                      outcomes: Sequence[QuestionOutcome | None], ledger: Ledger) -> None:
    """Ctrl+C with ``--save-run``: what was walked is kept as a partial run, and stderr says how to go on."""
    from ..walks.evaluation import KeptRun, keep_run

    try:
        keep_run(path, questions_path, corpus, settings, outcomes, ledger)
    except OSError as exc:
        print(f"{PROG}: cannot keep the run in {path}: {exc.strerror or exc}", file=sys.stderr)
        return
    kept = KeptRun.of(path, settings, "", corpus, outcomes)
    print(visible(f"Kept the {len(kept.results)} of {counted(kept.total, 'question')} walked in {path}, a partial "
                  f"run: eval --resume {path} walks the rest"), file=sys.stderr)


def _sweep(args: argparse.Namespace, questions_path: Path, corpus: Corpus, questions: Sequence[Question],
           settings: WalkSettings, navigator: TreeNavigator, hook: EndHook,
           scored: Callable[[QuestionOutcome], None] | None, judge: Judge | None = None) -> int:
    """``eval --budgets``: the sweep's rows and each question's budget, or (``--json``) the largest budget's
    evaluation document with the sweep in it."""
    from ..corpora.validate import stats
    from ..walks.evaluation import evaluation_to_json, summarize, sweep

    found = sweep(corpus, questions, settings, args.budgets, navigator=navigator, jobs=args.jobs,
                  hook=hook, on_done=scored)
    flat = None
    if judge is not None:  # the flat search's hit@3: a level line of its own, as the policy curve draws it
        from ..walks.evaluation.verdict_run import flat_hits_at_3

        flat = flat_hits_at_3(judge, [(q.query, q.expect) for q in questions])
    if args.json:
        top = found.rows[-1]
        outcomes = [o for o in _judged(top.outcomes, judge, settings.model) if o is not None]
        document = evaluation_to_json(questions_path, corpus, settings.but(max_nodes_visited=top.budget),
                                      outcomes, summarize(outcomes, stats(corpus)))
        document["sweep"] = {**found.to_json(), **({"flat_hits_at_3": flat} if flat is not None else {})}
        write_json(document)
    else:
        _print_sweep(found.lines(), [(args.navigator, found)], flat)
    return EXIT_OK


def _print_sweep(lines: list[str], named: Sequence[tuple[str, Sweep]], flat: int | None = None) -> None:
    """A sweep's rows and the flat search's hit@3 (``flat``: none when not searched), then its chart (hit@3 by
    budget, a line per sweep named, the flat search's level), then each question's budget."""
    from ..walks.evaluation import flat_line, hit_at_3_chart
    from ..walks.evaluation.policy_curve import flat_words
    from .render import budget_chart

    out = console()
    split = lines.index("Per question:") if "Per question:" in lines else len(lines)
    said = flat_words(flat, max((len(found.questions) for _, found in named), default=0))
    out.print("\n".join([*lines[:split], *([said] if said else [])]), markup=False, highlight=False)
    out.print(budget_chart(flat_line(hit_at_3_chart(named), flat), out.is_terminal))
    if split < len(lines):
        out.print("\n".join(lines[split:]), markup=False, highlight=False)


def _check_compare_policy(args: argparse.Namespace) -> None:
    """``--compare-policy``: another policy than the one walked, and none of the options that keep or compare one
    run; else one line and exit 2."""
    if args.compare_policy is None:
        return
    for given, name in ((args.compare, "--compare"), (args.save_run, "--save-run"), (args.against, "--against"),
                        (args.resume, "--resume")):
        if given is not None:
            fail(f"--compare-policy cannot go with {name}; compare the policies of one navigator's run at a time")
    from core import Policy
    from core.policy import DEFAULT_ALPHA

    if (args.policy or (Policy.DEPTH_FIRST, DEFAULT_ALPHA)) == args.compare_policy:
        fail("--compare-policy names the policy walked already; give the other one (--policy depth-first "
             "--compare-policy best-first)")


def _policies(args: argparse.Namespace, questions_path: Path, corpus: Corpus, questions: Sequence[Question],
              settings: WalkSettings, navigator: TreeNavigator, hook: EndHook,
              scored: Callable[[QuestionOutcome], None] | None, judge: Judge | None = None) -> int:
    """``eval --compare-policy Q``: the set walked under the policy of ``settings`` and under Q, at each budget of
    ``--budgets`` (the curve, and its chart) or at the one budget walked (the evaluation of the first policy, each
    miss saying whether the other lands it, and both policies' figures); ``--json``: the largest budget's evaluation
    of the first policy with the ``policy_curve`` in it."""
    from ..corpora.validate import stats
    from ..walks.evaluation import evaluation_to_json, policy_curve, summarize
    from .render import budget_chart, eval_summary, eval_table, miss_lines

    budgets = args.budgets or (settings.max_nodes_visited,)
    curve = policy_curve(corpus, questions, settings, [(settings.policy, settings.alpha), args.compare_policy],
                         budgets, navigator=navigator, jobs=args.jobs, hook=hook, on_done=scored)
    if judge is not None:  # the flat search's hit@3: a level line of its own on the curve
        from ..walks.evaluation.verdict_run import flat_hits_at_3

        curve = replace(curve, flat=flat_hits_at_3(judge, [(q.query, q.expect) for q in questions]))
    top = len(curve.budgets) - 1
    first = [o for o in _judged(curve.outcomes(0, top), judge, settings.model) if o is not None]
    if args.json:
        document = evaluation_to_json(questions_path, corpus, settings.but(max_nodes_visited=curve.budgets[top]),
                                      first, summarize(first, stats(corpus)))
        document["policy_curve"] = curve.to_json()
        write_json(document)
        return EXIT_OK
    out = console()
    if args.budgets is None:
        other = curve.policies[1]
        print_whole(out, eval_table(first, other=(other, [o.hit for o in curve.outcomes(1, top)])))
        out.print(miss_lines(first, said=[curve.other_words(0, top, n) for n in range(len(first))],
                             nodes=len(corpus.index)))
        out.print(eval_summary(summarize(first, stats(corpus))))
        second = curve.outcomes(1, top)
        out.print(miss_lines(second, said=[curve.other_words(1, top, n) for n in range(len(second))],
                             title=f"Why each miss of {other} is a miss"))
    heading = f"Policies: {' against '.join(curve.policies)} · {visible(settings.model)}"
    flat = [curve.flat_words()] if curve.flat is not None else []
    out.print("\n".join([heading, *curve.lines(), *flat]), markup=False, highlight=False)
    if args.budgets is not None:
        out.print(budget_chart(curve.chart(), out.is_terminal))
    return EXIT_OK


def _questions_or_check(args: argparse.Namespace) -> tuple[str, list[Input]]:
    """The question set to walk: QUESTIONS, or with ``--check CORPUS`` the corpus's check set, written beside it
    (:mod:`explorer.walks.evaluation.check_set`) and said on stderr with how many questions and from where; and what
    the check set was built from (question sets and kept runs: inputs, which no output of the command replaces)."""
    if args.check is None:
        if args.questions is None:
            fail("give QUESTIONS (a question set), or --check CORPUS (the check set of a corpus)")
        return str(args.questions), []
    if args.questions is not None:
        fail(f"--check walks the check set of {args.check}: give it without {args.questions}")
    from ..walks.evaluation import check_set, write_check_set

    corpus = corpus_at(args.check)
    check = check_set(corpus)
    try:
        written = write_check_set(check, corpus)
    except CorpusError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{check.path}: cannot write the check set ({exc.strerror or exc})")
    print(visible(f"Check set of {args.check}: {check.words()} ({written.path})"), file=sys.stderr)
    return str(written.path), [(read.what, read.path) for read in check.sources]


def _close(*navigators: object) -> None:
    """Close each navigator that can be closed (an LLM navigator's client thread ends)."""
    for navigator in navigators:
        closer = getattr(navigator, "close", None)
        if callable(closer):
            closer()
