"""Building frozen slots dataclasses without paying for the frozen guard.

A ``@dataclass(frozen=True, slots=True)`` instance is built by an ``__init__``
that sets each field through ``object.__setattr__`` (the class's own
``__setattr__`` refuses). That costs about 100 ns a field: most of what a
walk spends on its events. :func:`fast_constructor` builds the same objects
through a mutable twin class with the same slots (plain attribute stores)
whose ``__post_init__`` gives the instance its real class: the result is an
ordinary, frozen instance of the dataclass, equal to one built by its
constructor (about a third of the cost).

Only for the runtime's own objects, whose field values it has checked or made
itself: the fast constructor runs no ``__post_init__`` and no default
factories, so every field is passed, in declaration order. Not part of
``core``'s API (``core.__all__``); public as a module so a test can hold what
it builds to what the dataclass's own constructor builds.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A function taking every field of the frozen slots dataclass ``cls`` positionally, returning a ``cls``.

    Raises ``TypeError`` at once when ``cls`` is not a slots dataclass (its
    instances could not take the twin's layout).
    """
    if not dataclasses.is_dataclass(cls) or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__} is not a slots dataclass")
    names = [field.name for field in dataclasses.fields(cls)]
    if tuple(names) != tuple(cls.__dict__["__slots__"]):
        raise TypeError(f"{cls.__name__}'s slots {cls.__dict__['__slots__']} are not its fields {names}")

    def adopt(self: object) -> None:
        self.__class__ = cls  # same slots, same order: CPython allows it, and the instance is now a cls

    twin: Any = dataclasses.make_dataclass(
        f"_{cls.__name__}Fields", names, slots=True, eq=False, repr=False, match_args=False,
        namespace={"__post_init__": adopt},
    )
    twin(*names)  # fail here, on import, not on the first walk, if the layouts ever differ
    constructor: Callable[..., T] = twin  # calling the twin returns a cls (its __post_init__ adopted it)
    return constructor
