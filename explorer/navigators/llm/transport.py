"""HTTP for the LLM navigator: one client per navigator, a bounded body, cancellation and a deadline.

One :class:`HTTPClient` holds one ``httpx.AsyncClient`` (its connection pool, its TLS context,
an injectable transport) on one event loop, run by one daemon thread, started at the first call
and shared by every call of the navigator and every thread that calls it. The async client
rather than ``httpx.Client`` because a blocked synchronous read cannot be abandoned from another
thread, while cancelling an asyncio task makes httpcore drop the connection at once: a tripped
cancellation token abandons the request within :data:`POLL` + :data:`CANCEL_GRACE` seconds, and
the server sees the client go (a slow model stops generating for nobody).

The caller's thread waits on the request, looking at the token and at the call's
:class:`explorer.http.Deadline` between short waits. The body is read in pieces and counted after
decompression, so neither a huge answer nor a gzip bomb is ever held whole.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import socket
import ssl
import threading
import zlib
from collections.abc import Callable, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, Final, TypeVar

import httpx

from core import CancellationToken, RetrievalCancelled

from ...http import Deadline
from .errors import NavigatorHTTPError
from .settings import (
    CALL_DEADLINE_ENV,
    CONNECT_TIMEOUT_ENV,
    MAX_ANSWER_BYTES_ENV,
    READ_TIMEOUT_ENV,
    Settings,
)

__all__ = ["CANCEL_GRACE", "POLL", "HTTPClient", "Reply"]

_log = logging.getLogger(__name__)

# How often a waiting caller looks at its token and deadline (an answer wakes it at once), and
# how long it then gives the request to close its connection: a cancel is answered within
# 0.12 s at worst, 0.02 s typically.
POLL: Final = 0.02
CANCEL_GRACE: Final = 0.1
THREAD_NAME: Final = "llm-http"
# We decode these ourselves, bounded; asking for them explicitly keeps a server from sending an
# encoding an optional package (brotli, zstandard) would have made httpx advertise.
_ACCEPT_ENCODING: Final = "gzip, deflate"

_T = TypeVar("_T")

_LET_GO: Final = (httpx.RemoteProtocolError, httpx.ReadError, httpx.WriteError)
"""What a request meets, before any answer, on a kept-alive connection that the server let go just as the request
was sent: a server drops a connection idle for its keep-alive time (uvicorn's, under vLLM and many OpenAI-compatible
servers, is 5 s, the time httpx keeps one for reuse), and a request sent in that instant finds it closed. The server
answered nothing, so the request is sent once more, on a new connection (the pool has dropped the dead one); a second
failure is the call's failure. (OpenAI's own client retries such failures too.)"""


@dataclass(frozen=True, slots=True)
class Reply:
    """What the caller needs of an HTTP answer."""

    status: int
    text: str
    retry_after: str | None = None
    location: str | None = None


class _TooLarge(Exception):
    """The body grew past the cap once decompressed."""


class _BadEncoding(Exception):
    """The body came in a ``Content-Encoding`` that was not asked for, or did not decompress."""

    def __init__(self, encoding: str, *, corrupt: bool = False) -> None:
        super().__init__(encoding)
        self.encoding = encoding
        self.corrupt = corrupt


class _BoundedBody:
    """Collects a body's bytes as they arrive, decompressing gzip and deflate, never past ``cap`` bytes.

    zlib is asked for at most what is left under the cap plus one byte at a time, so a bomb
    (1 MB that inflates to 1 GiB) costs the cap in memory, not the gigabyte.
    """

    def __init__(self, encoding: str, cap: int) -> None:
        self._encoding = encoding
        self._cap = cap
        self._size = 0
        self._parts: list[bytes] = []
        self._first = True
        if encoding in ("", "identity"):
            self._inflater = None
        elif encoding in ("gzip", "x-gzip"):
            self._inflater = zlib.decompressobj(zlib.MAX_WBITS | 16)
        elif encoding == "deflate":
            self._inflater = zlib.decompressobj()
        else:
            raise _BadEncoding(encoding)

    def feed(self, data: bytes) -> None:
        """Add the next raw piece of the body."""
        inflater = self._inflater
        if inflater is None:
            self._keep(data)
            return
        try:
            while data and not inflater.eof:
                self._keep(inflater.decompress(data, self._cap - self._size + 1))
                data = inflater.unconsumed_tail
                self._first = False
        except zlib.error:
            if not (self._first and self._encoding == "deflate"):
                raise _BadEncoding(self._encoding, corrupt=True) from None
            # "deflate" is often sent raw, without its zlib header (as httpx also allows).
            self._first = False
            self._inflater = zlib.decompressobj(-zlib.MAX_WBITS)
            self.feed(data)

    def finish(self) -> bytes:
        """The whole decoded body."""
        if self._inflater is not None:
            try:
                self._keep(self._inflater.flush())
            except zlib.error:
                raise _BadEncoding(self._encoding, corrupt=True) from None
        return b"".join(self._parts)

    def _keep(self, piece: bytes) -> None:
        self._size += len(piece)
        if self._size > self._cap:
            raise _TooLarge()
        if piece:
            self._parts.append(piece)


async def _read(response: httpx.Response, cap: int) -> bytes:
    if response.is_stream_consumed:
        # An in-process transport (httpx.MockTransport given content=) hands over a body that
        # httpx already read and decoded: nothing is left to bound but its size.
        if len(response.content) > cap:
            raise _TooLarge()
        return response.content
    encoding = response.headers.get("content-encoding", "").strip().lower()
    length = response.headers.get("content-length", "").strip()
    if encoding in ("", "identity") and length.isascii() and length.isdigit() and int(length) > cap:
        raise _TooLarge()  # said up front: not a byte of it is read
    body = _BoundedBody(encoding, cap)
    async for piece in response.aiter_raw():
        body.feed(piece)
    return body.finish()


def _text(body: bytes, charset: str | None) -> str:
    try:
        return body.decode(charset or "utf-8", errors="replace")
    except LookupError:  # a charset Python does not know
        return body.decode("utf-8", errors="replace")


@functools.cache
def _tls_context() -> ssl.SSLContext:
    """One TLS context for every client: building it (loading the CA bundle) costs about 50 ms."""
    return httpx.create_ssl_context()


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

        threading.Thread(target=run, name=f"{THREAD_NAME}-dns", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Nothing to wait for: an abandoned lookup ends with its daemon thread."""


def _run_loop(loop: asyncio.AbstractEventLoop) -> None:
    asyncio.set_event_loop(loop)
    try:
        loop.run_forever()
    finally:
        # Closed: end whatever is still in flight, so every waiting caller hears of it.
        pending = asyncio.all_tasks(loop)
        for task in pending:
            task.cancel()
        if pending:
            loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
        loop.close()


@dataclass(slots=True)
class _Running:
    loop: asyncio.AbstractEventLoop
    thread: threading.Thread
    client: httpx.AsyncClient


class HTTPClient:
    """One ``httpx.AsyncClient`` on one event loop on one daemon thread, for every call of one navigator.

    Started at the first :meth:`post`; :meth:`close` ends the thread and closes the connections
    (a later :meth:`post` starts afresh). ``transport`` replaces the network, e.g. with an
    ``httpx.MockTransport`` in tests.
    """

    def __init__(self, transport: httpx.AsyncBaseTransport | None = None) -> None:
        self._transport = transport
        self._lock = threading.Lock()
        self._running: _Running | None = None

    def post(
        self, settings: Settings, payload: Mapping[str, Any], *, token: CancellationToken, deadline: Deadline
    ) -> Reply:
        """POST ``payload`` as JSON to ``settings.url`` once and read the answer (sent again, once, when a kept-alive
        connection turns out closed before any answer: :data:`_LET_GO`).

        Raises :class:`core.RetrievalCancelled` when ``token`` trips, and
        :class:`NavigatorHTTPError` for a connection failure, a timeout, an answer over
        ``settings.max_answer_bytes`` or a call past ``deadline``. An HTTP error status is a
        :class:`Reply` like any other.
        """
        running = self._start()
        finished = threading.Event()
        timeout = httpx.Timeout(
            connect=settings.connect_timeout,
            read=settings.read_timeout,
            write=settings.read_timeout,
            pool=settings.connect_timeout,
        )
        coroutine = self._exchange(
            running.client, settings, payload, timeout, finished
        )
        future = asyncio.run_coroutine_threadsafe(coroutine, running.loop)
        failure: NavigatorHTTPError | None = None
        try:
            while True:
                done, _ = concurrent.futures.wait([future], timeout=min(POLL, deadline.left()))
                if done:
                    break
                if token.cancelled:
                    raise RetrievalCancelled()
                if deadline.passed:
                    failure = _deadline_error(settings, deadline)
                    break
        finally:
            # However this wait ends (an answer, a cancel, the deadline, KeyboardInterrupt), the
            # request ends with it; the short grace lets it close its connection first.
            if not future.done():
                future.cancel()
                finished.wait(CANCEL_GRACE)
        if failure is not None:
            raise failure
        if future.cancelled():
            raise RetrievalCancelled() if token.cancelled else NavigatorHTTPError(
                f"the request to {settings.shown_url} was abandoned: the navigator was closed"
            )
        error = future.exception()
        if error is None:
            return future.result()
        if token.cancelled:
            raise RetrievalCancelled()
        if not isinstance(error, Exception):
            raise error
        # Our own message, raised outside any except block and not chained: an httpx exception
        # keeps its request, and the request keeps its headers.
        failure = _transport_error(error, settings)
        del error
        raise failure

    def close(self) -> None:
        """End the loop thread and close every connection; safe to call twice, from any thread."""
        with self._lock:
            running, self._running = self._running, None
        if running is None:
            return
        if threading.current_thread() is running.thread:
            running.loop.stop()
            return
        closing = asyncio.run_coroutine_threadsafe(running.client.aclose(), running.loop)
        try:
            closing.result(timeout=1.0)
        except Exception:  # closing is best effort: the connections die with the thread anyway
            _log.debug("closing the HTTP client did not finish cleanly", exc_info=True)
        running.loop.call_soon_threadsafe(running.loop.stop)
        running.thread.join(timeout=1.0)

    @property
    def started(self) -> bool:
        """Whether the loop thread is running (for tests and diagnostics)."""
        with self._lock:
            return self._running is not None

    def _start(self) -> _Running:
        with self._lock:
            if self._running is not None:
                return self._running
            loop = asyncio.new_event_loop()
            loop.set_default_executor(_DaemonThreadExecutor())
            thread = threading.Thread(target=_run_loop, args=(loop,), name=THREAD_NAME, daemon=True)
            thread.start()
            client = asyncio.run_coroutine_threadsafe(self._make_client(), loop).result()
            self._running = _Running(loop, thread, client)
            return self._running

    async def _make_client(self) -> httpx.AsyncClient:
        # Built on its own loop: the connection pool's locks belong there.
        if self._transport is not None:
            return httpx.AsyncClient(transport=self._transport, follow_redirects=False)
        return httpx.AsyncClient(verify=_tls_context(), follow_redirects=False)

    @staticmethod
    async def _exchange(
        client: httpx.AsyncClient,
        settings: Settings,
        payload: Mapping[str, Any],
        timeout: httpx.Timeout,
        finished: threading.Event,
    ) -> Reply:
        try:
            headers = {**settings.headers(), "Accept-Encoding": _ACCEPT_ENCODING}
            request = client.build_request("POST", settings.url, json=payload, headers=headers, timeout=timeout)
            try:
                response = await client.send(request, stream=True)
            except _LET_GO as exc:  # no answer began: asked again once, on a new connection
                _log.info("the connection to %s closed before an answer (%s); asking again on a new one",
                          settings.shown_url, type(exc).__name__)
                response = await client.send(request, stream=True)
            try:
                body = await _read(response, settings.max_answer_bytes)
            finally:
                await response.aclose()
            return Reply(
                response.status_code,
                _text(body, response.charset_encoding),
                response.headers.get("retry-after"),
                response.headers.get("location"),
            )
        finally:
            finished.set()


# -- what went wrong, in one line ----------------------------------------------------------------


def _causes(exc: BaseException) -> list[BaseException]:
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and current not in chain:
        chain.append(current)
        current = current.__cause__ or current.__context__
    return chain


def _deadline_error(settings: Settings, deadline: Deadline) -> NavigatorHTTPError:
    return NavigatorHTTPError(
        f"no complete answer from {settings.shown_url} within {deadline.seconds:g} s (the deadline of the whole "
        f"call); the server may be stalling or the model slow: raise {CALL_DEADLINE_ENV} or try again later"
    )


def _transport_error(exc: Exception, settings: Settings) -> NavigatorHTTPError:
    """A one-line message for a failure before a whole HTTP answer, naming the URL and what to check."""
    url, env_name, running = settings.shown_url, settings.base_url_env, settings.running_hint
    if isinstance(exc, _TooLarge):
        return NavigatorHTTPError(
            f"the answer from {url} is over {settings.max_answer_bytes} bytes once decompressed, so it was "
            f"abandoned; check {env_name} (a chat completions API answers in a few kB) or raise {MAX_ANSWER_BYTES_ENV}"
        )
    if isinstance(exc, _BadEncoding):
        what = "could not be decompressed" if exc.corrupt else "came in an encoding that was not asked for"
        return NavigatorHTTPError(f"the answer from {url} {what} ({exc.encoding!r}); check {env_name}")
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
