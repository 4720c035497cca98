"""The best-first walk, rule by rule (SPEC.md, "Walk policies (beyond the seed)").

Scores are chosen so every path score is exact in binary (halves, quarters,
eighths), so ties are real ties and expected values are written as numbers.
"""

from __future__ import annotations

import dataclasses
import math
import pickle
from collections.abc import Iterable
from typing import Any

import pytest

from core import (
    CancellationToken,
    CandidatesOffered,
    HierarchyMetadata,
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    OnFailure,
    PathStopped,
    Policy,
    RAGContext,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    StopReason,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
    drain,
)

from .trees import AllChildren, Recorder, chain, ids, index, leaf, reasons

TREE = [
    ("a", [("a1", [leaf("a11"), leaf("a12")]), leaf("a2")]),
    ("b", [leaf("b1"), leaf("b2")]),
    leaf("c"),
]

# The walk of the first tests: the navigator scores the roots and b's children, ranks a's by order, stops at a1.
SCORED: dict[str, Any] = {
    "start": NavigatorChoice(("a", "b"), scores={"a": 0.5, "b": 1.0}),
    "b": NavigatorChoice(("b1",), scores={"b1": 0.0, "b2": 0.25}),
    "a": ["a1", "a2"],
    "a1": [],
}


def best_first(navigator: Any, spec: Any = TREE, **kwargs: Any) -> ReasoningRAGStrategy:
    return ReasoningRAGStrategy(index(spec), navigator, "test:model", policy=Policy.BEST_FIRST, **kwargs)


def trail(events: Iterable[WalkEvent]) -> list[tuple[Any, ...]]:
    """Each offer, choice, failure, entry and stop as a short tuple, with the frontier where the event has one."""
    out: list[tuple[Any, ...]] = []
    for e in events:
        if isinstance(e, CandidatesOffered):
            out.append(("offer", e.current.id if e.current else None, e.remaining_visits, e.frontier))
        elif isinstance(e, NavigatorChose):
            out.append(("chose", e.current, e.selected, e.frontier))
        elif isinstance(e, NavigatorFailed):
            out.append(("failed", e.current, e.policy.value))
        elif isinstance(e, NodeEntered):
            out.append(("enter", e.node.id, e.score, e.frontier))
        elif isinstance(e, PathStopped):
            out.append(stop(e.record))
    return out


def stop(record: Any) -> tuple[Any, ...]:
    return ("stop", record.reason.value, tuple(record.path), record.branch, record.landed, record.score)


def stops(result: WalkResult) -> list[tuple[Any, ...]]:
    return [stop(s) for s in result.stops]


def entered(events: Iterable[WalkEvent]) -> list[str]:
    return [e.node.id for e in events if isinstance(e, NodeEntered)]


# Steps 1, 2, 5 and 6: order, path scores, landings, ranking and the frontier in the events ----------------------


def test_the_walk_enters_the_best_path_score_anywhere_and_every_event_shows_the_frontier_after_it():
    nav = Recorder(SCORED)
    events = list(best_first(nav).walk("q"))
    assert trail(events) == [
        ("offer", None, 15, ()),
        ("chose", None, ("a", "b"), (("b", 1.0), ("a", 0.5))),
        ("enter", "b", 1.0, (("a", 0.5),)),
        ("offer", "b", 14, (("a", 0.5),)),
        # b1 is selected with score 0: 0.5 x 0 + 0.5 x 1; b2 is not selected but scored 0.25: 0.5 x 0.25 + 0.5 x 1
        ("chose", "b", ("b1",), (("b2", 0.625), ("a", 0.5), ("b1", 0.5))),
        ("enter", "b2", 0.625, (("a", 0.5), ("b1", 0.5))),
        ("stop", "leaf", ("b", "b2"), None, "b2", 0.625),
        # a and b1 tie at 0.5: a joined first
        ("enter", "a", 0.5, (("b1", 0.5),)),
        ("offer", "a", 12, (("b1", 0.5),)),
        # unscored: a1 is the first of 2 selected (2/2), a2 the second (1/2)
        ("chose", "a", ("a1", "a2"), (("a1", 0.75), ("b1", 0.5), ("a2", 0.5))),
        ("enter", "a1", 0.75, (("b1", 0.5), ("a2", 0.5))),
        ("offer", "a1", 11, (("b1", 0.5), ("a2", 0.5))),
        ("chose", "a1", (), (("b1", 0.5), ("a2", 0.5))),
        ("stop", "navigator_stopped", ("a", "a1"), None, "a1", 0.75),
        ("enter", "b1", 0.5, (("a2", 0.5),)),
        ("stop", "leaf", ("b", "b1"), None, "b1", 0.5),
        ("enter", "a2", 0.5, ()),
        ("stop", "leaf", ("a", "a2"), None, "a2", 0.5),
    ]
    assert [r for *_, r in nav.offered] == [15, 14, 12, 11]
    result = events[-1].result
    assert (result.visits_used, result.navigator_calls, result.failure) == (6, 4, None)
    assert (result.policy, result.alpha, result.stand_in) == (Policy.BEST_FIRST, 0.5, None)
    # ranked by path score; b1 and a2 tie at 0.5 and keep their landing order
    assert ids(result.documents) == ["a1", "b2", "b1", "a2"]
    assert reasons(result.documents) == ["navigator_stopped", "leaf", "leaf", "leaf"]


def test_a_landed_node_is_its_document_with_the_selected_score_and_the_landing_metadata():
    [a1, *_] = drain(best_first(Recorder(SCORED)).walk("q")).documents
    assert (a1.id, a1.content, a1.score) == ("a1", "content of a1", ReasoningRAGStrategy.SELECTED_SCORE)
    assert a1.metadata[HierarchyMetadata.STOP_REASON] == "navigator_stopped"
    assert a1.metadata[HierarchyMetadata.PATH] == ("a", "a1")
    assert a1.metadata[HierarchyMetadata.DEPTH] == 1


def test_the_context_applies_to_the_ranked_results():
    strategy = best_first(Recorder(SCORED))
    assert ids(strategy.retrieve("q")) == ["a1", "b2", "b1", "a2"]
    assert ids(strategy.retrieve("q", RAGContext(max_results=2))) == ["a1", "b2"]
    leaves = RAGContext(metadata_filters={HierarchyMetadata.STOP_REASON: "leaf"})
    assert ids(strategy.retrieve("q", leaves)) == ["b2", "b1", "a2"]


@pytest.mark.parametrize(
    ("alpha", "order"),
    [
        (1.0, ["b", "a", "a1", "a2", "b2", "b1"]),  # a node's own score alone
        (0.5, ["b", "b2", "a", "a1", "b1", "a2"]),
        (0.25, ["b", "b2", "b1", "a", "a1", "a2"]),  # mostly the parent's: b's children before a
    ],
)
def test_alpha_weighs_a_nodes_own_score_against_its_parents_path_score(alpha, order):
    result_events = list(best_first(Recorder(SCORED), alpha=alpha).walk("q"))
    assert entered(result_events) == order
    scores = {e.node.id: e.score for e in result_events if isinstance(e, NodeEntered)}
    assert scores["b2"] == alpha * 0.25 + (1 - alpha) * 1.0
    assert scores["a1"] == alpha * 1.0 + (1 - alpha) * 0.5
    assert result_events[-1].result.alpha == alpha


def test_the_walk_says_its_policy_and_alpha_first_and_last():
    events = list(best_first(Recorder(SCORED), alpha=0.25).walk("q"))
    started, finished = events[0], events[-1]
    assert isinstance(started, WalkStarted) and isinstance(finished, WalkFinished)
    assert (started.policy, started.alpha) == (Policy.BEST_FIRST, 0.25)
    assert (finished.result.policy, finished.result.alpha) == (Policy.BEST_FIRST, 0.25)
    assert "policy=<Policy.BEST_FIRST: 'best_first'>, alpha=0.25" in repr(started)
    assert "frontier=(('b', 1.0), ('a', 0.5))" in repr(events[2])


# Joining the frontier: rank scores, scores, ties --------------------------------------------------------------


def test_a_scoreless_navigator_ranks_the_selected_ids_by_place_and_only_they_join():
    events = list(best_first(Recorder({"start": ["c", "a", "b"]}), max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert chose.frontier == (("c", 1.0), ("a", 2 / 3), ("b", 1 / 3))
    assert chose.scores is None

    events = list(best_first(Recorder({"start": NavigatorChoice(("b",))}), max_nodes_visited=1).walk("q"))
    assert next(e for e in events if isinstance(e, NavigatorChose)).frontier == (("b", 1.0),)


def test_a_wide_choice_ranks_every_selected_id_and_rejects_the_rest():
    wide = [leaf(f"n{i}") for i in range(10)]
    picked = [f"n{i}" for i in (9, 7, 5, 3, 1, 0, 2, 4, 6)]
    events = list(best_first(Recorder({"start": picked}), spec=wide, max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert chose.rejected == ("n8",)
    assert chose.frontier == tuple((node_id, (9 - place) / 9) for place, node_id in enumerate(picked))
    assert entered(events) == ["n9"]


def test_a_hallucinated_id_keeps_its_place_among_the_selected_ids_for_the_rank_scores():
    events = list(best_first(Recorder({"start": ["ghost", "c", "a"]}), max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert chose.frontier == (("c", 2 / 3), ("a", 1 / 3))


def test_scores_are_clamped_and_unoffered_ids_ignored():
    answer = NavigatorChoice(("a",), scores={"a": 7, "b": -3, "c": 0.25, "ghost": 1.0})
    events = list(best_first(Recorder({"start": answer}), max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert list((chose.scores or {}).items()) == [("a", 1.0), ("b", 0.0), ("c", 0.25)]  # as counted, offer order
    assert chose.frontier == (("a", 1.0), ("c", 0.25))  # b scores 0: not selected, so it does not join
    assert chose.hallucinated == ()  # a scored id that was not offered is ignored, not an invalid choice
    assert not any(isinstance(e, PathStopped) and e.record.reason is StopReason.INVALID_CHOICE for e in events)


def test_a_selected_id_scored_0_still_joins_and_lands():
    answer = NavigatorChoice(("c",), scores={"a": 0.0, "b": -1.0, "c": 0.0})
    result = drain(best_first(Recorder({"start": answer})).walk("q"))
    assert stops(result) == [("stop", "leaf", ("c",), None, "c", 0.0)]
    assert ids(result.documents) == ["c"]


def test_an_empty_choice_with_a_positive_score_lets_that_id_join():
    answer = NavigatorChoice((), scores={"c": 0.25})
    result = drain(best_first(Recorder({"start": answer})).walk("q"))
    assert stops(result) == [("stop", "leaf", ("c",), None, "c", 0.25)]


def test_ties_go_to_the_first_to_join_and_the_selected_ids_join_before_the_merely_scored():
    answer = NavigatorChoice(("b", "a"), scores={"a": 0.5, "b": 0.5, "c": 0.5})
    events = list(best_first(Recorder({"start": answer}), max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert chose.frontier == (("b", 0.5), ("a", 0.5), ("c", 0.5))
    assert entered(events) == ["b"]


def test_equal_path_scores_rank_in_landing_order():
    answer = NavigatorChoice(("c", "b"), scores={"b": 0.5, "c": 0.5})
    result = drain(best_first(Recorder({"start": answer, "b": NavigatorChoice(("b2", "b1"), scores={})})).walk("q"))
    # c (0.5) lands first; b2 and b1 land at 0.5 x rank + 0.5 x 0.5: 0.75 and 0.5
    assert stops(result) == [
        ("stop", "leaf", ("c",), None, "c", 0.5),
        ("stop", "leaf", ("b", "b2"), None, "b2", 0.75),
        ("stop", "leaf", ("b", "b1"), None, "b1", 0.5),
    ]
    assert ids(result.documents) == ["b2", "c", "b1"]


# Stopping, invalid ids and the depth limit ----------------------------------------------------------------------


def test_an_empty_choice_at_the_start_lands_nothing_and_ends_the_walk():
    nav = Recorder({"start": []})
    result = drain(best_first(nav).walk("q"))
    assert stops(result) == [("stop", "navigator_stopped", (), None, None, None)]
    assert (result.documents, result.visits_used, result.navigator_calls) == ((), 0, 1)


def test_no_roots_ends_the_walk_empty_without_calling_the_navigator():
    nav = Recorder()
    events = list(best_first(nav, spec=[]).walk("q"))
    assert [type(e) for e in events] == [WalkStarted, WalkFinished]
    assert nav.requests == []


def test_invalid_ids_at_the_start_stop_right_after_the_choice_and_land_nothing():
    events = list(best_first(Recorder({"start": ["ghost", "c", "ghost"]})).walk("q"))
    assert trail(events) == [
        ("offer", None, 15, ()),
        ("chose", None, ("ghost", "c"), (("c", 0.5),)),
        ("stop", "invalid_choice", (), "ghost", None, None),
        ("enter", "c", 0.5, ()),
        ("stop", "leaf", ("c",), None, "c", 0.5),
    ]
    invalid = events[-1].result.stops[0]
    assert invalid.detail == "'ghost' was not among the ids offered"


def test_an_invalid_id_deeper_lands_the_offering_node_and_the_valid_ones_go_on():
    nav = Recorder({"start": ["a"], "a": ["a2", "nope", "a1"], "a1": ["a11"]})
    events = list(best_first(nav).walk("q"))
    third = 0.5 * (1 / 3) + 0.5 * 1.0
    assert trail(events)[3:] == [
        ("offer", "a", 14, ()),
        ("chose", "a", ("a2", "nope", "a1"), (("a2", 1.0), ("a1", third))),
        ("stop", "invalid_choice", ("a",), "nope", "a", 1.0),
        ("enter", "a2", 1.0, (("a1", third),)),
        ("stop", "leaf", ("a", "a2"), None, "a2", 1.0),
        ("enter", "a1", third, ()),
        ("offer", "a1", 12, ()),
        ("chose", "a1", ("a11",), (("a11", 0.5 * 1.0 + 0.5 * third),)),
        ("enter", "a11", 0.5 * 1.0 + 0.5 * third, ()),
        ("stop", "leaf", ("a", "a1", "a11"), None, "a11", 0.5 * 1.0 + 0.5 * third),
    ]
    assert ids(events[-1].result.documents) == ["a", "a2", "a11"]  # a (1.0) landed first, a2 ties it


def test_an_answer_of_only_invalid_ids_lands_the_node_with_invalid_choice_alone():
    result = drain(best_first(Recorder({"start": ["a"], "a": ["ghost"]})).walk("q"))
    assert stops(result) == [("stop", "invalid_choice", ("a",), "ghost", "a", 1.0)]
    assert reasons(result.documents) == ["invalid_choice"]


def test_a_node_lands_once_with_its_first_reason():
    result = drain(best_first(Recorder({"start": ["a"], "a": ["ghost", "nope"]})).walk("q"))
    assert stops(result) == [
        ("stop", "invalid_choice", ("a",), "ghost", "a", 1.0),
        ("stop", "invalid_choice", ("a",), "nope", None, 1.0),
    ]
    assert ids(result.documents) == ["a"]


def test_a_node_at_the_depth_limit_with_children_lands_with_max_depth_without_a_call():
    nav = Recorder({"start": ["a"], "a": ["a1"]})
    result = drain(best_first(nav, max_depth=1).walk("q"))
    assert stops(result) == [("stop", "max_depth", ("a", "a1"), None, "a1", 1.0)]
    assert result.stops[0].detail == "depth limit 1"
    assert [current for current, *_ in nav.offered] == [None, "a"]

    nav = Recorder({"start": ["a", "c"]})
    result = drain(best_first(nav, max_depth=0).walk("q"))
    assert stops(result) == [
        ("stop", "max_depth", ("a",), None, "a", 1.0),
        ("stop", "leaf", ("c",), None, "c", 0.5),
    ]
    assert len(nav.requests) == 1


# Step 4: the budget, the frontier left over and the stand-in ---------------------------------------------------


def test_leftovers_stop_best_first_with_their_path_scores_and_land_nothing():
    result = drain(best_first(Recorder(SCORED), max_nodes_visited=2).walk("q"))
    assert stops(result) == [
        ("stop", "leaf", ("b", "b2"), None, "b2", 0.625),
        ("stop", "visit_budget_exhausted", (), "a", None, 0.5),
        ("stop", "visit_budget_exhausted", ("b",), "b1", None, 0.5),
    ]
    assert [s.detail for s in result.stops[1:]] == ["no visit left to enter 'a'", "no visit left to enter 'b1'"]
    assert ids(result.documents) == ["b2"]
    assert (result.visits_used, result.stand_in) == (2, None)


def test_a_node_with_children_and_no_visit_left_stops_unlanded_and_the_navigator_is_not_called():
    nav = Recorder({"start": NavigatorChoice(("a", "b"), scores={"a": 1.0, "b": 0.5})})
    result = drain(best_first(nav, max_nodes_visited=1).walk("q"))
    assert stops(result) == [
        ("stop", "visit_budget_exhausted", ("a",), None, None, 1.0),
        ("stop", "visit_budget_exhausted", (), "b", None, 0.5),
        ("stop", "visit_budget_exhausted", ("a",), None, "a", 1.0),  # the stand-in
    ]
    assert result.stops[0].detail == "no visit left to go deeper"
    assert result.stops[2].detail.startswith("stand-in: ")
    assert len(nav.requests) == 1
    assert (result.stand_in, ids(result.documents), reasons(result.documents)) == (
        "a", ["a"], ["visit_budget_exhausted"]
    )


def test_the_stand_in_is_the_entered_node_with_the_best_path_score_not_the_last():
    nav = Recorder({
        "start": NavigatorChoice(("a", "b"), scores={"a": 1.0, "b": 0.5}),
        "a": NavigatorChoice(("a1", "a2"), scores={"a1": 0.0, "a2": 0.0}),
    })
    result = drain(best_first(nav, max_nodes_visited=2).walk("q"))
    assert stops(result) == [
        ("stop", "visit_budget_exhausted", ("b",), None, None, 0.5),
        ("stop", "visit_budget_exhausted", ("a",), "a1", None, 0.5),
        ("stop", "visit_budget_exhausted", ("a",), "a2", None, 0.5),
        ("stop", "visit_budget_exhausted", ("a",), None, "a", 1.0),
    ]
    assert result.stand_in == "a"


def test_among_equal_best_path_scores_the_stand_in_is_the_first_entered():
    nav = Recorder({
        "start": NavigatorChoice(("a", "b"), scores={"a": 0.5, "b": 0.5}),
        "a": NavigatorChoice(("a1",), scores={"a1": 0.5}),
    })
    result = drain(best_first(nav, max_nodes_visited=2).walk("q"))
    assert stops(result)[-1] == ("stop", "visit_budget_exhausted", ("a",), None, "a", 0.5)
    assert result.stand_in == "a"


def test_no_stand_in_when_nothing_was_entered():
    result = drain(best_first(Recorder({"start": ["ghost"]}), max_nodes_visited=1).walk("q"))
    assert (result.documents, result.stand_in) == ((), None)


def test_a_20000_deep_chain_walks_best_first_without_recursion():
    deep = ReasoningRAGStrategy(chain("n", 20_000), AllChildren(), "m", max_nodes_visited=20_000,
                                max_depth=20_000, policy=Policy.BEST_FIRST)
    result = drain(deep.walk("q"))
    assert result.visits_used == 20_000
    assert stops(result) == [("stop", "leaf", tuple(f"n{i}" for i in range(20_000)), None, "n19999", 1.0)]


# Failures --------------------------------------------------------------------------------------------------------

FAILING_AT_A: dict[str, Any] = {"start": NavigatorChoice(("a", "c"), scores={"a": 1.0, "c": 0.5})}


def failing(answer_or_error: Any) -> Recorder:
    decisions = dict(FAILING_AT_A)
    if isinstance(answer_or_error, BaseException):
        decisions["a"] = answer_or_error
    else:
        decisions["a"] = lambda request: NavigatorChoice(("a1",), scores={"a1": answer_or_error})
    return Recorder(decisions)


NOT_FINITE = [
    (math.nan, "ValueError: the score of 'a1' must be a finite number in [0, 1], got nan (float)"),
    (math.inf, "ValueError: the score of 'a1' must be a finite number in [0, 1], got inf (float)"),
    (True, "TypeError: the score of 'a1' must be a number in [0, 1], got True (bool)"),
    ("high", "TypeError: the score of 'a1' must be a number in [0, 1], got 'high' (str)"),
    (RuntimeError("upstream timeout"), "RuntimeError: upstream timeout"),
]


@pytest.mark.parametrize(("bad", "error"), NOT_FINITE)
def test_a_malformed_score_under_throw_raises_retrieval_error_after_the_failure_event(bad, error):
    seen: list[WalkEvent] = []
    with pytest.raises(RetrievalError, match="failed choosing among the children of 'a'") as caught:
        for event in best_first(failing(bad)).walk("q"):
            seen.append(event)
    assert error in str(caught.value)
    assert trail(seen)[-1] == ("failed", "a", "throw")
    assert seen[-1].error == error


@pytest.mark.parametrize(("bad", "error"), NOT_FINITE)
def test_a_malformed_score_under_empty_ends_the_walk_with_nothing(bad, error):
    strategy = best_first(failing(bad), on_failure=OnFailure.EMPTY)
    assert strategy.retrieve("q") == []
    result = drain(strategy.walk("q"))
    assert stops(result) == [("stop", "navigator_failed", ("a",), None, None, 1.0)]
    assert (result.documents, result.failure, result.stand_in) == ((), error, None)


@pytest.mark.parametrize(("bad", "error"), NOT_FINITE)
def test_a_malformed_score_under_partial_lands_the_judged_node_and_the_walk_goes_on_with_the_frontier(bad, error):
    events = list(best_first(failing(bad), on_failure=OnFailure.PARTIAL).walk("q"))
    assert trail(events)[2:] == [
        ("enter", "a", 1.0, (("c", 0.5),)),
        ("offer", "a", 14, (("c", 0.5),)),
        ("failed", "a", "partial"),
        ("stop", "navigator_failed", ("a",), None, "a", 1.0),
        ("enter", "c", 0.5, ()),
        ("stop", "leaf", ("c",), None, "c", 0.5),
    ]
    result = events[-1].result
    assert result.stops[0].detail == error
    assert ids(result.documents) == ["a", "c"]
    assert result.failure is None


def test_a_failure_at_the_start_under_partial_lands_nothing():
    result = drain(best_first(Recorder({"start": ValueError("bad")}), on_failure=OnFailure.PARTIAL).walk("q"))
    assert stops(result) == [("stop", "navigator_failed", (), None, None, None)]
    assert (result.documents, result.stand_in) == ((), None)


def test_a_bare_string_answer_is_a_provider_failure():
    with pytest.raises(RetrievalError, match=r"'a' \(str\)"):
        best_first(Recorder({"start": "a"})).retrieve("q")


# Cancellation ----------------------------------------------------------------------------------------------------


def test_a_token_tripped_before_the_walk_raises_without_calling_the_navigator():
    token = CancellationToken()
    token.cancel()
    nav = Recorder(SCORED)
    with pytest.raises(RetrievalCancelled):
        best_first(nav).retrieve("q", cancellation=token)
    assert nav.requests == []


@pytest.mark.parametrize("on_failure", list(OnFailure))
def test_a_token_tripped_during_a_call_cancels_after_it_whatever_the_failure_policy(on_failure):
    token = CancellationToken()

    def cancel_then_answer(request: Any) -> list[str]:
        token.cancel()
        return ["a1"]

    nav = Recorder({**SCORED, "a": cancel_then_answer})
    seen: list[WalkEvent] = []
    with pytest.raises(RetrievalCancelled):
        for event in best_first(nav, on_failure=on_failure).walk("q", cancellation=token):
            seen.append(event)
    assert isinstance(seen[-1], CandidatesOffered)  # no choice event after the call


@pytest.mark.parametrize("on_failure", list(OnFailure))
def test_a_provider_raising_cancelled_ends_the_walk_whatever_the_failure_policy(on_failure):
    with pytest.raises(RetrievalCancelled):
        best_first(Recorder({**SCORED, "b": RetrievalCancelled()}), on_failure=on_failure).retrieve("q")


@pytest.mark.parametrize("on_failure", list(OnFailure))
def test_a_provider_exception_while_the_token_is_tripped_is_cancellation(on_failure):
    token = CancellationToken()

    def cancel_then_fail(request: Any) -> list[str]:
        token.cancel()
        raise ConnectionError("socket closed")

    with pytest.raises(RetrievalCancelled) as caught:
        best_first(Recorder({**SCORED, "b": cancel_then_fail}), on_failure=on_failure).retrieve(
            "q", cancellation=token
        )
    assert isinstance(caught.value.__cause__, ConnectionError)


def test_the_token_is_checked_before_the_navigator_call():
    token = CancellationToken()
    nav = Recorder(SCORED)
    events = best_first(nav).walk("q", cancellation=token)
    next(events), next(events)  # started, offered
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        next(events)
    assert nav.requests == []


@pytest.mark.parametrize("after", [NavigatorChose, PathStopped])
def test_the_token_is_checked_before_each_entry_from_the_frontier(after):
    token = CancellationToken()
    events = best_first(Recorder(SCORED)).walk("q", cancellation=token)
    for event in events:
        if isinstance(event, after):
            break  # the next event would enter a node from the frontier
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        next(events)


def test_a_token_tripped_after_an_entry_ends_the_walk_before_the_next_offer_is_shown():
    token = CancellationToken()
    nav = Recorder(SCORED)
    events = best_first(nav).walk("q", cancellation=token)
    for event in events:
        if isinstance(event, NodeEntered):
            break
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        next(events)  # as depth-first: no offer is shown for a call that will not be made
    assert len(nav.requests) == 1


# The events are the public frozen records ----------------------------------------------------------------------


def test_best_first_events_equal_their_public_construction_pickle_and_stay_frozen():
    events = list(best_first(Recorder({"start": ["a", "b", "ghost"], "a": ["a1"]}), max_nodes_visited=3).walk("q"))
    objects: list[Any] = list(events)
    for event in events:
        if isinstance(event, WalkFinished):
            objects.extend([event.result, *event.result.stops, *event.result.documents])
    assert any(isinstance(e, NodeEntered) and e.frontier for e in events)
    for obj in objects:
        values = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
        rebuilt = type(obj)(*values)
        assert rebuilt == obj and repr(rebuilt) == repr(obj)
        assert pickle.loads(pickle.dumps(obj)) == obj
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.__setattr__(dataclasses.fields(obj)[0].name, None)


def test_a_second_best_first_walk_gives_the_same_events():
    strategy = best_first(Recorder(SCORED))

    def timeless() -> list[WalkEvent]:
        return [dataclasses.replace(e, seconds=0.0) if isinstance(e, NavigatorChose | NavigatorFailed) else e
                for e in strategy.walk("q")]

    assert timeless() == timeless()
