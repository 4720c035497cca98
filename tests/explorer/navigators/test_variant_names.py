"""``lexical:`` and ``semantic:`` name their variants by one rule (:func:`explorer.navigators.scored.variant_named`):
the prefix alone or a blank name is ``default``, a name it has no variant of is none, another navigator's id none."""

from __future__ import annotations

import pytest

from explorer.navigators import lexical, semantic
from explorer.navigators.scored import variant_named


@pytest.mark.parametrize("module", [lexical, semantic], ids=["lexical", "semantic"])
def test_each_scoring_navigator_names_its_variants_by_the_one_rule(module) -> None:  # type: ignore[no-untyped-def]
    prefix, variants = module.PREFIX, module.VARIANTS
    assert module.variant_of(prefix) is variants["default"]
    assert module.variant_of(f"{prefix}  ") is variants["default"]
    for name, variant in variants.items():
        assert module.variant_of(f"{prefix}{name}") is variant
        assert module.variant_of(f"{prefix} {name} ") is variant
    assert module.variant_of(f"{prefix}no-such-variant") is None
    other = semantic if module is lexical else lexical
    assert module.variant_of(f"{other.PREFIX}default") is None


def test_the_rule_itself_on_a_mapping_of_its_own() -> None:
    assert variant_named("x:", "x:", {"default": 1, "b": 2}) == 1
    assert variant_named("x:b", "x:", {"default": 1, "b": 2}) == 2
    assert variant_named("x:c", "x:", {"default": 1, "b": 2}) is None
    assert variant_named("y:b", "x:", {"default": 1, "b": 2}) is None
