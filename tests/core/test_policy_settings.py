"""``policy`` and ``alpha`` as settings of the strategy."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from core import Policy, ReasoningRAGStrategy

from .trees import Recorder, index, leaf

TREE = [leaf("a")]


def test_the_policy_is_a_str_enum_of_two_walks():
    assert [(p.name, p.value) for p in Policy] == [("DEPTH_FIRST", "depth_first"), ("BEST_FIRST", "best_first")]
    assert Policy.BEST_FIRST == "best_first"


# The strategy ----------------------------------------------------------------------------------------------------


def test_a_strategy_walks_depth_first_with_alpha_one_half_by_default():
    strategy = ReasoningRAGStrategy(index(TREE), Recorder(), "m")
    assert (strategy.policy, strategy.alpha) == (Policy.DEPTH_FIRST, 0.5)


def test_a_strategy_takes_the_policy_as_a_member_or_its_value():
    assert ReasoningRAGStrategy(index(TREE), Recorder(), "m", policy="best_first").policy is Policy.BEST_FIRST  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="'sideways'"):
        ReasoningRAGStrategy(index(TREE), Recorder(), "m", policy="sideways")  # type: ignore[arg-type]


@pytest.mark.parametrize("alpha", [1, 1.0, 0.001, 5e-324, Fraction(1, 3)])
def test_alpha_is_taken_anywhere_in_the_open_closed_unit_interval(alpha):
    strategy = ReasoningRAGStrategy(index(TREE), Recorder(), "m", policy=Policy.BEST_FIRST, alpha=alpha)
    assert strategy.alpha == float(alpha) and type(strategy.alpha) is float


@pytest.mark.parametrize("alpha", [0, 0.0, -0.5, 1.0000001, 2, math.nan, math.inf, -math.inf, 10**400])
def test_alpha_outside_the_interval_is_a_value_error_whatever_the_policy(alpha):
    for policy in Policy:
        with pytest.raises(ValueError, match=r"alpha must be in \(0, 1\]"):
            ReasoningRAGStrategy(index(TREE), Recorder(), "m", policy=policy, alpha=alpha)


@pytest.mark.parametrize("alpha", [True, "0.5", None])
def test_alpha_that_is_not_a_number_is_a_type_error(alpha):
    with pytest.raises(TypeError, match="alpha must be a number"):
        ReasoningRAGStrategy(index(TREE), Recorder(), "m", alpha=alpha)
