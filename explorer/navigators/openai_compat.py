"""A navigator that asks an OpenAI-compatible chat completions API (OpenAI, Ollama, ...) which branches to take.

Model ids are ``openai:MODEL`` (e.g. ``openai:gpt-4o-mini``) and ``ollama:MODEL`` (e.g.
``ollama:llama3.1:8b``). Nothing is configured on the navigator itself: the endpoint, the key,
the timeouts and the retries come from the model id and the environment, read on every
:meth:`OpenAICompatibleNavigator.choose` call, so a change of environment applies to the next
call.

Environment:

``OPENAI_API_KEY``
    Sent as ``Authorization: Bearer ...`` for ``openai:`` models, where it is required. Never
    sent for ``ollama:`` models (a local Ollama needs none, and an OpenAI key must not leak to
    another server). Never logged, never in a message.
``OPENAI_BASE_URL``
    Base URL for ``openai:`` models (default ``https://api.openai.com/v1``).
``OLLAMA_BASE_URL``
    Base URL for ``ollama:`` models (default ``http://localhost:11434/v1``).
``REASONING_EXPLORER_CONNECT_TIMEOUT`` / ``REASONING_EXPLORER_READ_TIMEOUT``
    Seconds to connect (default 10) and to wait for data (default 60).
``REASONING_EXPLORER_MAX_RETRIES``
    How many times a 429 or 5xx answer is retried (default 3, so at most 4 requests).
``REASONING_EXPLORER_RETRY_BACKOFF``
    The first delay before a retry, in seconds, doubled at each retry (default 0.5). A numeric
    ``Retry-After`` from the server replaces it. Every delay is capped at 30 s.

Every failure is a :class:`NavigatorHTTPError` with a one-line message; a tripped cancellation
token raises :class:`core.RetrievalCancelled` instead.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import math
import os
import re
import socket
import ssl
import threading
from collections.abc import Awaitable, Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar
from urllib.parse import urlsplit, urlunsplit

import httpx

from core import NavigatorChoice, NavigatorRequest, NodeView, RetrievalCancelled, TreeNavigator

from . import NavigatorConfigError

__all__ = [
    "CONNECT_TIMEOUT_ENV",
    "MAX_RETRIES_ENV",
    "OLLAMA_BASE_URL_ENV",
    "OLLAMA_DEFAULT_BASE_URL",
    "OPENAI_API_KEY_ENV",
    "OPENAI_BASE_URL_ENV",
    "OPENAI_DEFAULT_BASE_URL",
    "READ_TIMEOUT_ENV",
    "RETRY_BACKOFF_ENV",
    "NavigatorHTTPError",
    "OpenAICompatibleNavigator",
]

_log = logging.getLogger(__name__)

OPENAI_API_KEY_ENV: Final = "OPENAI_API_KEY"
OPENAI_BASE_URL_ENV: Final = "OPENAI_BASE_URL"
OLLAMA_BASE_URL_ENV: Final = "OLLAMA_BASE_URL"
CONNECT_TIMEOUT_ENV: Final = "REASONING_EXPLORER_CONNECT_TIMEOUT"
READ_TIMEOUT_ENV: Final = "REASONING_EXPLORER_READ_TIMEOUT"
MAX_RETRIES_ENV: Final = "REASONING_EXPLORER_MAX_RETRIES"
RETRY_BACKOFF_ENV: Final = "REASONING_EXPLORER_RETRY_BACKOFF"

OPENAI_DEFAULT_BASE_URL: Final = "https://api.openai.com/v1"
OLLAMA_DEFAULT_BASE_URL: Final = "http://localhost:11434/v1"

_DEFAULT_CONNECT_TIMEOUT: Final = 10.0
_DEFAULT_READ_TIMEOUT: Final = 60.0
_DEFAULT_MAX_RETRIES: Final = 3
_DEFAULT_BACKOFF: Final = 0.5
_MAX_RETRY_DELAY: Final = 30.0

# How often the caller and the request's own event loop look at the cancellation token. The
# caller then gives the request a short grace to close its connection before it returns, so
# a cancel is answered within _CALLER_POLL + _CANCEL_GRACE (0.15 s) at worst.
_CALLER_POLL: Final = 0.05
_WORKER_POLL: Final = 0.02
_CANCEL_GRACE: Final = 0.1

_QUOTE_CHARS: Final = 80
_SERVER_MESSAGE_CHARS: Final = 160
# A key shorter than this is a placeholder (``x`` for a local server), not a secret; scrubbing
# it from text would only garble messages.
_MIN_SCRUBBED_KEY: Final = 8

_T = TypeVar("_T")


class NavigatorHTTPError(RuntimeError):
    """Anything that went wrong asking the model: configuration, connection, HTTP status or an unusable answer.

    The message is one line, says what to check, names the URL (without credentials) and never
    holds the API key. ``status`` is the HTTP status when the server answered with an error,
    else ``None``.
    """

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(_line(message))
        self.status = status


# -- configuration ------------------------------------------------------------------------------


class _Secret:
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
        """``text`` with every occurrence of the key replaced by ``***``."""
        if len(self._value) < _MIN_SCRUBBED_KEY:
            return text
        return text.replace(self._value, "***")

    def __repr__(self) -> str:
        return "<secret>"

    __str__ = __repr__


@dataclass(frozen=True, slots=True)
class _Settings:
    """Everything one ``choose`` call needs, read from the model id and the environment."""

    provider: str
    model: str
    url: str
    base_url_env: str
    api_key: _Secret | None = field(repr=False)
    connect_timeout: float
    read_timeout: float
    max_retries: int
    backoff: float

    @property
    def shown_url(self) -> str:
        """The endpoint for messages and logs: without any ``user:password@`` part."""
        parts = urlsplit(self.url)
        return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))

    def scrub(self, text: str) -> str:
        """Server- or model-supplied text made safe to show: the key, if echoed back, replaced."""
        return text if self.api_key is None else self.api_key.scrub(text)


def _split_model(model: object) -> tuple[str, str] | None:
    """``("openai", "gpt-4o-mini")`` for ``"openai:gpt-4o-mini"``; ``None`` for a model id not ours."""
    if not isinstance(model, str):
        return None
    provider, colon, name = model.partition(":")
    if not colon or provider not in ("openai", "ollama") or not name.strip():
        return None
    return provider, name.strip()


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


def _env_count(name: str, default: int) -> int:
    raw = _env(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        value = -1
    if value < 0:
        raise NavigatorHTTPError(f"{name} must be a whole number, 0 or more (e.g. 3), got {raw!r}")
    return value


def _base_url(env_name: str, default: str) -> str:
    raw = _env(env_name)
    if raw is None:
        return default
    parts = urlsplit(raw)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        shown = urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))
        raise NavigatorHTTPError(f"{env_name} must be an http(s) URL such as {default}, got {shown!r}")
    base = raw.rstrip("/")
    # A common slip is to paste the full endpoint; the path is appended here.
    suffix = "/chat/completions"
    return base[: -len(suffix)] if base.endswith(suffix) else base


def _settings_for(model: str) -> _Settings:
    """Read the settings for ``model`` from the environment; raise :class:`NavigatorHTTPError` on a bad value."""
    split = _split_model(model)
    if split is None:
        raise NavigatorHTTPError(f"model {model!r} is not 'openai:MODEL' or 'ollama:MODEL'")
    provider, name = split
    if provider == "openai":
        env_name, default = OPENAI_BASE_URL_ENV, OPENAI_DEFAULT_BASE_URL
    else:
        env_name, default = OLLAMA_BASE_URL_ENV, OLLAMA_DEFAULT_BASE_URL
    base = _base_url(env_name, default)
    connect_timeout = _env_seconds(CONNECT_TIMEOUT_ENV, _DEFAULT_CONNECT_TIMEOUT)
    read_timeout = _env_seconds(READ_TIMEOUT_ENV, _DEFAULT_READ_TIMEOUT)
    max_retries = _env_count(MAX_RETRIES_ENV, _DEFAULT_MAX_RETRIES)
    backoff = _env_seconds(RETRY_BACKOFF_ENV, _DEFAULT_BACKOFF, allow_zero=True)
    api_key: _Secret | None = None
    if provider == "openai":
        # Wrapped straight from the environment, so no plain local ever holds it.
        api_key = _Secret(os.environ.get(OPENAI_API_KEY_ENV, "").strip())
        if not api_key.reveal():
            raise NavigatorHTTPError(
                f"model {model!r} needs an API key: set {OPENAI_API_KEY_ENV} "
                "(any non-empty value for a server that needs none)"
            )
    return _Settings(
        provider=provider,
        model=name,
        url=f"{base}/chat/completions",
        base_url_env=env_name,
        api_key=api_key,
        connect_timeout=connect_timeout,
        read_timeout=read_timeout,
        max_retries=max_retries,
        backoff=backoff,
    )


# -- the prompt ---------------------------------------------------------------------------------

_SYSTEM_PROMPT: Final = (
    "You guide a search down a hierarchy of documents, like a table of contents. At each step you see "
    "where you are and the sections directly below, each with an id, a title and a summary (never the "
    "documents' text), and you pick the sections most likely to hold what answers the query. "
    'Reply with one JSON object and nothing else: {"selected": [ids, most promising first], '
    '"rationale": "one or two sentences on why"}. Use only ids from the list you are given, copied '
    'exactly. An empty "selected" list means stop here: no section below is worth entering.'
)


def _line(text: str) -> str:
    """``text`` on one line, so a multi-line summary cannot break the numbered layout."""
    return " ".join(text.split())


def _prompt(request: NavigatorRequest) -> str:
    """The user message: the query, where the walk is, the numbered candidates and the remaining visits."""
    lines = [f"Query: {request.query}", ""]
    if request.current is None:
        lines.append("You are at the top of the corpus: the candidates are its top-level sections.")
    else:
        lines.append(f"You are in: {_line(request.current.title)}")
        lines.append(f"Its summary: {_line(request.current.summary) or '(none)'}")
    lines += ["", "Candidates (the sections directly below):"]
    for number, view in enumerate(request.candidates, start=1):
        lines.append(f"{number}. id: {view.id}")
        lines.append(f"   title: {_line(view.title)}")
        lines.append(f"   summary: {_line(view.summary) or '(none)'}")
    lines += [
        "",
        f"Remaining visits: {request.remaining_visits}. Entering a section costs one visit, and so does every "
        "section below it that you enter later, so select only the sections worth it.",
        "",
        'Answer with JSON only: {"selected": ["<id>", ...], "rationale": "..."}. Use only the ids listed '
        "above, most promising first; an empty list stops here.",
    ]
    return "\n".join(lines)


def _payload(settings: _Settings, request: NavigatorRequest) -> dict[str, Any]:
    return {
        "model": settings.model,
        "messages": [
            {"role": "system", "content": _SYSTEM_PROMPT},
            {"role": "user", "content": _prompt(request)},
        ],
        "temperature": 0,
        "stream": False,
    }


# -- the request, on its own thread and event loop ---------------------------------------------


@dataclass(frozen=True, slots=True)
class _Reply:
    """What the caller needs of an HTTP answer."""

    status: int
    text: str
    retry_after: str | None
    location: str | None


class _Abandoned(Exception):
    """The caller gave up on the request (cancelled, or left ``choose`` some other way)."""


class _DaemonThreadExecutor(ThreadPoolExecutor):
    """Runs each job (in practice the blocking DNS lookup) on a fresh daemon thread.

    asyncio's default executor threads are joined when the interpreter exits, so a lookup that
    hangs after a cancel would keep the process alive; daemon threads do not.
    """

    def submit(self, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> Future[_T]:
        """Start ``fn`` on its own daemon thread and return its future."""
        future: Future[_T] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as exc:
                future.set_exception(exc)

        threading.Thread(target=run, name="openai-compat-dns", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to wait for: an abandoned lookup ends with its daemon thread."""


def _run_on_private_loop(make: Callable[[], Awaitable[_T]]) -> _T:
    """Run a coroutine on a new event loop in this thread (never the caller's loop, if it has one)."""
    loop = asyncio.new_event_loop()
    loop.set_default_executor(_DaemonThreadExecutor())
    try:
        return loop.run_until_complete(make())
    finally:
        try:
            loop.run_until_complete(loop.shutdown_asyncgens())
        finally:
            loop.close()


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every request: building it (loading the CA bundle) costs about 50 ms."""
    return httpx.create_ssl_context()


def _headers(settings: _Settings) -> dict[str, str]:
    headers = {"Accept": "application/json", "User-Agent": "reasoning-explorer"}
    if settings.api_key is not None:
        headers["Authorization"] = f"Bearer {settings.api_key.reveal()}"
    return headers


async def _exchange(settings: _Settings, payload: Mapping[str, Any], stop: Callable[[], bool]) -> _Reply:
    """POST once; close the connection and raise :class:`_Abandoned` as soon as ``stop()`` is true."""
    timeout = httpx.Timeout(
        connect=settings.connect_timeout,
        read=settings.read_timeout,
        write=settings.read_timeout,
        pool=settings.connect_timeout,
    )
    async with httpx.AsyncClient(timeout=timeout, verify=_tls_context(), follow_redirects=False) as client:
        post = asyncio.ensure_future(client.post(settings.url, json=payload, headers=_headers(settings)))
        try:
            while True:
                done, _ = await asyncio.wait({post}, timeout=_WORKER_POLL)
                if done:
                    response = post.result()
                    return _Reply(
                        response.status_code,
                        response.text,
                        response.headers.get("retry-after"),
                        response.headers.get("location"),
                    )
                if stop():
                    raise _Abandoned()
        finally:
            if not post.done():
                # Cancelling the task makes httpcore drop the connection, so the server sees the
                # client go and a slow model stops generating for nobody.
                post.cancel()
                await asyncio.gather(post, return_exceptions=True)


def _send(settings: _Settings, payload: Mapping[str, Any], request: NavigatorRequest) -> _Reply:
    """One HTTP attempt, run on a daemon thread so that a cancel abandons it at once.

    Raises :class:`RetrievalCancelled` within about 0.15 s of the token tripping, and
    :class:`NavigatorHTTPError` for a connection failure or a timeout.
    """
    token = request.cancellation
    finished = threading.Event()
    abandon = threading.Event()
    outcome: list[_Reply | BaseException] = []

    def stop() -> bool:
        return abandon.is_set() or token.cancelled

    def work() -> None:
        try:
            outcome.append(_run_on_private_loop(lambda: _exchange(settings, payload, stop)))
        except BaseException as exc:
            outcome.append(exc)
        finally:
            finished.set()

    threading.Thread(target=work, name="openai-compat-request", daemon=True).start()
    try:
        # Waiting on `finished` (not on the token) picks a reply up the moment it arrives; the
        # token is looked at between waits.
        while not finished.wait(_CALLER_POLL):
            if token.cancelled:
                finished.wait(_CANCEL_GRACE)
                raise RetrievalCancelled()
    finally:
        # However this call ends (cancel, KeyboardInterrupt), the request stops at its next poll.
        abandon.set()
    result = outcome[0]
    if isinstance(result, _Reply):
        return result
    if isinstance(result, _Abandoned) or token.cancelled:
        raise RetrievalCancelled()
    if not isinstance(result, Exception):
        raise result
    # Our own message, and no chained httpx exception: its request object holds the headers.
    raise _transport_error(result, settings) from None


# -- errors -------------------------------------------------------------------------------------


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _transport_error(exc: Exception, settings: _Settings) -> NavigatorHTTPError:
    """A one-line message for a failure before any HTTP answer, naming the URL and what to check."""
    url, env_name = settings.shown_url, settings.base_url_env
    running = "that Ollama is running (ollama serve)" if settings.provider == "ollama" else "that the server is up"
    if isinstance(exc, httpx.ConnectTimeout):
        return NavigatorHTTPError(
            f"could not connect to {url} within {settings.connect_timeout:g} s (connect timeout); check {env_name}, "
            f"your network and {running}, or raise {CONNECT_TIMEOUT_ENV}"
        )
    if isinstance(exc, httpx.ReadTimeout | httpx.WriteTimeout):
        return NavigatorHTTPError(
            f"no answer from {url} within {settings.read_timeout:g} s (read timeout); the model may be slow or "
            f"overloaded: raise {READ_TIMEOUT_ENV} or try a smaller model"
        )
    if isinstance(exc, httpx.TimeoutException):
        return NavigatorHTTPError(f"request to {url} timed out ({type(exc).__name__}); check {env_name} and {running}")
    if isinstance(exc, httpx.ConnectError):
        causes = _causes(exc)
        if any(isinstance(cause, socket.gaierror) for cause in causes):
            what = "the host name could not be resolved (DNS)"
        elif any(isinstance(cause, ConnectionRefusedError) for cause in causes):
            what = "connection refused"
        elif any(isinstance(cause, ssl.SSLError) for cause in causes):
            what = "the TLS handshake failed (certificate or http/https mismatch)"
        else:
            what = "could not connect"
        return NavigatorHTTPError(f"cannot reach {url}: {what}; check {env_name} and {running}")
    if isinstance(exc, httpx.TransportError):
        return NavigatorHTTPError(
            f"the connection to {url} failed ({type(exc).__name__}: the server closed it or sent something "
            f"that is not HTTP); check {env_name} and {running}"
        )
    return NavigatorHTTPError(f"request to {url} failed ({type(exc).__name__}); check {env_name}")


def _quote(text: str, limit: int = _QUOTE_CHARS) -> str:
    """The start of ``text`` on one line, in double quotes, for a message."""
    flat = _line(text)
    return f'"{flat[:limit]}…"' if len(flat) > limit else f'"{flat}"'


def _server_message(settings: _Settings, text: str) -> str:
    """What the server said about an error (``error.message`` of a JSON body, else the body's start)."""
    message: object = None
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        error = body.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        message = message if message is not None else body.get("message") or body.get("detail")
    shown = message if isinstance(message, str) else text
    if not shown.strip():
        return ""
    return f" (server said: {_quote(settings.scrub(shown), _SERVER_MESSAGE_CHARS)})"


def _status_error(reply: _Reply, settings: _Settings, attempts: int) -> NavigatorHTTPError:
    """A one-line message for an HTTP error status, saying what to check."""
    status, url = reply.status, settings.shown_url
    head = f"HTTP {status} from {url}"
    if attempts > 1:
        head += f" after {attempts} attempts"
    said = _server_message(settings, reply.text)
    if status in (401, 403):
        # The server's text is left out: OpenAI's 401 quotes part of the key back.
        if settings.provider == "ollama":
            hint = f"the server wants credentials, which ollama: models never send; check {settings.base_url_env}"
        elif status == 401:
            hint = f"the API key was refused; check {OPENAI_API_KEY_ENV}"
        else:
            hint = f"the API key may not use model {settings.model!r}; check {OPENAI_API_KEY_ENV} and its permissions"
        return NavigatorHTTPError(f"{head}: {hint}", status=status)
    if status == 404:
        pulled = f" (pulled with `ollama pull {settings.model}`?)" if settings.provider == "ollama" else ""
        return NavigatorHTTPError(
            f"{head}: not found{said}; check the model name {settings.model!r}{pulled} and "
            f"{settings.base_url_env} (it should end in /v1)",
            status=status,
        )
    if status == 429:
        return NavigatorHTTPError(
            f"{head}: rate limited or out of quota{said}; wait, check your plan, or raise {MAX_RETRIES_ENV}",
            status=status,
        )
    if status >= 500:
        return NavigatorHTTPError(f"{head}: the server failed{said}; try again later", status=status)
    if 300 <= status < 400:
        where = f" to {_quote(settings.scrub(reply.location))}" if reply.location else ""
        return NavigatorHTTPError(
            f"{head}: the server redirects{where}; set {settings.base_url_env} to the final address", status=status
        )
    return NavigatorHTTPError(
        f"{head}: the request was refused{said}; check the model name {settings.model!r}", status=status
    )


def _retry_delay(reply: _Reply, retry: int, settings: _Settings) -> float:
    """Seconds to wait before retry number ``retry`` (1-based): a numeric Retry-After, else doubling backoff."""
    if reply.retry_after is not None:
        try:
            asked = float(reply.retry_after)
        except ValueError:
            asked = math.nan  # an HTTP date: fall back to the backoff
        if math.isfinite(asked) and asked >= 0:
            return min(asked, _MAX_RETRY_DELAY)
    return min(settings.backoff * 2.0 ** (retry - 1), _MAX_RETRY_DELAY)


# -- reading the answer -------------------------------------------------------------------------

# Reasoning models (deepseek-r1 on Ollama, ...) think aloud first; their notes may hold braces.
_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_FENCE = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)```", re.DOTALL)
_MAX_OBJECT_STARTS: Final = 200


def _find_key(mapping: Mapping[str, Any], name: str) -> str | None:
    """The key of ``mapping`` that is ``name``, matched case-insensitively (``"Selected"``), or ``None``."""
    if name in mapping:
        return name
    return next((key for key in mapping if isinstance(key, str) and key.strip().lower() == name), None)


def _get(mapping: Mapping[str, Any], name: str) -> Any:
    """``mapping[name]`` with the key matched case-insensitively; ``None`` when absent."""
    key = _find_key(mapping, name)
    return None if key is None else mapping[key]


def _answer_object(text: str) -> dict[str, Any] | list[Any] | None:
    """The JSON answer inside a model's reply: fenced or not, with or without prose around it.

    Prefers the first object with a ``selected`` key; a reply that is only a JSON list is taken
    as the list of ids.
    """
    text = _THINKING.sub("", text).strip()
    fenced = [block.strip() for block in _FENCE.findall(text)]
    decoder = json.JSONDecoder()
    first_object: dict[str, Any] | None = None
    for chunk in [*fenced, text]:
        try:
            whole = json.loads(chunk)
        except ValueError:
            whole = None
        if isinstance(whole, list):
            return whole
        starts = [match.start() for match in re.finditer(r"\{", chunk)][:_MAX_OBJECT_STARTS]
        for start in starts:
            try:
                value, _ = decoder.raw_decode(chunk, start)
            except ValueError:
                continue
            if isinstance(value, dict):
                if _find_key(value, "selected") is not None:
                    return value
                if first_object is None:
                    first_object = value
    return first_object


def _fold(text: str) -> str:
    return " ".join(text.split()).casefold()


def _resolve(item: object, candidates: Sequence[NodeView]) -> str:
    """One selected item as an id.

    An offered id (exactly, or once stripped) is kept; a number is a 1-based position in the
    numbered list; a title that exactly one candidate has (case-insensitively) is mapped to its
    id. Anything else is passed through unchanged, so the runtime records it as a hallucination.
    """
    ids = [view.id for view in candidates]
    if isinstance(item, bool) or item is None:
        return json.dumps(item)
    if isinstance(item, int) or (isinstance(item, float) and item.is_integer()):
        position = int(item)
        return ids[position - 1] if 1 <= position <= len(ids) else str(item)
    if isinstance(item, dict):
        inner = _get(item, "id")
        return _resolve(inner, candidates) if isinstance(inner, str | int) else json.dumps(item)
    if not isinstance(item, str):
        return json.dumps(item, ensure_ascii=False)
    if item in ids:
        return item
    stripped = item.strip()
    if stripped in ids:
        return stripped
    titled = [view.id for view in candidates if _fold(view.title) == _fold(stripped)]
    if len(titled) == 1:
        return titled[0]
    if stripped.isascii() and stripped.isdigit() and 1 <= int(stripped) <= len(ids):
        return ids[int(stripped) - 1]
    return item


def _selection(answer: str, candidates: Sequence[NodeView], settings: _Settings) -> tuple[tuple[str, ...], str]:
    """The ids and the rationale in the model's answer; :class:`NavigatorHTTPError` quoting it when unusable."""
    found = _answer_object(answer)
    if isinstance(found, list):
        raw: object = found
        rationale: object = ""
    elif isinstance(found, dict) and _find_key(found, "selected") is not None:
        raw = _get(found, "selected")
        rationale = _get(found, "rationale") or ""
    else:
        problem = "has no \"selected\" list" if found is not None else "is not the JSON asked for"
        raise NavigatorHTTPError(
            f"the answer of model {settings.model!r} {problem}; it starts {_quote(settings.scrub(answer))}"
        )
    if raw is None:
        items: list[object] = []
    elif isinstance(raw, str | int | float | dict):
        items = [raw]  # one id given bare, not as a list
    elif isinstance(raw, list):
        items = raw
    else:
        raise NavigatorHTTPError(
            f"the answer of model {settings.model!r} has a \"selected\" that is not a list; "
            f"it starts {_quote(settings.scrub(answer))}"
        )
    selected = tuple(_resolve(item, candidates) for item in items)
    text = rationale if isinstance(rationale, str) else json.dumps(rationale, ensure_ascii=False)
    return selected, settings.scrub(text.strip())


def _usage(raw: object) -> dict[str, int] | None:
    """The token counts of a completion, when the server reported them."""
    if not isinstance(raw, dict):
        return None
    counts = {
        name: raw[name]
        for name in ("prompt_tokens", "completion_tokens", "total_tokens")
        if isinstance(raw.get(name), int) and not isinstance(raw.get(name), bool)
    }
    return counts or None


def _choice(reply: _Reply, request: NavigatorRequest, settings: _Settings) -> NavigatorChoice:
    """Read a 2xx chat completion into a :class:`NavigatorChoice`."""
    not_completion = (
        f"the answer from {settings.shown_url} is not a chat completion; check that {settings.base_url_env} "
        f"is an OpenAI-compatible /v1 address; it starts {_quote(settings.scrub(reply.text))}"
    )
    try:
        body = json.loads(reply.text)
    except ValueError:
        raise NavigatorHTTPError(not_completion) from None
    if not isinstance(body, dict):
        raise NavigatorHTTPError(not_completion)
    choices = body.get("choices")
    first = choices[0] if isinstance(choices, list) and choices else None
    message = first.get("message") if isinstance(first, dict) else None
    if not isinstance(message, dict):
        if body.get("error") is not None:
            raise NavigatorHTTPError(
                f"HTTP {reply.status} from {settings.shown_url} but an error{_server_message(settings, reply.text)}"
            )
        raise NavigatorHTTPError(not_completion)
    content = message.get("content")
    if not isinstance(content, str) or not content.strip():
        refusal = message.get("refusal")
        if isinstance(refusal, str) and refusal.strip():
            raise NavigatorHTTPError(f"model {settings.model!r} refused: {_quote(settings.scrub(refusal))}")
        raise NavigatorHTTPError(f"model {settings.model!r} gave an empty answer")
    selected, rationale = _selection(content, request.candidates, settings)
    usage = _usage(body.get("usage"))
    _log.debug("model %r selected %r (usage %r)", settings.model, selected, usage)
    return NavigatorChoice(selected, rationale, usage)


# -- the navigator ------------------------------------------------------------------------------


class OpenAICompatibleNavigator(TreeNavigator):
    """Asks a chat completions endpoint (OpenAI, Ollama, or any OpenAI-compatible server) to choose.

    Supports ``openai:MODEL`` and ``ollama:MODEL``. Stateless: every :meth:`choose` reads the
    model id and the environment (see the module docs), sends the query, the current node's title
    and summary, the numbered candidates and the remaining visits (never content), and reads back
    ``{"selected": [...], "rationale": "..."}``. 429 and 5xx answers are retried with backoff;
    other failures raise :class:`NavigatorHTTPError`. A tripped ``request.cancellation`` raises
    :class:`core.RetrievalCancelled`, abandoning a request in flight within 0.2 s.
    """

    def supports(self, model: str) -> bool:
        """Whether ``model`` is ``openai:MODEL`` or ``ollama:MODEL`` with a non-blank MODEL."""
        return _split_model(model) is not None

    def check_model(self, model: str) -> None:
        """Check the environment for ``model`` now (key, base URL, timeouts), before any walk.

        Called by :func:`explorer.navigators.resolve_navigator`; raises its
        :class:`NavigatorConfigError` with the same message :meth:`choose` would raise. No request
        is made: a server that is down is only found out when asked.
        """
        try:
            _settings_for(model)
        except NavigatorHTTPError as exc:
            raise NavigatorConfigError(str(exc)) from None

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        """Ask the model which of ``request.candidates`` to descend, in order of preference.

        Raises :class:`NavigatorHTTPError` (configuration, connection, HTTP status, unreadable
        answer) and :class:`core.RetrievalCancelled`.
        """
        token = request.cancellation
        token.raise_if_cancelled()
        settings = _settings_for(request.model)
        if not request.candidates:
            return NavigatorChoice(())
        payload = _payload(settings, request)
        attempts = settings.max_retries + 1
        for attempt in range(1, attempts + 1):
            token.raise_if_cancelled()
            _log.debug("POST %s model=%r attempt %d of %d", settings.shown_url, settings.model, attempt, attempts)
            reply = _send(settings, payload, request)
            token.raise_if_cancelled()
            if 200 <= reply.status < 300:
                return _choice(reply, request, settings)
            retryable = reply.status == 429 or reply.status >= 500
            if not retryable or attempt == attempts:
                raise _status_error(reply, settings, attempt)
            delay = _retry_delay(reply, attempt, settings)
            _log.info(
                "HTTP %d from %s; retry %d of %d in %.2f s",
                reply.status, settings.shown_url, attempt, settings.max_retries, delay,
            )
            if token.wait(delay):
                raise RetrievalCancelled()
        raise AssertionError("unreachable: the last attempt returns or raises")

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
