"""``reasoning-explorer export TRACE --html OUT.html``: a saved walk as one self-contained HTML file.

The explorer draws the walk (headless, in presenting mode, every step: ``tui.html_export``) and the page
replays the drawings (``tui.export_page``): open it in any browser, with no server, no network and nothing
installed. The output is checked before anything is drawn: writable, and never the trace or the corpus it
reads (one line and exit 2).
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from ..safe_text import visible
from ..walks.history import WalkHistory
from .inputs import open_trace, trace_corpus
from .options import EXIT_OK, PROG, Parser, check_apart, check_writable, fail, path_text


def write_atomically(path: Path, text: str) -> None:
    """``text`` to ``path``, by way of a temporary file beside it renamed into place (a reader never sees half)."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    except OSError as exc:
        temporary.unlink(missing_ok=True)
        fail(f"cannot write the HTML to {path}: {exc.strerror or exc}")


def cmd_export(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} export",
                    description="Write a saved walk as one self-contained HTML file that replays it: the explorer's "
                                "own drawing of every step, with no server and no network.")
    # Not ``trace``: check_apart reads args.trace as the --trace output of the other commands.
    parser.add_argument("walk", metavar="TRACE", type=path_text, help="a trace saved by `walk --trace` or the explorer")
    parser.add_argument("--html", metavar="OUT.html", type=path_text, required=True,
                        help="the HTML file to write (replaced if it exists)")
    parser.add_argument("--corpus", metavar="C", type=path_text, help="the corpus, when it is not where the trace says")
    args = parser.parse_args(argv)
    trace = open_trace(args.walk)
    corpus = trace_corpus(Path(args.walk), trace, args.corpus)
    check_writable(args.html, "write the HTML", "walk.html")
    check_apart(args, ("the trace", args.walk), ("the corpus", corpus.path))
    if not trace.events:
        fail(f"{args.walk}: the trace holds no event; there is no walk to export")
    started = time.monotonic()
    from ..navigators import resolve_navigator
    from ..tui.export_page import page
    from ..tui.html_export import draw_walk, packed
    from ..tui.walk_screen import WalkScreen
    from ..walks.walk_list import WalkList

    history = WalkHistory.from_trace(trace)
    navigator = resolve_navigator("lexical:default")  # never asked: the walk is drawn from its record

    def screen() -> WalkScreen:
        return WalkScreen(corpus, WalkList(), history.settings, navigator, present=True, allow_files=False)

    drawn = draw_walk(screen, history, title=PROG)
    walked = trace.header.settings
    text = page(title=walked.query, subtitle=f"{corpus.title} · {walked.model} · budget {walked.max_nodes_visited} "
                                              f"· depth limit {walked.max_depth} · {trace.end.value} · exported by "
                                              f"{PROG}",
                frames=[packed(f.svg) for f in drawn.frames], steps=[f.step for f in drawn.frames],
                transcripts=[packed(t) for t in drawn.transcripts], transcript_of=[f.transcript for f in drawn.frames],
                decisions=drawn.decisions, total=len(history.events))
    out = Path(args.html).expanduser()
    write_atomically(out, text)
    size = len(text.encode("utf-8"))
    print(f"{PROG}: wrote {visible(str(out))}: {len(drawn.frames)} steps ({len(drawn.decisions)} decision steps), "
          f"{size / 1_000_000:.2f} MB, in {time.monotonic() - started:.1f} s", file=sys.stderr)
    return EXIT_OK
