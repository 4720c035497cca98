"""A navigator's scores (SPEC.md, "Walk policies": Scores).

``NavigatorChoice.scores`` maps offered ids to numbers in [0, 1]. The choice
checks the values (a non-finite number, or something that is not a number,
raises inside the provider, so the walk's ``on_failure`` applies) and keeps
them as given.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from core import NavigatorChoice

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
        ({"a": 10**400}, ValueError, "the score of 'a' must be a finite number"),
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
