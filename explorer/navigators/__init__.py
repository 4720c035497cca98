"""The navigators that ship with the app, each a ``core.TreeNavigator`` registered under the
``core.tree_navigators`` entry points (see pyproject.toml): ``lexical:``, ``semantic:``, ``script:PATH``,
``replay:PATH``, ``manual:``, ``openai:MODEL`` and ``ollama:MODEL``."""

from __future__ import annotations

from core import TreeNavigator, TreeNavigatorRegistry


class NavigatorConfigError(ValueError):
    """A navigator model id that resolves but cannot work (a missing script, a broken trace...)."""


def resolve_navigator(model: str) -> TreeNavigator:
    """Resolve ``model`` through the registry, then let the provider check it before any walk.

    Providers that read a file named in the model id (``script:``, ``replay:``)
    check it here, so a bad file is a configuration error with one clear line
    instead of a failure in the middle of a walk.
    """
    navigator = TreeNavigatorRegistry().resolve(model)
    check = getattr(navigator, "check_model", None)
    if callable(check):
        check(model)
    return navigator


SUGGESTED_MODELS = (
    "lexical:default",
    "lexical:strict",
    "lexical:wide",
    "semantic:default",
    "semantic:hybrid",
    "manual:",
    "openai:gpt-4o-mini",
    "ollama:llama3.1",
)
