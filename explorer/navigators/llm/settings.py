"""What one call of the LLM navigator needs, read from the model id and the environment.

Nothing is configured on the navigator itself but the folders a program wired it with (the response cache's):
:func:`settings_for` is called at every ``choose``, so a change of environment applies to the next call.

Environment:

``OPENAI_API_KEY``
    Sent as ``Authorization: Bearer ...`` for ``openai:`` models, where it is required. Never
    sent for ``ollama:`` models (a local Ollama needs none, and an OpenAI key must not leak to
    another server). Never logged, never in a message or a transcript.
``OPENAI_BASE_URL``
    Base URL for ``openai:`` models (default ``https://api.openai.com/v1``).
``OLLAMA_BASE_URL``
    Base URL for ``ollama:`` models (default ``http://localhost:11434/v1``).
``VLLM_BASE_URL`` / ``VLLM_API_KEY``
    Base URL for ``vllm:`` models (default ``http://localhost:8000/v1``), and the key a vLLM server started
    with ``--api-key`` wants (sent only to it; absent: none is sent).
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
``REASONING_EXPLORER_CACHE_DIR``
    Where answers are cached (:mod:`.cache`) by a navigator no program wired: a folder (a file there is refused,
    as ``--cache`` refuses it), or ``off`` for no cache. Unset: the user's cache folder,
    ``$XDG_CACHE_HOME/reasoning-explorer/llm`` (``~/.cache/reasoning-explorer/llm``). A program reads it once, where
    it starts, into the folders of its ``Wiring`` (:mod:`explorer.navigators.folders`; the command line's
    ``--cache DIR`` and ``--no-cache`` win over it), and the navigators it wires cache where those say.

The model id may carry per-model options after an ``@`` (sampling, structured output, prompt files; see
:mod:`.options`): ``ollama:llama3.1@temperature=0.7,seed=3``.
"""

from __future__ import annotations

import dataclasses
import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit, urlunsplit

from ...masking import Secrets
from ...numbers import whole
from ...process import environment
from ..folders import CACHE_DIR_ENV as CACHE_DIR_ENV
from ..folders import CACHE_OFF as CACHE_OFF
from ..folders import Folders, NotAFolder, user_cache
from .errors import NavigatorHTTPError
from .options import LOCAL_KEYS, ModelOptions, OptionError, split_options

OPENAI_API_KEY_ENV: Final = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV: Final = "OPENAI_BASE_URL"
OLLAMA_BASE_URL_ENV: Final = "OLLAMA_BASE_URL"
VLLM_BASE_URL_ENV: Final = "VLLM_BASE_URL"
VLLM_API_KEY_ENV: Final = "VLLM_API_KEY"
CONNECT_TIMEOUT_ENV: Final = "REASONING_EXPLORER_CONNECT_TIMEOUT"
READ_TIMEOUT_ENV: Final = "REASONING_EXPLORER_READ_TIMEOUT"
CALL_DEADLINE_ENV: Final = "REASONING_EXPLORER_CALL_DEADLINE"
MAX_ANSWER_BYTES_ENV: Final = "REASONING_EXPLORER_MAX_ANSWER_BYTES"
MAX_RETRIES_ENV: Final = "REASONING_EXPLORER_MAX_RETRIES"
RETRY_BACKOFF_ENV: Final = "REASONING_EXPLORER_RETRY_BACKOFF"

OPENAI_DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
OLLAMA_DEFAULT_BASE_URL: Final = "http://localhost:11434/v1"
VLLM_DEFAULT_BASE_URL: Final = "http://localhost:8000/v1"

DEFAULT_CONNECT_TIMEOUT: Final = 10.0
DEFAULT_READ_TIMEOUT: Final = 60.0
DEFAULT_CALL_DEADLINE: Final = 120.0
DEFAULT_MAX_ANSWER_BYTES: Final = 1_000_000
DEFAULT_MAX_RETRIES: Final = 3
DEFAULT_BACKOFF: Final = 0.5

_PROVIDERS: Final = ("openai", "ollama", "vllm")
_SUFFIX: Final = "/chat/completions"
LOCAL_PROVIDER: Final = "llama.cpp"
"""The provider of ``local:`` models: llama.cpp's own server, started here (``explorer.navigators.local_model``)."""


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
    """Everything one ``choose`` call needs, read from the model id and the environment.

    ``provider`` is what the navigator really talks to: ``"openai"``, ``"ollama"``, ``"vllm"``, or
    ``"llama.cpp"`` for a ``local:`` model; ``model`` is the name sent, without the options, which are in
    ``options``; ``cache_dir`` is where answers are cached (``None``: no cache).
    """

    provider: str
    model: str
    url: str
    base_url_env: str
    api_key: Secret | None = field(repr=False)
    options: ModelOptions = field(default_factory=ModelOptions)
    cache_dir: Path | None = None
    cache_identity: str | None = None
    model_id: str = ""
    """The whole model id these settings were read from (options included)."""
    streams: bool = False
    """Whether the answer is asked for as a stream (``local:``: see :mod:`.stream`)."""
    """What the cache key names as the server instead of its base URL: a ``local:`` model's file (its port
    changes from run to run; its answers do not)."""
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
    def base_url(self) -> str:
        """The base URL (without ``/chat/completions`` and without credentials): part of the cache key."""
        shown = self.shown_url
        return shown[: -len(_SUFFIX)] if shown.endswith(_SUFFIX) else shown

    @property
    def running_hint(self) -> str:
        """What to check when the server cannot be reached."""
        if self.provider == "ollama":
            return "that Ollama is running (ollama serve)"
        if self.provider == LOCAL_PROVIDER:
            return "that the local model's server is still running (it is started again by the next walk)"
        return "that the server is up"

    def headers(self) -> dict[str, str]:
        """The request's headers; the only place the key leaves its wrapper."""
        headers = {"Accept": "application/json", "User-Agent": "reasoning-explorer"}
        if self.streams:
            # llama.cpp's server may close a kept-alive connection after a streamed answer, and the next request
            # on it would fail ("the server closed it"): on loopback a fresh connection per request costs nothing.
            headers["Connection"] = "close"
        if self.api_key is not None:
            headers["Authorization"] = f"Bearer {self.api_key.reveal()}"
        return headers

    def scrub(self, text: str) -> str:
        """Server- or model-supplied text made safe to show: the key, if echoed back, replaced by ``***``."""
        return text if self.api_key is None else self.api_key.scrub(text)


def split_model(model: object) -> tuple[str, str] | None:
    """``("openai", "gpt-4o-mini")`` for ``"openai:gpt-4o-mini"`` (options after an ``@`` left out); ``None``
    for a model id not ours."""
    if not isinstance(model, str):
        return None
    provider, colon, rest = model.partition(":")
    if not colon or provider not in _PROVIDERS:
        return None
    try:
        name = split_options(rest).base.strip()
    except OptionError:
        name = rest.partition("@")[0].strip()  # ours, with a bad option: said when its settings are read
    return (provider, name) if name else None


def model_options(model: str) -> ModelOptions:
    """The options of ``model`` (after its ``@``); :class:`NavigatorHTTPError` with one line for a bad one."""
    try:
        return split_options(model).options
    except OptionError as exc:
        raise NavigatorHTTPError(str(exc)) from None


def cache_dir(folders: Folders | None = None) -> Path | None:
    """Where answers are cached: ``folders.cache``, the folder a program wired (``None``: no cache); for a navigator
    no program wired, the user's (:func:`~explorer.navigators.folders.user_cache`: ``$REASONING_EXPLORER_CACHE_DIR``,
    ``off`` for none, else ``~/.cache/reasoning-explorer/llm``), and :class:`NavigatorHTTPError` when the variable
    names something that is no folder (as ``--cache`` refuses it)."""
    if folders is not None:
        return folders.cache
    try:
        return user_cache()
    except NotAFolder as exc:
        raise NavigatorHTTPError(str(exc)) from None


@dataclass(frozen=True, slots=True)
class Limits:
    """The timeouts, caps and retries every call reads from the environment."""

    connect_timeout: float
    read_timeout: float
    call_deadline: float
    max_answer_bytes: int
    max_retries: int
    backoff: float


def limits() -> Limits:
    """The environment's timeouts, caps and retries; :class:`NavigatorHTTPError` on a bad value."""
    return Limits(
        connect_timeout=_env_seconds(CONNECT_TIMEOUT_ENV, DEFAULT_CONNECT_TIMEOUT),
        read_timeout=_env_seconds(READ_TIMEOUT_ENV, DEFAULT_READ_TIMEOUT),
        call_deadline=_env_seconds(CALL_DEADLINE_ENV, DEFAULT_CALL_DEADLINE),
        max_answer_bytes=_env_count(MAX_ANSWER_BYTES_ENV, DEFAULT_MAX_ANSWER_BYTES, minimum=1),
        max_retries=_env_count(MAX_RETRIES_ENV, DEFAULT_MAX_RETRIES),
        backoff=_env_seconds(RETRY_BACKOFF_ENV, DEFAULT_BACKOFF, allow_zero=True),
    )


def settings_for(model: str, folders: Folders | None = None) -> Settings:
    """Read the settings for ``model`` from the environment, caching where ``folders`` say (``None``: a navigator no
    program wired, :func:`cache_dir`); raise :class:`NavigatorHTTPError` on a bad value."""
    split = split_model(model)
    if split is None:
        raise NavigatorHTTPError(f"model {model!r} is not 'openai:MODEL', 'ollama:MODEL' or 'vllm:MODEL'")
    provider, name = split
    options = model_options(model)
    given = [key for key in LOCAL_KEYS if getattr(options, key) is not None]
    if options.grammar == "compact":
        raise NavigatorHTTPError(f"model {model!r}: grammar={options.grammar} is llama.cpp's (a local: model); a "
                                 f"{provider}: server is asked for a JSON schema")
    if given:
        raise NavigatorHTTPError(f"model {model!r}: {', '.join(given)} set a local: model's server; a "
                                 f"{provider}: model's server is configured where it runs")
    if provider == "openai":
        env_name, default = OPENAI_BASE_URL_ENV, OPENAI_DEFAULT_BASE_URL
    elif provider == "vllm":
        env_name, default = VLLM_BASE_URL_ENV, VLLM_DEFAULT_BASE_URL
    else:
        env_name, default = OLLAMA_BASE_URL_ENV, OLLAMA_DEFAULT_BASE_URL
    base = _base_url(env_name, default)
    read = limits()
    api_key: Secret | None = None
    if provider == "openai":
        # Wrapped straight from the environment, so no plain local ever holds it.
        api_key = Secret(environment().get(OPENAI_API_KEY_ENV).strip())
        if not api_key.reveal():
            raise NavigatorHTTPError(
                f"model {model!r} needs an API key: set {OPENAI_API_KEY_ENV} "
                "(any non-empty value for a server that needs none)"
            )
    elif provider == "vllm" and _env(VLLM_API_KEY_ENV) is not None:
        api_key = Secret(environment().get(VLLM_API_KEY_ENV).strip())
    return with_limits(Settings(
        provider=provider,
        model=name,
        url=f"{base}{_SUFFIX}",
        base_url_env=env_name,
        api_key=api_key,
        options=options,
        cache_dir=cache_dir(folders),
        model_id=model,
    ), read)


def with_limits(settings: Settings, read: Limits | None = None) -> Settings:
    """``settings`` with the environment's timeouts, caps and retries (``read``, or read now)."""
    read = read if read is not None else limits()
    return dataclasses.replace(
        settings,
        connect_timeout=read.connect_timeout,
        read_timeout=read.read_timeout,
        call_deadline=read.call_deadline,
        max_answer_bytes=read.max_answer_bytes,
        max_retries=read.max_retries,
        backoff=read.backoff,
    )


def _without_credentials(url: str) -> str:
    try:
        parts = urlsplit(url)
    except ValueError:
        return "(an address that is not a URL)"
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _env(name: str) -> str | None:
    """The variable's value, or ``None`` when unset or blank (``VAR=`` in a shell means "not set")."""
    value = environment().variables.get(name)
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
    try:
        return whole(raw, minimum, sys.maxsize)  # no bound of its own: the largest count Python holds in a word
    except ValueError:
        wanted = "a whole number, 0 or more (e.g. 3)" if minimum == 0 else f"a whole number, {minimum} or more"
        raise NavigatorHTTPError(f"{name} must be {wanted}, got {raw!r}") from None


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
    return base[: -len(_SUFFIX)] if base.endswith(_SUFFIX) else base
