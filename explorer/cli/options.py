"""What every sub-command shares: the program's name and exit codes, one-line usage errors, the argument
types (whole numbers, paths, questions), the options of a walk, and how a navigator and settings come from them.

Both ``cli.main``'s sub-commands and ``cli.serve`` import this module; it imports neither."""

from __future__ import annotations

import argparse
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, NoReturn

from core import OnFailure, Policy, TreeNavigator

from ..atomic_file import unwritable
from ..corpora import Corpus
from ..navigators import NavigatorConfigError, NavigatorNeedsAPerson, files_read_by, resolve_navigator
from ..navigators.folders import CACHE_DIR_ENV, Folders, NotAFolder, folders_for, not_a_folder, user_folders
from ..navigators.forcing import START, Force, ForceError, parse_force, quote_id
from ..navigators.llm.options import OptionError, StructuredOutput, split_options, with_options
from ..navigators.quoting import quoted
from ..numbers import whole
from ..outputs import Ledger, Output, existing, judge
from ..process import environment
from ..safe_text import clip, json_text, one_line, visible
from ..walk_settings import WalkSettings, read_policy
from ..walks.session import UNWIRED, Wiring

if TYPE_CHECKING:
    from ..navigators.judge import Judge
    from ..navigators.llm.llama_server import StatusListeners
    from ..navigators.summary_writer import SummaryWriter
    from ..walks.telemetry import WalkTelemetry




PROG = "reasoning-explorer"
SAMPLES = Path(__file__).resolve().parents[2] / "sample_corpora"
DEFAULT_CORPUS = SAMPLES / "handbook.yaml"
DEFAULT_QUERY = "How long do refunds take to arrive?"
EXIT_OK, EXIT_FOUND, EXIT_USAGE, EXIT_INTERRUPTED = 0, 1, 2, 130

SUBCOMMANDS = {
    "walk": "one walk headless, printed (or --runs N: how stable it is)",
    "validate": "a corpus's counts, errors and warnings, or a question set checked against its corpus",
    "eval": "every question of a question set walked and scored",
    "replay": "a trace's recorded decisions run again for free, with another budget or depth limit",
    "diff": "two traces compared: every divergence, every forced decision, what each landed and cost",
    "serve": "the explorer in a browser",
    "export": "a saved walk as one self-contained HTML file that replays it",
    "import": "a PDF as a corpus file (a PageIndex tree with each node's text), or a PageIndex tree given its text",
    "audit": "a corpus's weakest nodes: the titles and summaries that describe what lies beneath them worst",
}
"""Every sub-command with one line saying what it does: ``reasoning-explorer --help`` lists them all (the entry's
dispatch table is checked against it by a test)."""
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


def whole_number(minimum: int, maximum: int, what: str = "a whole number") -> Callable[[str], int]:
    """An argparse type: :func:`whole` from ``minimum`` to ``maximum`` (the bounds the command really keeps, so that
    the message states them)."""

    def parse(text: str) -> int:
        try:
            return whole(text, minimum, maximum, what)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    return parse


# The explorer's prompts take the same budgets and depth limits.
visits, depth, jobs = whole_number(1, 100_000), whole_number(0, 100_000), whole_number(1, 64)


def budget_list(text: str) -> tuple[int, ...]:
    """An argparse type for ``--budgets 3,5,8,15``: visit budgets, each a whole number from 1 to 100,000, at most
    20 of them, returned smallest first with repeats dropped (the one parser: the explorer's sweep prompt uses it)."""
    from ..walks.evaluation.sweep import parse_budgets

    try:
        return parse_budgets(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


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
    parser.add_argument("--policy", type=policy_option, default=None, metavar="P",
                        help="the order the walk enters the branches chosen: depth-first (default) or best-first, a "
                             "frontier ordered by path score (best-first@alpha=0.7 weighs a node's own score; "
                             "default 0.5)")


def policy_option(text: str) -> tuple[Policy, float]:
    """``--policy``'s value (:func:`explorer.walk_settings.read_policy`)."""
    try:
        return read_policy(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_llm_options(parser: argparse.ArgumentParser) -> None:
    """The options of an LLM navigator (``openai:``, ``ollama:``, ``vllm:``, ``local:``) and of the response cache.

    The sampling, structured-output and prompt options are written into the model id of ``--navigator``
    (``local:smollm2`` with ``--temperature 0.8`` walks as ``local:smollm2@temperature=0.8``), so a walk's
    name, its trace and its transcripts say them; a ``--compare`` model gives its own in its id."""
    group = parser.add_argument_group("LLM navigators (written into the --navigator model id, e.g. "
                                      "local:smollm2@temperature=0.8,seed=7)")
    group.add_argument("--temperature", type=option_text("temperature"), metavar="T",
                       help="sampling temperature, 0 to 2 (default 0)")
    group.add_argument("--seed", type=option_text("seed"), metavar="N", help="sampling seed (a whole number)")
    group.add_argument("--top-p", type=option_text("top_p"), metavar="P", help="nucleus sampling, above 0 to 1")
    group.add_argument("--structured-output", choices=[mode.value for mode in StructuredOutput], metavar="MODE",
                       help="ask for answers constrained to the offered ids: auto (the default: and ask again "
                            "without if the server refuses), on, off")
    group.add_argument("--system-prompt", type=path_text, metavar="FILE", help="the system prompt, from FILE")
    group.add_argument("--prompt-template", type=path_text, metavar="FILE",
                       help="the user message, from a template FILE with {{query}}, {{candidates}}... (README)")
    add_cache_options(parser)


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    """``--cache DIR`` / ``--no-cache``: where LLM answers are kept (:func:`folders_from`)."""
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument("--cache", type=path_text, metavar="DIR",
                       help=f"keep LLM answers in DIR (default: ${CACHE_DIR_ENV}, else "
                            "~/.cache/reasoning-explorer/llm)")
    cache.add_argument("--no-cache", action="store_true", help="neither read nor keep LLM answers")


def option_text(key: str) -> Callable[[str], str]:
    """An argparse type for a model-id option's value: checked as the model id would check it, kept as text."""

    def parse(text: str) -> str:
        try:
            split_options(f"x@{key}={quoted(text.strip())}")  # the value whole, as the id will quote it
        except OptionError as exc:
            raise argparse.ArgumentTypeError(str(exc).split(": ", 1)[-1]) from None
        return text.strip()

    return parse


LLM_OPTIONS = (("temperature", "temperature", "--temperature"), ("seed", "seed", "--seed"),
               ("top_p", "top_p", "--top-p"), ("structured_output", "schema", "--structured-output"),
               ("system_prompt", "system", "--system-prompt"), ("prompt_template", "prompt", "--prompt-template"))
LLM_PREFIXES = ("openai:", "ollama:", "vllm:", "local:")


def llm_model(args: argparse.Namespace, model: str) -> str:
    """``model`` with the LLM options given on the command line written into its id; one line and exit 2 when
    they cannot apply (a navigator that is no LLM, a value the id already gives otherwise)."""
    added = {key: str(getattr(args, attribute)) for attribute, key, _ in LLM_OPTIONS
             if getattr(args, attribute, None) is not None}
    if not added:
        return model
    if not model.startswith(LLM_PREFIXES):
        flags = ", ".join(flag for attribute, _, flag in LLM_OPTIONS if getattr(args, attribute, None) is not None)
        fail(f"{flags}: {model!r} is not an LLM navigator; these options apply to "
             f"{', '.join(p + 'MODEL' for p in LLM_PREFIXES)}")
    if "system" in added:
        added["system"] = str(Path(added["system"]).expanduser().resolve())
    if "prompt" in added:
        added["prompt"] = str(Path(added["prompt"]).expanduser().resolve())
    try:
        return with_options(model, added)
    except OptionError as exc:
        fail(str(exc))


def folders_from(args: argparse.Namespace) -> Folders:
    """The folders a command's navigators keep what they write in, for its :class:`~explorer.walks.wiring.Wiring`,
    read once, here: the response cache (``--no-cache``: none; ``--cache DIR``; else the user's own,
    ``$REASONING_EXPLORER_CACHE_DIR`` or ``~/.cache/reasoning-explorer/llm``) and the prompt variants
    (``--prompts DIR``, else ``prompts`` beside the corpus). Nothing is set in the environment; a folder that is no
    folder, from an option or the environment alike, is one line and exit code 2, before any walk."""
    try:
        if getattr(args, "no_cache", False):
            folders = folders_for(None)
        elif getattr(args, "cache", None) is not None:
            folder = Path(args.cache).expanduser()
            problem = not_a_folder(f"--cache {args.cache}", folder)
            if problem is not None:
                fail(problem)
            folders = folders_for(folder.resolve())
        else:
            folders = user_folders()
    except NotAFolder as exc:
        fail(str(exc))
    prompts = getattr(args, "prompts", None)
    if prompts is not None:
        folder = Path(prompts).expanduser()
        problem = not_a_folder(f"--prompts {prompts}", folder, "the prompt variants")
        if problem is not None:
            fail(problem)
        folders = Folders(folders.cache, folder.resolve())
    return folders


def report_local_model_loading() -> StatusListeners:
    """The listeners that say on stderr, in one line, that a local model is loading and how long it took (or why
    it failed): hand them to :func:`navigator_for`."""
    from ..navigators.local_model import LoadPhase, LocalModelStatus, StatusListeners

    def say(status: LocalModelStatus) -> None:
        if status.phase is LoadPhase.LOADING:
            sys.stderr.write(f"{PROG}: {one_line(status.line())}")
        elif status.phase is LoadPhase.READY:
            sys.stderr.write(f" ready in {status.seconds or 0:.2f} s (llama.cpp at {status.address})\n")
        elif status.phase is LoadPhase.FAILED:
            sys.stderr.write(" failed\n")
        sys.stderr.flush()

    hearing = StatusListeners()
    hearing.add(say)
    return hearing


def add_force_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--transcripts", action="store_true",
                        help="show each decision's transcript in full: what the navigator was sent and answered")
    parser.add_argument("--force", action="append", default=[], metavar="NODE=ID[,ID...]",
                        help="answer the offer at NODE (the node being judged; start for the first offer) with "
                             "these ids instead of asking the navigator; NODE= stops there (repeatable). An id "
                             "holding = or a comma, with spaces around it, or starting with a quote goes in double "
                             "quotes, with \"\" for a quote inside: '\"a=b\"=x,\" pad \"'; '\"start\"=x' forces a "
                             "node whose id is start")


def add_pdf_option(parser: argparse.ArgumentParser) -> None:
    """``--pdf FILE.pdf`` (a PageIndex tree's pages) and ``--summaries MODEL`` (a PDF's summaries by an LLM)."""
    parser.add_argument("--pdf", metavar="FILE.pdf", type=path_text,
                        help="with a PageIndex tree (.json): the PDF it was made from; each node gets the text of its "
                             "pages")
    add_summaries_option(parser)


def pdf_summaries(args: argparse.Namespace, path: str | Path | None, *,
                  allow_files: bool = True) -> SummaryWriter | None:
    """``--summaries``' writer for the PDF opened at ``path`` (``None``: not asked for); one line and exit 2 when
    what is opened is no PDF, or the model is no LLM navigator's."""
    if getattr(args, "summaries", None) is None:
        return None
    if path is None or Path(path).suffix.lower() != ".pdf" or getattr(args, "pdf", None) is not None:
        fail(f"--summaries writes the summaries of a PDF opened as a corpus, and {path} is no PDF; leave "
             "--summaries out")
    return summaries_from(args, allow_files=allow_files)


def add_summaries_option(parser: argparse.ArgumentParser) -> None:
    """``--summaries MODEL``: a PDF's summaries written by an LLM navigator's model (its requests go through the
    response cache of ``--cache`` / ``--no-cache``)."""
    parser.add_argument("--summaries", metavar="MODEL",
                        help="a PDF's node summaries written by this LLM (openai:MODEL, ollama:MODEL, vllm:MODEL, "
                             "local:MODEL; requests cached) instead of the extractive ones")


def summaries_from(args: argparse.Namespace, *, allow_files: bool = True) -> SummaryWriter | None:
    """The writer of ``--summaries``' model, its navigator resolved and wired with the command's cache folder
    (``None``: not asked for); one line and exit 2 for a model that is no LLM navigator's or cannot be had."""
    model = getattr(args, "summaries", None)
    if model is None:
        return None
    from ..navigators.summary_writer import summary_writer

    try:
        return summary_writer(model, navigator_for(model, allow_files=allow_files,
                                                   wiring=Wiring(folders=folders_from(args))))
    except NavigatorConfigError as exc:
        fail(str(exc))


def add_map_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--map", metavar="FILE", type=path_text,
                        help="walk with a map variant: the titles and summaries FILE changes (maps/NAME.map.yaml, "
                             "kept beside the corpus; M in the explorer writes it), the corpus file untouched")


def add_judge_option(parser: argparse.ArgumentParser, what: str = "") -> None:
    parser.add_argument("--judge", metavar="JUDGE", default=None,
                        help="the independent judge of every miss and of the flat search: semantic:default (the "
                             "bundled embeddings, the default; BM25 when they cannot load), lexical:default (BM25), "
                             "or a navigator that scores (openai:MODEL, asked for scores: two calls a miss, one a "
                             f"question to rerank the flat search's top 10); none: no verdicts{what}")


def checked_judge(name: str | None, allow_files: bool = True) -> str | None:
    """``--judge`` as given (``None``: the default judge; ``none``: no verdicts), or one line and exit 2 for a judge
    there is not, or one that names a file when files are off (``--no-files``: ``allow_files=False``), before any
    corpus is loaded."""
    from ..navigators.navigator_judge import check_judge

    if name is not None:
        try:
            check_judge(name, allow_files)
        except NavigatorConfigError as exc:
            fail(f"--judge: {exc}")
    return name


def judge_from(args: argparse.Namespace, corpus: Corpus, wiring: Wiring | None = None) -> Judge | None:
    """The judge ``--judge`` names (checked: :func:`checked_judge`; default: the bundled embeddings, BM25 when they
    cannot load, said on stderr) bound to ``corpus``, ``None`` for ``none``. A navigator judging (an LLM) is wired by
    ``wiring`` (default: one with the command's response cache, ``--cache`` / ``--no-cache``), as the walks' are."""
    from ..navigators.navigator_judge import judge_named, judge_off

    name = getattr(args, "judge", None)
    if judge_off(name):
        return None
    wire = (wiring if wiring is not None else Wiring(folders=folders_from(args))).wire
    try:
        return judge_named(name, corpus, wire=wire,
                           told=lambda line: print(visible(f"{PROG}: {line}"), file=sys.stderr))
    except NavigatorConfigError as exc:  # semantic:default named, and the embeddings cannot load
        fail(f"--judge: {exc}")


def add_telemetry_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--otlp-endpoint", metavar="URL",
                        help="send each walk as OpenTelemetry spans (OpenInference) to this OTLP/HTTP address, e.g. "
                             f"Phoenix at http://127.0.0.1:6006 (default: ${OTLP_ENDPOINT_ENV})")
    parser.add_argument("--otlp-file", metavar="FILE", type=path_text,
                        help="write each walk's spans to FILE as OTLP/JSON lines")


def telemetry_from(args: argparse.Namespace, report: Callable[[str], None] | None = None,
                   ledger: Ledger | None = None) -> WalkTelemetry | None:
    """The span export the options (or $REASONING_EXPLORER_OTLP_ENDPOINT) ask for; a bad address or file: exit 2.
    ``ledger``: what the command read (:func:`check_apart`), which the span file never replaces."""
    if args.otlp_endpoint is None and args.otlp_file is None and not environment().get(OTLP_ENDPOINT_ENV).strip():
        return None
    if args.otlp_file is not None:
        check_writable(args.otlp_file, "write spans", "spans.jsonl")  # before the exporter opens it (a FIFO blocks)
    from ..walks.telemetry import TelemetryConfigError, WalkTelemetry

    try:
        return WalkTelemetry.from_options(args.otlp_endpoint, args.otlp_file, report=report,
                                          reads=ledger if ledger is not None else ())
    except TelemetryConfigError as exc:
        fail(str(exc))


def check_telemetry(args: argparse.Namespace) -> None:
    """What :func:`telemetry_from` would refuse, refused without opening anything (``serve``: each session opens
    its own file and exporter)."""
    if args.otlp_file is not None:
        check_writable(args.otlp_file, "write spans", "spans.jsonl")
    endpoint, name = args.otlp_endpoint, "--otlp-endpoint"
    if endpoint is None and environment().get(OTLP_ENDPOINT_ENV).strip():
        endpoint, name = environment().get(OTLP_ENDPOINT_ENV), OTLP_ENDPOINT_ENV
    if endpoint is None and args.otlp_file is None:
        return
    from ..walks.telemetry import TelemetryConfigError, attribute_lengths, traces_url

    try:
        if endpoint is not None:
            traces_url(endpoint, name=name)
        attribute_lengths(environment().variables)
    except TelemetryConfigError as exc:
        fail(str(exc))


def forces_from(values: Sequence[str], corpus: Corpus) -> list[Force]:
    """The ``--force`` values, checked against the corpus: a NODE that is not in it is one line and exit 2; a bare
    ``start`` in a corpus that has a node ``start`` is a warning on stderr (it names the roots; ``"start"`` names
    the node)."""
    forces: dict[str | None, Force] = {}
    for value in values:
        try:
            force = parse_force(value)
        except ForceError as exc:
            fail(str(exc))
        if force.node is None and START in corpus.index:
            print(f"{PROG}: warning: {one_line(f'--force {value!r}')}: bare {START} names the first offer (the roots), "
                  f"and this corpus also has a node {START!r}: to force that node, write \"{START}\"="
                  f"{','.join(quote_id(i) for i in force.selected)}", file=sys.stderr)
        if force.node is not None and force.node not in corpus.index:
            fail(f"--force {value!r}: no node {force.node!r} in {corpus.path}; name a node of the corpus, or "
                 f"'{START}' for the first offer{_spelling_hint(force.node, corpus)}")
        if force.node in forces:
            fail(f"--force {value!r}: {force.label!r} is forced twice; force each node once")
        forces[force.node] = force
    return list(forces.values())


def _spelling_hint(name: str, corpus: Corpus) -> str:
    """When the corpus has an id that ``name`` would be once spaces are dropped (``' pad '``), how to write it."""
    near = next((node_id for node_id in corpus.index.ids() if node_id != name and node_id.strip() == name), None)
    if near is None:
        return ""
    return f" (the corpus has {near!r}: an id with spaces around it is written in double quotes, {quote_id(near)})"


def check_writable(path: str, doing: str = "save the trace", example: str = "walk.jsonl") -> None:
    """Fail now, not after an expensive walk, when a file cannot be written where asked: no folder, a name too long,
    a folder, or something that is not a regular file (a FIFO would block the open for ever, a device would take
    the bytes). ``doing`` says what the file is for (``cannot save the trace to ...``, ``cannot write spans to``)."""
    problem = unwritable(path, doing, example)
    if problem is not None:
        fail(problem)


OUTPUT_OPTIONS = ("--trace", "--otlp-file", "--html", "--save-run")
"""The options that name a file a command writes (read from the parsed arguments as ``trace``, ``otlp_file``,
``html``, ``save_run``)."""

Input = tuple[str, "str | Path | None"]
"""A file a command reads: what it is (``"the corpus"``), and its path (``None``: not read this time)."""


def read_by(model: str | None, option: str = "--navigator") -> list[Input]:
    """The files the navigator of ``model`` reads (its script or trace, a ``py:`` navigator's source, a local
    model's file, the prompt files of its options: :func:`explorer.navigators.files_read_by`), as inputs."""
    return [(f"the file {option} reads", path) for path in files_read_by(model)]


OUTPUT_DOING: Final = {"--trace": ("save the trace", "walk.jsonl"), "--otlp-file": ("write spans", "spans.jsonl"),
                       "--html": ("write the HTML", "walk.html"), "--save-run": ("write the kept run", "run.json")}
"""What each output option's file is for, and a name to suggest, as its one line says them."""


def add_overwrite_option(parser: argparse.ArgumentParser) -> None:
    """``--overwrite``: an output (``--trace``, ``--otlp-file``, ``--html``, ``--save-run``) may replace a file that
    is there (never one the command reads)."""
    parser.add_argument("--overwrite", action="store_true",
                        help="let an output file (--trace, --otlp-file, --html, --save-run) replace a file that "
                             "exists; without it such a command is refused (an input is never replaced)")


def check_apart(args: argparse.Namespace, *inputs: Input, ledger: Ledger | None = None) -> Ledger:
    """Refuse, before anything is written, an output (``--trace``, ``--otlp-file``, ``--html``, ``--save-run``)
    that is one of ``inputs`` or another output, by the one gate for every file written (:mod:`explorer.outputs`:
    the same path once symlinks are resolved, the same file through a hard link, or a Markdown file inside a corpus
    folder), that cannot be written (a FIFO, a device, no folder), or that is a file there already unless
    ``--overwrite``. One line and exit 2: writing would destroy what the command reads, or lose one output under the
    other. Returns the command's ledger (``ledger``, or a new one) holding ``inputs``, for its wiring."""
    outputs = [Output(option, Path(value).expanduser()) for option in OUTPUT_OPTIONS
               if (value := getattr(args, option[2:].replace("-", "_"), None))]
    ledger = ledger if ledger is not None else Ledger()
    for what, source in inputs:
        ledger.read(what, source)
    for number, output in enumerate(outputs):
        doing, example = OUTPUT_DOING[output.name]
        verdict = judge(output, ledger, doing=doing, example=example, others=outputs[:number],
                        replace=bool(getattr(args, "overwrite", False)))
        if verdict is not None:
            fail(existing(output, then="pass --overwrite to replace it, or name another file") or verdict.line
                 if verdict.exists else verdict.line)
    return ledger


def is_there(path: Path) -> bool:
    """``path.exists()``, but a name the file system refuses (too long, a NUL) is simply not there."""
    try:
        return path.exists()
    except (OSError, ValueError):
        return False


def navigator_for(model: str, headless: bool = True, allow_files: bool = True,
                  wiring: Wiring = UNWIRED) -> TreeNavigator:
    """``resolve_navigator``, with its configuration error as one line and exit code 2, wired with the command's
    ``wiring`` (its folders: the response cache; its listeners: :func:`report_local_model_loading`)."""
    try:
        return wiring.wire(resolve_navigator(model, headless=headless, allow_files=allow_files))
    except NavigatorNeedsAPerson as exc:
        fail(f"{exc}, or run the explorer (`{PROG} CORPUS --navigator {model}`)")
    except NavigatorConfigError as exc:
        fail(str(exc))


def settings_from(args: argparse.Namespace, query: str, model: str,
                  on_failure: str = OnFailure.THROW.value) -> WalkSettings:
    return WalkSettings(
        query=query,
        model=model,
        max_nodes_visited=args.max_visits if args.max_visits is not None else 15,
        max_depth=args.max_depth if args.max_depth is not None else 6,
        on_failure=OnFailure(on_failure),
        **policy_settings(args),
    )


def policy_settings(args: argparse.Namespace, recorded: WalkSettings | None = None) -> dict[str, Any]:
    """``policy`` and ``alpha`` for a walk's settings: ``--policy``'s, else ``recorded``'s (a trace's), else
    depth-first."""
    given = getattr(args, "policy", None)
    if given is not None:
        return {"policy": given[0], "alpha": given[1]}
    if recorded is not None:
        return {"policy": recorded.policy, "alpha": recorded.alpha}
    return {}


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    out = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not columns_given():
        # No width given, or none to use (COLUMNS=0 made Rich print nothing at all): the terminal's, and in a pipe
        # or a CI log 160, since tables need room more than a screen does.
        out.width = shutil.get_terminal_size((160, 24)).columns if out.is_terminal else 160
    return out


def columns_given() -> bool:
    """``COLUMNS`` names a width to use: a whole number above 0 (``COLUMNS=0`` or ``COLUMNS=x`` is none, as unset)."""
    columns = environment().get("COLUMNS")
    return columns.isascii() and columns.isdigit() and int(columns) > 0


def print_whole(out: Any, renderable: Any) -> None:
    """Print ``renderable`` (a table) on ``out``; into a pipe or a file (no terminal, no ``COLUMNS``), as wide as it
    needs: plain columns, each row one line, no heading broken (``best-fir st lands``) for a reader or a script."""
    if out.is_terminal or columns_given():
        out.print(renderable)
        return
    from rich.measure import Measurement

    needed = Measurement.get(out, out.options.update(width=100_000), renderable).maximum
    width = out.width
    out.width = max(width, needed)  # print's own width is capped at the console's
    try:
        out.print(renderable)
    finally:
        out.width = width


def write_json(document: object) -> None:
    """One JSON document on stdout; characters that could reorder or hijack a terminal, and lone surrogates, are
    \\u-escaped (:func:`safe_text.json_text`)."""
    sys.stdout.write(json_text(document, indent=2) + "\n")
