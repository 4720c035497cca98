"""Benchmark of core: HierarchyIndex build time and memory, and the walk's own cost per visit.

Run: .venv/bin/python bench/core_walk.py [--quick]

Prints figures; it asserts nothing. Index sizes are measured in a fresh
subprocess each, so peak memory (ru_maxrss) is that size's alone. The walk's
overhead is measured with a navigator that answers instantly (it returns a
precomputed answer), so the time is the runtime's own: events, views, checks.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import (
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorRequest,
    ReasoningRAGStrategy,
    RetrievedDocument,
    TreeNavigator,
    drain,
)

ID, PARENT = HierarchyMetadata.ID, HierarchyMetadata.PARENT_ID


def synthetic_documents(count: int, fanout: int = 10) -> list[RetrievedDocument]:
    """A complete ``fanout``-ary tree of ``count`` nodes in breadth-first order."""
    docs = []
    for i in range(count):
        metadata = {ID: f"n{i}", "reasoningTitle": f"Section {i}", "reasoningSummary": f"What section {i} covers"}
        if i:
            metadata[PARENT] = f"n{(i - 1) // fanout}"
        docs.append(RetrievedDocument(f"content {i}", f"n{i}", 0.0, metadata))
    return docs


def rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_index(count: int) -> dict[str, float]:
    started = time.perf_counter()
    docs = synthetic_documents(count)
    docs_seconds = time.perf_counter() - started
    before = rss_mb()
    started = time.perf_counter()
    index = HierarchyIndex(docs)
    seconds = time.perf_counter() - started
    assert len(index) == count
    return {"nodes": count, "docs_seconds": docs_seconds, "index_seconds": seconds,
            "peak_rss_mb": rss_mb(), "rss_before_index_mb": before}


class Instant(TreeNavigator):
    """Answers from a precomputed table: no work of its own to speak of."""

    def __init__(self, answers: dict[str | None, tuple[str, ...]] | None = None) -> None:
        self.answers = answers or {}

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> tuple[str, ...]:
        return self.answers[request.current.id if request.current else None]


def per_visit_microseconds(strategy: ReasoningRAGStrategy, walks: int) -> tuple[float, int]:
    samples = []
    visits = 0
    for _ in range(walks):
        started = time.perf_counter()
        result = drain(strategy.walk("q"))
        elapsed = time.perf_counter() - started
        visits = result.visits_used
        samples.append(elapsed / visits * 1e6)
    return statistics.median(samples), visits


def wide_walk(walks: int) -> tuple[float, int]:
    """Every child chosen, depth first, over a 4-ary tree of 5 levels (341 nodes), budget 341."""
    docs = synthetic_documents(341, fanout=4)
    index = HierarchyIndex(docs)
    answers: dict[str | None, tuple[str, ...]] = {None: tuple(index.root_ids())}
    for node_id in index.ids():
        answers[node_id] = index.child_ids(node_id)
    strategy = ReasoningRAGStrategy(index, Instant(answers), "m", max_nodes_visited=341, max_depth=10)
    return per_visit_microseconds(strategy, walks)


def deep_walk(depth: int, walks: int, chain: int = 20_000) -> tuple[float, int]:
    """One path ``depth`` deep down a chain of ``chain`` nodes (the same index for every depth, so only
    the depth changes between rows: paths, stacks and checks at depth)."""
    docs = []
    for i in range(chain):
        metadata = {ID: f"c{i}", "reasoningTitle": f"Level {i}"}
        if i:
            metadata[PARENT] = f"c{i - 1}"
        docs.append(RetrievedDocument("", f"c{i}", 0.0, metadata))
    index = HierarchyIndex(docs)
    answers: dict[str | None, tuple[str, ...]] = {None: ("c0",)}
    for i in range(chain - 1):
        answers[f"c{i}"] = (f"c{i + 1}",)
    strategy = ReasoningRAGStrategy(index, Instant(answers), "m", max_nodes_visited=depth, max_depth=chain)
    return per_visit_microseconds(strategy, walks)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer walks")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_index(args.child)))
        return

    sizes = [10_000, 100_000] if args.quick else [100_000, 1_000_000]
    print("HierarchyIndex build (10-ary synthetic tree, one fresh process per size)")
    print(f"  {'nodes':>10}  {'build s':>8}  {'peak RSS MB':>11}  {'RSS before build MB':>19}")
    for size in sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(size)], capture_output=True, text=True,
                             check=True)
        row = json.loads(out.stdout)
        print(f"  {row['nodes']:>10,}  {row['index_seconds']:>8.2f}  {row['peak_rss_mb']:>11.0f}  "
              f"{row['rss_before_index_mb']:>19.0f}")
    print("  targets: 1,000,000 nodes in under 5 s and under 1.5 GB")

    walks = 20 if args.quick else 200
    print(f"Walk overhead per visited node, instant navigator (median of {walks} walks)")
    median, visits = wide_walk(walks)
    print(f"  wide walk, {visits} visits per walk, depth <= 4:      {median:6.2f} us/visit")
    for depth in (100, 2_000, 20_000):
        median, visits = deep_walk(depth, max(5, walks * 100 // depth))
        print(f"  one path {depth:>6} deep (a 20,000-node chain), {visits:>6} visits per walk: {median:6.2f} us/visit")
    print("  target: under 20 us per visit, flat with depth")


if __name__ == "__main__":
    main()
