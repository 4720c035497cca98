"""A small scripted HTTP server for tests: real sockets on 127.0.0.1, no mocks.

Each test queues the replies the server gives, in order (status, headers, body and an optional
delay), and reads back what every request carried::

    with StubServer() as server:
        server.add(Reply(200, {"ok": True}), Reply(503, headers={"Retry-After": "0"}))
        ...  # point the code under test at server.url
        assert server.requests[0].json() == {...}

A delayed reply sleeps in short steps, so that closing the server ends it at once, and it notices
when the client hangs up (counted in :attr:`StubServer.disconnects`), which lets a test check
that a cancelled request really closed its connection.
"""

from __future__ import annotations

import json
import select
import socket
import threading
import time
from collections import deque
from collections.abc import Mapping
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
    timeout = 5  # a client that never sends its body cannot hold the server's shutdown forever

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
        reply = stub._record(Recorded(self.command, self.path, headers, body))
        if reply.delay and not self._wait(reply.delay):
            return
        payload, content_type = reply.encoded()
        try:
            self.send_response(reply.status)
            names = {name.lower() for name in reply.headers}
            if "content-type" not in names:
                self.send_header("Content-Type", content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except (BrokenPipeError, ConnectionResetError):
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

    def __init__(self, default: Reply = NO_REPLY_LEFT) -> None:
        self.default = default
        self._replies: deque[Reply] = deque()
        self._requests: list[Recorded] = []
        self._disconnects = 0
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
        """Stop serving, end delayed replies and join every thread."""
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> StubServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def _record(self, request: Recorded) -> Reply:
        with self._lock:
            self._requests.append(request)
            return self._replies.popleft() if self._replies else self.default

    def _note_disconnect(self) -> None:
        with self._lock:
            self._disconnects += 1
            self._lock.notify_all()
