"""A navigator's scores (SPEC.md, "Walk policies": Scores), and what a depth-first walk does with them.

``NavigatorChoice.scores`` maps offered ids to numbers in [0, 1]. The choice
checks the values (a non-finite number, or something that is not a number,
raises inside the provider, so the walk's ``on_failure`` applies) and keeps
them as given; the walk ignores ids it did not offer and clamps the rest.
Depth-first records them on its ``NavigatorChose`` event and ignores them:
its order, stops, results and every other event stay as they were.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any

import pytest

from core import (
    CandidatesOffered,
    NavigatorChoice,
    NavigatorChose,
    NodeEntered,
    ReasoningRAGStrategy,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
)

from .trees import Recorder, ids, index, leaf

TREE = [("a", [leaf("a1"), leaf("a2")]), ("b", [leaf("b1")]), leaf("c")]


# NavigatorChoice.scores ---------------------------------------------------------------------------------------


def test_scores_are_stored_read_only_as_floats_as_given():
    given = {"a": 1, "b": 0.25, "c": 7, "d": -2.5, "e": Fraction(1, 4)}
    choice = NavigatorChoice(("a",), scores=given)
    given["a"] = 0.0  # a copy was kept
    assert dict(choice.scores or {}) == {"a": 1.0, "b": 0.25, "c": 7.0, "d": -2.5, "e": 0.25}
    assert all(type(v) is float for v in (choice.scores or {}).values())
    with pytest.raises(TypeError):
        choice.scores["a"] = 0.5  # type: ignore[index]


def test_no_scores_is_none_and_stays_out_of_the_repr():
    choice = NavigatorChoice(("a",), "why")
    assert choice.scores is None
    assert repr(choice) == (
        "NavigatorChoice(selected=('a',), rationale='why', usage=None, transcript=None)"
    )
    assert "scores=mappingproxy({'a': 0.5})" in repr(NavigatorChoice(("a",), scores={"a": 0.5}))


@pytest.mark.parametrize(
    ("scores", "error", "message"),
    [
        ({"a": math.nan}, ValueError, r"the score of 'a' must be a finite number in \[0, 1\], got nan \(float\)"),
        ({"a": math.inf}, ValueError, r"got inf \(float\)"),
        ({"a": -math.inf}, ValueError, r"got -inf \(float\)"),
        ({"a": True}, TypeError, r"the score of 'a' must be a number in \[0, 1\], got True \(bool\)"),
        ({"a": "0.5"}, TypeError, r"got '0.5' \(str\)"),
        ({"a": None}, TypeError, r"got None \(NoneType\)"),
        ({7: 0.5}, TypeError, r"scores are keyed by node ids as str, got 7 \(int\)"),
        ([("a", 0.5)], TypeError, "scores must be a mapping of node ids to numbers"),
    ],
)
def test_a_score_that_is_not_a_finite_number_is_refused_saying_what_it_was(scores, error, message):
    with pytest.raises(error, match=message):
        NavigatorChoice(("a",), scores=scores)


# Depth-first records the scores and ignores them ------------------------------------------------------------


def timeless(events: list[WalkEvent]) -> list[WalkEvent]:
    return [dataclasses.replace(e, seconds=0.0) if isinstance(e, NavigatorChose) else e for e in events]


def test_depth_first_records_the_counted_scores_on_the_choice_event():
    nav = Recorder({"start": NavigatorChoice(("c", "a"), scores={"ghost": 1.0, "c": 3, "a": 0.25, "b": -1})})
    events = list(ReasoningRAGStrategy(index(TREE), nav, "m", max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    # only offered ids, in the order offered, clamped to [0, 1]
    assert list((chose.scores or {}).items()) == [("a", 0.25), ("b", 0.0), ("c", 1.0)]
    assert chose.frontier == ()


def test_an_integer_too_large_for_a_float_is_a_finite_score_above_1_and_counts_as_1():
    """The spec: a value above 1 counts as 1, below 0 as 0; only what is not a finite number is malformed. 10**400
    failed the walk as "must be a finite number" (issue 45)."""
    nav = Recorder({"start": NavigatorChoice(("c", "a"), scores={"c": 10**400, "a": -(10**400), "b": Fraction(10**400, 3)})})
    events = list(ReasoningRAGStrategy(index(TREE), nav, "m", max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert list((chose.scores or {}).items()) == [("a", 0.0), ("b", 1.0), ("c", 1.0)]


def test_depth_first_with_scores_walks_stops_and_lands_exactly_as_without():
    plain = {"start": ["b", "a"], "a": ["a2", "a1"], "b": ["b1"]}
    scored: dict[str, Any] = {
        "start": NavigatorChoice(("b", "a"), scores={"a": 1.0, "b": 0.0, "c": 0.9}),
        "a": NavigatorChoice(("a2", "a1"), scores={"a1": 1.0, "a2": 0.1}),
        "b": NavigatorChoice(("b1",), scores={"b1": 0.5}),
    }
    without = timeless(list(ReasoningRAGStrategy(index(TREE), Recorder(plain), "m").walk("q")))
    with_scores = timeless(list(ReasoningRAGStrategy(index(TREE), Recorder(scored), "m").walk("q")))
    assert len(with_scores) == len(without)
    for old, new in zip(without, with_scores, strict=True):
        if isinstance(new, NavigatorChose):
            assert new.scores is not None
            assert dataclasses.replace(new, scores=None) == old
        else:
            assert new == old
    assert ids(with_scores[-1].result.documents) == ["b1", "a2", "a1"]


def test_depth_first_events_read_as_before_walk_policies():
    nav = Recorder({"start": ["a", "ghost"], "a": ["a1"]})
    events = list(ReasoningRAGStrategy(index(TREE), nav, "m").walk("q"))
    for event in events:
        shown = repr(event)
        for later in ("frontier=", "policy=", "alpha=", "stand_in=", "scores=", "score=None"):
            assert later not in shown, (later, shown)
    started = events[0]
    assert isinstance(started, WalkStarted)
    assert repr(started) == (
        "WalkStarted(query='q', model='m', max_nodes_visited=15, max_depth=6, sources=None, "
        "on_failure=<OnFailure.THROW: 'throw'>)"
    )
    entered = next(e for e in events if isinstance(e, NodeEntered))
    assert (entered.score, entered.frontier) == (None, ())
    offered = next(e for e in events if isinstance(e, CandidatesOffered))
    assert offered.frontier == ()
    result = events[-1]
    assert isinstance(result, WalkFinished)
    assert all(stop.score is None for stop in result.result.stops)
    assert repr(StopRecord(result.result.stops[0].reason, result.result.stops[0].path)).endswith("detail='')")


def test_the_later_fields_show_in_the_repr_once_one_of_them_is_set():
    result = WalkResult((), (), 0, 0, 0, alpha=0.25)
    assert repr(result) == (
        "WalkResult(documents=(), stops=(), visits_used=0, navigator_calls=0, chars_shipped=0, failure=None, "
        "policy=<Policy.DEPTH_FIRST: 'depth_first'>, alpha=0.25, stand_in=None)"
    )
    assert "policy=" not in repr(WalkResult((), (), 0, 0, 0))


def test_a_choice_with_usage_or_scores_stays_hashable_and_equal_choices_hash_alike() -> None:
    """A navigator's answers are compared in sets (a deterministic navigator gives one answer five times): the
    read-only mappings of ``usage`` and ``scores`` have no hash, so they are left out of it, not out of equality."""
    first = NavigatorChoice(("a",), "r", usage={"prompt_tokens": 3}, scores={"a": 1.0, "b": 0.5})
    again = NavigatorChoice(("a",), "r", usage={"prompt_tokens": 3}, scores={"a": 1.0, "b": 0.5})
    other = NavigatorChoice(("a",), "r", usage={"prompt_tokens": 3}, scores={"a": 1.0, "b": 0.25})
    assert first == again and hash(first) == hash(again)
    assert first != other
    assert len({first, again, other}) == 2
