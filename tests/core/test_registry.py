"""Resolving providers through real entry points (SPEC.md, "Resolving a provider")."""

from __future__ import annotations

import pytest

from core import NavigatorRequest, NodeView, TreeNavigator, TreeNavigatorError, TreeNavigatorRegistry


def test_the_default_group_is_core_tree_navigators():
    assert TreeNavigatorRegistry().group == "core.tree_navigators" == TreeNavigatorRegistry.GROUP


def test_a_provider_is_found_and_constructed_through_its_entry_point(plugins):
    target = plugins.provider("alpha:")
    plugins.install("alpha-dist", {"alpha": target}, {target: ("alpha:", "pass")})
    navigator = TreeNavigatorRegistry(plugins.group).resolve("alpha:small")
    assert isinstance(navigator, TreeNavigator)
    assert type(navigator).__name__ == target.split(":")[1]
    request = NavigatorRequest("q", "alpha:small", None, (NodeView("x", "X"), NodeView("y", "Y")), 3)
    assert navigator.choose(request).selected == ("x",)


def test_the_default_group_sees_an_installed_provider(plugins):
    target = plugins.provider("zz-default-test:")
    plugins.install("zz-default", {"zz": target}, {target: ("zz-default-test:", "pass")},
                    group="core.tree_navigators")
    navigator = TreeNavigatorRegistry().resolve("zz-default-test:x")
    assert type(navigator).__name__ == target.split(":")[1]


@pytest.mark.parametrize("model", ["", " ", "\n\t"])
def test_a_blank_model_is_a_value_error(plugins, model):
    with pytest.raises(ValueError, match="blank"):
        TreeNavigatorRegistry(plugins.group).resolve(model)


def test_no_provider_is_a_tree_navigator_error_listing_what_is_installed(plugins):
    target = plugins.provider("alpha:")
    plugins.install("alpha-dist", {"alpha": target}, {target: ("alpha:", "pass")})
    with pytest.raises(TreeNavigatorError, match="no navigator supports 'beta:x'.*alpha = "):
        TreeNavigatorRegistry(plugins.group).resolve("beta:x")


def test_no_provider_at_all(plugins):
    with pytest.raises(TreeNavigatorError, match="installed providers .*: none"):
        TreeNavigatorRegistry(plugins.group).resolve("beta:x")


def test_two_matching_providers_are_ambiguous_and_named_in_sorted_order(plugins):
    first, second = plugins.provider("dup:"), plugins.provider("dup:")
    # Installed in reverse order of their names: the message is still sorted.
    plugins.install("zeta-dist", {"zeta": second}, {second: ("dup:", "pass")})
    plugins.install("alpha-dist", {"alpha": first}, {first: ("dup:", "pass")})
    with pytest.raises(TreeNavigatorError) as caught:
        TreeNavigatorRegistry(plugins.group).resolve("dup:model")
    message = str(caught.value)
    assert "ambiguous" in message and "2 providers" in message
    assert message.index(f"alpha = {first}") < message.index(f"zeta = {second}")


def test_a_provider_that_cannot_be_imported_is_named(plugins):
    good = plugins.provider("good:")
    plugins.install("good-dist", {"good": good}, {good: ("good:", "pass")})
    plugins.install("broken-dist", {"broken": "no_such_module_xyz:Nav"})
    with pytest.raises(TreeNavigatorError, match="broken = no_such_module_xyz:Nav .*ModuleNotFoundError"):
        TreeNavigatorRegistry(plugins.group).resolve("good:model")


def test_a_provider_that_cannot_be_constructed_is_named(plugins):
    target = plugins.provider("boom:")
    plugins.install("boom-dist", {"boom": target}, {target: ("boom:", "raise RuntimeError('no key')")})
    with pytest.raises(TreeNavigatorError, match=f"boom = {target} \\(RuntimeError: no key\\)"):
        TreeNavigatorRegistry(plugins.group).resolve("other:model")


def test_an_entry_point_that_is_not_a_navigator_is_named(plugins):
    plugins.install("odd-dist", {"odd": "collections:OrderedDict"})
    with pytest.raises(TreeNavigatorError, match="odd = collections:OrderedDict .*not a TreeNavigator"):
        TreeNavigatorRegistry(plugins.group).resolve("x:y")


def test_the_same_installation_gives_the_same_answer(plugins):
    a, b = plugins.provider("a:"), plugins.provider("b:")
    plugins.install("b-dist", {"bee": b}, {b: ("b:", "pass")})
    plugins.install("a-dist", {"ay": a}, {a: ("a:", "pass")})
    registry = TreeNavigatorRegistry(plugins.group)
    names = [ep.name for ep in registry.entry_points()]
    assert names == ["ay", "bee"]
    for _ in range(3):
        assert type(registry.resolve("b:m")).__name__ == b.split(":")[1]


def test_a_provider_installed_after_a_first_resolve_is_seen(plugins):
    registry = TreeNavigatorRegistry(plugins.group)
    with pytest.raises(TreeNavigatorError):
        registry.resolve("late:model")
    target = plugins.provider("late:")
    plugins.install("late-dist", {"late": target}, {target: ("late:", "pass")})
    assert type(registry.resolve("late:model")).__name__ == target.split(":")[1]
