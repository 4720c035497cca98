"""The navigator protocol: what a provider is shown and what it answers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from .cancellation import CancellationToken


@dataclass(frozen=True, slots=True)
class NodeView:
    """What a navigator may see of a node: its id, title and summary, never its content."""

    id: str
    title: str
    summary: str = ""

    @property
    def shipped_chars(self) -> int:
        """Characters of title and summary this view ships to a navigator."""
        return len(self.title) + len(self.summary)


@dataclass(frozen=True, slots=True)
class NavigatorRequest:
    """One offer: choose among ``candidates``, the children of ``current`` (``None`` at the start)."""

    query: str
    model: str
    current: NodeView | None
    candidates: tuple[NodeView, ...]
    remaining_visits: int
    cancellation: CancellationToken = field(default_factory=CancellationToken.none, compare=False)


@dataclass(frozen=True, slots=True)
class NavigatorChoice:
    """A navigator's answer.

    ``selected`` holds ids in order of preference (any iterable of strings is
    accepted and stored as a tuple; a bare ``str`` or a non-string id raises
    ``TypeError``). ``rationale`` is free text for people; ``usage`` is an
    optional mapping of what the choice cost (``prompt_tokens``,
    ``completion_tokens``), stored as a read-only copy.
    """

    selected: tuple[str, ...]
    rationale: str = ""
    usage: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "selected", ids_from(self.selected))
        if not isinstance(self.rationale, str):
            raise TypeError(f"rationale must be a str, not {type(self.rationale).__name__}")
        if self.usage is not None:
            if not isinstance(self.usage, Mapping):
                raise TypeError(f"usage must be a mapping, not {type(self.usage).__name__}")
            object.__setattr__(self, "usage", MappingProxyType(dict(self.usage)))


def _describe(value: object) -> str:
    text = repr(value)
    if len(text) > 80:
        text = text[:77] + "..."
    return f"{text} ({type(value).__name__})"


def ids_from(value: object) -> tuple[str, ...]:
    """Turn an iterable of ids into a tuple, or raise ``TypeError`` saying what was given instead."""
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"expected an iterable of node ids, got {_describe(value)}")
    ids = tuple(value)
    for item in ids:
        if not isinstance(item, str):
            raise TypeError(f"expected node ids as str, got {_describe(item)}")
    return ids


class TreeNavigator(ABC):
    """A provider that picks branches. Subclasses take no constructor argument.

    ``choose`` returns a :class:`NavigatorChoice` or a plain iterable of ids
    (the same with no rationale). It should check ``request.cancellation``
    before and after blocking work and raise ``RetrievalCancelled`` when it is
    tripped.
    """

    @abstractmethod
    def supports(self, model: str) -> bool:
        """Whether this provider answers for the model id (e.g. ``"lexical:default"``)."""

    @abstractmethod
    def choose(self, request: NavigatorRequest) -> NavigatorChoice | Iterable[str]:
        """Pick zero or more of ``request.candidates`` by id."""
