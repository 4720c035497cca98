"""``reasoning-explorer export TRACE --html OUT.html``: a saved walk as one self-contained HTML file.

The explorer draws the walk in this process (headless, in presenting mode, every step, read from the trace:
no navigator is resolved or asked: ``tui.html_export``, the code the explorer's ``H`` runs) and the page
replays the drawings (``tui.export_page``): open it in any browser, with no server, no network and nothing
installed. The output is checked before anything is drawn: writable, and never the trace or the corpus it
reads (one line and exit 2). A walk that missed the node its question expects is judged by ``--judge`` (the
explorer's and ``eval``'s judge: the bundled embeddings by default; ``none``, no verdict on the page).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..safe_text import one_line, visible
from .inputs import walk_and_corpus
from .options import (
    EXIT_OK,
    PROG,
    Parser,
    add_cache_options,
    add_judge_option,
    add_overwrite_option,
    check_apart,
    check_writable,
    checked_judge,
    fail,
    judge_from,
    path_text,
    read_by,
)


def cmd_export(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} export",
                    description="Write a saved walk as one self-contained HTML file that replays it: the explorer's "
                                "own drawing of every step, with no server and no network.")
    # Not ``trace``: check_apart reads args.trace as the --trace output of the other commands.
    parser.add_argument("walk", metavar="TRACE", type=path_text,
                        help="a trace saved by `walk --trace` or the explorer, or an OTLP JSON file of walk spans "
                             "(FILE#N: its Nth walk)")
    parser.add_argument("--html", metavar="OUT.html", type=path_text, required=True,
                        help="the HTML file to write (a file there is replaced only with --overwrite)")
    add_overwrite_option(parser)
    parser.add_argument("--corpus", metavar="C", type=path_text, help="the corpus, when it is not where the trace says")
    add_judge_option(parser, " (here: the verdict under a missed walk's title)")
    add_cache_options(parser)
    args = parser.parse_args(argv)
    checked_judge(args.judge)
    trace, corpus = walk_and_corpus(args.walk, args.corpus)  # a trace, or a span file's walk (FILE#N)
    check_writable(args.html, "write the HTML", "walk.html")
    ledger = check_apart(args, ("the trace", args.walk), ("the corpus", corpus.path), *read_by(args.judge, "--judge"))
    if not trace.events:
        fail(f"{args.walk}: the trace holds no event; there is no walk to export")
    started = time.monotonic()
    from ..navigators.navigator_judge import judge_off
    from ..tui.html_export import export_walk, write_page
    from ..tui.walk_screen import WalkScreen

    # The judge named (an LLM's calls through --cache, as eval's); none named: the default one, made only for a miss
    # the page judges (a hit, or a walk no question asks, loads no embeddings: a second)
    judge = judge_from(args, corpus) if args.judge is not None else None
    named = judge.name if judge is not None else args.judge
    exported = export_walk(WalkScreen, trace, corpus, credit=PROG,  # no navigator: the walk is drawn from its record
                           judged=() if judge_off(args.judge) else None, judge=judge,
                           judge_failed=lambda exc: print(visible(
                               f"{PROG}: --judge {named} failed ({type(exc).__name__}: {one_line(str(exc))}); the "
                               "page says no verdict"), file=sys.stderr))
    out = Path(args.html).expanduser()
    try:
        write_page(out, exported.text, ledger, replace=args.overwrite)
    except OSError as exc:
        fail(f"cannot write the HTML to {out}: {exc.strerror or exc}")
    size = len(exported.text.encode("utf-8"))
    print(f"{PROG}: wrote {visible(str(out))}: {exported.steps} steps ({exported.decisions} decision steps), "
          f"{size / 1_000_000:.2f} MB, in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return EXIT_OK
