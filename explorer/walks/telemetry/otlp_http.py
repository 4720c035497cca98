"""One OTLP/HTTP export: a walk's spans POSTed with one deadline for the whole export, and what went wrong named.

The OpenTelemetry SDK's HTTP exporter gives each socket operation its own
timeout, so an endpoint that sends its headers and then one byte every half
second holds it for as long as it drips; it counts a redirect as success,
so every span is dropped without a word; and it reports a refusal, a 429
and a reset alike as a timeout. :class:`OtlpHttpSender` sends instead:

- with one deadline for everything (connecting, sending, every retry and
  the whole answer; :class:`explorer.http.Deadline`): a watchdog shuts the
  connection's socket when the deadline passes, so no endpoint, however
  slow, holds an export past it;
- counting only a 2xx answer as sent. A redirect (301, 302, 303, 307, 308)
  is never followed — it would carry the backend's key, which rides in the
  headers, to wherever it points — and the report says where it points;
- retrying a 429, 502, 503 or 504 while the deadline allows, after the wait
  its ``Retry-After`` asks for (or a short backoff), by the policy and the
  parser the LLM client uses too (:mod:`explorer.http`), and naming the status
  and the wait when it gives up;
- naming a refused, reset or dropped connection, an unknown host, a failed
  TLS handshake.

Headers (a backend's key), gzip compression and TLS files come from the
standard ``OTEL_EXPORTER_OTLP_TRACES_*`` / ``OTEL_EXPORTER_OTLP_*`` variables,
as the SDK's exporter reads them. Every problem comes back as a few words
that may hold what the endpoint sent (a ``Location``): the caller escapes
them before showing them (``explorer.safe_text.one_line``).

UI-free: nothing here imports Textual.
"""

from __future__ import annotations

import contextlib
import gzip
import socket
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from http import HTTPStatus
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urljoin

from ...http import Deadline, RetryPolicy, Stop, with_retries
from ...process import environment

if TYPE_CHECKING:  # httpx loads at the first send: importing it loads its command line's rich and pygments
    import httpx

__all__ = ["RETRIED_STATUSES", "RETRIES", "OtlpHttpSender"]

RETRIED_STATUSES = frozenset({429, 502, 503, 504})
"""Statuses the OTLP specification calls retryable: tried again while the deadline allows."""
REDIRECTS = frozenset({301, 302, 303, 307, 308})
FIRST_BACKOFF_SECONDS = 0.25
"""The wait before the first retry when the answer asks for none (doubled for each later one)."""
RETRIES = RetryPolicy(RETRIED_STATUSES, max_retries=None, backoff=FIRST_BACKOFF_SECONDS)
"""As many retries as the export's deadline allows, each wait what the answer asks (uncapped: the deadline is)."""
LOCATION_CHARS = 300
"""A ``Location`` is shown up to this many characters."""


def _env(environ: Mapping[str, str], name: str) -> str:
    """``OTEL_EXPORTER_OTLP_TRACES_<name>``, else ``OTEL_EXPORTER_OTLP_<name>``, else empty."""
    return (environ.get(f"OTEL_EXPORTER_OTLP_TRACES_{name}") or environ.get(f"OTEL_EXPORTER_OTLP_{name}") or "").strip()


def parse_headers(text: str) -> dict[str, str]:
    """``OTEL_EXPORTER_OTLP_HEADERS``: ``name=value`` pairs, comma separated, values percent-encoded (W3C baggage
    style); a pair without ``=`` or with an empty name is skipped, as the SDK does."""
    headers: dict[str, str] = {}
    for pair in text.split(","):
        name, equals, value = pair.partition("=")
        name = unquote(name).strip().lower()
        if equals and name:
            headers[name] = unquote(value).strip()
    return headers


def _seconds(value: float) -> str:
    """``2 s``, ``0.5 s``, ``30 s``."""
    return f"{value:g} s" if value < 10 else f"{round(value)} s"


def _status(code: int) -> str:
    """``HTTP 503 Service Unavailable``: the standard phrase, never the server's own text."""
    try:
        return f"HTTP {code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


class _Watch:
    """One attempt's connection, and where it has got to, for the watchdog that shuts it at the deadline."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._socket: socket.socket | None = None
        self.phase = "connecting"
        self.fired = False

    def trace(self, name: str, info: Mapping[str, Any]) -> None:
        """httpx's ``trace`` extension: keeps the socket once connected, and the phase of the exchange."""
        if name in ("connection.connect_tcp.complete", "connection.start_tls.complete"):
            stream = info.get("return_value")
            sock = stream.get_extra_info("socket") if stream is not None else None
            if isinstance(sock, socket.socket):
                with self._lock:
                    self._socket = sock
                    fired = self.fired
                if fired:
                    self._shut(sock)
        elif name == "http11.send_request_headers.started":
            self.phase = "sending"
        elif name == "http11.receive_response_headers.started":
            self.phase = "waiting"
        elif name == "http11.receive_response_headers.complete":
            self.phase = "reading"

    def fire(self) -> None:
        """The deadline passed: shut the socket, which wakes whatever read or write waits on it."""
        with self._lock:
            self.fired = True
            sock = self._socket
        if sock is not None:
            self._shut(sock)

    @staticmethod
    def _shut(sock: socket.socket) -> None:
        # socket.socket's own shutdown, also for a TLS socket: its ssl layer is left to the reader, which
        # sees the end of the stream and fails at once.
        with contextlib.suppress(OSError):
            socket.socket.shutdown(sock, socket.SHUT_RDWR)

    def timed_out(self, deadline: float) -> str:
        what = {"connecting": "could not connect", "sending": "the request was still going out",
                "waiting": "no answer", "reading": "the answer was still arriving"}[self.phase]
        return f"timed out after {_seconds(deadline)}: {what}"


@dataclass(frozen=True)
class _Attempt:
    """How one POST went: ``problem`` is ``None`` when the endpoint took the spans; ``retry_after`` is the answer's
    header, as sent."""

    problem: str | None
    status: int | None = None
    retry_after: str | None = None


def _cause(error: BaseException) -> BaseException:
    """The innermost cause of ``error`` (httpx wraps httpcore's, which wraps the OS's)."""
    seen = error
    while seen.__cause__ is not None or seen.__context__ is not None:
        seen = seen.__cause__ or seen.__context__  # type: ignore[assignment]
    return seen


def _network_problem(error: httpx.HTTPError) -> str:
    """A failed exchange in a few words."""
    import httpx

    root = _cause(error)
    text = " ".join(str(error).split())
    if isinstance(root, ConnectionRefusedError) or "refused" in text.lower():
        return "connection refused"
    if isinstance(root, ConnectionResetError) or "reset by peer" in text.lower():
        return "the endpoint reset the connection"
    if isinstance(root, socket.gaierror):
        return "unknown host"
    if isinstance(root, ssl.SSLError):
        return f"TLS failed: {root.reason or root}"
    if isinstance(error, httpx.RemoteProtocolError):
        if "without sending" in text or "disconnected" in text.lower():
            return "the endpoint closed the connection without answering"
        return f"the endpoint's answer is not HTTP ({text[:160]})"
    if isinstance(error, httpx.TimeoutException):
        return "timed out"
    return f"{type(error).__name__}: {text[:160]}"


class OtlpHttpSender:
    """POSTs OTLP/HTTP protobuf bodies to ``url``, each send held to ``deadline`` seconds in all.

    ``environ`` (default: the process's) gives the ``OTEL_EXPORTER_OTLP_*``
    headers, compression and TLS files. Thread-safe. One client serves every
    send, but each request has a connection of its own (``Connection:
    close``): a send is one walk, so there is little to keep alive, and the
    watchdog may shut a socket that no later request will ever use.
    """

    def __init__(self, url: str, *, deadline: float, environ: Mapping[str, str] | None = None) -> None:
        env = environment().variables if environ is None else environ
        self.url = url
        self.deadline = deadline
        self.headers = {"content-type": "application/x-protobuf", **parse_headers(_env(env, "HEADERS")),
                        "connection": "close"}
        self.gzip = _env(env, "COMPRESSION").lower() == "gzip"
        if self.gzip:
            self.headers["content-encoding"] = "gzip"
        # A plain http address never meets TLS (redirects are not followed): a bare context spares the ~30 ms of
        # loading the system's certificates that httpx's default costs.
        self._verify = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        if url.startswith("https:"):
            context = ssl.create_default_context(cafile=_env(env, "CERTIFICATE") or None)
            certificate = _env(env, "CLIENT_CERTIFICATE")
            if certificate:
                context.load_cert_chain(certificate, _env(env, "CLIENT_KEY") or None)
            self._verify = context
        self._client: httpx.Client | None = None
        self._client_lock = threading.Lock()

    def _the_client(self) -> httpx.Client:
        """The one client, made at the first send (making one loads TLS settings: tens of ms)."""
        import httpx

        with self._client_lock:
            if self._client is None:
                self._client = httpx.Client(verify=self._verify, follow_redirects=False)
            return self._client

    def close(self) -> None:
        """Close the client."""
        with self._client_lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()

    def send(self, body: bytes) -> str | None:
        """Send one request body; ``None`` when the endpoint took it, else why not, in a few words."""
        deadline = Deadline(self.deadline)
        payload = gzip.compress(body) if self.gzip else body
        done = with_retries(lambda _: self._attempt(payload, deadline), RETRIES, deadline)
        if done.stop is Stop.DEADLINE:
            return self._gave_up(done.answer, done.attempts, done.asked)
        return done.answer.problem

    def _gave_up(self, last: _Attempt, attempts: int, asked: float | None) -> str:
        """``HTTP 503 Service Unavailable, 3 times within 2 s; it asked to retry after 1 s (Retry-After) ...``"""
        text = last.problem or ""
        if attempts > 1:
            text += f", {attempts} times within {_seconds(self.deadline)}"
        if asked is not None:
            text += (f"; it asked to retry after {_seconds(asked)} (Retry-After), and the export's "
                     f"{_seconds(self.deadline)} would be over by then")
        return text

    def _attempt(self, payload: bytes, deadline: Deadline) -> _Attempt:
        left = deadline.left()
        if left <= 0:
            return _Attempt(f"timed out after {_seconds(self.deadline)}: no time left to try again")
        import httpx

        watch = _Watch()
        watchdog = threading.Timer(left, watch.fire)
        watchdog.daemon = True
        watchdog.start()
        try:
            response = self._the_client().post(self.url, content=payload, headers=self.headers,
                                               timeout=httpx.Timeout(left), extensions={"trace": watch.trace})
        except httpx.InvalidURL as exc:
            return _Attempt(f"not an address httpx can send to: {exc}")
        except httpx.HTTPError as exc:
            if watch.fired or isinstance(exc, httpx.TimeoutException):
                return _Attempt(watch.timed_out(self.deadline))
            return _Attempt(_network_problem(exc))
        finally:
            watchdog.cancel()
        return self._judge(response)

    def _judge(self, response: httpx.Response) -> _Attempt:
        code = response.status_code
        if 200 <= code < 300:
            return _Attempt(None, code)
        if code in REDIRECTS:
            location = response.headers.get("location")
            if not location:
                return _Attempt(f"the endpoint redirected ({_status(code)}) without saying where; give the "
                                "address it should have pointed to", code)
            target = urljoin(self.url, location)
            if len(target) > LOCATION_CHARS:
                target = target[: LOCATION_CHARS - 1] + "…"
            return _Attempt(f"the endpoint redirected ({_status(code)}) to {target}; spans are never sent on to a "
                            "redirect (it would carry the headers there): give that address instead", code)
        return _Attempt(_status(code), code, response.headers.get("retry-after"))
