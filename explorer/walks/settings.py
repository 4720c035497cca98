"""How a walk's settings read on screen and in a walk's name (the record itself: :mod:`explorer.walk_settings`)."""

from __future__ import annotations

from ..navigators.llm.options import short_model_id
from ..walk_settings import WalkSettings, policy_note

__all__ = ["describe_settings", "short_model"]


def short_model(settings: WalkSettings) -> str:
    """The model with a file's folder left out, in the model and in its options: ``script:/a/b/case.yaml`` is
    ``script:case.yaml``, ``local:smollm2@system=/p/b.txt`` is ``local:smollm2@system=b.txt``."""
    return short_model_id(settings.model)


def describe_settings(settings: WalkSettings) -> str:
    """``lexical:default · budget 15 · depth limit 6 · on failure throw``, then ``· best-first`` for a walk that is
    not depth-first."""
    described = (f"{short_model(settings)} · budget {settings.max_nodes_visited} · depth limit {settings.max_depth} · "
                 f"on failure {settings.on_failure.value}")
    return described + policy_note(settings.policy, settings.alpha)
