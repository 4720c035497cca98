"""HTTP calls as the LLM client and the OTLP exporter both make them: one deadline for a whole call, one retry
policy and the loop that follows it, one ``Retry-After`` parser.

Each user passes its own limits (which statuses are retried, how many retries, the backoff, the cap on a wait,
the deadline) and keeps its own client and messages: ``navigators/llm/`` an ``httpx.AsyncClient`` on a thread of
its own, ``walks/telemetry/otlp_http.py`` an ``httpx.Client`` with a watchdog. Nothing here imports httpx, so the
exporter still loads it only at its first send.
"""

from .deadline import Deadline
from .retry import Outcome, Retried, RetryPolicy, Stop, with_retries
from .retry_after import LONGEST, parse_retry_after

__all__ = ["LONGEST", "Deadline", "Outcome", "Retried", "RetryPolicy", "Stop", "parse_retry_after", "with_retries"]
