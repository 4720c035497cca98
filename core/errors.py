"""The exceptions of the retrieval runtime."""

from __future__ import annotations


class HierarchyError(ValueError):
    """The documents do not form a valid hierarchy; the message names the offending ids."""


class RetrievalError(RuntimeError):
    """A navigator failed while choosing and the failure policy is ``OnFailure.THROW``.

    The provider's exception is the ``__cause__``.
    """


class RetrievalConfigError(ValueError):
    """A retrieval is configured wrongly (unknown key, missing hierarchy, unsupported strategy)."""


class TreeNavigatorError(LookupError):
    """No navigator, several navigators, or a broken navigator for a model id."""


class RetrievalCancelled(Exception):
    """The walk's cancellation token was tripped.

    Not a :class:`RetrievalError`: cancellation is never a retrieval failure and
    never follows the failure policy.
    """

    def __init__(self, message: str = "retrieval cancelled") -> None:
        super().__init__(message)
