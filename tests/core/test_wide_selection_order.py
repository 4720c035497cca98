"""A wide answer is walked in the navigator's order, whatever the walk uses internally to check it."""

from __future__ import annotations

from core import NodeEntered, PathStopped, ReasoningRAGStrategy, StopReason

from .trees import Recorder, index, leaf


def test_ten_selected_branches_are_entered_in_the_navigators_order():
    children = [leaf(f"c{i:02d}") for i in range(12)]
    tree = index([("root", children)])
    order = ["c07", "c03", "c11", "c00", "c09", "c01", "c10", "c05", "c02", "c08"]
    navigator = Recorder({"start": ["root"], "root": order})
    events = list(ReasoningRAGStrategy(tree, navigator, "m", max_nodes_visited=50).walk("q"))
    assert [e.node.id for e in events if isinstance(e, NodeEntered)] == ["root", *order]


def test_a_wide_answer_cut_by_the_budget_stops_the_rest_in_order():
    children = [leaf(f"c{i:02d}") for i in range(12)]
    tree = index([("root", children)])
    order = ["c07", "c03", "c11", "c00", "c09", "c01", "c10", "c05", "c02", "c08"]
    navigator = Recorder({"start": ["root"], "root": order})
    events = list(ReasoningRAGStrategy(tree, navigator, "m", max_nodes_visited=4).walk("q"))
    assert [e.node.id for e in events if isinstance(e, NodeEntered)] == ["root", "c07", "c03", "c11"]
    stopped = [e.record.branch for e in events if isinstance(e, PathStopped) and e.record.branch is not None]
    assert stopped == order[3:]
    assert all(e.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED for e in events
               if isinstance(e, PathStopped) and e.record.branch is not None)
