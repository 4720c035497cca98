"""Benchmark of the explorer on synthetic corpora of 100,000 and 1,000,000 nodes, headless.

Run: .venv/bin/python bench/tui_large.py [--nodes N ...] [--steps S] [--gc {cli,freeze-once}]
                                        [--policy {depth-first,best-first}]

Each size (default 100,000 and 1,000,000) is written as PageIndex JSON by one
child process and measured in a fresh one, so one size's memory (or the
generator's) does not count against the other. The corpus is a complete
10-ary tree plus three wide roots: ``wide-1k`` (1,000 children), and
``wide-10k-a`` and ``wide-10k-b`` (10,000 children each).

Prints, each with its target (issue 12) and whether it is met:
- start-up: from creating the app to an interactive screen (mounted, tree
  shown, query box focused), once the index is ready;
- steps: milliseconds per step of a walk stepped with the ``n`` key, median and
  worst, from the moment the app handles the key until the step is painted
  (the worker pulls the event, the message arrives, the panels and the tree
  update, the whole screen is rendered). The test harness's own cost per key
  press (tens of ms) is left out. Full garbage collections that fell inside a
  step are reported with it: they are the app's time too, but not the tree's;
- the wide branches, each from the tree's key action or call to the painted
  screen: opening ``wide-1k`` (space on it: the first 500 rows and a
  "… 500 more" row), Enter on that row (the other 500), jumping to the
  1,000th child of ``wide-10k-a`` and to the 10,000th child of ``wide-10k-b``
  (what ``g`` does: the child and 50 rows on each side of it are created,
  with a "… N more" row for each run of children not shown);
- steps again with those rows open (every change rebuilds the lines);
- resident memory: after loading (the corpus alone), at the end, and the peak.

``--policy best-first`` walks best-first (issue 47): the navigator (``lexical:wide``) chooses several children at
each offer, so the frontier the step panel reads its best few from grows with every step.

Full collections: the command line freezes the corpus before the app starts
(``--gc cli``, the default: the corpus frozen once, then whatever survives
each full collection, as ``explorer.cli.main`` does); ``--gc freeze-once`` freezes
only the corpus, to see what the second policy buys.

The machine is shared: wall times vary with other processes' load (so each
figure is printed as wall and CPU time), and each is one run's. It asserts
nothing.
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
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

WORDS = tuple(
    "billing refund invoice account security privacy network storage backup export audit policy leave "
    "travel expense device license contract renewal support incident outage latency quota region".split()
)
WIDE = {"wide-1k": 1_000, "wide-10k-a": 10_000, "wide-10k-b": 10_000}
STEP_MS = 50.0
START_S = 1.0
RESIDENT_MB = 1024.0


def synthetic_pageindex(count: int, fanout: int = 10) -> dict[str, object]:
    """``count`` nodes as PageIndex JSON: the wide roots of ``WIDE``, then a complete ``fanout``-ary tree."""
    rng = random.Random(7)
    roots: list[dict[str, Any]] = []
    for name, children in WIDE.items():
        kids = [{"node_id": f"{name}-{i}", "title": f"Item {i} of {name}", "summary": "", "text": "",
                 "start_index": i, "end_index": i} for i in range(children)]
        roots.append({"node_id": name, "title": f"Wide: {children:,} children", "summary": "A flat list.",
                      "text": "", "start_index": 0, "end_index": 0, "nodes": kids})
    nodes: list[dict[str, Any]] = []
    for i in range(count - sum(WIDE.values()) - len(WIDE)):
        words = rng.sample(WORDS, 3)
        nodes.append({"node_id": f"n{i}", "title": f"Section {i}: {words[0]}",
                      "summary": f"About {words[1]} and {words[2]}.", "text": f"Content of section {i}.",
                      "start_index": i, "end_index": i})
    for i, node in enumerate(nodes):  # built without recursion
        if i < fanout:
            roots.append(node)
        else:
            nodes[(i - fanout) // fanout].setdefault("nodes", []).append(node)
    return {"doc_name": f"synthetic-{count}", "structure": roots}


def resident_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def measure(path: Path, steps: int, policy: str, walk_policy: str = "depth-first") -> dict[str, Any]:
    from textual.widgets import Tree
    from textual.widgets.tree import TreeNode

    import explorer.tui.walk_screen.screen
    from core import Policy
    from explorer.cli.explore import freeze_after_full_collection
    from explorer.corpora import load_corpus
    from explorer.navigators import resolve_navigator
    from explorer.tui.app import ExplorerApp
    from explorer.tui.walk_screen import WalkScreen
    from explorer.tui.widgets.walk_tree import WalkTree
    from explorer.walk_settings import WalkSettings

    pauses: list[tuple[float, float]] = []  # (start, end) of every full collection

    def on_gc(phase: str, info: dict[str, Any]) -> None:
        if info["generation"] == 2:
            if phase == "start":
                pauses.append((time.perf_counter(), 0.0))
            elif pauses:
                pauses[-1] = (pauses[-1][0], time.perf_counter())

    class TimedScreen(WalkScreen):
        """The walk screen, noting when a step key is handled and when that step has been shown."""

        pressed = 0.0
        pressed_cpu = 0.0
        shown_steps: list[tuple[float, float, float]] = []  # (wall ms, CPU ms, ms of full collections inside)

        def start_clock(self) -> None:
            self.pressed, self.pressed_cpu = time.perf_counter(), time.process_time()

        def stop_clock(self) -> None:
            """Paint the whole screen now, as the next frame would: what was asked is on screen."""
            self.query_one(WalkTree).get_node_at_line(0)  # the tree's lines, rebuilt if they changed
            self.app.screen._compositor.render_update(full=True)
            end, cpu = time.perf_counter(), time.process_time()
            collecting = sum(min(e, end) - max(s, self.pressed) for s, e in pauses if e > self.pressed)
            self.shown_steps.append(((end - self.pressed) * 1000, (cpu - self.pressed_cpu) * 1000, collecting * 1000))
            self.pressed = 0.0

        def action_step(self, move: str) -> None:
            if move == "next":
                self.start_clock()
            super().action_step(move)

        def redraw(self) -> None:
            super().redraw()
            if self.pressed:
                self.stop_clock()

    class TimedApp(ExplorerApp):
        WALK_SCREEN = TimedScreen

        @property
        def shown(self) -> list[tuple[float, float, float]]:
            return self.walk_screen.shown_steps  # type: ignore[attr-defined,no-any-return]

    class TimedTree(WalkTree):
        """The tree, timing the keys that open a branch or show the next batch, to the end of the batch."""

        def action_toggle_node(self) -> None:
            app.walk_screen.start_clock()  # type: ignore[attr-defined]
            super().action_toggle_node()

        def action_select_cursor(self) -> None:
            app.walk_screen.start_clock()  # type: ignore[attr-defined]
            super().action_select_cursor()

        def on_tree_node_expanded(self, event: Tree.NodeExpanded[str | None]) -> None:
            super().on_tree_node_expanded(event)  # the first batch of the branch the key opened
            if app.walk_screen.pressed:  # type: ignore[attr-defined]
                app.walk_screen.stop_clock()  # type: ignore[attr-defined]

        def on_tree_node_selected(self, event: Tree.NodeSelected[str | None]) -> None:
            super().on_tree_node_selected(event)  # Enter on a "more" row: its next batch
            if app.walk_screen.pressed:  # type: ignore[attr-defined]
                app.walk_screen.stop_clock()  # type: ignore[attr-defined]

    started = time.perf_counter()
    before_load = resident_mb()
    corpus = load_corpus(path)
    load_seconds = time.perf_counter() - started
    loaded = resident_mb()
    gc.freeze()  # as the command line does before opening the app
    gc.callbacks.append(on_gc)
    if policy == "cli":  # and, as it does, freeze what survives each full collection
        gc.callbacks.append(freeze_after_full_collection)

    explorer.tui.walk_screen.screen.WalkTree = TimedTree  # type: ignore[attr-defined]  # the app composes the timed tree
    query = " ".join(WORDS)  # matches everywhere: a long walk with many offers
    settings = WalkSettings(query, "lexical:wide", max_nodes_visited=steps + 40, max_depth=8,
                            policy=Policy(walk_policy.replace("-", "_")))
    started, started_cpu = time.perf_counter(), time.process_time()
    app = TimedApp(corpus, settings, navigator=resolve_navigator("lexical:wide"))
    figures: dict[str, Any] = {"load": load_seconds, "corpus_mb": loaded - before_load, "loaded_mb": loaded}

    async with app.run_test(size=(170, 50)) as pilot:
        await pilot.pause()
        figures["interactive"] = (time.perf_counter() - started, time.process_time() - started_cpu)
        tree = app.query_one(TimedTree)

        async def step(count: int) -> list[tuple[float, float, float]]:
            app.walk_screen.shown_steps = []
            for _ in range(count):
                if app.walk_screen.view.history is None or app.walk_screen.view.history.end is not None:
                    break
                before = len(app.shown)
                await pilot.press("n")
                while len(app.shown) == before and app.walk_screen.view.history.end is None:
                    await pilot.pause(0.001)
            return app.shown

        await pilot.press("enter")  # start the walk on the query (paused before its first step)
        while not app.walk_screen.view.history or not app.walk_screen.view.history.events:
            await pilot.pause(0.005)
        figures["steps"] = await step(steps)
        app.query_one("#tree").focus()
        await pilot.pause()
        tree.follow = False  # the wide cases move the cursor; the walk stays where it is

        async def key_on(node: TreeNode[str | None], key: str) -> tuple[float, float, float]:
            tree.move_cursor(node)
            await pilot.pause()
            app.walk_screen.shown_steps = []
            await pilot.press(key)
            while not app.shown:
                await pilot.pause(0.001)
            return app.shown[0]

        async def jump(node_id: str) -> tuple[tuple[float, float, float], bool]:
            app.walk_screen.start_clock()  # type: ignore[attr-defined]
            tree.reveal(node_id, move_cursor=False)  # what g does, with the cursor moved here, not after a frame
            tree.get_node_at_line(0)
            tree.move_cursor(tree.node_for(node_id))
            app.walk_screen.stop_clock()  # type: ignore[attr-defined]
            await pilot.pause()
            return app.shown[-1], tree.cursor_node is not None and tree.cursor_node.data == node_id

        wide = tree.node_for("wide-1k")
        assert wide is not None
        figures["open_1k"] = await key_on(wide, "space")
        figures["more_1k"] = await key_on(wide.children[-1], "enter")  # the "… 500 more" row
        figures["more_1k_rows"] = len(wide.children)
        figures["jump_1k"], figures["jump_1k_ok"] = await jump("wide-10k-a-999")
        figures["jump_10k"], figures["jump_10k_ok"] = await jump("wide-10k-b-9999")
        figures["lines"] = tree.last_line + 1
        tree.follow = True
        figures["steps_wide"] = await step(20)
        figures["built"] = len(tree._by_id)
        figures["events"] = len(app.walk_screen.view.history.events) if app.walk_screen.view.history else 0
        figures["frontier"] = len(app.walk_screen.view.history.state().frontier) if app.walk_screen.view.history else 0
        await pilot.press("q")
    figures["end_mb"] = resident_mb()
    figures["peak_mb"] = peak_mb()
    return figures


def verdict(value: float, limit: float) -> str:
    return f"{'met' if value < limit else 'NOT met'}"


def report(nodes: int, f: dict[str, Any], policy: str, walk_policy: str = "depth-first") -> None:
    def timed(wall: float, cpu: float, limit: float, unit: str = "ms") -> str:
        return (f"{wall:7.1f} {unit} wall ({verdict(wall, limit)}), {cpu:6.1f} {unit} CPU ({verdict(cpu, limit)})"
                f"   target < {limit:g} {unit}")

    def steps_line(name: str, timings: list[list[float]]) -> None:
        if not timings:
            print(f"  {name}: no steps (the walk ended)")
            return
        median = [statistics.median(t[i] for t in timings) for i in (0, 1)]
        worst = max(timings, key=lambda t: t[0])
        worst_cpu = max(t[1] for t in timings)
        print(f"  {name}, {len(timings)} steps:")
        print(f"    median  {timed(median[0], median[1], STEP_MS)}")
        print(f"    worst   {timed(worst[0], worst_cpu, STEP_MS)}")
        if worst[2] >= 1:
            print(f"            ({worst[2]:.0f} ms of the worst step was a full garbage collection;"
                  f" full collections in all {len(timings)} steps: {sum(t[2] for t in timings):.0f} ms)")

    def case(name: str, figures: list[float]) -> None:
        note = f"  ({figures[2]:.0f} ms of it a full garbage collection)" if figures[2] >= 1 else ""
        print(f"  {name}\n    {timed(figures[0], figures[1], STEP_MS)}{note}")

    print(f"Explorer on a synthetic {nodes:,}-node corpus (headless, 170x50; full collections: --gc {policy}; "
          f"walked {walk_policy})")
    print(f"  corpus load (PageIndex JSON): {f['load']:.1f} s wall (bench/corpus_load.py measures loading)")
    wall, cpu = f["interactive"]
    print(f"  start to interactive screen, once the index is ready:\n    {timed(wall, cpu, START_S, 's')}")
    steps_line("per step, key to screen", f["steps"])
    case("open a branch of 1,000 children (space: the first 500 and a '… 500 more' row)", f["open_1k"])
    case(f"Enter on its '… 500 more' row (the other 500; {f['more_1k_rows']:,} rows under it now)", f["more_1k"])
    case(f"jump to the 1,000th child of a wide node, 101 rows created (cursor on it: {f['jump_1k_ok']})",
         f["jump_1k"])
    case(f"jump to the 10,000th child of a wide node, 51 rows created (cursor on it: {f['jump_10k_ok']})",
         f["jump_10k"])
    steps_line(f"per step with {f['lines']:,} rows shown", f["steps_wide"])
    print(f"  tree nodes built: {f['built']:,} of {nodes:,}; walk of {f['events']:,} events"
          + (f", {f['frontier']:,} nodes waiting in its frontier at the end" if walk_policy == "best-first" else ""))
    print(f"  resident memory: the corpus alone {f['corpus_mb']:.0f} MB, after loading {f['loaded_mb']:.0f} MB,"
          f" at the end {f['end_mb']:.0f} MB ({verdict(f['end_mb'], RESIDENT_MB)}),"
          f" peak {f['peak_mb']:.0f} MB ({verdict(f['peak_mb'], RESIDENT_MB)})   target < {RESIDENT_MB:.0f} MB")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--nodes", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--steps", type=int, default=200)
    parser.add_argument("--gc", choices=("cli", "freeze-once"), default="cli")
    parser.add_argument("--policy", choices=("depth-first", "best-first"), default="depth-first",
                        help="the walk order of the walk stepped")
    parser.add_argument("--write", type=Path, help=argparse.SUPPRESS)  # child: write the corpus of --nodes here
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)  # child: measure on this corpus
    args = parser.parse_args()
    if args.write:
        args.write.write_text(json.dumps(synthetic_pageindex(args.nodes[0])))
        return
    if args.measure:
        print(json.dumps(asyncio.run(measure(args.measure, args.steps, args.gc, args.policy))))
        return
    script = str(Path(__file__).resolve())
    for nodes in args.nodes:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "synthetic.json"
            subprocess.run([sys.executable, script, "--nodes", str(nodes), "--write", str(path)], check=True)
            command = [sys.executable, script, "--steps", str(args.steps), "--gc", args.gc, "--policy", args.policy,
                       "--measure", str(path)]
            done = subprocess.run(command, check=True, capture_output=True, text=True)
        report(nodes, json.loads(done.stdout.strip().splitlines()[-1]), args.gc, args.policy)


if __name__ == "__main__":
    main()
