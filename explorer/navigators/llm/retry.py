"""Which HTTP answers are worth another attempt, and how long to wait first.

A small policy, kept apart so it can be tested without a server: 429 and 5xx are retried up to
``max_retries`` times; the wait is the server's ``Retry-After`` (seconds or an HTTP date) when
it gives one, else ``backoff`` doubled at each retry; every wait is capped.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime
from typing import Final

MAX_RETRY_DELAY: Final = 30.0


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """``max_retries`` retries of a 429 or 5xx answer, waiting ``backoff * 2**(n-1)`` or what the server asks."""

    max_retries: int
    backoff: float
    max_delay: float = MAX_RETRY_DELAY

    @property
    def attempts(self) -> int:
        """The most requests one call makes."""
        return self.max_retries + 1

    @staticmethod
    def retryable(status: int) -> bool:
        """Whether an answer with this status may succeed if asked again (rate limits, server trouble)."""
        return status == 429 or status >= 500

    def should_retry(self, status: int, attempt: int) -> bool:
        """Whether attempt number ``attempt`` (1-based), answered with ``status``, is followed by another."""
        return self.retryable(status) and attempt < self.attempts

    def delay(self, retry: int, retry_after: str | None = None, *, now: datetime | None = None) -> float:
        """Seconds to wait before retry number ``retry`` (1-based).

        A ``Retry-After`` of seconds or an HTTP date wins over the backoff; one that is neither
        (or negative) is ignored. ``now`` is for tests of the date form.
        """
        asked = _retry_after_seconds(retry_after, now) if retry_after is not None else None
        wait = asked if asked is not None else self.backoff * 2.0 ** (retry - 1)
        return min(wait, self.max_delay)


def _retry_after_seconds(value: str, now: datetime | None) -> float | None:
    text = value.strip()
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if math.isfinite(seconds):
        return seconds if seconds >= 0 else None
    if any(c.isalpha() for c in text):  # "Wed, 21 Oct 2015 07:28:00 GMT"
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        return max(0.0, (when - (now or datetime.now(UTC))).total_seconds())
    return None
