"""An application with a navigator of its own, whose walks are recorded for the explorer and sent to OTLP.

    python examples/my_app.py --walks walks/ --otlp-file walks.otlp.jsonl "how long do refunds take"
    python examples/my_app.py --walks walks/ --otlp-endpoint http://127.0.0.1:6006 "how do I sign in"

Each question is walked on the sample handbook by ``WordOverlapNavigator`` (below), with a small budget; every
walk is recorded as a trace in ``--walks`` (``reasoning-explorer walks/`` opens them all) and its spans go to an
OTLP JSON file and/or an OTLP/HTTP endpoint (Phoenix, an OpenTelemetry collector). The navigator is also usable by
the explorer itself: ``--navigator py:examples/my_app.py:WordOverlapNavigator``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from core import NavigatorChoice, NavigatorRequest, ReasoningRAGStrategy, TreeNavigator
from explorer.corpora import load_corpus
from explorer.recording import WalkRecorder
from explorer.walks.telemetry import WalkTelemetry

HANDBOOK = Path(__file__).resolve().parents[1] / "sample_corpora" / "handbook.yaml"
MODEL = "py:examples/my_app.py:WordOverlapNavigator"


class WordOverlapNavigator(TreeNavigator):
    """Goes into the one candidate whose title and summary share the most words with the query (ties: the first)."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        words = {w.strip("?.,!").lower() for w in request.query.split() if len(w) > 2}
        scored = [(len(words & {w.strip("?.,!").lower() for w in f"{c.title} {c.summary}".split()}), c.id)
                  for c in request.candidates]
        best = max(scored, key=lambda pair: pair[0], default=(0, ""))
        if best[0] == 0:
            return NavigatorChoice((), rationale="no candidate shares a word with the query")
        return NavigatorChoice((best[1],), rationale=f"{best[0]} word(s) in common with the query")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("queries", nargs="+", metavar="QUERY")
    parser.add_argument("--walks", default="walks", help="the folder the walks are recorded in")
    parser.add_argument("--otlp-file", help="write the walks' spans to this OTLP JSON file too")
    parser.add_argument("--otlp-endpoint", help="send the walks' spans to this OTLP/HTTP address too")
    parser.add_argument("--max-visits", type=int, default=4, help="each walk's visit budget (default 4)")
    args = parser.parse_args(argv)

    corpus = load_corpus(HANDBOOK)
    strategy = ReasoningRAGStrategy(corpus.index, WordOverlapNavigator(), MODEL, max_nodes_visited=args.max_visits)
    telemetry = (WalkTelemetry(args.otlp_endpoint, args.otlp_file)
                 if args.otlp_endpoint or args.otlp_file else None)
    recorder = WalkRecorder(args.walks, corpus, send_to=[telemetry.export_walk] if telemetry else [])
    try:
        for query in args.queries:
            documents = recorder.retrieve(strategy, query)
            print(f"{query}: {', '.join(d.id for d in documents) or 'nothing'}")
    finally:
        recorder.close()  # the last walks written, and sent
        if telemetry is not None:
            telemetry.close()
    print(f"recorded {recorder.written} walk(s) in {args.walks}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
