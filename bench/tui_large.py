"""Benchmark of the explorer on a synthetic 100,000-node corpus, headless.

Run: .venv/bin/python bench/tui_large.py [--nodes N] [--steps S]

Prints: seconds to load the corpus from a PageIndex JSON file; seconds from
starting the app to an interactive screen (mounted, tree shown, query box
focused); milliseconds per step while stepping a walk with the ``n`` key,
median and worst, from the moment the app handles the key until the step has
been painted (the worker pulls the event, the message arrives, the panels and
the tree update, the whole screen is rendered) — the test harness's own cost
per key press (about 70 ms here) is left out; and the process's peak memory.
Targets: under 1 s, under 50 ms, under 300 MB. It asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explorer.app import ExplorerApp
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.session import WalkSettings

FREEZE = os.environ.get("BENCH_NO_FREEZE") is None
WORDS = tuple(
    "billing refund invoice account security privacy network storage backup export audit policy leave "
    "travel expense device license contract renewal support incident outage latency quota region".split()
)


def synthetic_pageindex(count: int, fanout: int = 10) -> dict[str, object]:
    """A complete ``fanout``-ary tree of ``count`` nodes as PageIndex JSON (built without recursion)."""
    rng = random.Random(7)
    nodes = []
    for i in range(count):
        words = rng.sample(WORDS, 3)
        nodes.append({"node_id": f"n{i}", "title": f"Section {i}: {words[0]}",
                      "summary": f"About {words[1]} and {words[2]}.", "text": f"Content of section {i}.",
                      "start_index": i, "end_index": i})
    roots = []
    for i, node in enumerate(nodes):
        if i < fanout:
            roots.append(node)
        else:
            parent = nodes[(i - fanout) // fanout]
            parent.setdefault("nodes", []).append(node)  # type: ignore[union-attr]
    return {"doc_name": f"synthetic-{count}", "structure": roots}


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class TimedApp(ExplorerApp):
    """The explorer, noting when a step key is handled and when that step has been shown."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.pressed = 0.0
        self.shown: list[float] = []

    def action_next_step(self) -> None:
        self.pressed = time.perf_counter()
        super().action_next_step()

    def refresh_view(self) -> None:
        super().refresh_view()
        if self.pressed:
            # Paint the whole screen now, as the next frame would: the step is on screen.
            self.screen._compositor.render_update(full=True)
            self.shown.append((time.perf_counter() - self.pressed) * 1000)
            self.pressed = 0.0


async def measure(path: Path, steps: int) -> dict[str, float]:
    started = time.perf_counter()
    corpus = load_corpus(path)
    load_seconds = time.perf_counter() - started
    if FREEZE:
        gc.freeze()  # as the command line does before opening the app

    query = " ".join(WORDS)  # matches everywhere: a long walk with many offers
    settings = WalkSettings(query, "lexical:wide", max_nodes_visited=steps, max_depth=8)
    started = time.perf_counter()
    app = TimedApp(corpus, settings, navigator=resolve_navigator("lexical:wide"))
    async with app.run_test(size=(170, 50)) as pilot:
        await pilot.pause()
        interactive = time.perf_counter() - started
        await pilot.press("enter")  # start the walk on the query (paused before its first step)
        while not app.history.events:
            await pilot.pause(0.005)
        app.shown.clear()
        for _ in range(steps):
            if app.history.end is not None:
                break
            before = len(app.shown)
            await pilot.press("n")
            while len(app.shown) == before and app.history.end is None:
                await pilot.pause(0.001)
        built = len(app.query_one("#tree")._by_id)  # type: ignore[attr-defined]
        events = len(app.history.events)
        await pilot.press("q")
    timings = app.shown
    return {"load": load_seconds, "interactive": interactive, "steps": len(timings), "events": events,
            "median": statistics.median(timings), "worst": max(timings), "peak": peak_mb(),
            "tree_nodes_built": built}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=100_000)
    parser.add_argument("--steps", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "synthetic.json"
        path.write_text(json.dumps(synthetic_pageindex(args.nodes)))
        figures = asyncio.run(measure(path, args.steps))
    print(f"Explorer on a synthetic {args.nodes:,}-node corpus (headless, 170x50)")
    print(f"  corpus load (PageIndex JSON):        {figures['load']:.2f} s")
    print(f"  start to interactive screen:         {figures['interactive']:.2f} s   (target < 1 s)")
    print(f"  per step, key to screen, {figures['steps']:.0f} steps:  median {figures['median']:.1f} ms, "
          f"worst {figures['worst']:.1f} ms   (target < 50 ms; walk of {figures['events']:.0f} events)")
    print(f"  tree nodes built:                    {figures['tree_nodes_built']:,.0f} of {args.nodes:,}")
    print(f"  peak memory (whole process):         {figures['peak']:.0f} MB   (target < 300 MB)")


if __name__ == "__main__":
    main()
