"""A best-first walk's events say what changed in the frontier, not the whole frontier (SPEC.md, walk policies, rule
6; issue 47): the frontier is a heap in the same order as the sorted list it replaced, each event's ``frontier``
is rebuilt from the walk's log of changes, and a depth-first walk's events are byte for byte what they were."""

from __future__ import annotations

import ast
import dataclasses
import hashlib
import random
from bisect import insort
from pathlib import Path
from typing import Any

import pytest

from core import (
    CandidatesOffered,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChoice,
    NavigatorChose,
    NavigatorRequest,
    NodeEntered,
    OnFailure,
    Policy,
    ReasoningRAGStrategy,
    RetrievedDocument,
    TreeNavigator,
    WalkEvent,
)
from core.frontier import FrontierLog, FrontierQueue
from core.path import EMPTY_PATH

ROOT = Path(__file__).resolve().parents[2]


def wide_tree(count: int, roots: int, fanout: int) -> HierarchyIndex:
    """``count`` nodes ``n0``...: ``roots`` roots, then each node's ``fanout`` children, breadth first."""
    docs = []
    for i in range(count):
        metadata: dict[str, Any] = {HierarchyMetadata.ID: f"n{i}", "reasoningTitle": f"Section {i}",
                                    "reasoningSummary": f"What section {i} covers"}
        if i >= roots:
            metadata[HierarchyMetadata.PARENT_ID] = f"n{(i - roots) // fanout}"
        docs.append(RetrievedDocument(f"content {i}", f"n{i}", 0.0, metadata))
    return HierarchyIndex(docs)


class Picky(TreeNavigator):
    """Deterministic answers of every kind: several ids, a hallucinated one, scores (with ties), a failure."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        ids = [c.id for c in request.candidates]
        n = int(request.current.id[1:]) if request.current else 0
        if n % 11 == 4:
            raise RuntimeError(f"failed at {request.current.id if request.current else None}")
        picked = ids[n % 3: n % 3 + 4]
        if n % 4 == 1:
            picked.append("ghost")
        scores = {i: (k % 4) / 3 for k, i in enumerate(ids)} if n % 2 else None
        return NavigatorChoice(tuple(picked), rationale=f"depth {n}", scores=scores)


def walk(policy: Policy, visits: int = 1800) -> list[WalkEvent]:
    strategy = ReasoningRAGStrategy(wide_tree(20_000, 4, 6), Picky(), "m", max_nodes_visited=visits, max_depth=7,
                                    on_failure=OnFailure.PARTIAL, policy=policy)
    # the seconds a call took differ from run to run: zero them, so the events can be compared byte for byte
    return [dataclasses.replace(e, seconds=0.0) if hasattr(e, "seconds") else e for e in strategy.walk("q")]


def test_depth_first_events_are_byte_for_byte_what_they_were_before_the_frontier_said_its_changes() -> None:
    """4,274 depth-first events of every kind (offers, multi-id answers, hallucinated ids, scores recorded and
    ignored, failures under on_failure partial, every stop reason), their reprs hashed: the hash was taken from
    the code before issue 47 (commit a5e1709), running this same walk."""
    events = walk(Policy.DEPTH_FIRST)
    assert len(events) == 4274
    shown = "\n".join(map(repr, events)).encode()
    assert hashlib.sha256(shown).hexdigest() == "9e5f44b920f971b9327b768ea7f4e7b0a4b477228e4d84235d4e5587144a35c7"
    for event in events:
        if isinstance(event, CandidatesOffered | NavigatorChose | NodeEntered):
            assert (event.joined, event.left, event.frontier_log, event.frontier) == ((), (), None, ())


def test_each_best_first_event_says_its_change_and_gives_the_frontier_after_it() -> None:
    events = walk(Policy.BEST_FIRST, visits=300)
    waiting: list[tuple[float, int, str]] = []  # the frontier rebuilt here from the changes alone
    joined_in_all = 0
    order = 0
    for event in events:
        if not isinstance(event, CandidatesOffered | NavigatorChose | NodeEntered):
            continue
        if isinstance(event, CandidatesOffered):
            assert (event.joined, event.left) == ((), ())  # an offer changes nothing
        if isinstance(event, NodeEntered):
            assert (event.joined, event.left) == ((), (event.node.id,))  # the node entered left
            assert waiting[0][2] == event.node.id and -waiting[0][0] == event.score  # and it was the best
        for node_id in event.left:
            waiting = [w for w in waiting if w[2] != node_id]
        for node_id, score in event.joined:
            order += 1
            waiting.append((-score, order, node_id))
        waiting.sort()
        joined_in_all += len(event.joined)
        assert event.frontier == tuple((node_id, -rank) for rank, _, node_id in waiting)
    assert joined_in_all > 500 and max(len(e.joined) for e in events if isinstance(e, NavigatorChose)) <= 6
    # no event holds a frontier of its own: what the events keep grows with the changes
    assert not any(isinstance(getattr(e, f.name), tuple) and len(getattr(e, f.name)) > 6
                   for e in events for f in dataclasses.fields(e) if f.name in ("joined", "left"))


def test_the_heap_enters_in_the_order_of_the_sorted_list_it_replaced_ties_included() -> None:
    rng = random.Random(47)
    queue = FrontierQueue()
    reference: list[tuple[float, int, str]] = []  # the list kept before issue 47: sorted worst first, by insort
    taken, expected = [], []
    for step in range(5000):
        if rng.random() < 0.6 or not reference:
            node_id, score = f"x{step}", rng.choice([0.0, 0.25, 0.5, 0.5, 0.75, 1.0, rng.random()])
            queue.add(node_id, score, EMPTY_PATH, 0)
            insort(reference, (score, -step, node_id))
        else:
            best = queue.pop()
            taken.append((best.node_id, best.score))
            score, _, node_id = reference.pop()
            expected.append((node_id, score))
    assert taken == expected
    assert [(w.node_id, w.score) for w in queue.drain()] == [(n, s) for s, _, n in reversed(reference)]


def test_the_log_gives_the_frontier_at_any_mark_and_refuses_a_damaged_change() -> None:
    log = FrontierLog()
    first = log.record([("a", 0.5), ("b", 1.0), ("c", 0.5)])
    second = log.record(left=["b"])
    third = log.record([("d", 0.5)], ["a"])
    assert [log.at(m) for m in (0, first, second, third)] == [
        (), (("b", 1.0), ("a", 0.5), ("c", 0.5)), (("a", 0.5), ("c", 0.5)), (("c", 0.5), ("d", 0.5))]
    with pytest.raises(ValueError, match="'zz' left the frontier without waiting in it"):
        log.record(left=["zz"])
    with pytest.raises(ValueError, match="'c' joined the frontier while waiting in it"):
        log.record([("c", 0.1)])


def test_the_best_first_walk_imports_nothing_of_the_walk_that_calls_it() -> None:
    tree = ast.parse((ROOT / "core" / "best_first.py").read_text())
    imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
    assert "walk" not in imported and "core.walk" not in imported
    assert "TYPE_CHECKING" not in (ROOT / "core" / "best_first.py").read_text()
