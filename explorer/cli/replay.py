"""``reasoning-explorer replay``: a trace's recorded decisions run again, for free, with another budget."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .inputs import open_trace, trace_corpus
from .options import PROG, Parser, add_force_option, add_walk_options, forces_from, navigator_for, path_text
from .walk import run_walk


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
    traced = trace.header.settings
    settings = traced.but(
        model=model,
        max_nodes_visited=args.max_visits if args.max_visits is not None else traced.max_nodes_visited,
        max_depth=args.max_depth if args.max_depth is not None else traced.max_depth,
    )
    return run_walk(corpus, settings, navigator_for(model), args.json, None, forces_from(args.force, corpus),
                    args.transcripts)
