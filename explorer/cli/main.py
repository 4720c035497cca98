"""The one entry point, ``reasoning-explorer``: the explorer, and headless sub-commands for scripts and CI.

    reasoning-explorer [CORPUS | TRACE] [--query Q] [--navigator M] [--max-visits N] [--max-depth D]
                       [--on-failure P] [--autoplay SECONDS] [--trace FILE]
    reasoning-explorer walk CORPUS QUERY [--navigator M] [--max-visits N] [--max-depth D] [--on-failure P]
                                         [--json] [--trace FILE] [--runs N [--jobs J]]
    reasoning-explorer QUESTIONS [--compare M] [the explorer's options]   (the evaluation screen)
    reasoning-explorer validate CORPUS
    reasoning-explorer eval QUESTIONS [--corpus C] [--navigator M] [--max-visits N] [--max-depth D] [--jobs N] [--json]
    reasoning-explorer replay TRACE [--corpus C] [--max-visits N] [--max-depth D] [--json]
    reasoning-explorer serve [CORPUS | TRACE] [--host H] [--port P] [the explorer's options]   (in a browser)

Exit codes: 0 success; 1 the command ran but found errors (validate) or the walk failed under the
``throw`` policy; 2 usage and configuration errors (one line on stderr); 130 interrupted. The
headless paths never import Textual.
"""

from __future__ import annotations

import argparse
import errno
import gc
import io
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from core import OnFailure, TreeNavigator, TreeNavigatorError, WalkFinished

from ..corpora import Corpus, CorpusError, load_corpus
from ..ending import WalkEnd
from ..navigators import NavigatorConfigError, resolve_navigator
from ..navigators.forcing import START, Force, ForceError, parse_force
from ..navigators.manual import ManualNavigator
from ..safe_text import clip, json_text, one_line, visible
from ..trace import Trace, TraceError, event_to_json, read_trace
from ..walks.session import WalkSession, WalkSettings
from ..walks.state import WalkState

if TYPE_CHECKING:
    from ..corpora.questions import QuestionSet
    from ..walks.telemetry import WalkTelemetry

PROG = "reasoning-explorer"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_corpora"
DEFAULT_CORPUS = SAMPLES / "handbook.yaml"
DEFAULT_QUERY = "How long do refunds take to arrive?"
EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130
OTLP_ENDPOINT_ENV = "REASONING_EXPLORER_OTLP_ENDPOINT"  # explorer.walks.telemetry.ENDPOINT_ENV; named here so that a
# run without tracing never loads OpenTelemetry


class UsageError(Exception):
    """A usage or configuration error: one line on stderr, exit code 2."""


def fail(message: str) -> NoReturn:
    raise UsageError(message)


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line (and our exit code 2), not a usage dump."""

    def error(self, message: str) -> NoReturn:
        fail(f"{message} (see `{self.prog} --help`)")


def whole_number(minimum: int, maximum: int = 10**9) -> Callable[[str], int]:
    """An argparse type: a whole number from ``minimum`` to ``maximum``, in ASCII digits (``int`` takes ``'²'``-like
    characters and 5,000-digit numbers only to fail or to be absurd)."""

    def parse(text: str) -> int:
        digits = text.strip()
        body = digits[1:] if digits[:1] in ("+", "-") else digits
        if not (body.isascii() and body.isdigit()):
            raise argparse.ArgumentTypeError(f"{clip(text, 40)!r} is not a whole number")
        if len(body) > 12 or int(digits) > maximum:
            raise argparse.ArgumentTypeError(f"{clip(digits, 20)} must be at most {maximum:,}")
        value = int(digits)
        if value < minimum:
            raise argparse.ArgumentTypeError(f"{text} must be at least {minimum}")
        return value

    return parse


positive, non_negative = whole_number(1), whole_number(0)
# The explorer's prompts take the same budgets and depth limits.
visits, depth, jobs = whole_number(1, 100_000), whole_number(0, 100_000), whole_number(1, 64)


def query_text(text: str) -> str:
    """An argparse type for a question: UTF-8 text (bytes that are not come in as lone surrogates, which no
    navigator, trace or terminal should be handed)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"{clip(text, 60)!r} is not UTF-8 text; type the question in a "
                                         "UTF-8 terminal (e.g. LANG=C.UTF-8)") from None
    return text


def path_text(text: str) -> str:
    """An argparse type for a path: not empty (``""`` would quietly mean the current folder), no NUL (no file
    system takes one; ``main`` can be called with any list of strings)."""
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path; name a file or folder")
    if "\0" in text:
        raise argparse.ArgumentTypeError(f"{text!r}: a path cannot hold a NUL character")
    return text


def seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0.05 <= value <= 60:
        raise argparse.ArgumentTypeError(f"{text} must be between 0.05 and 60 seconds")
    return value


EXPLORER_MODEL = "semantic:hybrid"
"""The explorer's navigator (``make run``): the offline one that lands most sample questions (README, Navigators)."""


def add_walk_options(parser: argparse.ArgumentParser, navigator: bool = True,
                     default_model: str = "lexical:default") -> None:
    if navigator:
        parser.add_argument("--navigator", "-n", metavar="MODEL", default=default_model,
                            help=f"navigator model id (default: {default_model})")
    parser.add_argument("--max-visits", type=visits, default=None, metavar="N", help="visit budget (default 15)")
    parser.add_argument("--max-depth", type=depth, default=None, metavar="D", help="depth limit (default 6)")
    if navigator:
        parser.add_argument("--on-failure", choices=[p.value for p in OnFailure], default=OnFailure.THROW.value,
                            help="what a navigator failure does (default: throw)")


def add_force_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transcripts", action="store_true",
                        help="show each decision's transcript in full: what the navigator was sent and answered")
    parser.add_argument("--force", action="append", default=[], metavar="NODE=ID[,ID...]",
                        help="answer the offer at NODE (the node being judged; 'start' for the first offer) with "
                             "these ids instead of asking the navigator; NODE= stops there (repeatable)")


def add_telemetry_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--otlp-endpoint", metavar="URL",
                        help="send each walk as OpenTelemetry spans (OpenInference) to this OTLP/HTTP address, e.g. "
                             f"Phoenix at http://127.0.0.1:6006 (default: ${OTLP_ENDPOINT_ENV})")
    parser.add_argument("--otlp-file", metavar="FILE", type=path_text,
                        help="write each walk's spans to FILE as OTLP/JSON lines")


def telemetry_from(args: argparse.Namespace, report: Callable[[str], None] | None = None) -> WalkTelemetry | None:
    """The span export the options (or $REASONING_EXPLORER_OTLP_ENDPOINT) ask for; a bad address or file: exit 2."""
    if args.otlp_endpoint is None and args.otlp_file is None and not os.environ.get(OTLP_ENDPOINT_ENV, "").strip():
        return None
    from ..walks.telemetry import TelemetryConfigError, WalkTelemetry

    try:
        return WalkTelemetry.from_options(args.otlp_endpoint, args.otlp_file, report=report)
    except TelemetryConfigError as exc:
        fail(str(exc))


def forces_from(values: Sequence[str], corpus: Corpus) -> list[Force]:
    """The ``--force`` values, checked against the corpus: a NODE that is not in it is one line and exit 2."""
    forces: dict[str | None, Force] = {}
    for value in values:
        try:
            force = parse_force(value)
        except ForceError as exc:
            fail(str(exc))
        if force.node is not None and force.node not in corpus.index:
            fail(f"--force {value!r}: no node {force.node!r} in {corpus.path}; name a node of the corpus, or "
                 f"'{START}' for the first offer")
        if force.node in forces:
            fail(f"--force {value!r}: {force.label!r} is forced twice; force each node once")
        forces[force.node] = force
    return list(forces.values())


def check_writable(path: str) -> None:
    """Fail now, not after an expensive walk, when a trace cannot be written where asked."""
    target = Path(path).expanduser()
    folder = target.parent
    try:
        if not folder.is_dir():
            fail(f"cannot save the trace to {path}: no folder {folder}")
        longest = os.pathconf(folder, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
        if len(os.fsencode(target.name)) > longest:
            fail(f"cannot save the trace to {path}: the file name is longer than the file system allows ({longest} "
                 "bytes); choose a shorter name")
        if target.is_dir():
            fail(f"cannot save the trace to {path}: it is a folder; name a file in it, e.g. {target / 'walk.jsonl'}")
        if target.exists() and not target.is_file():
            fail(f"cannot save the trace to {path}: it is not a regular file (a pipe or a device); name a new file "
                 "or a trace to overwrite")
    except OSError as exc:
        problem = ("the path is longer than the file system allows; give a shorter path"
                   if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc))
        fail(f"cannot save the trace to {path}: {problem}")
    if not os.access(folder, os.W_OK):
        fail(f"cannot save the trace to {path}: the folder {folder} is not writable")


def is_there(path: Path) -> bool:
    """``path.exists()``, but a name the file system refuses (too long, a NUL) is simply not there."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def corpus_at(path: str | Path, *, show_progress: bool = False) -> Corpus:
    """Load a corpus (one line and exit 2 when it cannot be); with ``show_progress``, say how far on stderr."""
    reporter = LoadProgress(path) if show_progress and sys.stderr.isatty() else None
    try:
        return load_corpus(path) if reporter is None else load_corpus(path, progress=reporter)
    except CorpusError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        if reporter is not None:
            reporter.clear()
        print(f"{PROG}: loading {one_line(str(path))} interrupted", file=sys.stderr)
        raise
    finally:
        if reporter is not None:
            reporter.clear()


class LoadProgress:
    """One line on stderr, redrawn in place: what is being read, and how far (a big corpus takes seconds)."""

    def __init__(self, path: str | Path, stream: Any = None) -> None:
        self.name = one_line(Path(path).name)
        self.stream = stream or sys.stderr
        self.drawn = False
        self.last = 0.0

    def __call__(self, stage: str, done: int, total: int | None) -> None:
        import time

        now = time.monotonic()
        if now - self.last < 0.1 and (total is None or done < total):
            return
        self.last = now
        how_far = f"{done * 100 // total}%" if total else f"{done:,}"
        self.stream.write(f"\r\x1b[Kloading {self.name}: {stage} {how_far} (Ctrl+C stops)")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()
            self.drawn = False


def navigator_for(model: str, headless: bool = True) -> TreeNavigator:
    try:
        navigator = resolve_navigator(model)
    except (TreeNavigatorError, NavigatorConfigError, ValueError) as exc:
        fail(f"navigator {model!r}: {exc}")
    if headless and isinstance(navigator, ManualNavigator):
        fail(f"navigator {model!r} needs a person at the keyboard; run the explorer (`{PROG} CORPUS --navigator "
             f"{model}`) or choose another navigator")
    return navigator


def settings_from(args: argparse.Namespace, query: str, model: str,
                  on_failure: str = OnFailure.THROW.value) -> WalkSettings:
    return WalkSettings(
        query=query,
        model=model,
        max_nodes_visited=args.max_visits if args.max_visits is not None else 15,
        max_depth=args.max_depth if args.max_depth is not None else 6,
        on_failure=OnFailure(on_failure),
    )


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    out = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = 160  # piped into a file or CI log: tables need room more than a screen does
    return out


# -- walk and replay ---------------------------------------------------------------------------------


def run_walk(corpus: Corpus, settings: WalkSettings, navigator: TreeNavigator, as_json: bool,
             trace: str | None, forces: Sequence[Force] = (), transcripts: bool = False,
             telemetry: WalkTelemetry | None = None) -> int:
    session = WalkSession(corpus, settings, navigator, forces=forces,
                          observers=[telemetry.observe] if telemetry is not None else [])
    try:
        events = session.run_headless()
    except KeyboardInterrupt:
        session.cancel()
        raise
    end, error = session.end or WalkEnd.FINISHED, session.error
    if trace:
        try:
            session.save_trace(trace)
        except OSError as exc:
            fail(f"cannot save the trace to {trace}: {exc.strerror or exc}")
    forced = session.history.forced
    state = WalkState.from_events(events, forced)
    skipped = {force.node for force in session.not_applied()}
    forces_report = [{"node": force.label, "selected": list(force.selected), "applied": force.node not in skipped}
                     for force in forces]
    if as_json:
        result = state.result
        document = {
            "corpus": {"path": str(corpus.path), "source": corpus.source, "title": corpus.title,
                       "format": corpus.format, "sha256": corpus.sha256},
            "query": settings.query,
            "navigator": settings.model,
            "settings": {"max_nodes_visited": settings.max_nodes_visited, "max_depth": settings.max_depth,
                         "on_failure": settings.on_failure.value},
            "events": [{**event_to_json(e), **({"forced": True} if seq in forced else {})}
                       for seq, e in enumerate(events, start=1)],
            "forces": forces_report,
            "results": event_to_json(WalkFinished(result))["documents"] if result else [],
            "stops": event_to_json(WalkFinished(result))["stops"] if result else [],
            "summary": {
                "end": end,
                "error": error,
                "failure": result.failure if result else None,
                "visits_used": state.visits_used,
                "navigator_calls": state.calls,
                "chars_shipped": state.chars_shipped,
                "landed": [d.id for d in result.documents] if result else [],
            },
        }
        write_json(document)
    else:
        from .render import walk_report

        console().print(walk_report(events, corpus, end, error, forced=forced, transcripts=transcripts))
        for force in session.not_applied():
            where = "the first offer" if force.node is None else f"{force.node!r}"
            console().print(visible(f"--force {force.label}={','.join(force.selected)} never applied: the walk "
                                    f"never judged {where}"), markup=False, highlight=False)
    return EXIT_OK if end is WalkEnd.FINISHED else EXIT_FOUND


MAX_RUNS, MAX_JOBS = 100_000, 64


def check_runs(args: argparse.Namespace) -> None:
    """``--runs`` and ``--jobs`` make sense together, within bounds, and without the options of a single walk."""
    if args.runs is None:
        if args.jobs is not None:
            fail("--jobs runs walks at once: it needs --runs N")
        return
    if not 2 <= args.runs <= MAX_RUNS:
        fail(f"argument --runs: {args.runs} must be between 2 and {MAX_RUNS:,} (one walk needs no --runs)")
    if args.jobs is not None and args.jobs > MAX_JOBS:
        fail(f"argument --jobs: {args.jobs} must be at most {MAX_JOBS}")
    if args.trace:
        fail("--trace saves one walk; leave it out with --runs (or walk once, with --trace)")
    if args.transcripts:
        fail("--transcripts shows one walk's decisions; leave it out with --runs")


def run_runs(corpus: Corpus, settings: WalkSettings, navigator: TreeNavigator, runs: int, jobs: int,
             as_json: bool, forces: Sequence[Force] = (), telemetry: WalkTelemetry | None = None) -> int:
    """``walk --runs N``: the same walk N times, and how stable it is (explorer.walks.stability)."""
    from ..walks.stability import StabilityRun, report_lines, stability_to_json

    run = StabilityRun(corpus, settings, navigator, runs, jobs=jobs, forces=forces,
                       observers=[telemetry.observe] if telemetry is not None else [])
    stability = run.run()
    if as_json:
        write_json(stability_to_json(stability))
    else:
        sys.stdout.write("\n".join(report_lines(stability, corpus.title_of)) + "\n")
    return EXIT_OK if stability.failed == 0 else EXIT_FOUND


def cmd_walk(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} walk", description="Run one walk headless and print it.")
    parser.add_argument("corpus", metavar="CORPUS", type=path_text,
                        help="a .yaml, PageIndex .json or .md corpus, or a folder")
    parser.add_argument("query", metavar="QUERY", type=query_text, help="the question to walk for")
    add_walk_options(parser)
    add_force_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    parser.add_argument("--trace", metavar="FILE", type=path_text,
                        help="also save the walk as a trace file (JSON Lines)")
    parser.add_argument("--runs", type=positive, metavar="N",
                        help="walk the query N times (2 or more) and report how stable the walk is: how often each "
                             "node was chosen, entered and landed, the distinct landed sets, where the walks part")
    parser.add_argument("--jobs", type=positive, metavar="J",
                        help="with --runs: walks run at once, on threads (for navigators that wait on the network)")
    add_telemetry_options(parser)
    args = parser.parse_args(argv)
    if not args.query.strip():
        fail("the query is blank; ask a question")
    check_runs(args)
    if args.trace:
        check_writable(args.trace)
    navigator = navigator_for(args.navigator)  # before the corpus: a typo should not wait for a big load
    corpus = corpus_at(args.corpus)
    forces = forces_from(args.force, corpus)
    telemetry = telemetry_from(args)
    try:
        if args.runs is not None:
            return run_runs(corpus, settings_from(args, args.query, args.navigator, args.on_failure), navigator,
                            args.runs, args.jobs or 1, args.json, forces, telemetry)
        return run_walk(corpus, settings_from(args, args.query, args.navigator, args.on_failure), navigator,
                        args.json, args.trace, forces, args.transcripts, telemetry)
    finally:
        if telemetry is not None:
            telemetry.close()


def trace_corpus(trace_path: Path, trace: Trace, override: str | None) -> Corpus:
    """The corpus a trace was made on: as recorded (relative to here, then to the trace), or ``--corpus``."""
    if override:
        candidates = [Path(override)]
    else:
        recorded = Path(trace.header.corpus_path)
        candidates = [recorded] if recorded.is_absolute() else [recorded, trace_path.parent / recorded]
    # --corpus goes straight to the loader, whose refusal (no such file, a name too long...) says what is wrong.
    found = Path(override) if override else next((c for c in candidates if is_there(c)), None)
    if found is None:
        fail(f"{trace_path}: the trace's corpus {trace.header.corpus_path} is not here; pass --corpus PATH")
    corpus = corpus_at(found)
    if corpus.sha256 != trace.header.corpus_sha256:
        fail(f"{trace_path}: the trace was made on a different version of {found} (sha256 "
             f"{trace.header.corpus_sha256[:12]}…, now {corpus.sha256[:12]}…); replay it on the corpus it was made on")
    return corpus


def open_trace(path: str) -> Trace:
    try:
        return read_trace(path)
    except TraceError as exc:
        fail(str(exc))


def cmd_replay(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} replay",
                    description="Re-run a trace's recorded decisions headless, with another budget or depth limit.")
    parser.add_argument("trace", metavar="TRACE", type=path_text,
                        help="a trace saved by `walk --trace` or the explorer")
    parser.add_argument("--corpus", metavar="C", type=path_text, help="the corpus, when it is not where the trace says")
    add_walk_options(parser, navigator=False)
    add_force_option(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    args = parser.parse_args(argv)
    trace = open_trace(args.trace)
    corpus = trace_corpus(Path(args.trace), trace, args.corpus)
    model = f"replay:{args.trace}"
    header = trace.header
    settings = WalkSettings(
        query=header.query, model=model,
        max_nodes_visited=args.max_visits if args.max_visits is not None else header.max_nodes_visited,
        max_depth=args.max_depth if args.max_depth is not None else header.max_depth,
        on_failure=header.on_failure,
    )
    return run_walk(corpus, settings, navigator_for(model), args.json, None, forces_from(args.force, corpus),
                    args.transcripts)


def write_json(document: object) -> None:
    """One JSON document on stdout; characters that could reorder or hijack a terminal, and lone surrogates, are
    \\u-escaped (:func:`safe_text.json_text`)."""
    sys.stdout.write(json_text(document, indent=2) + "\n")


def cmd_diff(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} diff",
                    description="Compare two walks saved as traces: where they first part, what each landed, what "
                                "each cost. Exit 0 when they made the same decisions, 1 when they differ.")
    parser.add_argument("a", metavar="A.jsonl", type=path_text, help="a trace (walk A)")
    parser.add_argument("b", metavar="B.jsonl", type=path_text, help="another trace (walk B)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    args = parser.parse_args(argv)
    from ..walks.compare import compare, comparison_to_json
    from ..walks.history import WalkHistory

    traces = [open_trace(args.a), open_trace(args.b)]
    a, b = (WalkHistory.from_trace(trace, number=n) for n, trace in enumerate(traces, start=1))
    comparison = compare(a, b, a_corpus=traces[0].header.corpus_sha256, b_corpus=traces[1].header.corpus_sha256)
    comparison = replace(comparison, a_name=f"A: {Path(args.a).name}", b_name=f"B: {Path(args.b).name}")
    if args.json:
        write_json(comparison_to_json(comparison))
    else:
        from .render import comparison_report

        console().print(comparison_report(comparison))
    return EXIT_OK if comparison.same_decisions else EXIT_FOUND


# -- validate and eval -------------------------------------------------------------------------------


def cmd_validate(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} validate", description="Load a corpus and report its counts, errors and warnings.")
    parser.add_argument("corpus", metavar="CORPUS", type=path_text)
    args = parser.parse_args(argv)
    from ..corpora.validate import validate
    from .render import validation_report

    try:
        Path(args.corpus).stat()
    except (FileNotFoundError, NotADirectoryError):
        fail(f"{args.corpus}: no such file or folder; give a .yaml, .json or .md file, or a folder of .md files")
    except OSError as exc:
        fail(f"{args.corpus}: the path is longer than the file system allows; give a shorter path"
             if exc.errno == errno.ENAMETOOLONG else f"{args.corpus}: {exc.strerror or exc}")
    report = validate(args.corpus)
    console().print(validation_report(report))
    return EXIT_OK if report.ok else EXIT_FOUND


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
                             "the two navigators land differently")
    add_telemetry_options(parser)
    args = parser.parse_args(argv)
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
                                    navigator=navigator if args.jobs == 1 else None,
                                    on_done=lambda _: progress.advance(task), observers=observers)
        else:
            outcomes = evaluate(corpus, questions.questions, settings, jobs=args.jobs,
                                navigator=navigator if args.jobs == 1 else None, observers=observers)
    finally:
        if telemetry is not None:
            telemetry.close()
    summary = summarize(outcomes, stats(corpus))
    compared = None
    if compare_navigator is not None:
        from ..walks.evaluation import EvalComparison

        b_outcomes = evaluate(corpus, questions.questions, settings.but(model=args.compare), jobs=args.jobs,
                              navigator=compare_navigator if args.jobs == 1 else None)
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


# -- the explorer ------------------------------------------------------------------------------------


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
    add_telemetry_options(parser)
    args = parser.parse_args(argv)
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


def cmd_serve(argv: Sequence[str]) -> int:
    from .serve import cmd_serve as serve  # textual-serve and aiohttp load only for this command

    return serve(argv)


COMMANDS: dict[str, Callable[[Sequence[str]], int]] = {
    "walk": cmd_walk,
    "validate": cmd_validate,
    "eval": cmd_eval,
    "replay": cmd_replay,
    "diff": cmd_diff,
    "serve": cmd_serve,
}


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    for stream in (sys.stdout, sys.stderr):  # whatever text reaches a writer (a lone surrogate...), it never fails
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    try:
        if args and args[0] in COMMANDS:
            return COMMANDS[args[0]](args[1:])
        return cmd_explore(args)
    except UsageError as exc:
        print(f"{PROG}: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print(f"{PROG}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        return EXIT_OK
    except OSError as exc:  # a file no check foresaw (a name too long for a loader's test...): one line
        where = f"{os.fsdecode(exc.filename)}: " if exc.filename is not None else ""
        problem = ("the path is longer than the file system allows; give a shorter path"
                   if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc))
        print(f"{PROG}: error: {one_line(where + problem)}", file=sys.stderr)
        return EXIT_USAGE


def entry() -> None:
    """The console script."""
    sys.exit(main())
