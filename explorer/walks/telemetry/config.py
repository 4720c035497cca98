"""Where a walk's spans go, as the command line gives it: the collector's address, checked, as its traces URL.

``--otlp-endpoint``, or the ``REASONING_EXPLORER_OTLP_ENDPOINT`` variable
(:data:`ENDPOINT_ENV`); ``/v1/traces`` is added unless given. An address or
a file that cannot be used is a :class:`TelemetryConfigError`: one line
saying what to give instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import urlsplit, urlunsplit

from ...numbers import whole
from ...safe_text import visible

__all__ = ["ATTRIBUTE_LENGTH", "ATTRIBUTE_LENGTH_ENV", "ENDPOINT_ENV", "EXPORT_TIMEOUT_SECONDS",
           "SPAN_ATTRIBUTE_LENGTH_ENV", "TRACES_PATH", "TelemetryConfigError", "attribute_lengths", "shown_url",
           "traces_url"]

ENDPOINT_ENV = "REASONING_EXPLORER_OTLP_ENDPOINT"
TRACES_PATH = "/v1/traces"
EXPORT_TIMEOUT_SECONDS = 2.0
"""How long one walk's export may take, retries included, before the endpoint counts as failed."""
ATTRIBUTE_LENGTH = 32_768
"""The most characters an attribute's text keeps (each text of a list too), unless the variables below say."""
ATTRIBUTE_LENGTH_ENV = "OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT"
SPAN_ATTRIBUTE_LENGTH_ENV = "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT"
_LONGEST_LIMIT = 1_000_000_000


class TelemetryConfigError(ValueError):
    """An endpoint or file that cannot be used: one line saying what to give instead."""


def traces_url(endpoint: str, *, name: str = "--otlp-endpoint") -> str:
    """The OTLP/HTTP traces URL for ``endpoint``: ``/v1/traces`` added unless the path ends with it."""
    text = endpoint.strip()
    if visible(text) != text:  # no HTTP client sends it; and shown raw, it would steer the terminal
        raise TelemetryConfigError(f"{name} '{visible(text)}' holds a control or invisible character; give the "
                                   "collector's plain OTLP/HTTP address")
    try:
        parts = urlsplit(text)
    except ValueError:  # e.g. an unclosed IPv6 bracket, ``http://[::1``
        parts = urlsplit("")
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise TelemetryConfigError(
            f"{name} {endpoint!r} is not an http(s) address; give the collector's OTLP/HTTP address, e.g. "
            "http://127.0.0.1:6006 (Phoenix) or http://127.0.0.1:4318 (an OpenTelemetry collector)"
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError:
        raise TelemetryConfigError(f"{name} {endpoint!r} has a port that is not a number") from None
    path = parts.path.rstrip("/")
    if not path.endswith(TRACES_PATH):
        path += TRACES_PATH
    return urlunsplit((parts.scheme, parts.netloc, path, parts.query, ""))


def shown_url(url: str) -> str:
    """``url`` without any user or password in it, for messages."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def attribute_lengths(environ: Mapping[str, str]) -> tuple[int, int]:
    """The most characters an attribute's text keeps: on an event, and on a span. As the OpenTelemetry SDK reads
    them: ``OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`` for both, ``OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT`` for spans
    first; :data:`ATTRIBUTE_LENGTH` when neither is set (the SDK's own default is no limit, and a 1 MB query
    then makes megabytes of spans that collectors refuse)."""
    general = _length(environ, ATTRIBUTE_LENGTH_ENV, ATTRIBUTE_LENGTH)
    return general, _length(environ, SPAN_ATTRIBUTE_LENGTH_ENV, general)


def _length(environ: Mapping[str, str], name: str, default: int) -> int:
    text = environ.get(name, "")
    if not text.strip():
        return default
    try:
        return whole(text, 0, _LONGEST_LIMIT)
    except ValueError as exc:
        raise TelemetryConfigError(f"{name}: {visible(str(exc))}; give the most characters an attribute keeps, "
                                   f"e.g. {ATTRIBUTE_LENGTH} (the default)") from None
