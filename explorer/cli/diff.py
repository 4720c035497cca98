"""``reasoning-explorer diff``: two traces compared, from their first divergence."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from core import Policy

from ..trace import Trace
from ..walk_settings import policy_text
from .inputs import looks_like_spans, open_trace, walk_and_corpus
from .options import (
    EXIT_FOUND,
    EXIT_OK,
    PROG,
    Parser,
    add_cache_options,
    add_judge_option,
    checked_judge,
    console,
    fail,
    judge_from,
    path_text,
    policy_option,
    write_json,
)

if TYPE_CHECKING:
    from ..walks.compare import Comparison
    from ..walks.history import WalkHistory


def cmd_diff(argv: Sequence[str]) -> int:
    parser = Parser(prog=f"{PROG} diff",
                    description="Compare two walks saved as traces: where they first part, what each landed, what "
                                "each cost. Exit 0 when they made the same decisions, 1 when they differ.")
    parser.add_argument("a", metavar="A.jsonl", type=path_text,
                        help="a trace (walk A), or an OTLP JSON file of walk spans (FILE#N: its Nth walk)")
    parser.add_argument("b", metavar="B.jsonl", type=path_text, nargs="?",
                        help="another trace or span file (walk B); with --policy, leave it out to compare walk A with "
                             "itself re-walked in that order")
    parser.add_argument("--policy", type=policy_option, default=None, metavar="P",
                        help="re-walk each walk from its recorded decisions in this order first (depth-first, or "
                             "best-first[@alpha=A]): no navigator call; a node its recording never judged stops there")
    parser.add_argument("--expect", metavar="ID[,ID]", default=None,
                        help="the node(s) the query should land: say which walk landed it and, for a walk that "
                             "missed it, whose fault it was (--judge's verdict) and where a flat search ranks it "
                             "(reads the corpus the trace names)")
    add_judge_option(parser, " (here: with --expect, the verdict on each walk that missed)")
    add_cache_options(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON document instead")
    args = parser.parse_args(argv)
    checked_judge(args.judge)
    if args.b is None and args.policy is None:
        fail("name walk B (a trace or span file), or compare walk A with itself in another order: --policy P")
    from ..walks.compare import compare, comparison_to_json
    from ..walks.history import WalkHistory

    names = [f"A: {Path(args.a).name}", f"B: {Path(args.b).name}" if args.b else f"B: {Path(args.a).name}"]
    if args.policy is None:
        traces = [open_any(args.a), open_any(args.b)]
        a, b = (WalkHistory.from_trace(trace, number=n) for n, trace in enumerate(traces, start=1))
    else:
        a, b, traces = _in_order(args.a, args.b, args.policy)
        said = policy_text(*args.policy)
        names = [names[0] + ("" if args.b is None else f", re-walked {said}"), f"{names[1]}, re-walked {said}"]
    comparison = compare(a, b, a_corpus=traces[0].header.corpus_sha256, b_corpus=traces[1].header.corpus_sha256)
    # A walk made with a map variant says so in its name: a flip may be the map's rather than the navigator's.
    names = [name + (f" (map {trace.header.map.name})" if trace.header.map is not None else "")
             for name, trace in zip(names, traces, strict=True)]
    comparison = replace(comparison, a_name=names[0], b_name=names[1])
    if args.expect is not None:
        comparison = _expected(comparison, args, a, b)
    if args.json:
        write_json(comparison_to_json(comparison))
    else:
        from .render import comparison_report

        console().print(comparison_report(comparison))
    return EXIT_OK if comparison.same_decisions else EXIT_FOUND


def _in_order(a: str, b: str | None, order: tuple[Policy, float]) -> tuple[WalkHistory, WalkHistory, list[Trace]]:
    """Walks A and B re-walked from their recorded decisions in ``order`` (``replay --policy``'s walk: no navigator
    call); without B, walk A as recorded and A re-walked."""
    from ..walks.history import WalkHistory
    from ..walks.session import rewalk

    loaded = [walk_and_corpus(path) for path in ([a] if b is None else [a, b])]
    walked: list[WalkHistory] = []
    for number, (trace, corpus) in enumerate(loaded, start=1):
        recorded = WalkHistory.from_trace(trace, number=number)
        session = rewalk(recorded, corpus, number=number, policy=order[0], alpha=order[1])
        session.run_headless()
        walked.append(session.history)
    if b is None:
        return WalkHistory.from_trace(loaded[0][0], number=1), walked[0], [loaded[0][0]] * 2
    return walked[0], walked[1], [trace for trace, _ in loaded]


def _expected(comparison: Comparison, args: argparse.Namespace, a: WalkHistory, b: WalkHistory) -> Comparison:
    """``comparison`` with which walk landed ``--expect``'s nodes and the verdict of ``--judge`` on each walk that
    missed them (none with ``--judge none``; a judge that fails is one line on stderr, and no verdict), on the corpus
    walk A's file names; one line and exit 2 for an id the corpus does not hold."""
    from ..safe_text import one_line, visible
    from ..walks.evaluation.walk_verdict import walk_verdict
    from ..walks.evaluation.who_landed import who_landed

    corpus = walk_and_corpus(args.a)[1]
    expected = [node.strip() for node in args.expect.split(",") if node.strip()]
    unknown = [node for node in expected if node not in corpus.index]
    if not expected or unknown:
        fail(visible(f"--expect: {', '.join(unknown) or 'no id'} is no node of {corpus.path}; name node ids of the "
                     "corpus, separated by commas"))
    judge = judge_from(args, corpus)
    verdicts: list[tuple[str, str, str]] = []
    try:
        verdicts = [(name, verdict.says, verdict.flat) for name, history in (("A", a), ("B", b)) if judge is not None
                    and (verdict := walk_verdict(corpus, history, expected, judge)) is not None]
    except Exception as exc:  # a navigator judging (an LLM) that fails: the comparison is said whole, unjudged
        print(visible(f"{PROG}: --judge {judge.name if judge else args.judge} failed ({type(exc).__name__}: "
                      f"{one_line(str(exc))}); no verdict is said"), file=sys.stderr)
    return replace(comparison, landing=who_landed(corpus, comparison, a, b, expected), verdicts=tuple(verdicts))


def open_any(path: str) -> Trace:
    """A trace as it is (``diff`` needs no corpus), or a span file's walk rebuilt on its corpus."""
    if looks_like_spans(path.rpartition("#")[0] or path) or looks_like_spans(path):
        return walk_and_corpus(path)[0]
    return open_trace(path)
