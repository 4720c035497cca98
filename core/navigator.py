"""The navigator protocol: what a provider is shown and what it answers."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, TypeAlias

from .cancellation import CancellationToken

Transcript: TypeAlias = tuple[tuple[str, str], ...]
"""What a provider really sent and received: ``(label, text)`` pairs, in order."""


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
    ``completion_tokens``), stored as a read-only copy. ``transcript`` is
    what the provider really sent and received, for people debugging it:
    ``(label, text)`` pairs of strings in order (see :func:`transcript_from`);
    it never holds a secret.
    """

    selected: tuple[str, ...]
    rationale: str = ""
    usage: Mapping[str, Any] | None = None
    transcript: Transcript | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "selected", ids_from(self.selected))
        if not isinstance(self.rationale, str):
            raise TypeError(f"rationale must be a str, not {type(self.rationale).__name__}")
        if self.usage is not None:
            if not isinstance(self.usage, Mapping):
                raise TypeError(f"usage must be a mapping, not {type(self.usage).__name__}")
            object.__setattr__(self, "usage", MappingProxyType(dict(self.usage)))
        if self.transcript is not None:
            object.__setattr__(self, "transcript", transcript_from(self.transcript))


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


def transcript_from(value: object) -> Transcript:
    """Turn an iterable of ``(label, text)`` pairs of strings into a tuple of 2-tuples.

    Anything else raises ``TypeError`` saying what was given: a bare string,
    a pair that is not two items, a label or text that is not a ``str``.
    """
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise TypeError(f"a transcript is an iterable of (label, text) pairs, got {_describe(value)}")
    pairs: list[tuple[str, str]] = []
    for item in value:
        if isinstance(item, str | bytes) or not isinstance(item, Iterable):
            raise TypeError(f"a transcript entry is a (label, text) pair, got {_describe(item)}")
        pair = tuple(item)
        if len(pair) != 2 or not isinstance(pair[0], str) or not isinstance(pair[1], str):
            raise TypeError(f"a transcript entry is a (label, text) pair of str, got {_describe(item)}")
        pairs.append((pair[0], pair[1]))
    return tuple(pairs)


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
