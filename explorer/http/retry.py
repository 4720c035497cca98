"""The one retry policy, and the one loop that follows it under one :class:`~.deadline.Deadline`.

A call is made of attempts. An answer whose status the policy retries is followed by another attempt, after
the wait its ``Retry-After`` asks for (:func:`~.retry_after.parse_retry_after`) or else the backoff, doubled at
each retry; every wait is capped at ``max_delay``. The loop stops at an answer that is not retried, after
``max_retries`` retries, or when the wait would pass the deadline: a wait is never begun that the deadline
would cut short. Each user keeps its own limits (which statuses, how many retries, the backoff, the cap, the
deadline) and passes them in; the loop decides nothing else.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Container
from dataclasses import dataclass
from enum import Enum
from typing import Generic, Protocol, TypeVar

from .deadline import Deadline
from .retry_after import parse_retry_after

__all__ = ["Outcome", "Retried", "RetryPolicy", "Stop", "with_retries"]


class Outcome(Protocol):
    """What the loop reads of what one attempt came to: its HTTP status (``None``: no answer) and ``Retry-After``."""

    @property
    def status(self) -> int | None: ...

    @property
    def retry_after(self) -> str | None: ...


A = TypeVar("A", bound=Outcome)


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """Retry an answer whose status is in ``retried``, at most ``max_retries`` times (``None``: while the deadline
    allows), waiting ``backoff * 2**(n-1)`` before retry ``n`` or what its ``Retry-After`` asks, never over
    ``max_delay`` seconds."""

    retried: Container[int]
    max_retries: int | None
    backoff: float
    max_delay: float = math.inf

    @property
    def attempts(self) -> int | None:
        """The most requests one call makes (``None``: no limit but the deadline)."""
        return None if self.max_retries is None else self.max_retries + 1

    def retryable(self, status: int | None) -> bool:
        """Whether an answer with this status may succeed if asked again."""
        return status is not None and status in self.retried

    def should_retry(self, status: int | None, attempt: int) -> bool:
        """Whether attempt number ``attempt`` (1-based), answered with ``status``, is followed by another."""
        attempts = self.attempts
        return self.retryable(status) and (attempts is None or attempt < attempts)

    def delay(self, retry: int, retry_after: str | None = None, *, now: float | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based), given the answer's ``Retry-After`` header.

        A readable ``Retry-After`` wins over the backoff; an unreadable one is ignored. ``now`` (seconds since
        the epoch) is for tests of the date form.
        """
        return self.delay_for(retry, parse_retry_after(retry_after, now))

    def delay_for(self, retry: int, asked: float | None) -> float:
        """Seconds to wait before retry number ``retry``: ``asked`` (a parsed ``Retry-After``), else the backoff."""
        wait = asked if asked is not None else self.backoff * 2.0 ** (retry - 1)
        return min(wait, self.max_delay)


class Stop(Enum):
    """Why a call's attempts ended."""

    ANSWERED = "answered"
    """The last answer is not one to retry: a success, or a refusal that asking again will not change."""
    ATTEMPTS = "attempts"
    """The last answer asked for a retry, but the policy's retries were all made."""
    DEADLINE = "deadline"
    """The last answer asked for a retry, but waiting for it would pass the deadline."""


@dataclass(frozen=True, slots=True)
class Retried(Generic[A]):
    """How a call went: its last answer, the attempts made, why they stopped, and (for :attr:`Stop.DEADLINE`)
    the wait that would have passed the deadline."""

    answer: A
    attempts: int
    stop: Stop
    asked: float | None = None
    """The last answer's ``Retry-After`` in seconds, ``None`` when it gave none that could be read."""
    wait: float | None = None


def _sleep(answer: object, retry: int, delay: float) -> None:
    time.sleep(delay)


def with_retries(
    attempt: Callable[[int], A],
    policy: RetryPolicy,
    deadline: Deadline,
    *,
    before_retry: Callable[[A, int, float], None] = _sleep,
) -> Retried[A]:
    """Make ``attempt(n)`` (``n`` from 1) until ``policy`` or ``deadline`` says stop.

    ``attempt`` holds its own request to ``deadline.left()`` and raises what cannot be an answer (a cancel, a
    failed connection), which ends the call. ``before_retry(answer, n, delay)`` is called before retry ``n`` and
    waits ``delay`` seconds (default: sleeps); it may raise to end the call, e.g. on a cancel.
    """
    tries = 0
    while True:
        tries += 1
        answer = attempt(tries)
        if not policy.retryable(answer.status):
            return Retried(answer, tries, Stop.ANSWERED)
        asked = parse_retry_after(answer.retry_after)
        if not policy.should_retry(answer.status, tries):
            return Retried(answer, tries, Stop.ATTEMPTS, asked)
        delay = policy.delay_for(tries, asked)
        if delay >= deadline.left():
            return Retried(answer, tries, Stop.DEADLINE, asked, delay)
        before_retry(answer, tries, delay)
