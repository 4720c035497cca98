"""The one ``Retry-After`` parser: a number of seconds or an HTTP date, as seconds to wait from now.

RFC 9110 (10.2.3) allows ``delay-seconds`` (digits) or an ``HTTP-date``. A fraction (``2.5``) is read too, as
servers send it; anything else is unreadable and gives ``None``: a sign, an exponent, ``inf``, ``nan``, words,
an empty value. A date already past is 0. A wait too long to mean anything (more digits than a float holds, a
date in the year 9999) is read as :data:`LONGEST` seconds, as RFC 9111 (1.2.2) has caches read a delta-seconds
too large to represent: a finite figure that every caller's cap and deadline still bound, and that a message can
print.
"""

from __future__ import annotations

import re
import time
from datetime import UTC
from email.utils import parsedate_to_datetime
from typing import Final

__all__ = ["LONGEST", "parse_retry_after"]

LONGEST: Final = 2.0**31
"""The longest wait a ``Retry-After`` is read as (about 68 years), in seconds."""
_SECONDS = re.compile(r"[0-9]+(?:\.[0-9]+)?")


def parse_retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait that ``value`` (a ``Retry-After`` header) asks for, ``None`` when absent or unreadable.

    ``now`` (seconds since the epoch, default: the clock) is what an HTTP date is counted from.
    """
    if value is None:
        return None
    text = value.strip()
    if _SECONDS.fullmatch(text):
        return min(float(text), LONGEST)
    if not any(c.isalpha() for c in text):  # "Wed, 21 Oct 2015 07:28:00 GMT" has a day and a month
        return None
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if when.tzinfo is None:  # "-0000": an HTTP date is always in GMT
        when = when.replace(tzinfo=UTC)
    try:
        at = when.timestamp()
    except (OverflowError, OSError, ValueError):
        return LONGEST
    return min(max(at - (time.time() if now is None else now), 0.0), LONGEST)
