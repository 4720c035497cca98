"""What every sub-command shares: the program's name and exit codes, one-line usage errors, the argument
types (whole numbers, paths, questions), the options of a walk, and how a navigator and settings come from them.

Both ``cli.main``'s sub-commands and ``cli.serve`` import this module; it imports neither."""

from __future__ import annotations

import argparse
import errno
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from core import OnFailure, TreeNavigator

from ..corpora import Corpus
from ..navigators import NavigatorConfigError, NavigatorNeedsAPerson, resolve_navigator
from ..navigators.forcing import START, Force, ForceError, parse_force
from ..navigators.llm.options import OptionError, StructuredOutput, split_options, with_options
from ..navigators.llm.settings import CACHE_DIR_ENV, CACHE_OFF
from ..safe_text import clip, json_text, one_line
from ..walks.session import WalkSettings

if TYPE_CHECKING:
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
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument("--cache", type=path_text, metavar="DIR",
                       help=f"keep LLM answers in DIR (default: ${CACHE_DIR_ENV}, else "
                            "~/.cache/reasoning-explorer/llm)")
    cache.add_argument("--no-cache", action="store_true", help="neither read nor keep LLM answers")


def option_text(key: str) -> Callable[[str], str]:
    """An argparse type for a model-id option's value: checked as the model id would check it, kept as text."""

    def parse(text: str) -> str:
        try:
            split_options(f"x@{key}={text.strip()}")
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


def apply_cache_options(args: argparse.Namespace) -> None:
    """``--cache DIR`` / ``--no-cache``: set for this process (and the processes it starts) through
    ``$REASONING_EXPLORER_CACHE_DIR``, which every LLM call reads."""
    if getattr(args, "no_cache", False):
        os.environ[CACHE_DIR_ENV] = CACHE_OFF
    elif getattr(args, "cache", None) is not None:
        folder = Path(args.cache).expanduser()
        if folder.exists() and not folder.is_dir():
            fail(f"--cache {args.cache}: not a folder; name a folder for the cache (it is made if need be)")
        os.environ[CACHE_DIR_ENV] = str(folder.resolve())


def report_local_model_loading() -> Callable[[], None]:
    """Say on stderr, in one line, that a local model is loading and how long it took (or why it failed);
    returns the function that stops saying it."""
    from ..navigators.local_model import LoadPhase, LocalModelStatus, add_status_listener

    def say(status: LocalModelStatus) -> None:
        if status.phase is LoadPhase.LOADING:
            sys.stderr.write(f"{PROG}: {one_line(status.line())}")
        elif status.phase is LoadPhase.READY:
            sys.stderr.write(f" ready in {status.seconds or 0:.2f} s (llama.cpp at {status.address})\n")
        elif status.phase is LoadPhase.FAILED:
            sys.stderr.write(" failed\n")
        sys.stderr.flush()

    return add_status_listener(say)


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


def navigator_for(model: str, headless: bool = True) -> TreeNavigator:
    """``resolve_navigator``, with its configuration error as one line and exit code 2."""
    try:
        return resolve_navigator(model, headless=headless)
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
    )


def console(stderr: bool = False) -> Any:
    from rich.console import Console

    out = Console(stderr=stderr, highlight=False, soft_wrap=False)
    if not out.is_terminal and "COLUMNS" not in os.environ:
        out.width = 160  # piped into a file or CI log: tables need room more than a screen does
    return out


def write_json(document: object) -> None:
    """One JSON document on stdout; characters that could reorder or hijack a terminal, and lone surrogates, are
    \\u-escaped (:func:`safe_text.json_text`)."""
    sys.stdout.write(json_text(document, indent=2) + "\n")
