"""Cooperative cancellation of a walk."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import ClassVar

from .errors import RetrievalCancelled


class CancellationToken:
    """A flag that one thread trips and the walk (and its navigator) checks.

    ``cancel()`` is thread-safe and idempotent. ``CancellationToken.none()`` is
    a shared token that is never cancelled: its ``cancel()`` does nothing, so
    one caller can never cancel another caller's walks through it.
    """

    __slots__ = ("_event", "_inert")

    _NONE: ClassVar[CancellationToken | None] = None

    def __init__(self) -> None:
        self._event = threading.Event()
        self._inert = False

    @classmethod
    def none(cls) -> CancellationToken:
        """The token that is never cancelled."""
        if cls._NONE is None:
            token = cls()
            token._inert = True
            cls._NONE = token
        return cls._NONE

    def cancel(self) -> None:
        """Trip the token (does nothing on ``CancellationToken.none()``)."""
        if not self._inert:
            self._event.set()

    @property
    def cancelled(self) -> bool:
        """Whether the token has been tripped."""
        return self._event.is_set()

    @property
    def probe(self) -> Callable[[], bool]:
        """A function of no argument that tells whether the token has been tripped.

        The same answer as :attr:`cancelled`, for a loop that checks the token
        at every step: fetch it once, then each check is a single call.
        """
        return self._event.is_set

    def raise_if_cancelled(self) -> None:
        """Raise :class:`RetrievalCancelled` when the token has been tripped."""
        if self._event.is_set():
            raise RetrievalCancelled()

    def wait(self, timeout: float | None = None) -> bool:
        """Block until the token is tripped or ``timeout`` seconds pass; return whether it was tripped.

        Providers that sleep or poll use this instead of ``time.sleep`` so that
        a cancel wakes them at once.
        """
        if self._inert:
            if timeout is None:
                raise ValueError("waiting without a timeout on CancellationToken.none() never returns")
            threading.Event().wait(timeout)
            return False
        return self._event.wait(timeout)

    def __repr__(self) -> str:
        if self._inert:
            return "CancellationToken.none()"
        return f"CancellationToken(cancelled={self.cancelled})"
