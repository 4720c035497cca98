"""Declarative retrieval configuration: a frozen value, a fluent builder, and a reader for mappings."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, fields
from enum import Enum, StrEnum
from typing import Any, TypeVar

from .errors import RetrievalConfigError
from .policy import DEFAULT_ALPHA, OnFailure, Policy, check_alpha


class Strategy(StrEnum):
    """Retrieval strategies. Only ``REASONING`` is implemented by this runtime."""

    REASONING = "reasoning"
    SIMILARITY = "similarity"
    HYBRID = "hybrid"


E = TypeVar("E", bound=Enum)


def parse_enum(enum_type: type[E], value: object, key: str) -> E:
    """An enum member from a member or a case-insensitive name (or value); else a ``RetrievalConfigError``."""
    if isinstance(value, enum_type):
        return value
    if isinstance(value, str):
        wanted = value.strip().lower()
        for member in enum_type:
            if member.name.lower() == wanted or str(member.value).lower() == wanted:
                return member
    choices = ", ".join(member.name.lower() for member in enum_type)
    raise RetrievalConfigError(f"{key}: {value!r} is not one of {choices}")


def _source_tuple(value: object, key: str = "sources") -> tuple[str, ...]:
    if isinstance(value, str):
        names: tuple[object, ...] = (value,)
    elif isinstance(value, Iterable):
        names = tuple(value)
    else:
        raise RetrievalConfigError(f"{key}: expected a source name or a list of them, got {type(value).__name__}")
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise RetrievalConfigError(f"{key}: every source name must be a non-blank string, got {name!r}")
    return tuple(dict.fromkeys(name for name in names if isinstance(name, str)))


def _int(value: object, key: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RetrievalConfigError(f"{key}: expected a whole number, got {value!r}")
    if value < minimum:
        raise RetrievalConfigError(f"{key}: must be at least {minimum}, got {value}")
    return value


def _alpha(value: object, key: str) -> float:
    try:
        return check_alpha(value)
    except TypeError:
        raise RetrievalConfigError(f"{key}: expected a number in (0, 1], got {value!r}") from None
    except ValueError:
        raise RetrievalConfigError(f"{key}: must be in (0, 1] (above 0, at most 1), got {value!r}") from None


def _str(value: object, key: str) -> str:
    if not isinstance(value, str):
        raise RetrievalConfigError(f"{key}: expected a string, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class RetrievalConfig:
    """How a role retrieves: strategy, sources, navigator model, bounds, failure policy and walk policy.

    Values are checked when built: ``sources`` may be one name or several,
    enums may be given as case-insensitive names, and a bound out of range
    is a :class:`RetrievalConfigError` (a ``ValueError``), as is an
    ``alpha`` outside (0, 1] or not a number. A blank ``navigator_model`` is
    allowed here and refused (``ValueError``) when a strategy is made from it.
    ``alpha`` is kept whatever the ``policy``; only a best-first walk uses it.
    """

    strategy: Strategy = Strategy.REASONING
    sources: tuple[str, ...] = ()
    navigator_model: str = ""
    query_param: str = "query"
    max_nodes_visited: int = 15
    max_depth: int = 6
    on_failure: OnFailure = OnFailure.THROW
    policy: Policy = Policy.DEPTH_FIRST
    alpha: float = DEFAULT_ALPHA

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        set_(self, "strategy", parse_enum(Strategy, self.strategy, "strategy"))
        set_(self, "sources", _source_tuple(self.sources))
        set_(self, "navigator_model", _str(self.navigator_model, "navigator_model"))
        set_(self, "query_param", _str(self.query_param, "query_param"))
        set_(self, "max_nodes_visited", _int(self.max_nodes_visited, "max_nodes_visited", 1))
        set_(self, "max_depth", _int(self.max_depth, "max_depth", 0))
        set_(self, "on_failure", parse_enum(OnFailure, self.on_failure, "on_failure"))
        set_(self, "policy", parse_enum(Policy, self.policy, "policy"))
        set_(self, "alpha", _alpha(self.alpha, "alpha"))

    @staticmethod
    def builder() -> RetrievalConfigBuilder:
        """A fluent builder: ``RetrievalConfig.builder().navigator_model("m").sources("a").build()``."""
        return RetrievalConfigBuilder()

    @classmethod
    def from_mapping(cls, mapping: Mapping[str, Any]) -> RetrievalConfig:
        """A config from a mapping read from YAML or JSON (snake_case keys).

        An unknown key is a :class:`RetrievalConfigError` that names it (and
        the nearest known key); missing keys take their defaults.
        """
        if not isinstance(mapping, Mapping):
            raise RetrievalConfigError(f"a retrieval config must be a mapping, got {type(mapping).__name__}")
        known = [f.name for f in fields(cls)]
        for key in mapping:
            if key not in known:
                near = difflib.get_close_matches(str(key), known, n=1)
                hint = f"; did you mean {near[0]!r}?" if near else f"; known keys: {', '.join(known)}"
                raise RetrievalConfigError(f"unknown retrieval config key {key!r}{hint}")
        return cls(**dict(mapping))

    def to_mapping(self) -> dict[str, Any]:
        """The config as plain values (enum values as strings), readable by :meth:`from_mapping`."""
        return {
            "strategy": self.strategy.value,
            "sources": list(self.sources),
            "navigator_model": self.navigator_model,
            "query_param": self.query_param,
            "max_nodes_visited": self.max_nodes_visited,
            "max_depth": self.max_depth,
            "on_failure": self.on_failure.value,
            "policy": self.policy.value,
            "alpha": self.alpha,
        }


class RetrievalConfigBuilder:
    """Fluent construction of a :class:`RetrievalConfig`; every setter returns the builder."""

    def __init__(self) -> None:
        self._values: dict[str, Any] = {}

    def strategy(self, strategy: Strategy | str) -> RetrievalConfigBuilder:
        self._values["strategy"] = strategy
        return self

    def sources(self, *names: str) -> RetrievalConfigBuilder:
        self._values["sources"] = names
        return self

    def navigator_model(self, model: str) -> RetrievalConfigBuilder:
        self._values["navigator_model"] = model
        return self

    def query_param(self, name: str) -> RetrievalConfigBuilder:
        self._values["query_param"] = name
        return self

    def max_nodes_visited(self, count: int) -> RetrievalConfigBuilder:
        self._values["max_nodes_visited"] = count
        return self

    def max_depth(self, depth: int) -> RetrievalConfigBuilder:
        self._values["max_depth"] = depth
        return self

    def on_failure(self, policy: OnFailure | str) -> RetrievalConfigBuilder:
        self._values["on_failure"] = policy
        return self

    def policy(self, policy: Policy | str) -> RetrievalConfigBuilder:
        self._values["policy"] = policy
        return self

    def alpha(self, alpha: float) -> RetrievalConfigBuilder:
        self._values["alpha"] = alpha
        return self

    def build(self) -> RetrievalConfig:
        """The config; raises :class:`RetrievalConfigError` for a value out of range."""
        return RetrievalConfig(**self._values)
