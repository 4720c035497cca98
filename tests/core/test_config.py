"""Declarative configuration, roles and the binding (SPEC.md, "Declarative configuration")."""

from __future__ import annotations

import pytest

from core import (
    ActionType,
    HierarchyIndex,
    KnowledgeSource,
    KnowledgeType,
    OnFailure,
    RetrievalConfig,
    RetrievalConfigError,
    Role,
    RoleRagBinding,
    Strategy,
    TreeNavigatorError,
    TreeNavigatorRegistry,
    action_spec,
    knowledge_source,
    retrieval,
)

from .trees import ids, index, leaf


def test_config_defaults():
    config = RetrievalConfig()
    assert config == RetrievalConfig(Strategy.REASONING, (), "", "query", 15, 6, OnFailure.THROW)


def test_builder_is_fluent():
    config = (
        RetrievalConfig.builder()
        .strategy(Strategy.REASONING)
        .sources("handbook", "policies")
        .navigator_model("lexical:default")
        .query_param("question")
        .max_nodes_visited(8)
        .max_depth(3)
        .on_failure(OnFailure.PARTIAL)
        .build()
    )
    assert config.sources == ("handbook", "policies")
    assert (config.navigator_model, config.query_param) == ("lexical:default", "question")
    assert (config.max_nodes_visited, config.max_depth, config.on_failure) == (8, 3, OnFailure.PARTIAL)


def test_from_mapping_reads_snake_case_keys_and_case_insensitive_enum_names():
    config = RetrievalConfig.from_mapping(
        {"strategy": "Reasoning", "sources": "handbook", "navigator_model": "m", "on_failure": "PARTIAL",
         "max_nodes_visited": 4, "max_depth": 2, "query_param": "q"}
    )
    assert config == RetrievalConfig(Strategy.REASONING, ("handbook",), "m", "q", 4, 2, OnFailure.PARTIAL)
    assert RetrievalConfig.from_mapping(config.to_mapping()) == config


def test_from_mapping_names_an_unknown_key_and_the_nearest_known_one():
    with pytest.raises(RetrievalConfigError, match="unknown retrieval config key 'max_node_visited'.*'max_nodes_visited'"):
        RetrievalConfig.from_mapping({"max_node_visited": 3})
    with pytest.raises(RetrievalConfigError, match="'zzz'; known keys: strategy"):
        RetrievalConfig.from_mapping({"zzz": 1})


@pytest.mark.parametrize(
    ("mapping", "message"),
    [
        ({"on_failure": "explode"}, "on_failure: 'explode' is not one of throw, empty, partial"),
        ({"strategy": 3}, "strategy: 3 is not one of reasoning, similarity, hybrid"),
        ({"max_depth": -1}, "max_depth: must be at least 0"),
        ({"max_nodes_visited": 0}, "max_nodes_visited: must be at least 1"),
        ({"max_nodes_visited": "5"}, "max_nodes_visited: expected a whole number"),
        ({"max_depth": True}, "max_depth: expected a whole number"),
        ({"sources": [""]}, "sources: every source name must be a non-blank string"),
        ({"sources": 5}, "sources: expected a source name or a list"),
        ({"navigator_model": None}, "navigator_model: expected a string"),
    ],
)
def test_bad_values_are_config_errors_naming_the_key(mapping, message):
    with pytest.raises(RetrievalConfigError, match=message):
        RetrievalConfig.from_mapping(mapping)


def test_from_mapping_refuses_a_non_mapping():
    with pytest.raises(RetrievalConfigError, match="must be a mapping"):
        RetrievalConfig.from_mapping(["strategy"])  # type: ignore[arg-type]


# Roles ---------------------------------------------------------------------------------------------


@knowledge_source(name="handbook", type=KnowledgeType.FILE, path="sample_corpora/handbook.yaml")
@knowledge_source(name="policies", path="policies.yaml")
@retrieval(sources=["handbook", "policies"], navigator_model="fixed:first", max_nodes_visited=4, max_depth=2,
           on_failure=OnFailure.PARTIAL)
class SupportAgent(Role):
    @action_spec(type=ActionType.LLM, description="Answer a customer's question")
    def answer(self, query: str) -> str:
        return query


def test_decorators_record_sources_in_written_order_retrieval_and_actions():
    assert SupportAgent.knowledge_sources() == (
        KnowledgeSource("handbook", KnowledgeType.FILE, "sample_corpora/handbook.yaml"),
        KnowledgeSource("policies", KnowledgeType.FILE, "policies.yaml"),
    )
    config = SupportAgent.retrieval_config()
    assert config is not None and config.sources == ("handbook", "policies")
    assert (config.max_nodes_visited, config.max_depth, config.on_failure) == (4, 2, OnFailure.PARTIAL)
    action = SupportAgent.actions()["answer"]
    assert (action.name, action.type, action.description) == ("answer", ActionType.LLM, "Answer a customer's question")
    assert SupportAgent().answer("hi") == "hi"


def test_retrieval_sources_take_a_single_name():
    @retrieval(sources="handbook", navigator_model="m")
    class One(Role):
        pass

    assert One.retrieval_config().sources == ("handbook",)


def test_a_subclass_inherits_and_extends_knowledge_sources():
    @knowledge_source(name="extra", path="extra.yaml")
    class Special(SupportAgent):
        pass

    assert [s.name for s in Special.knowledge_sources()] == ["handbook", "policies", "extra"]
    assert [s.name for s in SupportAgent.knowledge_sources()] == ["handbook", "policies"]
    assert Special.retrieval_config() == SupportAgent.retrieval_config()


def test_a_knowledge_source_declared_twice_is_refused():
    with pytest.raises(ValueError, match="declared twice"):
        @knowledge_source(name="a")
        @knowledge_source(name="a")
        class Twice(Role):
            pass


def test_decorators_refuse_non_roles():
    with pytest.raises(TypeError, match="Role subclasses"):
        @retrieval(sources="a", navigator_model="m")
        class NotARole:
            pass


# The binding ---------------------------------------------------------------------------------------


@pytest.fixture
def fixed_navigator(plugins):
    target = plugins.provider("fixed:")
    plugins.install("fixed-dist", {"fixed": target}, {target: ("fixed:", "pass")})
    return TreeNavigatorRegistry(plugins.group)


INDEXES = {
    "handbook": index([("billing", [leaf("refunds")]), leaf("support")], source="handbook"),
    "policies": index([leaf("privacy")], source="policies"),
}


def test_strategy_for_a_role_merges_its_sources_and_resolves_its_navigator(fixed_navigator):
    strategy = RoleRagBinding.strategy_for(SupportAgent, INDEXES, registry=fixed_navigator)
    assert [d.id for d in strategy.index.roots()] == ["billing", "support", "privacy"]
    assert (strategy.model, strategy.max_nodes_visited, strategy.max_depth) == ("fixed:first", 4, 2)
    assert strategy.on_failure is OnFailure.PARTIAL
    # the fake provider picks the first candidate each time
    assert ids(strategy.retrieve("q")) == ["refunds"]


def test_strategy_for_a_role_instance_and_for_a_bare_config(fixed_navigator):
    assert RoleRagBinding.strategy_for(SupportAgent(), INDEXES, registry=fixed_navigator).model == "fixed:first"
    config = RetrievalConfig(sources=("policies",), navigator_model="fixed:x")
    strategy = RoleRagBinding.strategy_for(config, INDEXES, registry=fixed_navigator)
    assert [d.id for d in strategy.index.roots()] == ["privacy"]


def test_a_declared_source_without_an_index_is_a_config_error(fixed_navigator):
    with pytest.raises(RetrievalConfigError, match="no hierarchy loaded for source\\(s\\) 'policies'"):
        RoleRagBinding.strategy_for(SupportAgent, {"handbook": INDEXES["handbook"]}, registry=fixed_navigator)


def test_an_id_in_two_sources_is_a_config_error(fixed_navigator):
    clash = {"handbook": INDEXES["handbook"], "policies": index([leaf("support")], source="policies")}
    with pytest.raises(RetrievalConfigError, match="'support'"):
        RoleRagBinding.strategy_for(SupportAgent, clash, registry=fixed_navigator)


def test_a_blank_model_is_a_value_error(fixed_navigator):
    with pytest.raises(ValueError, match="blank"):
        RoleRagBinding.strategy_for(RetrievalConfig(sources=("policies",)), INDEXES, registry=fixed_navigator)


def test_an_unresolvable_model_is_a_tree_navigator_error(fixed_navigator):
    with pytest.raises(TreeNavigatorError, match="no navigator supports 'nobody:x'"):
        RoleRagBinding.strategy_for(
            RetrievalConfig(sources=("policies",), navigator_model="nobody:x"), INDEXES, registry=fixed_navigator
        )


@pytest.mark.parametrize("strategy", [Strategy.SIMILARITY, Strategy.HYBRID])
def test_strategies_other_than_reasoning_are_not_supported_here(fixed_navigator, strategy):
    config = RetrievalConfig(strategy=strategy, sources=("policies",), navigator_model="fixed:x")
    with pytest.raises(RetrievalConfigError, match=f"strategy {strategy.name} is not supported here"):
        RoleRagBinding.strategy_for(config, INDEXES, registry=fixed_navigator)


def test_a_role_without_retrieval_is_a_config_error():
    class Bare(Role):
        pass

    with pytest.raises(RetrievalConfigError, match="Bare has no @retrieval"):
        RoleRagBinding.strategy_for(Bare, INDEXES)


def test_a_retrieval_source_the_role_did_not_declare_is_a_config_error(fixed_navigator):
    @knowledge_source(name="handbook")
    @retrieval(sources=["handbook", "handbok"], navigator_model="fixed:x")
    class Typo(Role):
        pass

    with pytest.raises(RetrievalConfigError, match="'handbok' not declared with @knowledge_source"):
        RoleRagBinding.strategy_for(Typo, INDEXES, registry=fixed_navigator)


def test_no_sources_is_a_config_error(fixed_navigator):
    with pytest.raises(RetrievalConfigError, match="declares no sources"):
        RoleRagBinding.strategy_for(RetrievalConfig(navigator_model="fixed:x"), INDEXES, registry=fixed_navigator)


def test_config_errors_come_before_resolving_the_navigator(plugins):
    plugins.install("broken-dist", {"broken": "no_such_module_abc:Nav"})
    registry = TreeNavigatorRegistry(plugins.group)
    with pytest.raises(RetrievalConfigError):
        RoleRagBinding.strategy_for(SupportAgent, {}, registry=registry)
    with pytest.raises(TreeNavigatorError, match="broken"):
        RoleRagBinding.strategy_for(SupportAgent, INDEXES, registry=registry)


def test_merged_indexes_are_one_hierarchy():
    merged = HierarchyIndex.merge([INDEXES["handbook"], INDEXES["policies"]])
    assert len(merged) == 4
