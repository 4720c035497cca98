"""Benchmark of core: HierarchyIndex build, a walk step against a bare loop and LlamaIndex, cost per visit.

Run: .venv/bin/python bench/core_walk.py [--quick] [--no-llama]

Prints figures with their targets (issue 12) and whether each is met; it
asserts nothing. Wall times on a shared 2-core machine vary a lot with load,
so the ratios are measured within one run: core and what it is compared with
take turns in many short rounds, and each figure is its best round (as
``timeit`` reports the best of its repeats: the round least disturbed by
other work); the median of the rounds' ratios is printed beside it.

* HierarchyIndex build: a 10-ary synthetic tree, one fresh process per size,
  so peak memory (ru_maxrss) is that size's alone.
* A walk step: one offer, one navigator call and one node entered. The tree is
  the 11,110-node forest of the issue (10 roots, 10-ary, 4 levels; title
  ``Section i``, summary ``What section i covers``); the navigator answers
  instantly from a precomputed table (the first candidate), so each walk takes
  4 steps from the roots to a leaf and the time is the runtime's own. Core's
  figure is a whole walk (every event pulled, the landed leaf built, the
  result) divided by its steps, on a strategy built for each walk as the
  explorer and ``eval`` do.
  The bare loop does the least a walk can: looks the candidates' views up in
  a dict, builds the ``NavigatorRequest`` (its public constructor) and calls
  the same navigator, then steps into the first id returned. For reference,
  the same loop building its request as the walk does (without the frozen
  guard), and core on one strategy reused, are printed too.
* LlamaIndex: ``TreeSelectLeafRetriever`` over a ``TreeIndex`` of the same
  tree (same ids, text ``Section i: What section i covers``), with LlamaIndex's
  own ``MockLLM`` (it echoes the prompt, so the retriever picks choice 1 at
  each level: the same 4-level path). It runs only when ``llama-index-core``
  is importable; it is never a project dependency.
  It runs in a process of its own, after core's figures, so LlamaIndex's
  many objects slow nothing else that is measured.
* Per visit at depth: the wide and the deep walks of earlier runs, best
  round each. The runtime's work per visit must stay flat with depth; but a
  deeper path touches more distinct nodes, so any loop's visit slows as its
  data outgrows the CPU's caches. Flatness is therefore judged on core's
  ratio to the bare loop walking the same path.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import (
    CancellationToken,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorRequest,
    NodeView,
    ReasoningRAGStrategy,
    RetrievedDocument,
    TreeNavigator,
    drain,
)
from core.frozen import fast_constructor

ID, PARENT = HierarchyMetadata.ID, HierarchyMetadata.PARENT_ID
STEP_TARGET_RATIO = 5.0  # core's walk step at most 5x the bare loop's
LLAMA_TARGET_RATIO = 1000.0  # and at least 1,000x less than LlamaIndex's
VISIT_TARGET_US = 20.0
FLAT_TOLERANCE = 1.5  # 20,000 deep against 100 deep, per visit: the same work, within a busy machine's noise


def synthetic_documents(count: int, fanout: int = 10) -> list[RetrievedDocument]:
    """A complete ``fanout``-ary tree of ``count`` nodes in breadth-first order."""
    docs = []
    for i in range(count):
        metadata = {ID: f"n{i}", "reasoningTitle": f"Section {i}", "reasoningSummary": f"What section {i} covers"}
        if i:
            metadata[PARENT] = f"n{(i - 1) // fanout}"
        docs.append(RetrievedDocument(f"content {i}", f"n{i}", 0.0, metadata))
    return docs


def forest_documents(roots: int = 10, fanout: int = 10, levels: int = 4) -> list[RetrievedDocument]:
    """``roots`` complete ``fanout``-ary trees of ``levels`` levels, breadth first (11,110 nodes by default)."""
    docs: list[RetrievedDocument] = []
    level: list[str | None] = [None] * roots
    number = 0
    for _ in range(levels):
        following: list[str | None] = []
        for parent in level:
            node_id = f"n{number}"
            metadata = {ID: node_id, "reasoningTitle": f"Section {number}",
                        "reasoningSummary": f"What section {number} covers"}
            if parent is not None:
                metadata[PARENT] = parent
            docs.append(RetrievedDocument(f"content {number}", node_id, 0.0, metadata))
            following.extend([node_id] * fanout)
            number += 1
        level = following
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
        current = request.current
        return self.answers[None if current is None else current.id]


def verdict(met: bool) -> str:
    return "met" if met else "NOT met"


# -- a walk step: core against a bare loop ---------------------------------------------------------


def first_child_answers(index: HierarchyIndex) -> dict[str | None, tuple[str, ...]]:
    answers: dict[str | None, tuple[str, ...]] = {None: index.root_ids()[:1]}
    for node_id in index.ids():
        children = index.child_ids(node_id)
        if children:
            answers[node_id] = children[:1]
    return answers


def bare_walk_factory(
    index: HierarchyIndex, navigator: Instant, budget: int, *, core_request: bool
) -> Callable[[], int]:
    """A loop with a dict of children's views: the least a walk can do. Returns a walk that returns its steps.

    The request is built by ``NavigatorRequest``'s public constructor, as any caller builds it, or, with
    ``core_request``, the way the walk builds it (for reference only).
    """
    request = fast_constructor(NavigatorRequest) if core_request else NavigatorRequest
    views = {
        node_id: NodeView(node_id, str(doc.metadata["reasoningTitle"]), str(doc.metadata.get("reasoningSummary", "")))
        for node_id, doc in zip(index.ids(), index, strict=True)
    }
    offers: dict[str | None, tuple[NodeView, ...]] = {None: tuple(views[i] for i in index.root_ids())}
    for node_id in index.ids():
        children = index.child_ids(node_id)
        if children:
            offers[node_id] = tuple(views[i] for i in children)
    token = CancellationToken.none()

    def walk() -> int:
        current: NodeView | None = None
        candidates = offers.get(None)
        remaining = budget
        steps = 0
        while candidates and remaining:
            answer = navigator.choose(request("q", "m", current, candidates, remaining, token))
            current = views[answer[0]]
            remaining -= 1
            steps += 1
            candidates = offers.get(current.id)
        return steps

    return walk


def core_walk_factory(index: HierarchyIndex, navigator: TreeNavigator, budget: int) -> Callable[[], int]:
    """A whole core walk on a new strategy (as the explorer and eval make one per walk)."""

    def walk() -> int:
        strategy = ReasoningRAGStrategy(index, navigator, "m", max_nodes_visited=budget, max_depth=10)
        return drain(strategy.walk("q")).visits_used

    return walk


def microseconds_per_step(walk: Callable[[], int], walks: int) -> float:
    steps = 0
    started = time.perf_counter()
    for _ in range(walks):
        steps += walk()
    return (time.perf_counter() - started) / steps * 1e6


def interleaved(walks: dict[str, Callable[[], int]], rounds: int, per_round: dict[str, int]) -> dict[str, list[float]]:
    """Microseconds per step of each walk, round by round, the walks taking turns within each round."""
    samples: dict[str, list[float]] = {name: [] for name in walks}
    for _ in range(rounds):
        for name, walk in walks.items():
            samples[name].append(microseconds_per_step(walk, per_round[name]))
    return samples


def llama_walk_factory(docs: list[RetrievedDocument], index: HierarchyIndex) -> Callable[[], int] | None:
    """LlamaIndex's TreeSelectLeafRetriever on the same tree, or ``None`` when llama-index-core is absent."""
    try:
        from llama_index.core import Settings, StorageContext
        from llama_index.core.data_structs.data_structs import IndexGraph
        from llama_index.core.indices.tree.base import TreeIndex
        from llama_index.core.indices.tree.select_leaf_retriever import TreeSelectLeafRetriever
        from llama_index.core.llms import MockLLM
        from llama_index.core.schema import TextNode
    except ImportError:
        return None
    llm = MockLLM()  # echoes the prompt: the first number in it is the "1" of "(1 to 10)", so choice 1
    Settings.llm = llm
    nodes = [
        TextNode(id_=doc.id, text=f"{doc.metadata['reasoningTitle']}: {doc.metadata['reasoningSummary']}")
        for doc in docs
    ]
    position = {doc.id: number for number, doc in enumerate(docs)}
    graph = IndexGraph()
    for doc in docs:
        graph.all_nodes[position[doc.id]] = doc.id
        graph.node_id_to_children_ids[doc.id] = list(index.child_ids(doc.id))
    for root in index.root_ids():
        graph.root_nodes[position[root]] = root
    storage = StorageContext.from_defaults()
    storage.docstore.add_documents(nodes)
    tree = TreeIndex(index_struct=graph, storage_context=storage, llm=llm)
    retriever = TreeSelectLeafRetriever(tree)
    expected = drain(ReasoningRAGStrategy(index, Instant(first_child_answers(index)), "m").walk("q"))
    leaf = expected.documents[0].id

    def walk() -> int:
        found = [n.node.node_id for n in retriever.retrieve("q")]
        if found != [leaf]:
            raise RuntimeError(f"LlamaIndex walked elsewhere: {found} (core: {leaf})")
        return expected.visits_used

    return walk


def step_walks(index: HierarchyIndex) -> dict[str, Callable[[], int]]:
    navigator = Instant(first_child_answers(index))
    reused = ReasoningRAGStrategy(index, navigator, "m", max_nodes_visited=15, max_depth=10)
    walks = {
        "bare": bare_walk_factory(index, navigator, 15, core_request=False),
        "core": core_walk_factory(index, navigator, 15),
        "reused": lambda: drain(reused.walk("q")).visits_used,
        "bare, fast request": bare_walk_factory(index, navigator, 15, core_request=True),
    }
    steps = {name: walk() for name, walk in walks.items()}
    assert set(steps.values()) == {4}, steps
    return walks


def first_walk_microseconds(docs: list[RetrievedDocument], rounds: int) -> float:
    """A walk on an index no walk has used yet: its views and offers are built on the way (best round)."""
    best = float("inf")
    for _ in range(rounds):
        index = HierarchyIndex(docs)
        walk = core_walk_factory(index, Instant(first_child_answers(index)), 15)
        gc.collect()  # the collection the index's building is owed, not the walk
        best = min(best, microseconds_per_step(walk, 1))
    return best


def walk_step(quick: bool) -> None:
    docs = forest_documents()
    index = HierarchyIndex(docs)
    walks = step_walks(index)
    rounds = 100 if quick else 400
    samples = interleaved(walks, rounds, dict.fromkeys(walks, 50))
    best = {name: min(values) for name, values in samples.items()}
    median_ratio = statistics.median(c / b for c, b in zip(samples["core"], samples["bare"], strict=True))
    ratio = best["core"] / best["bare"]
    print(f"A walk step (offer, navigator call, node entered), instant navigator, {len(index):,}-node forest "
          f"(10 roots, 10-ary, 4 levels), 4 steps a walk; best of {rounds} interleaved rounds of 50 walks")
    print(f"  bare loop (children's views from a dict, public NavigatorRequest, same navigator): "
          f"{best['bare']:6.2f} us/step")
    print(f"  core walk (a new strategy per walk, as the explorer and eval make; every event; the landed leaf): "
          f"{best['core']:6.2f} us/step")
    print(f"  core / bare: {ratio:.2f}x (median of the rounds' ratios: {median_ratio:.2f}x)   "
          f"target <= {STEP_TARGET_RATIO:.0f}x: {verdict(ratio <= STEP_TARGET_RATIO)}")
    fast = best["bare, fast request"]
    print(f"  for reference: core on one strategy reused {best['reused']:.2f} us/step; the bare loop building its "
          f"request as core does {fast:.2f} us/step (core / that: {best['core'] / fast:.1f}x); the first walk "
          f"on a fresh index (views and offers built on the way) {first_walk_microseconds(docs, 5):.2f} us/step")


def llama_child(quick: bool) -> dict[str, object]:
    """In a process of its own (LlamaIndex's objects would slow every later figure): LlamaIndex and core, in turns."""
    from importlib.metadata import version

    docs = forest_documents()
    index = HierarchyIndex(docs)
    llama_walk = llama_walk_factory(docs, index)
    if llama_walk is None:
        return {"missing": True}
    core = step_walks(index)["core"]
    llama_walk()  # warm: imports, the tokenizer
    rounds = 3 if quick else 7
    pair = interleaved({"llama": llama_walk, "core": core}, rounds, {"llama": 3, "core": 50})
    return {"version": version("llama-index-core"), "rounds": rounds, "llama": min(pair["llama"]),
            "core": min(pair["core"])}


def llama_comparison(quick: bool) -> None:
    command = [sys.executable, __file__, "--llama-child"] + (["--quick"] if quick else [])
    out = subprocess.run(command, capture_output=True, text=True, check=True)
    row = json.loads(out.stdout.strip().splitlines()[-1])
    print("LlamaIndex's tree walk on the same forest and path (a process of its own)")
    if row.get("missing"):
        print("  LlamaIndex TreeSelectLeafRetriever: skipped: llama-index-core is not installed (it is optional)")
        return
    advantage = row["llama"] / row["core"]
    print(f"  LlamaIndex {row['version']} TreeSelectLeafRetriever (its MockLLM): {row['llama']:,.0f} us/step; "
          f"core {row['core']:.2f} us/step (best of {row['rounds']} interleaved rounds)")
    print(f"  LlamaIndex / core: {advantage:,.0f}x   target >= {LLAMA_TARGET_RATIO:,.0f}x: "
          f"{verdict(advantage >= LLAMA_TARGET_RATIO)}")


# -- per visit at depth ----------------------------------------------------------------------------


def visits_walk(strategy: ReasoningRAGStrategy, visits_per_round: int) -> tuple[Callable[[], int], int]:
    """Walks of ``strategy`` as one round of about ``visits_per_round`` visits (after a first walk that builds
    the views), and the visits of one walk."""
    visits = drain(strategy.walk("q")).visits_used
    walks = max(1, visits_per_round // visits)

    def round_of_walks() -> int:
        for _ in range(walks):
            drain(strategy.walk("q"))
        return walks * visits

    return round_of_walks, visits


def wide_strategy() -> ReasoningRAGStrategy:
    """Every child chosen, depth first, over a 4-ary tree of 5 levels (341 nodes), budget 341."""
    docs = synthetic_documents(341, fanout=4)
    index = HierarchyIndex(docs)
    answers: dict[str | None, tuple[str, ...]] = {None: tuple(index.root_ids())}
    for node_id in index.ids():
        answers[node_id] = index.child_ids(node_id)
    return ReasoningRAGStrategy(index, Instant(answers), "m", max_nodes_visited=341, max_depth=10)


def deep_strategies(depths: tuple[int, ...], chain: int = 20_000) -> list[ReasoningRAGStrategy]:
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
    navigator = Instant(answers)
    return [ReasoningRAGStrategy(index, navigator, "m", max_nodes_visited=depth, max_depth=chain) for depth in depths]


def repeated(walk: Callable[[], int], times: int) -> Callable[[], int]:
    return lambda: sum(walk() for _ in range(times))


def per_visit(quick: bool) -> None:
    rounds = 5 if quick else 15
    depths = (100, 2_000, 20_000)
    walks: dict[str, Callable[[], int]] = {}
    visits: dict[str, int] = {}
    walks["wide"], visits["wide"] = visits_walk(wide_strategy(), 20_000)
    for depth, strategy in zip(depths, deep_strategies(depths), strict=True):
        walks[f"deep {depth}"], visits[f"deep {depth}"] = visits_walk(strategy, 20_000)
        navigator = strategy.navigator
        assert isinstance(navigator, Instant)
        walks[f"bare {depth}"] = repeated(bare_walk_factory(strategy.index, navigator, depth, core_request=False),
                                          max(1, 20_000 // depth))
    best = {name: min(values) for name, values in interleaved(walks, rounds, dict.fromkeys(walks, 1)).items()}
    print(f"Walk overhead per visited node, instant navigator (best of {rounds} interleaved rounds of about "
          f"20,000 visits)")
    print(f"  wide walk, {visits['wide']} visits per walk, depth <= 4:                      "
          f"{best['wide']:6.2f} us/visit")
    ratios = []
    for depth in depths:
        walked, looped = best[f"deep {depth}"], best[f"bare {depth}"]
        ratios.append(walked / looped)
        print(f"  one path {depth:>6} deep (a 20,000-node chain), {visits[f'deep {depth}']:>6} visits per walk: "
              f"{walked:6.2f} us/visit (the bare loop on the same path: {looped:5.2f}; core / bare "
              f"{walked / looped:.2f}x)")
    worst = max(best[name] for name in walks if not name.startswith("bare"))
    flat = ratios[-1] / ratios[0]
    print(f"  target under {VISIT_TARGET_US:.0f} us per visit: {verdict(worst < VISIT_TARGET_US)}")
    print(f"  flat with depth: core / bare at 20,000 deep against at 100 deep {flat:.2f}x "
          f"(target <= {FLAT_TOLERANCE}x, for noise): {verdict(flat <= FLAT_TOLERANCE)}")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller sizes and fewer rounds")
    parser.add_argument("--no-llama", action="store_true", help="skip LlamaIndex even when it is installed")
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--llama-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure_index(args.child)))
        return
    if args.llama_child:
        print(json.dumps(llama_child(args.quick)))
        return

    sizes = [10_000, 100_000] if args.quick else [100_000, 1_000_000]
    print("HierarchyIndex build (10-ary synthetic tree, one fresh process per size)")
    print(f"  {'nodes':>10}  {'build s':>8}  {'peak RSS MB':>11}  {'RSS before build MB':>19}")
    for size in sizes:
        out = subprocess.run([sys.executable, __file__, "--child", str(size)], capture_output=True, text=True,
                             check=True)
        row = json.loads(out.stdout)
        met = row["index_seconds"] < 5 and row["peak_rss_mb"] < 1536 if size == 1_000_000 else None
        mark = "" if met is None else f"   target < 5 s and < 1.5 GB: {verdict(met)}"
        print(f"  {row['nodes']:>10,}  {row['index_seconds']:>8.2f}  {row['peak_rss_mb']:>11.0f}  "
              f"{row['rss_before_index_mb']:>19.0f}{mark}")

    walk_step(args.quick)
    if args.no_llama:
        print("LlamaIndex's tree walk: skipped (--no-llama)")
    else:
        llama_comparison(args.quick)
    per_visit(args.quick)


if __name__ == "__main__":
    main()
