"""What a walk does when its navigator fails."""

from __future__ import annotations

from enum import StrEnum


class OnFailure(StrEnum):
    """The failure policy, applied only to exceptions a provider raises while choosing
    (or to a malformed answer), never to configuration errors or cancellation."""

    THROW = "throw"
    """Raise :class:`RetrievalError` from the provider's exception."""
    EMPTY = "empty"
    """End the walk and return no documents."""
    PARTIAL = "partial"
    """Land the current node with ``NAVIGATOR_FAILED`` (nothing at the start) and go on."""
