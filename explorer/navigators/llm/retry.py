"""The LLM client's retry limits, for the one policy of :mod:`explorer.http`: 429 and 5xx are retried up to
``max_retries`` times, after the server's ``Retry-After`` or ``backoff`` doubled at each retry, every wait capped
at :data:`MAX_RETRY_DELAY` seconds, all within the call's deadline (``REASONING_EXPLORER_CALL_DEADLINE``)."""

from __future__ import annotations

from typing import Final

from ...http import RetryPolicy

__all__ = ["MAX_RETRY_DELAY", "RETRIED", "retry_policy"]

MAX_RETRY_DELAY: Final = 30.0
RETRIED: Final = frozenset({429, *range(500, 1000)})
"""Rate limits and server trouble: answers that may succeed if asked again (statuses have three digits)."""


def retry_policy(max_retries: int, backoff: float) -> RetryPolicy:
    """The policy of one chat completions call: ``max_retries`` retries of a 429 or 5xx answer."""
    return RetryPolicy(RETRIED, max_retries, backoff, MAX_RETRY_DELAY)
