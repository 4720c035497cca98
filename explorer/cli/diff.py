"""``reasoning-explorer diff``: two traces compared, from their first divergence."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ..trace import Trace
from .inputs import looks_like_spans, open_trace, walk_and_corpus
from .options import EXIT_FOUND, EXIT_OK, PROG, Parser, console, path_text, write_json


def cmd_diff(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} diff",
                    description="Compare two walks saved as traces: where they first part, what each landed, what "
                                "each cost. Exit 0 when they made the same decisions, 1 when they differ.")
    parser.add_argument("a", metavar="A.jsonl", type=path_text,
                        help="a trace (walk A), or an OTLP JSON file of walk spans (FILE#N: its Nth walk)")
    parser.add_argument("b", metavar="B.jsonl", type=path_text, help="another trace or span file (walk B)")
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    args = parser.parse_args(argv)
    from ..walks.compare import compare, comparison_to_json
    from ..walks.history import WalkHistory

    traces = [open_any(args.a), open_any(args.b)]
    a, b = (WalkHistory.from_trace(trace, number=n) for n, trace in enumerate(traces, start=1))
    comparison = compare(a, b, a_corpus=traces[0].header.corpus_sha256, b_corpus=traces[1].header.corpus_sha256)
    comparison = replace(comparison, a_name=f"A: {Path(args.a).name}", b_name=f"B: {Path(args.b).name}")
    if args.json:
        write_json(comparison_to_json(comparison))
    else:
        from .render import comparison_report

        console().print(comparison_report(comparison))
    return EXIT_OK if comparison.same_decisions else EXIT_FOUND


def open_any(path: str) -> Trace:
    """A trace as it is (``diff`` needs no corpus), or a span file's walk rebuilt on its corpus."""
    if looks_like_spans(path.rpartition("#")[0] or path) or looks_like_spans(path):
        return walk_and_corpus(path)[0]
    return open_trace(path)
