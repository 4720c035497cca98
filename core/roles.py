"""Roles declared with decorators, and the binding that turns a role into a strategy."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, TypeVar

from .config import RetrievalConfig, Strategy
from .errors import HierarchyError, RetrievalConfigError
from .hierarchy import HierarchyIndex
from .policy import DEFAULT_ALPHA, OnFailure, Policy
from .registry import TreeNavigatorRegistry
from .walk import ReasoningRAGStrategy


class KnowledgeType(StrEnum):
    """Where a knowledge source's hierarchy comes from (loading it is the application's job)."""

    FILE = "file"
    DIRECTORY = "directory"
    URL = "url"


class ActionType(StrEnum):
    """What carries out a role's action."""

    LLM = "llm"
    TOOL = "tool"


@dataclass(frozen=True, slots=True)
class KnowledgeSource:
    """A named hierarchy a role may retrieve from."""

    name: str
    type: KnowledgeType = KnowledgeType.FILE
    path: str = ""


@dataclass(frozen=True, slots=True)
class ActionSpec:
    """An action a role's method performs."""

    name: str
    type: ActionType
    description: str


_OWN_SOURCES = "_role_own_knowledge_sources"
_RETRIEVAL = "_role_retrieval_config"
_ACTION = "__action_spec__"

R = TypeVar("R", bound=type["Role"])
F = TypeVar("F", bound=Callable[..., Any])


class Role:
    """Base class of declarative roles.

    Decorate a subclass with ``@knowledge_source`` (repeatable) and
    ``@retrieval``; decorate its methods with ``@action_spec``. A subclass
    inherits its bases' knowledge sources (its own come after them, in the
    order written) and its base's retrieval unless it declares its own.
    """

    @classmethod
    def knowledge_sources(cls) -> tuple[KnowledgeSource, ...]:
        """Every knowledge source declared on this class and its bases, bases first."""
        found: list[KnowledgeSource] = []
        for klass in reversed(cls.__mro__):
            found.extend(klass.__dict__.get(_OWN_SOURCES, ()))
        return tuple(found)

    @classmethod
    def retrieval_config(cls) -> RetrievalConfig | None:
        """The ``@retrieval`` declared on this class or inherited, else ``None``."""
        config = getattr(cls, _RETRIEVAL, None)
        return config if isinstance(config, RetrievalConfig) else None

    @classmethod
    def actions(cls) -> dict[str, ActionSpec]:
        """The methods decorated with ``@action_spec``, by name."""
        found: dict[str, ActionSpec] = {}
        for klass in reversed(cls.__mro__):
            for name, member in klass.__dict__.items():
                spec = getattr(member, _ACTION, None)
                if isinstance(spec, ActionSpec):
                    found[name] = spec
        return found


def _require_role(target: object, decorator: str) -> type[Role]:
    if not (isinstance(target, type) and issubclass(target, Role)):
        raise TypeError(f"@{decorator} decorates Role subclasses, not {target!r}")
    return target


def knowledge_source(*, name: str, type: KnowledgeType = KnowledgeType.FILE, path: str = "") -> Callable[[R], R]:
    """Declare a knowledge source on a :class:`Role` subclass (repeatable; names must differ)."""
    if not isinstance(name, str) or not name.strip():
        raise ValueError(f"a knowledge source needs a non-blank name, got {name!r}")
    source = KnowledgeSource(name, KnowledgeType(type), path)

    def decorate(cls: R) -> R:
        role = _require_role(cls, "knowledge_source")
        if any(existing.name == name for existing in role.knowledge_sources()):
            raise ValueError(f"knowledge source {name!r} is declared twice on {role.__name__}")
        # Decorators apply bottom-up; prepend so the declared order reads top to bottom.
        own = (source, *role.__dict__.get(_OWN_SOURCES, ()))
        setattr(role, _OWN_SOURCES, own)
        return cls

    return decorate


def retrieval(
    *,
    strategy: Strategy = Strategy.REASONING,
    sources: str | Iterable[str] = (),
    navigator_model: str = "",
    query_param: str = "query",
    max_nodes_visited: int = 15,
    max_depth: int = 6,
    on_failure: OnFailure = OnFailure.THROW,
    policy: Policy = Policy.DEPTH_FIRST,
    alpha: float = DEFAULT_ALPHA,
) -> Callable[[R], R]:
    """Declare how a :class:`Role` subclass retrieves; ``sources`` takes a name or several.

    The values are checked at once, as :class:`RetrievalConfig` checks them
    (enums may be given as case-insensitive names; a bad value is a
    :class:`RetrievalConfigError`).
    """
    config = RetrievalConfig(
        strategy=strategy,
        sources=tuple(sources) if not isinstance(sources, str) else (sources,),
        navigator_model=navigator_model,
        query_param=query_param,
        max_nodes_visited=max_nodes_visited,
        max_depth=max_depth,
        on_failure=on_failure,
        policy=policy,
        alpha=alpha,
    )

    def decorate(cls: R) -> R:
        setattr(_require_role(cls, "retrieval"), _RETRIEVAL, config)
        return cls

    return decorate


def action_spec(*, type: ActionType = ActionType.LLM, description: str = "") -> Callable[[F], F]:
    """Declare a method of a :class:`Role` as an action."""

    def decorate(method: F) -> F:
        if not callable(method):
            raise TypeError(f"@action_spec decorates methods, not {method!r}")
        setattr(method, _ACTION, ActionSpec(getattr(method, "__name__", "action"), ActionType(type), description))
        return method

    return decorate


class RoleRagBinding:
    """Turns a role (or a bare config) and its loaded hierarchies into a ready strategy."""

    @classmethod
    def strategy_for(
        cls,
        target: type[Role] | Role | RetrievalConfig,
        indexes: Mapping[str, HierarchyIndex],
        *,
        registry: TreeNavigatorRegistry | None = None,
    ) -> ReasoningRAGStrategy:
        """Check the configuration and resolve the navigator, before any walk.

        Raises :class:`RetrievalConfigError` for a role without ``@retrieval``,
        a strategy other than ``REASONING``, no declared source, a source a
        role did not declare with ``@knowledge_source``, a declared source with
        no index in ``indexes``, or a node id found in two of them;
        ``ValueError`` for a blank navigator model; ``TreeNavigatorError`` when
        no provider, or more than one, supports the model. The strategy's roots
        are those of the declared sources, in the order they are declared.
        """
        config, declared = cls._config_of(target)
        if config.strategy is not Strategy.REASONING:
            raise RetrievalConfigError(
                f"strategy {config.strategy.name} is not supported here; only REASONING is implemented"
            )
        if not config.navigator_model.strip():
            raise ValueError("the navigator model is blank; set navigator_model, e.g. 'lexical:default'")
        if not config.sources:
            raise RetrievalConfigError("the retrieval declares no sources; name at least one")
        if declared is not None:
            undeclared = [name for name in config.sources if name not in declared]
            if undeclared:
                raise RetrievalConfigError(
                    f"retrieval source(s) {', '.join(map(repr, undeclared))} not declared with "
                    f"@knowledge_source; declared: {', '.join(map(repr, declared)) or 'none'}"
                )
        missing = [name for name in config.sources if name not in indexes]
        if missing:
            raise RetrievalConfigError(
                f"no hierarchy loaded for source(s) {', '.join(map(repr, missing))}; "
                f"loaded: {', '.join(map(repr, indexes)) or 'none'}"
            )
        chosen = [indexes[name] for name in config.sources]
        try:
            index = chosen[0] if len(chosen) == 1 else HierarchyIndex.merge(chosen)
        except HierarchyError as exc:
            raise RetrievalConfigError(f"cannot merge the sources' hierarchies: {exc}") from exc
        navigator = (registry or TreeNavigatorRegistry()).resolve(config.navigator_model)
        return ReasoningRAGStrategy(
            index,
            navigator,
            config.navigator_model,
            max_nodes_visited=config.max_nodes_visited,
            max_depth=config.max_depth,
            on_failure=config.on_failure,
            policy=config.policy,
            alpha=config.alpha,
        )

    @staticmethod
    def _config_of(target: object) -> tuple[RetrievalConfig, tuple[str, ...] | None]:
        if isinstance(target, RetrievalConfig):
            return target, None
        role = type(target) if isinstance(target, Role) else target
        if not (isinstance(role, type) and issubclass(role, Role)):
            raise TypeError(f"expected a Role subclass or instance, or a RetrievalConfig, not {target!r}")
        config = role.retrieval_config()
        if config is None:
            raise RetrievalConfigError(f"{role.__name__} has no @retrieval declaration")
        return config, tuple(source.name for source in role.knowledge_sources())
