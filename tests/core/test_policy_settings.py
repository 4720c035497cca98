"""``policy`` and ``alpha`` as settings of the strategy, the config, its builder and ``@retrieval``."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from core import (
    OnFailure,
    Policy,
    ReasoningRAGStrategy,
    RetrievalConfig,
    RetrievalConfigError,
    Role,
    RoleRagBinding,
    Strategy,
    TreeNavigatorRegistry,
    knowledge_source,
    retrieval,
)

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


# The config and its builder ------------------------------------------------------------------------------------


def test_config_defaults_to_depth_first_with_alpha_one_half():
    config = RetrievalConfig()
    assert (config.policy, config.alpha) == (Policy.DEPTH_FIRST, 0.5)
    assert config.to_mapping()["policy"] == "depth_first" and config.to_mapping()["alpha"] == 0.5


@pytest.mark.parametrize("name", ["best_first", "BEST_FIRST", "Best_First", " best_first ", Policy.BEST_FIRST])
def test_config_takes_the_policy_as_a_member_or_a_case_insensitive_name(name):
    assert RetrievalConfig(policy=name).policy is Policy.BEST_FIRST


def test_config_reads_policy_and_alpha_from_a_mapping_and_writes_them_back():
    config = RetrievalConfig.from_mapping({"policy": "Best_First", "alpha": 1, "navigator_model": "m"})
    assert (config.policy, config.alpha) == (Policy.BEST_FIRST, 1.0)
    assert type(config.alpha) is float
    assert RetrievalConfig.from_mapping(config.to_mapping()) == config


def test_the_builder_sets_policy_and_alpha():
    config = RetrievalConfig.builder().navigator_model("m").policy("best_first").alpha(0.25).build()
    assert (config.policy, config.alpha) == (Policy.BEST_FIRST, 0.25)
    assert RetrievalConfig.builder().policy(Policy.DEPTH_FIRST).build().policy is Policy.DEPTH_FIRST


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"policy": "breadth_first"}, "policy: 'breadth_first' is not one of depth_first, best_first"),
        ({"policy": 1}, "policy: 1 is not one of depth_first, best_first"),
        ({"alpha": 0}, r"alpha: must be in \(0, 1\] \(above 0, at most 1\), got 0"),
        ({"alpha": 1.5}, r"alpha: must be in \(0, 1\]"),
        ({"alpha": math.nan}, r"alpha: must be in \(0, 1\]"),
        ({"alpha": "0.5"}, r"alpha: expected a number in \(0, 1\], got '0.5'"),
        ({"alpha": True}, r"alpha: expected a number in \(0, 1\], got True"),
        ({"alfa": 0.5}, "unknown retrieval config key 'alfa'; did you mean 'alpha'"),
    ],
)
def test_bad_policy_or_alpha_is_a_config_error_naming_the_key(mapping, message):
    with pytest.raises(RetrievalConfigError, match=message):
        RetrievalConfig.from_mapping(mapping)
    assert issubclass(RetrievalConfigError, ValueError)


# @retrieval and the binding ------------------------------------------------------------------------------------


def test_retrieval_declares_the_policy_and_alpha():
    @retrieval(sources="s", navigator_model="m", policy="BEST_FIRST", alpha=0.75)  # type: ignore[arg-type]
    class Searcher(Role):
        pass

    config = Searcher.retrieval_config()
    assert config is not None and (config.policy, config.alpha) == (Policy.BEST_FIRST, 0.75)

    @retrieval(sources="s", navigator_model="m")
    class Plain(Role):
        pass

    assert (Plain.retrieval_config().policy, Plain.retrieval_config().alpha) == (Policy.DEPTH_FIRST, 0.5)


def test_retrieval_refuses_a_bad_alpha_when_it_decorates():
    with pytest.raises(RetrievalConfigError, match="alpha"):
        retrieval(sources="s", navigator_model="m", alpha=0)


@pytest.fixture
def fixed_navigator(plugins):
    target = plugins.provider("fixed:")
    plugins.install("fixed-dist", {"fixed": target}, {target: ("fixed:", "pass")})
    return TreeNavigatorRegistry(plugins.group)


def test_the_binding_makes_a_strategy_with_the_declared_policy_and_alpha(fixed_navigator):
    @knowledge_source(name="s")
    @retrieval(sources="s", navigator_model="fixed:x", policy=Policy.BEST_FIRST, alpha=0.25,
               on_failure=OnFailure.PARTIAL)
    class Searcher(Role):
        pass

    indexes = {"s": index([("a", [leaf("a1")]), leaf("b")])}
    strategy = RoleRagBinding.strategy_for(Searcher, indexes, registry=fixed_navigator)
    assert (strategy.policy, strategy.alpha, strategy.on_failure) == (Policy.BEST_FIRST, 0.25, OnFailure.PARTIAL)
    config = RetrievalConfig(Strategy.REASONING, ("s",), "fixed:x", policy="best_first", alpha=1.0)
    strategy = RoleRagBinding.strategy_for(config, indexes, registry=fixed_navigator)
    assert (strategy.policy, strategy.alpha) == (Policy.BEST_FIRST, 1.0)
    # the fake provider picks the first candidate: a (1.0), then a1 (1.0 with alpha 1)
    assert [d.id for d in strategy.retrieve("q")] == ["a1"]
