"""A small scripted HTTP server for tests: real sockets on 127.0.0.1, no mocks.

Each test queues the replies the server gives, in order (status, headers, body and an optional
delay), and reads back what every request carried::

    with StubServer() as server:
        server.add(Reply(200, {"ok": True}), Reply(503, headers={"Retry-After": "0"}))
        ...  # point the code under test at server.url
        assert server.requests[0].json() == {...}

A delayed reply sleeps in short steps, so that closing the server ends it at once, and it notices
when the client hangs up (counted in :attr:`StubServer.disconnects`), which lets a test check
that a cancelled request really closed its connection. A reply can also drip its body one byte
at a time, or come without a ``Content-Length`` (the end of the body is the end of the
connection). The server speaks HTTP/1.1 and keeps connections alive, as real servers do; each
:class:`Recorded` request says which client port it came from, so a test can see a connection
being reused.
"""

from __future__ import annotations

import contextlib
import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_STEP = 0.02


@dataclass(frozen=True)
class Reply:
    """One scripted answer. A ``body`` that is not ``str`` or ``bytes`` is sent as JSON."""

    status: int = 200
    body: Any = b""
    headers: Mapping[str, str] = field(default_factory=dict)
    delay: float = 0.0
    drip: float = 0.0
    """Seconds between the body's bytes, sent one at a time (0: all at once)."""
    content_length: bool = True
    """False: no ``Content-Length``; the body ends when the server closes the connection."""

    def encoded(self) -> tuple[bytes, str]:
        """The body's bytes and its content type."""
        if isinstance(self.body, bytes):
            return self.body, "application/octet-stream"
        if isinstance(self.body, str):
            return self.body.encode("utf-8"), "text/plain; charset=utf-8"
        return json.dumps(self.body).encode("utf-8"), "application/json"


@dataclass(frozen=True)
class Recorded:
    """One request as the server received it; header names are lower-cased."""

    method: str
    path: str
    headers: Mapping[str, str]
    body: bytes
    client_port: int = 0
    """The client's side of the connection: the same port for requests on one kept-alive connection."""

    def json(self) -> Any:
        """The body decoded as JSON."""
        return json.loads(self.body)


NO_REPLY_LEFT = Reply(599, {"error": {"message": "the test scripted no reply for this request"}})


class _Server(ThreadingHTTPServer):
    # Handler threads are joined on close (they end within one step, thanks to the stop flag).
    daemon_threads = False
    block_on_close = True
    stub: StubServer


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"  # keep-alive, so a client's connection reuse shows
    timeout = 5  # an idle kept-alive connection is let go after this (and closing the server ends it at once)

    def setup(self) -> None:
        super().setup()
        # Headers and body go out as separate writes; without this, a kept-alive client's delayed
        # ACK holds every answer back 40 ms.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.stub._track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.stub._track(self.connection, False)

    def do_POST(self) -> None:
        self._answer()

    def do_GET(self) -> None:
        self._answer()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: pytest shows what matters."""

    def _answer(self) -> None:
        stub = self.server.stub
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        reply = stub._record(Recorded(self.command, self.path, headers, body, self.client_address[1]))
        if reply.delay and not self._wait(reply.delay):
            self.close_connection = True
            return
        payload, content_type = reply.encoded()
        try:
            self.send_response(reply.status)
            names = {name.lower() for name in reply.headers}
            if "content-type" not in names:
                self.send_header("Content-Type", content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            if reply.content_length:
                self.send_header("Content-Length", str(len(payload)))
            else:
                self.send_header("Connection", "close")
                self.close_connection = True
            self.end_headers()
            if not reply.drip:
                self.wfile.write(payload)
                return
            self.wfile.flush()
            for index in range(len(payload)):
                if index and not self._wait(reply.drip):
                    self.close_connection = True
                    return
                self.wfile.write(payload[index : index + 1])
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
            self.server.stub._note_disconnect()

    def _wait(self, seconds: float) -> bool:
        """Sleep ``seconds`` in short steps; ``False`` when the server stops or the client hangs up first."""
        stub = self.server.stub
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if stub._stopping.is_set():
                return False
            readable, _, _ = select.select([self.connection], [], [], min(_STEP, left))
            if readable and self._client_gone():
                stub._note_disconnect()
                return False
        return True

    def _client_gone(self) -> bool:
        # The request was read whole, so a readable socket means end of stream (or a reset).
        try:
            return bool(self.connection.recv(1, socket.MSG_PEEK) == b"")
        except OSError:
            return True


class StubServer:
    """A threaded HTTP server on 127.0.0.1 (a free port) that answers from a queue of :class:`Reply`."""

    def __init__(self, default: Reply = NO_REPLY_LEFT, respond: Callable[[Recorded], Reply] | None = None) -> None:
        """``respond``, when given, answers every request the queue has no reply for (a server that answers by
        what it is asked, e.g. by the ids a structured-output schema offers); else ``default`` does."""
        self.default = default
        self.respond = respond
        self._replies: deque[Reply] = deque()
        self._requests: list[Recorded] = []
        self._disconnects = 0
        self._connections: set[socket.socket] = set()
        self._lock = threading.Condition()
        self._stopping = threading.Event()
        self._server = _Server(("127.0.0.1", 0), _Handler)
        self._server.stub = self
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": _STEP}, name="http-stub", daemon=True
        )
        self._thread.start()

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT``, no trailing slash."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def add(self, *replies: Reply) -> None:
        """Queue replies, given in order to the next requests."""
        with self._lock:
            self._replies.extend(replies)

    @property
    def requests(self) -> list[Recorded]:
        """Every request received so far, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    @property
    def pending(self) -> int:
        """How many queued replies no request has taken yet."""
        with self._lock:
            return len(self._replies)

    @property
    def disconnects(self) -> int:
        """How many clients hung up before their reply was sent."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnects(self, count: int, timeout: float) -> bool:
        """Wait until at least ``count`` clients have hung up early; whether they did in time."""
        with self._lock:
            return self._lock.wait_for(lambda: self._disconnects >= count, timeout)

    def close(self) -> None:
        """Stop serving, end delayed replies and kept-alive connections, and join every thread."""
        self._stopping.set()
        self._server.shutdown()
        with self._lock:
            open_connections = list(self._connections)
        for connection in open_connections:
            # Wakes a handler waiting for the next request on a kept-alive connection.
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _record(self, request: Recorded) -> Reply:
        with self._lock:
            self._requests.append(request)
            if self._replies:
                return self._replies.popleft()
        return self.respond(request) if self.respond is not None else self.default

    def _track(self, connection: socket.socket, open_: bool) -> None:
        with self._lock:
            if open_:
                self._connections.add(connection)
            else:
                self._connections.discard(connection)

    def _note_disconnect(self) -> None:
        with self._lock:
            self._disconnects += 1
            self._lock.notify_all()
