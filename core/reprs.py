"""A dataclass repr that keeps later, optional fields out of sight while they hold their defaults.

Walk policies added fields to records that existed before them (a best-first
walk's frontier and path scores, a navigator's scores, the policy and
``alpha`` of a walk). A depth-first walk leaves them at their defaults, and
its records must read exactly as they did before: the same equality, the same
serialised fields and the same repr. :func:`quiet_repr` gives that repr.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any


def quiet_repr(
    obj: Any, quiet: tuple[str, ...], *computed: tuple[str, Callable[[], Any]], hide: tuple[str, ...] = ()
) -> str:
    """The dataclass repr of ``obj``, leaving out the fields named in ``quiet`` while all of them hold their defaults.

    The quiet fields come and go together: once one differs from its default,
    every field is shown, as the generated repr would show it (a field with
    ``repr=False`` never is), followed by each of ``computed``: a name and
    what it reads (a property, such as a best-first event's ``frontier``).
    The fields named in ``hide`` are never shown.
    """
    fields = dataclasses.fields(obj)
    hidden = all(getattr(obj, f.name) is f.default or getattr(obj, f.name) == f.default
                 for f in fields if f.name in quiet)
    parts = [f"{f.name}={getattr(obj, f.name)!r}" for f in fields
             if f.repr and not (hidden and f.name in quiet) and f.name not in hide]
    if not hidden:
        parts.extend(f"{name}={read()!r}" for name, read in computed)
    return f"{type(obj).__qualname__}({', '.join(parts)})"
