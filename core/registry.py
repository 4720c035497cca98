"""Finding the navigator for a model id through the ``core.tree_navigators`` entry points."""

from __future__ import annotations

import importlib
from importlib.metadata import EntryPoint, entry_points
from typing import ClassVar

from .errors import TreeNavigatorError
from .navigator import TreeNavigator


def _label(entry_point: EntryPoint) -> str:
    return f"{entry_point.name} = {entry_point.value}"


def _one_line(exc: BaseException) -> str:
    message = " ".join(str(exc).split())
    return f"{type(exc).__name__}: {message}" if message else type(exc).__name__


class TreeNavigatorRegistry:
    """Resolves a model id (``"lexical:default"``) to the one provider that supports it.

    Providers are classes named by entry points in the group
    ``core.tree_navigators``; each is constructed with no argument. The entry
    points are read on every :meth:`resolve` (so a provider installed since
    is seen) and taken in sorted order, so the answer never depends on the
    order in which packages were installed.
    """

    GROUP: ClassVar[str] = "core.tree_navigators"

    def __init__(self, group: str | None = None) -> None:
        self.group = group or self.GROUP

    def entry_points(self) -> list[EntryPoint]:
        """The group's entry points, read now, duplicates dropped, sorted by name and value."""
        importlib.invalidate_caches()
        unique = {(ep.name, ep.value): ep for ep in entry_points(group=self.group)}
        return [unique[key] for key in sorted(unique)]

    def resolve(self, model: str) -> TreeNavigator:
        """The provider whose ``supports(model)`` is true.

        Raises ``ValueError`` for a blank model and :class:`TreeNavigatorError`
        when no provider supports it, when several do (naming them all,
        sorted), or when any provider cannot be imported, constructed or asked
        (naming its entry point: it might have been the match).
        """
        if not isinstance(model, str) or not model.strip():
            raise ValueError(f"the navigator model is blank ({model!r}); give a model id such as 'lexical:default'")
        matches: list[tuple[str, TreeNavigator]] = []
        broken: list[str] = []
        found = self.entry_points()
        for entry_point in found:
            label = _label(entry_point)
            try:
                provider_class = entry_point.load()
                provider = provider_class()
                if not isinstance(provider, TreeNavigator):
                    raise TypeError(f"{type(provider).__name__} is not a TreeNavigator")
                supported = bool(provider.supports(model))
            except Exception as exc:
                broken.append(f"{label} ({_one_line(exc)})")
                continue
            if supported:
                matches.append((label, provider))
        if broken:
            raise TreeNavigatorError(
                f"cannot resolve navigator {model!r}: broken provider(s) in {self.group!r}: "
                + "; ".join(broken)
                + "; fix or uninstall them"
            )
        if not matches:
            installed = ", ".join(_label(ep) for ep in found) or "none"
            raise TreeNavigatorError(
                f"no navigator supports {model!r}; installed providers in {self.group!r}: {installed}"
            )
        if len(matches) > 1:
            raise TreeNavigatorError(
                f"navigator {model!r} is ambiguous: {len(matches)} providers support it: "
                + ", ".join(label for label, _ in matches)
                + "; uninstall one or use a more specific model id"
            )
        return matches[0][1]
