"""The navigator protocol: what a provider is shown and what it answers."""

from __future__ import annotations

import math
import sys
from abc import ABC, abstractmethod
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from numbers import Real
from types import MappingProxyType
from typing import Any, TypeAlias

from .cancellation import CancellationToken
from .reprs import quiet_repr

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

    ``scores`` optionally maps offered ids to how well each fits the query,
    a number in [0, 1] (see :func:`scores_from`); a best-first walk orders
    its frontier by them, a depth-first walk records them on its
    ``NavigatorChose`` event and ignores them. Stored as a read-only copy,
    each value a ``float`` as given: the walk, which knows what it offered,
    ignores ids it did not offer and counts a value above 1 as 1 and below 0
    as 0. A value that is not a finite real number raises here, inside the
    provider, so it follows the walk's ``on_failure`` like any other
    malformed answer.
    """

    selected: tuple[str, ...]
    rationale: str = ""
    usage: Mapping[str, Any] | None = field(default=None, hash=False)
    """Left out of the hash (a read-only mapping has none), not out of equality: a choice stays hashable."""
    transcript: Transcript | None = None
    scores: Mapping[str, float] | None = field(default=None, hash=False)
    """Left out of the hash as ``usage`` is."""

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
        if self.scores is not None:
            object.__setattr__(self, "scores", scores_from(self.scores))

    def __repr__(self) -> str:
        return quiet_repr(self, _LATER_FIELDS)


_LATER_FIELDS = ("scores",)


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


def scores_from(value: object) -> Mapping[str, float]:
    """A navigator's scores as a read-only mapping of ids to floats, or an error saying what was wrong.

    ``value`` must be a mapping whose keys are ids (``str``, else
    ``TypeError``) and whose values are real numbers (``int``, ``float`` or
    any ``numbers.Real``; not a ``bool``, which is more likely a mistake than
    a score: ``TypeError``) that are finite (NaN or an infinity is a
    ``ValueError``; an integer too large for a float, ``10**400``, is finite,
    and is kept as the largest float of its sign). Values are kept as given,
    not clamped: how a score counts is the walk's rule.
    """
    if not isinstance(value, Mapping):
        raise TypeError(f"scores must be a mapping of node ids to numbers, got {_describe(value)}")
    checked: dict[str, float] = {}
    for key, score in value.items():
        if not isinstance(key, str):
            raise TypeError(f"scores are keyed by node ids as str, got {_describe(key)}")
        if isinstance(score, bool) or not isinstance(score, Real):
            raise TypeError(f"the score of {key!r} must be a number in [0, 1], got {_describe(score)}")
        try:
            number = float(score)
        except OverflowError:  # an int (or a fraction) too large for a float: finite, so above 1 it counts as 1
            number = -sys.float_info.max if score < 0 else sys.float_info.max
        if not math.isfinite(number):
            raise ValueError(f"the score of {key!r} must be a finite number in [0, 1], got {_describe(score)}")
        checked[key] = number
    return MappingProxyType(checked)


def counted_scores(scores: Mapping[str, float] | None, offer_ids: tuple[str, ...]) -> Mapping[str, float] | None:
    """A navigator's scores as a walk counts them, or ``None`` when it scored none of the offered ids.

    Only the offered ids are kept (a score for any other id is ignored), in
    the order they were offered; a score above 1 counts as 1, below 0 as 0.
    ``scores`` were checked finite when the ``NavigatorChoice`` was made
    (:func:`scores_from`).
    """
    if not scores:
        return None
    counted = {node_id: min(1.0, max(0.0, scores[node_id])) for node_id in offer_ids if node_id in scores}
    return MappingProxyType(counted) if counted else None


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
