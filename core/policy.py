"""Walk policies: in what order a walk takes its branches, and what it does when its navigator fails."""

from __future__ import annotations

from enum import StrEnum
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
