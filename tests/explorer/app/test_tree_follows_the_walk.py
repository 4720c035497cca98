"""The tree follows the walk however the explorer was started and whatever the corpus's shape (issue 45, point 1).

Started with ``--query`` (or a trace, a folder of walks, a resumed session, presenting), the tree has the focus at
once with its cursor on its own root, the corpus's title: the Enter a person presses first, as if to start the walk,
folds it. The walk then offered, chose and landed below a folded ``▶ Northwind Cloud handbook``, and ``r`` did not
mend it. Each story presses that Enter and steps: the node the walk is at, or where it landed, is a row of the tree.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from core import HierarchyIndex, HierarchyMetadata, RetrievedDocument
from explorer.corpora import Corpus
from explorer.trace import FinishedWalk, read_trace, write_trace
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.state import WalkState

from .helpers import HANDBOOK, SIZE, make_app, wait_for

QUERY = "How long do refunds take?"


def followed(state: WalkState) -> str | None:
    """Where the walk is, as the tree follows it: its node, else where it landed, else the last node entered."""
    if state.current is not None:
        return state.current
    if state.landed:
        return next(iter(state.landed))
    return state.current_path[-1] if state.current_path else None


def in_the_tree(app, node_id: str) -> bool:  # type: ignore[no-untyped-def]
    """Whether ``node_id`` is a row of the tree: built, every branch down to it open, the tree's root too."""
    tree = app.walk_screen.query_one(WalkTree)
    node = tree.node_for(node_id)
    return tree.root.is_expanded and node is not None and node.line >= 0


async def follows_each_step(pilot, app, steps: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Enter (the tree's root folded, the cursor on it), then ``steps`` times n: after each, where the walk is is a
    row of the tree. The nodes followed, in order."""
    screen = app.walk_screen
    await wait_for(pilot, lambda: screen.view.history is not None and isinstance(app.focused, WalkTree))
    tree = app.query_one(WalkTree)
    for _ in range(100):  # up to the tree's title (where the cursor starts)
        if tree.cursor_line <= 0:
            break
        await pilot.press("up")
    await pilot.press("enter")
    assert not tree.root.is_expanded  # the person folded it
    seen: list[str] = []
    for _ in range(steps):
        before = (screen.view.history.cursor, len(screen.view.history.events))
        await pilot.press("n")
        history = screen.view.history
        await wait_for(pilot, lambda h=history, b=before: (h.cursor, len(h.events)) != b or (h.ended and h.at_latest))
        target = followed(history.state())
        if target is not None:
            await wait_for(pilot, lambda t=target: in_the_tree(app, t))
            seen.append(target)
    return seen


async def test_started_with_a_query_the_tree_follows_the_walk_and_r_walks_it_again_in_view() -> None:
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        seen = await follows_each_step(pilot, app, 6)
        assert seen == ["billing", "billing", "billing", "refunds"]  # refunds: below a root, in view
        assert any(HANDBOOK.index.depth(node) >= 1 for node in seen)
        await pilot.press("r")  # the walk again: the root folded again first, as it was
        await follows_each_step(pilot, app, 3)


async def test_presenting_from_the_start_the_tree_follows_the_walk() -> None:
    app = make_app(QUERY, start_walk=True, present=True)
    async with app.run_test(size=SIZE) as pilot:
        seen = await follows_each_step(pilot, app, 5)
        assert any(HANDBOOK.index.depth(node) >= 1 for node in seen)


async def walked_trace(folder: Path, name: str) -> Path:
    """A finished walk of :data:`QUERY` on the handbook, written as a trace file."""
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        history = app.walk_screen.view.history
        walk = FinishedWalk(history.finished(app.corpus).header, history.events, "finished")
    return write_trace(folder / name, walk)


@pytest.mark.parametrize("came_from", [None, "from session 2026-12-07-13-00-00"], ids=["trace opened", "resumed"])
async def test_a_trace_opened_or_a_session_resumed_the_tree_follows_the_walk(tmp_path: Path,
                                                                             came_from: str | None) -> None:
    traces = [read_trace(await walked_trace(tmp_path, f"walk-{n}.jsonl")) for n in (1, 2)]
    app = make_app("", opened=traces, opened_from=came_from)
    async with app.run_test(size=SIZE) as pilot:
        seen = await follows_each_step(pilot, app, 6)
        assert any(HANDBOOK.index.depth(node) >= 1 for node in seen)


def document(node_id: str, parent: str | None) -> RetrievedDocument:
    metadata = {HierarchyMetadata.ID: node_id, "reasoningTitle": f"Refunds {node_id}", "reasoningSummary": "refunds"}
    if parent is not None:
        metadata[HierarchyMetadata.PARENT_ID] = parent
    return RetrievedDocument("", node_id, 0.0, metadata)


def corpus_of(pairs: list[tuple[str, str | None]]) -> Corpus:
    return Corpus(Path("shaped"), "shaped", "s", "Shaped", HierarchyIndex([document(*p) for p in pairs]), "0" * 64)


SHAPES = {
    "one root": [("r", None), *((f"c{i}", "r") for i in range(4)), *((f"c{i}-x", f"c{i}") for i in range(4))],
    "one root with one child": [("r", None), ("c", "r")],
    "a root that is a leaf": [("r", None)],
    "a chain 50 deep": [(f"n{i}", f"n{i - 1}" if i else None) for i in range(50)],
    "10,000 roots": [(f"r{i}", None) for i in range(10_000)],
}


@pytest.mark.parametrize("shape", SHAPES, ids=list(SHAPES))
async def test_on_a_corpus_of_every_shape_the_tree_follows_the_walk(shape: str) -> None:
    corpus = corpus_of(SHAPES[shape])
    app = make_app("refunds", corpus=corpus, start_walk=True, max_nodes_visited=60, max_depth=60)
    async with app.run_test(size=SIZE) as pilot:
        seen = await follows_each_step(pilot, app, 8)
        assert seen  # the walk went somewhere, and each place was in view
        if shape == "a chain 50 deep":
            await pilot.press("c")
            history = app.walk_screen.view.history
            await wait_for(pilot, lambda: history.ended and history.at_latest, timeout=60)
            target = followed(history.state())
            assert target is not None and corpus.index.depth(target) > 8  # deep down the chain, still in view
            await wait_for(pilot, lambda: in_the_tree(app, target))
