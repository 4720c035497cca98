"""Walk policies: in what order a walk takes its branches, and what it does when its navigator fails."""

from __future__ import annotations

import math
from enum import StrEnum
from numbers import Real
from typing import Final


class OnFailure(StrEnum):
    """The failure policy, applied only to exceptions a provider raises while choosing
    (or to a malformed answer), never to configuration errors or cancellation."""

    THROW = "throw"
    """Raise :class:`RetrievalError` from the provider's exception."""
    EMPTY = "empty"
    """End the walk and return no documents."""
    PARTIAL = "partial"
    """Land the current node with ``NAVIGATOR_FAILED`` (nothing at the start) and go on."""


class Policy(StrEnum):
    """The order in which a walk enters the branches its navigator chose."""

    DEPTH_FIRST = "depth_first"
    """A branch and everything under it finishes before the next one starts, in the navigator's order."""
    BEST_FIRST = "best_first"
    """A frontier ordered by path score: the best-scored node waiting anywhere in the tree is entered next."""


DEFAULT_ALPHA: Final = 0.5
"""How much a node's own score weighs in its path score under ``Policy.BEST_FIRST`` (the rest is its parent's)."""


def check_alpha(value: object) -> float:
    """``value`` as a float in (0, 1], the range of a best-first walk's ``alpha``.

    Raises ``TypeError`` for anything that is not a real number (a ``bool``
    included: ``True`` is more likely a mistake than a weight of 1) and
    ``ValueError`` for a number outside (0, 1], NaN included.
    """
    if type(value) is float and 0.0 < value <= 1.0:  # the usual case, without the ABC check (once per strategy)
        return value
    if isinstance(value, bool) or not isinstance(value, Real):
        raise TypeError(f"alpha must be a number in (0, 1], not {type(value).__name__}")
    try:
        alpha = float(value)
    except OverflowError:  # an int too large for a float is far above 1
        alpha = math.inf
    if not 0.0 < alpha <= 1.0:  # also false for NaN
        raise ValueError(f"alpha must be in (0, 1] (above 0, at most 1), got {value!r}")
    return alpha
