"""What one call of the LLM navigator needs, read from the model id and the environment.

Nothing is configured on the navigator itself: :func:`settings_for` is called at every
``choose``, so a change of environment applies to the next call.

Environment:

``OPENAI_API_KEY``
    Sent as ``Authorization: Bearer ...`` for ``openai:`` models, where it is required. Never
    sent for ``ollama:`` models (a local Ollama needs none, and an OpenAI key must not leak to
    another server). Never logged, never in a message or a transcript.
``OPENAI_BASE_URL``
    Base URL for ``openai:`` models (default ``https://api.openai.com/v1``).
``OLLAMA_BASE_URL``
    Base URL for ``ollama:`` models (default ``http://localhost:11434/v1``).
``REASONING_EXPLORER_CONNECT_TIMEOUT`` / ``REASONING_EXPLORER_READ_TIMEOUT``
    Seconds to connect (default 10) and to wait for the next piece of data (default 60).
``REASONING_EXPLORER_CALL_DEADLINE``
    Seconds one call may take as a whole, retries and their waits included (default 120): a
    server that drips its answer slowly enough never trips the read timeout, but trips this.
``REASONING_EXPLORER_MAX_ANSWER_BYTES``
    The largest answer body read, counted after decompression (default 1000000).
``REASONING_EXPLORER_MAX_RETRIES``
    How many times a 429 or 5xx answer is retried (default 3, so at most 4 requests).
``REASONING_EXPLORER_RETRY_BACKOFF``
    The first delay before a retry, in seconds, doubled at each retry (default 0.5). A
    ``Retry-After`` from the server replaces it. Every delay is capped at 30 s.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from ...masking import Secrets
from .errors import NavigatorHTTPError

OPENAI_API_KEY_ENV: Final = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV: Final = "OPENAI_BASE_URL"
OLLAMA_BASE_URL_ENV: Final = "OLLAMA_BASE_URL"
CONNECT_TIMEOUT_ENV: Final = "REASONING_EXPLORER_CONNECT_TIMEOUT"
READ_TIMEOUT_ENV: Final = "REASONING_EXPLORER_READ_TIMEOUT"
CALL_DEADLINE_ENV: Final = "REASONING_EXPLORER_CALL_DEADLINE"
MAX_ANSWER_BYTES_ENV: Final = "REASONING_EXPLORER_MAX_ANSWER_BYTES"
MAX_RETRIES_ENV: Final = "REASONING_EXPLORER_MAX_RETRIES"
RETRY_BACKOFF_ENV: Final = "REASONING_EXPLORER_RETRY_BACKOFF"

OPENAI_DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
OLLAMA_DEFAULT_BASE_URL: Final = "http://localhost:11434/v1"

DEFAULT_CONNECT_TIMEOUT: Final = 10.0
DEFAULT_READ_TIMEOUT: Final = 60.0
DEFAULT_CALL_DEADLINE: Final = 120.0
DEFAULT_MAX_ANSWER_BYTES: Final = 1_000_000
DEFAULT_MAX_RETRIES: Final = 3
DEFAULT_BACKOFF: Final = 0.5

_PROVIDERS: Final = ("openai", "ollama")


class Secret:
    """The API key, wrapped so that no repr shows it.

    Debuggers and rich tracebacks (Textual shows locals on a crash) print the locals of every
    frame; the key only ever lives in this wrapper and is revealed inside the header expression.
    """

    __slots__ = ("_value",)

    def __init__(self, value: str) -> None:
        self._value = value

    def reveal(self) -> str:
        """The key itself, for the Authorization header only."""
        return self._value

    def scrub(self, text: str) -> str:
        """``text`` with every occurrence of the key replaced by ``***`` (:class:`~explorer.masking.Secrets`: a
        key shorter than eight characters is a placeholder, ``x`` for a local server, and is left alone)."""
        return Secrets((self._value,)).mask(text)

    def __repr__(self) -> str:
        return "<secret>"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class Settings:
    """Everything one ``choose`` call needs, read from the model id and the environment."""

    provider: str
    model: str
    url: str
    base_url_env: str
    api_key: Secret | None = field(repr=False)
    connect_timeout: float = DEFAULT_CONNECT_TIMEOUT
    read_timeout: float = DEFAULT_READ_TIMEOUT
    call_deadline: float = DEFAULT_CALL_DEADLINE
    max_answer_bytes: int = DEFAULT_MAX_ANSWER_BYTES
    max_retries: int = DEFAULT_MAX_RETRIES
    backoff: float = DEFAULT_BACKOFF

    @property
    def shown_url(self) -> str:
        """The endpoint for messages and logs: without any ``user:password@`` part."""
        return _without_credentials(self.url)

    @property
    def running_hint(self) -> str:
        """What to check when the server cannot be reached."""
        return "that Ollama is running (ollama serve)" if self.provider == "ollama" else "that the server is up"

    def headers(self) -> dict[str, str]:
        """The request's headers; the only place the key leaves its wrapper."""
        headers = {"Accept": "application/json", "User-Agent": "reasoning-explorer"}
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.reveal()}"
        return headers

    def scrub(self, text: str) -> str:
        """Server- or model-supplied text made safe to show: the key, if echoed back, replaced by ``***``."""
        return text if self.api_key is None else self.api_key.scrub(text)


def split_model(model: object) -> tuple[str, str] | None:
    """``("openai", "gpt-4o-mini")`` for ``"openai:gpt-4o-mini"``; ``None`` for a model id not ours."""
    if not isinstance(model, str):
        return None
    provider, colon, name = model.partition(":")
    if not colon or provider not in _PROVIDERS or not name.strip():
        return None
    return provider, name.strip()


def settings_for(model: str) -> Settings:
    """Read the settings for ``model`` from the environment; raise :class:`NavigatorHTTPError` on a bad value."""
    split = split_model(model)
    if split is None:
        raise NavigatorHTTPError(f"model {model!r} is not 'openai:MODEL' or 'ollama:MODEL'")
    provider, name = split
    if provider == "openai":
        env_name, default = OPENAI_BASE_URL_ENV, OPENAI_DEFAULT_BASE_URL
    else:
        env_name, default = OLLAMA_BASE_URL_ENV, OLLAMA_DEFAULT_BASE_URL
    base = _base_url(env_name, default)
    connect_timeout = _env_seconds(CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_TIMEOUT)
    read_timeout = _env_seconds(READ_TIMEOUT_ENV, DEFAULT_READ_TIMEOUT)
    call_deadline = _env_seconds(CALL_DEADLINE_ENV, DEFAULT_CALL_DEADLINE)
    max_answer_bytes = _env_count(MAX_ANSWER_BYTES_ENV, DEFAULT_MAX_ANSWER_BYTES, minimum=1)
    max_retries = _env_count(MAX_RETRIES_ENV, DEFAULT_MAX_RETRIES)
    backoff = _env_seconds(RETRY_BACKOFF_ENV, DEFAULT_BACKOFF, allow_zero=True)
    api_key: Secret | None = None
    if provider == "openai":
        # Wrapped straight from the environment, so no plain local ever holds it.
        api_key = Secret(os.environ.get(OPENAI_API_KEY_ENV, "").strip())
        if not api_key.reveal():
            raise NavigatorHTTPError(
                f"model {model!r} needs an API key: set {OPENAI_API_KEY_ENV} "
                "(any non-empty value for a server that needs none)"
            )
    return Settings(
        provider=provider,
        model=name,
        url=f"{base}/chat/completions",
        base_url_env=env_name,
        api_key=api_key,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        call_deadline=call_deadline,
        max_answer_bytes=max_answer_bytes,
        max_retries=max_retries,
        backoff=backoff,
    )


def _without_credentials(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an address that is not a URL)"
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _env(name: str) -> str | None:
    """The variable's value, or ``None`` when unset or blank (``VAR=`` in a shell means "not set")."""
    value = os.environ.get(name)
    return value.strip() if value is not None and value.strip() else None


def _env_seconds(name: str, default: float, *, allow_zero: bool = False) -> float:
    raw = _env(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        wanted = "a number of seconds, 0 or more" if allow_zero else "a positive number of seconds"
        raise NavigatorHTTPError(f"{name} must be {wanted} (e.g. 30), got {raw!r}")
    return value


def _env_count(name: str, default: int, *, minimum: int = 0) -> int:
    raw = _env(name)
    if raw is None:
        return default
    # int() takes "²" apart from isdigit() and "1_000" too; only plain ASCII digits are a count here.
    value = int(raw) if raw.isascii() and raw.isdigit() else -1
    if value < minimum:
        wanted = "a whole number, 0 or more (e.g. 3)" if minimum == 0 else f"a whole number, {minimum} or more"
        raise NavigatorHTTPError(f"{name} must be {wanted}, got {raw!r}")
    return value


def _base_url(env_name: str, default: str) -> str:
    raw = _env(env_name)
    if raw is None:
        return default
    try:
        parts = urlsplit(raw)
        usable = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:  # e.g. an unclosed "[" of an IPv6 address
        usable = False
    if not usable:
        raise NavigatorHTTPError(
            f"{env_name} must be an http(s) URL such as {default}, got {_without_credentials(raw)!r}"
        )
    base = raw.rstrip("/")
    # A common slip is to paste the full endpoint; the path is appended here.
    suffix = "/chat/completions"
    return base[: -len(suffix)] if base.endswith(suffix) else base
