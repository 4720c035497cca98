"""``reasoning-explorer [CORPUS | TRACE | QUESTIONS]``: the explorer itself (the only path that imports Textual)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import gc
import os
import signal
import stat
import sys
import threading
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from core import OnFailure, TreeNavigator

from ..corpora import JSON_SUFFIXES, PDF_SUFFIXES, Corpus, CorpusError, load_corpus
from ..corpora.files import check_corpus_path
from ..navigators import NavigatorConfigError, NavigatorNeedsAPerson, resolve_navigator
from ..process import environment
from ..safe_text import one_line
from ..sessions import (
    KeptSession,
    last_session,
    session_label,
    sessions_root,
    start_session,
)
from ..walk_settings import WalkSettings
from ..walks.saved import SavedWalk, in_session_order, resumed_settings
from .inputs import CorpusLater, all_walks, corpus_at, is_walks_folder, looks_like_spans, summaries_said
from .options import (
    DEFAULT_CORPUS,
    DEFAULT_QUERY,
    EXIT_OK,
    EXIT_USAGE,
    EXPLORER_MODEL,
    PROG,
    SUBCOMMANDS,
    Input,
    Parser,
    UsageError,
    add_judge_option,
    add_llm_options,
    add_map_option,
    add_overwrite_option,
    add_pdf_option,
    add_telemetry_options,
    add_walk_options,
    check_apart,
    check_writable,
    checked_judge,
    fail,
    folders_from,
    llm_model,
    navigator_for,
    path_text,
    pdf_summaries,
    policy_settings,
    query_text,
    read_by,
    seconds,
    telemetry_from,
)

if TYPE_CHECKING:
    from textual.app import App

    from ..corpora.questions import QuestionSet
    from ..navigators.summary_writer import SummaryWriter

QUIT_SIGNALS = {
    signal.SIGINT: "interrupted",
    signal.SIGTERM: "terminated (SIGTERM)",
    signal.SIGHUP: "the terminal hung up (SIGHUP)",
}
"""The signals that quit the explorer as ``q`` does, and what is said after; the exit code is 128 + the signal."""


def question_set_for(args: argparse.Namespace) -> tuple[QuestionSet, Corpus | CorpusLater, list[Input]] | None:
    """When the explorer is given a question set (by its ``.questions.yaml`` name or its content): the set, its
    corpus, and the files ``--compare`` reads if any, checked (exit 2 with one line when they do not fit); otherwise
    ``None`` (and no ``--compare``). A corpus that loads on the loading screen (a PDF) is loaded there, and checked
    against the set once it is in."""
    from ..corpora.questions import looks_like_question_set

    if not args.corpus or not looks_like_question_set(args.corpus):
        if args.compare is not None:
            fail("--compare walks a question set with a second navigator: give QUESTIONS.yaml (or use `eval "
                 "--compare`)")
        return None
    from ..corpora.questions import fit_problem, load_questions

    try:
        questions = load_questions(args.corpus)
    except CorpusError as exc:
        fail(str(exc))
    if questions.corpus_path is None:
        fail(f"{args.corpus}: the question set names no corpus; add `corpus: FILE` to it")
    files = not args.no_files
    navigator_for(args.navigator, allow_files=files)  # walked headless: one that needs a person is refused now
    if args.compare is not None:
        navigator_for(args.compare, allow_files=files)
    if loads_on_screen(questions.corpus_path, None):
        return questions, CorpusLater(questions.corpus_path, partial(fit_problem, questions)), read_by(
            args.compare, "--compare")
    corpus = corpus_at(questions.corpus_path)
    problem = fit_problem(questions, corpus)
    if problem is not None:
        fail(problem)
    return questions, corpus, read_by(args.compare, "--compare")


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


HANG_UP_CHECK_SECONDS = 1.0
"""How often the explorer checks that its terminal is still there."""
HANG_UP_GRACE_SECONDS = 5.0
"""How long a quit after the terminal hung up may take before the process leaves without it (:func:`leave_if_stuck`)."""


def check_terminal() -> None:
    """Fail in one line (exit 2) when the explorer has no terminal to read keys from: with its standard input not
    a terminal (``reasoning-explorer < /dev/null``, a pipe, a CI job), Textual's input thread spun at a full core
    for ever. A served session (textual-serve's web driver, named in ``TEXTUAL_DRIVER``) reads its keys from
    the browser, and needs none."""
    if environment().get("TEXTUAL_DRIVER"):
        return
    if not os.isatty(0):
        fail("the explorer needs a terminal, and its standard input is not one; run it in a terminal, or walk "
             f"without a screen: `{PROG} walk CORPUS QUERY`")


def terminals_of_this_process() -> list[int]:
    """The standard streams that are a terminal (the ones whose hanging up ends the explorer)."""
    return [fd for fd in (0, 1) if os.isatty(fd)]


def hung_up(terminals: Sequence[int]) -> bool:
    """Whether a terminal the explorer drew on is gone: its pty closed, so its modes can no longer be read (EIO).

    A closed terminal window sends SIGHUP only to its session's leader; under a parent that outlives it (``make
    run`` in a tmux pane that was killed) the explorer got none, and Textual's input thread then spun on the dead
    terminal for ever, at a full core."""
    import termios  # the explorer's terminal handling is POSIX's

    for fd in terminals:
        try:
            termios.tcgetattr(fd)
        except termios.error as exc:
            if exc.args and exc.args[0] == errno.EIO:
                return True
    return False


def leave_if_stuck(code: int, done: threading.Event, grace: float = HANG_UP_GRACE_SECONDS) -> None:
    """After the terminal hung up, a quit that is not ``done`` within ``grace`` seconds ends the process with
    ``code``. Textual writes the screen through a thread and a queue of 30 writes: a write to the dead terminal ends
    that thread, the writes after it fill the queue, and the driver's close then waits on it for ever (the explorer
    and its local model were left running after a tmux pane was killed). By then the quit has done its work (the
    walk cancelled, the trace and the session kept, as the screens unmounted); the local model's server never
    outlives its parent."""
    def wait() -> None:
        if not done.wait(grace):
            os._exit(code)

    threading.Thread(target=wait, name="hang-up-grace", daemon=True).start()


def run_quitting_on_signals(app: App[int]) -> signal.Signals | None:
    """Run ``app``; SIGINT, SIGTERM and SIGHUP quit it as ``q`` does, and return which one came (``None``: none).

    Left to their defaults, SIGTERM and SIGHUP killed the process with the terminal as the screen had set it
    (the alternate screen, mouse reporting, a hidden cursor, no echo and no line editing), and SIGINT ended it
    with exit code 0. Here each runs the app's own quit on its loop, so Textual's driver puts the terminal back
    as after any quit, and whatever a quit saves is saved. A second signal asks the app to exit at once. A
    terminal that hangs up without a SIGHUP reaching the explorer (:func:`hung_up`) quits it as SIGHUP does."""
    received: list[signal.Signals] = []
    quitting: list[asyncio.Future[bool]] = []  # held, so the quit is not collected before it has run
    done = threading.Event()

    def quit_on(number: signal.Signals) -> None:
        if received:
            app.exit(128 + number)
            return
        received.append(number)
        if number is signal.SIGHUP:  # no terminal to draw on: a quit stuck on it must not keep the process
            leave_if_stuck(128 + number, done)
        quitting.append(asyncio.ensure_future(app.run_action("quit")))

    with asyncio.Runner() as runner:
        loop = runner.get_loop()
        handled = []
        for number in QUIT_SIGNALS:
            try:
                loop.add_signal_handler(number, quit_on, number)  # on the loop: the handler may touch the app
            except (NotImplementedError, RuntimeError):  # not here (Windows), or not the main thread
                continue
            handled.append(number)
        terminals = terminals_of_this_process()

        def watch_the_terminal() -> None:
            """On a thread of its own: the loop itself may be stuck, writing to the terminal that hung up."""
            while not done.wait(HANG_UP_CHECK_SECONDS):
                if hung_up(terminals):
                    leave_if_stuck(128 + signal.SIGHUP, done)
                    with contextlib.suppress(RuntimeError):  # the loop closed as it was told
                        loop.call_soon_threadsafe(quit_on, signal.SIGHUP)
                    return

        if terminals and signal.SIGHUP in handled:
            threading.Thread(target=watch_the_terminal, name="terminal-watch", daemon=True).start()
        try:
            runner.run(app.run_async())
        finally:
            done.set()
            for number in handled:
                loop.remove_signal_handler(number)
    return received[0] if received else None


def say_after_the_screen(message: str) -> None:
    """A line on stderr once the screen is gone; a terminal that hung up takes none, and that is no error."""
    with contextlib.suppress(OSError):
        print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def recorded_navigator(args: argparse.Namespace, model: str, default: TreeNavigator) -> TreeNavigator:
    """The navigator of the walks opened from files, for the walks started after them, when ``--navigator`` is not
    given: ``args.navigator`` becomes its model. One that cannot be had here (a key not set, a file gone, files
    off) leaves ``default``, and the walk list still shows what it recorded."""
    recorded = llm_model(args, model)
    try:
        navigator = resolve_navigator(recorded, headless=False, allow_files=not args.no_files)  # the app wires it
    except (NavigatorConfigError, NavigatorNeedsAPerson):
        return default
    args.navigator = recorded
    return navigator


def next_settings(args: argparse.Namespace, recorded: WalkSettings | None) -> WalkSettings:
    """The settings of the next walk: what the command line gives, then what the walks opened from files
    (``recorded``, the first of them) were walked with, then the defaults (budget 15, depth limit 6, throw)."""
    return WalkSettings(
        query=args.query or "",
        model=args.navigator,
        max_nodes_visited=first_given(args.max_visits, recorded and recorded.max_nodes_visited, 15),
        max_depth=first_given(args.max_depth, recorded and recorded.max_depth, 6),
        on_failure=OnFailure(first_given(args.on_failure, recorded and recorded.on_failure, OnFailure.THROW)),
        **policy_settings(args, recorded),
    )


def resumed_session(args: argparse.Namespace, root: Path | None) -> Path | None:
    """With ``--resume``, the session folder to reopen: the newest under ``root`` that holds walks (one line and exit
    2 when there is none, when sessions are off, or with a corpus, trace or question set given too); else ``None``."""
    if not args.resume:
        return None
    if args.corpus:
        fail(f"--resume reopens the last session's walks on their own corpus: give it without {args.corpus}")
    if root is None:
        fail("--resume reopens the last kept session, and --sessions off keeps none: leave --sessions off out")
    folder = last_session(root)
    if folder is None:
        fail(f"no session to resume: none kept yet in {root}; walk in the explorer (each walk is kept as it ends), "
             "quit, then --resume")
    return folder


def session_kept(root: Path | None, resumed: Path | None, corpus: Corpus, problems: list[str]) -> KeptSession | None:
    """Where this session's walks are kept: the resumed session's folder, else a new one under ``root`` (``None``:
    ``--sessions off``). One that cannot be made or written is said in one line (in ``problems``, on the screen at
    its start and after it) and the explorer goes on, keeping none."""
    if root is None:
        return None
    if root.exists() and not root.is_dir():
        problems.append(f"this session's walks are not kept: {root} is a file, not a folder; give --sessions DIR (a "
                        "folder, made if need be), or --sessions off")
        return None
    try:
        return KeptSession(resumed or start_session(root), corpus, resumed=resumed is not None)
    except OSError as exc:
        where = resumed or root
        problems.append(f"this session's walks are not kept: {where} cannot be written ({exc.strerror or exc}); "
                        "give --sessions DIR, or --sessions off")
        return None


LOADS_ON_SCREEN_BYTES = 8 << 20
"""A corpus file bigger than this loads on the explorer's loading screen (a YAML corpus of about 100,000 nodes)."""


def loads_on_screen(path: Path, pdf: str | None) -> bool:
    """Whether the explorer opens at once and loads the corpus on its loading screen, showing how far: a PDF, or a
    PageIndex tree given its PDF (their pages take seconds to read), or a corpus file over
    :data:`LOADS_ON_SCREEN_BYTES`. A path that cannot be a corpus at all (not there, a FIFO...) fails first, in one
    line and exit 2, before any screen."""
    try:
        mode = check_corpus_path(path)
    except CorpusError as exc:
        fail(str(exc))
    suffix = path.suffix.lower()
    if suffix in PDF_SUFFIXES or (pdf is not None and suffix in JSON_SUFFIXES):  # else --pdf is refused here
        return True
    return stat.S_ISREG(mode.st_mode) and mode.st_size > LOADS_ON_SCREEN_BYTES


def mapped_loader(loader: Callable[..., Corpus], map_file: str | None) -> Callable[..., Corpus]:
    """With ``--map``, the loading screen's loader: the corpus loaded by ``loader``, then the map variant applied to
    a copy (a bad one is the load's one line); ``loader`` itself without."""
    if map_file is None:
        return loader
    from ..corpora.map_variant import with_map

    def load(path: Path, **options: Any) -> Corpus:
        return with_map(loader(path, **options), map_file)

    return load


def first_given(*values: Any) -> Any:
    return next(value for value in values if value is not None)


def cmd_explore(argv: Sequence[str]) -> int:
    commands = "\n".join(f"  {name:<10}{what}" for name, what in SUBCOMMANDS.items())
    parser = Parser(prog=PROG, description="See and debug LLM-guided tree retrieval, one step at a time.",
                    formatter_class=argparse.RawDescriptionHelpFormatter,
                    epilog=f"sub-commands (see `{PROG} COMMAND --help`):\n{commands}")
    parser.add_argument("corpus", metavar="CORPUS", nargs="?", type=path_text,
                        help="a corpus (.yaml, PageIndex .json, .md, .pdf or a folder), a trace (.jsonl) to step "
                             "through, an OTLP JSON file of walk spans or a folder of recorded traces (every walk in "
                             "the walk list, newest first), or a question set (*.questions.yaml) to evaluate "
                             "(default: the sample handbook)")
    parser.add_argument("--corpus", dest="walks_corpus", metavar="C", type=path_text,
                        help="with a trace, a span file or a folder of walks: the corpus they were made on, when it "
                             "is not where they say")
    add_pdf_option(parser)
    add_map_option(parser)
    parser.add_argument("--query", "-q", metavar="Q", type=query_text, help="start a walk on this question")
    add_walk_options(parser, default_model=EXPLORER_MODEL)
    # None: not given. Walks opened from files then go on with their own navigator and policy (their budget and
    # depth limit likewise), and the defaults apply otherwise (:func:`next_settings`).
    parser.set_defaults(navigator=None, on_failure=None)
    parser.add_argument("--autoplay", type=seconds, metavar="SECONDS",
                        help="play the walk by itself, one step every SECONDS (demo mode)")
    parser.add_argument("--present", action="store_true",
                        help="presenting mode, for a room: a decision per step, said in plain words, large marks, the "
                             "answer on a card at the end (P toggles it)")
    parser.add_argument("--no-files", action="store_true",
                        help="turn off the keys that open and save files (for a session shared on a network)")
    parser.add_argument("--trace", metavar="FILE", type=path_text, help="save each finished walk as a trace to FILE")
    parser.add_argument("--prompts", metavar="DIR", type=path_text,
                        help="keep the prompt variants made in the W dialog in DIR (default: a prompts folder beside "
                             "the corpus; never in the response cache, which may be cleared)")
    parser.add_argument("--sessions", metavar="DIR", type=path_text,
                        help="keep each walk of this session, as it ends, in a folder of its own under DIR (default: "
                             "$XDG_DATA_HOME/reasoning-explorer/sessions, else ~/.local/share/reasoning-explorer/"
                             "sessions); off keeps none, and so does --no-files")
    parser.add_argument("--resume", action="store_true",
                        help="reopen the last session's walks (the newest session folder that holds walks) and go on "
                             "keeping the session there")
    parser.add_argument("--compare", metavar="MODEL",
                        help="with a question set: walk every question with this navigator too, in a second set of "
                             "columns (the questions where the two differ open side by side)")
    add_judge_option(parser, " (here: the verdicts of the step panel, the evaluation screen, T and the HTML export, "
                             "and the sweeps' flat line)")
    add_llm_options(parser)
    add_telemetry_options(parser)
    add_overwrite_option(parser)
    args = parser.parse_args(argv)
    checked_judge(args.judge, allow_files=not args.no_files)  # a judge is a navigator: files off holds for it too
    chosen_navigator = args.navigator
    args.navigator = llm_model(args, args.navigator or EXPLORER_MODEL)
    folders = folders_from(args)  # the app's wiring: its navigators cache there, and W keeps its variants there
    questions = question_set_for(args)  # QUESTIONS.yaml opens the evaluation screen on its corpus
    # Files off (--no-files, a served session shared beyond this machine): no walk is kept on this machine's disk.
    if args.no_files and args.resume:
        fail("--resume opens the last session's files, and --no-files turns files off: leave one of them out")
    root = None if args.no_files else sessions_root(args.sessions)
    resumed = resumed_session(args, root)  # --resume: the newest session folder that holds walks
    if args.walks_corpus is not None and resumed is None and (questions is not None or not args.corpus or not (
            args.corpus.endswith(".jsonl") or looks_like_spans(args.corpus) or is_walks_folder(args.corpus))):
        fail("--corpus names the corpus of a trace, a span file or a folder of walks: give one of those first")
    opened: list[SavedWalk] = []
    recorded: WalkSettings | None = None  # a resumed session's next walk goes on as its last walk walked anew
    # Files off means files off from the first resolution on: a navigator naming a file is refused here too.
    navigator = navigator_for(args.navigator, headless=False, allow_files=not args.no_files)
    # a Path: a corpus the explorer loads on its loading screen, once open; a CorpusLater: one checked once loaded
    corpus: Corpus | Path | CorpusLater
    later = partial(loads_on_screen, pdf=None)
    summarised: list[SummaryWriter] = []  # --summaries, for a PDF loaded here (span walks are rebuilt on it)

    def summaries_for(path: Path) -> SummaryWriter | None:
        writer = pdf_summaries(args, path, allow_files=not args.no_files)
        summarised.extend([writer] if writer is not None else [])
        return writer

    if questions is not None:
        corpus = questions[1]
    elif resumed is not None:
        opened, corpus = all_walks(str(resumed), args.walks_corpus, later=later, summaries=summaries_for)
        opened = in_session_order(opened)  # walk 1 first, as numbered when they were walked
        carried = resumed_settings(opened)  # the last walk walked anew: not a fork's, a re-walk's or a variant's
        recorded = carried[0] if carried is not None else opened[0].header.settings
        if chosen_navigator is None:
            navigator = recorded_navigator(args, recorded.model, navigator)
    elif args.corpus and (args.corpus.endswith(".jsonl") or looks_like_spans(args.corpus)
                          or is_walks_folder(args.corpus)):
        # a trace, spans, a walks folder
        opened, corpus = all_walks(args.corpus, args.walks_corpus, later=later, summaries=summaries_for)
        if opened and chosen_navigator is None:
            navigator = recorded_navigator(args, opened[0].header.settings.model, navigator)
    else:
        path = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
        if not args.corpus and not path.exists():
            fail("no corpus given and the sample corpora are not installed here; pass CORPUS")
        # A PDF (or a big file) is read on the explorer's loading screen, once open: only a path kept here.
        corpus = path if loads_on_screen(path, args.pdf) else corpus_at(path, show_progress=True, pdf=args.pdf,
                                                                         map_file=args.map)
    if args.map is not None and not isinstance(corpus, Path) and (not isinstance(corpus, Corpus) or corpus.map is None):
        fail("--map changes the titles and summaries of a corpus: give the corpus (not a trace, a folder of walks or "
             "a question set) with it")
    if args.query is not None and not args.query.strip():
        fail("the query is blank; ask a question or leave --query out")
    settings = next_settings(args, recorded if recorded is not None else opened[0].header.settings if opened else None)
    if args.trace:
        check_writable(args.trace)
    what = "the question set" if questions is not None else "the trace" if opened else "the corpus"
    corpus_path = corpus if isinstance(corpus, Path) else corpus.path
    # --summaries: the PDF's, by an LLM (already written for a PDF loaded here, for span walks)
    writer = None if summarised else pdf_summaries(args, corpus_path, allow_files=not args.no_files)
    if writer is not None and isinstance(corpus, Corpus):
        fail(f"--summaries: {corpus_path} was read before the explorer opened; leave --summaries out")
    ledger = check_apart(args, (what, args.corpus), ("the corpus", corpus_path), ("the PDF", args.pdf),
                         *read_by(args.navigator), *read_by(args.judge, "--judge"),
                         *(questions[2] if questions is not None else ()))
    problems: list[str] = []  # the screen owns stderr while the app runs: say them after it
    telemetry = telemetry_from(args, report=problems.append, ledger=ledger)
    try:
        check_terminal()  # the last check: every problem with what was asked is said first
    except UsageError:
        if telemetry is not None:
            telemetry.close()
        raise
    keeper = session_kept(root, resumed, corpus, problems) if isinstance(corpus, Corpus) else None

    def keeper_for(loaded: Corpus) -> tuple[KeptSession | None, list[str]]:
        """Once the loading screen has the corpus: frozen as one loaded here would be, and the session's keeper."""
        gc.freeze()
        said: list[str] = []
        made = session_kept(root, resumed, loaded, said)
        problems.extend(said)
        failed = [line for tally in writer.tallies for line in tally.failures()] if writer is not None else []
        problems.extend(failed)
        if writer is not None:  # the summaries are written: its navigator's client is done
            writer.close()
        return made, [*said, *summaries_said(writer)]

    from ..tui.app import ExplorerApp  # the only path that imports Textual
    from ..tui.screens.loading import CorpusLoad

    loader = mapped_loader(load_corpus if writer is None else partial(load_corpus, summaries=writer), args.map)

    # The corpus and the app's widgets live as long as the app: move them out of the cyclic collector's
    # reach, so a full collection never stalls a step on a large corpus (bench/tui_large.py).
    gc.freeze()
    gc.callbacks.append(freeze_after_full_collection)

    app = ExplorerApp(
        corpus if isinstance(corpus, Corpus) else CorpusLoad(corpus, args.pdf, loader=loader)
        if isinstance(corpus, Path) else CorpusLoad(corpus.path, check=corpus.check, loader=loader),
        settings,
        navigator=navigator,
        start_walk=args.query is not None,
        autoplay=args.autoplay,
        trace_path=args.trace,
        example_query=DEFAULT_QUERY if corpus_path.resolve() == DEFAULT_CORPUS.resolve() else None,
        opened=opened,
        opened_from=f"from session {session_label(resumed)}" if resumed is not None else None,
        allow_files=not args.no_files,
        evaluate=(questions[0], args.compare) if questions is not None else None,
        present=args.present,
        observers=[telemetry.export_walk] if telemetry is not None else [],
        folders=folders,
        keeper=keeper,
        notices=list(problems),
        ledger=ledger,
        keeper_for=None if isinstance(corpus, Corpus) else keeper_for,
        judge=args.judge,
    )
    received: signal.Signals | None = None
    try:
        received = run_quitting_on_signals(app)
    finally:
        if telemetry is not None:
            telemetry.close()
        if writer is not None:  # the PDF's summaries are written (or the app quit first): its client is done
            writer.close()
        keeper = app.wiring.keeper if isinstance(app.wiring.keeper, KeptSession) else None
        if keeper is not None and keeper.unkept:
            problems.append(f"{keeper.unkept} walk(s) of this session could not be kept in {keeper.folder}")
        for problem in problems:
            say_after_the_screen(f"warning: {one_line(problem)}")
    if received is not None:
        say_after_the_screen(QUIT_SIGNALS[received])
        return 128 + received
    if app.load_failed is not None:  # said on the screen, and here as for any corpus that cannot be loaded
        say_after_the_screen(f"error: {one_line(app.load_failed)}")
        return EXIT_USAGE
    return app.return_code or EXIT_OK
