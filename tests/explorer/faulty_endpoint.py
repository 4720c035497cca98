"""OTLP endpoints that misbehave, for tests: a real server on 127.0.0.1 that reads each request whole and then
answers it badly, as the endpoints of a fuzzing pass did (issue 21)::

    with FaultyEndpoint.dripping() as endpoint:        # headers, then one byte every 0.5 s, for ever
        ...  # point the code under test at endpoint.url
        assert endpoint.wait_until_left(30)             # the client hung up (a hang guard, not a sleep)

    FaultyEndpoint.redirecting(307, "https://elsewhere.example/v1/traces")
    FaultyEndpoint.refusing(429, retry_after="30")     # a status, with an optional Retry-After
    FaultyEndpoint.resetting()                         # the request read, then a TCP reset instead of an answer
    FaultyEndpoint.letting_go(1, body)                 # one answer kept alive, then the next request unanswered
    FaultyEndpoint.dripping(tls=True)                  # the same over TLS (tls/loopback.crt, valid for 127.0.0.1)

Raw sockets, so that a drip really is one byte at a time and a reset really is an RST.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import struct
import threading
from collections.abc import Callable
from pathlib import Path

DRIP_SECONDS = 0.5
"""The drip of the issue: one byte every half second."""
TLS = Path(__file__).with_name("tls")
CERTIFICATE = TLS / "loopback.crt"
"""A self-signed certificate for 127.0.0.1 (a test's own, valid to 2126), and its key beside it."""


def read_request(connection: socket.socket) -> bytes | None:
    """One whole HTTP request (head and ``Content-Length`` body), or ``None`` when the client left first."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value.strip())
    while len(body) < length:
        chunk = connection.recv(65536)
        if not chunk:
            return None
        body += chunk
    return head


class FaultyEndpoint:
    """Answers every request with ``answer(connection, endpoint)``; counts requests; notices clients leaving."""

    def __init__(self, answer: Callable[[socket.socket, FaultyEndpoint], None], *, tls: bool = False) -> None:
        self._answer = answer
        self._tls: ssl.SSLContext | None = None
        if tls:
            self._tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self._tls.load_cert_chain(CERTIFICATE, TLS / "loopback.key")
        self._lock = threading.Condition()
        self._requests = 0
        self._left = 0
        self.stopping = threading.Event()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.port = self._listener.getsockname()[1]
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self._threads: list[threading.Thread] = []
        self._connections: list[socket.socket] = []
        self._thread = threading.Thread(target=self._serve, name="faulty-endpoint", daemon=True)

    # -- the faults ----------------------------------------------------------------------------------

    @classmethod
    def dripping(cls, *, tls: bool = False) -> FaultyEndpoint:
        """``200 OK`` headers at once, then the body one byte every :data:`DRIP_SECONDS`, until the client leaves."""

        def answer(connection: socket.socket, endpoint: FaultyEndpoint) -> None:
            connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/x-protobuf\r\n"
                               b"Content-Length: 1000000\r\n\r\n")
            while not endpoint.stopping.wait(DRIP_SECONDS):
                try:
                    connection.sendall(b"\0")
                except OSError:
                    endpoint._note_left()
                    return

        return cls(answer, tls=tls)

    @classmethod
    def redirecting(cls, status: int, location: str) -> FaultyEndpoint:
        """``status`` (a 3xx) with ``location`` (sent as UTF-8, whatever it holds)."""
        return cls.answering(status, {"Location": location})

    @classmethod
    def refusing(cls, status: int, *, retry_after: str | None = None) -> FaultyEndpoint:
        """``status`` (a 4xx or 5xx), with ``Retry-After: retry_after`` when given."""
        return cls.answering(status, {} if retry_after is None else {"Retry-After": retry_after})

    @classmethod
    def answering(cls, status: int, headers: dict[str, str], *, tls: bool = False) -> FaultyEndpoint:
        def answer(connection: socket.socket, endpoint: FaultyEndpoint) -> None:
            lines = [f"HTTP/1.1 {status} Whatever", "Content-Length: 0", "Connection: close",
                     *(f"{name}: {value}" for name, value in headers.items())]
            connection.sendall(("\r\n".join(lines) + "\r\n\r\n").encode("utf-8"))

        return cls(answer, tls=tls)

    @classmethod
    def resetting(cls) -> FaultyEndpoint:
        """No answer: the connection is reset (SO_LINGER 0, so closing sends an RST, not a FIN)."""

        def answer(connection: socket.socket, endpoint: FaultyEndpoint) -> None:
            connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))

        return cls(answer)

    @classmethod
    def letting_go(cls, answered: int, body: bytes) -> FaultyEndpoint:
        """``answered`` requests on each connection answered ``200`` with ``body`` (JSON), the connection kept alive;
        the next one read and the connection closed, unanswered (a server whose keep-alive time ran out as it came)."""

        def answer(connection: socket.socket, endpoint: FaultyEndpoint) -> None:
            for number in range(answered):
                if number:  # the first was read before this was called
                    if read_request(connection) is None:
                        return
                    endpoint._note_request()
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                   b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
            if answered and read_request(connection) is not None:
                endpoint._note_request()

        return cls(answer)

    # -- what happened -------------------------------------------------------------------------------

    @property
    def requests(self) -> int:
        """Requests read whole so far."""
        with self._lock:
            return self._requests

    @property
    def connections(self) -> int:
        """Connections taken so far."""
        with self._lock:
            return len(self._threads)

    def wait_for_request(self, timeout: float) -> bool:
        """Wait (a hang guard) until a request has been read whole; whether one was."""
        with self._lock:
            return self._lock.wait_for(lambda: self._requests >= 1, timeout)

    def wait_until_left(self, timeout: float) -> bool:
        """Wait (a hang guard) until a client hung up in the middle of a drip; whether one did."""
        with self._lock:
            return self._lock.wait_for(lambda: self._left >= 1, timeout)

    # -- serving -------------------------------------------------------------------------------------

    def _note_request(self) -> None:
        with self._lock:
            self._requests += 1
            self._lock.notify_all()

    def _note_left(self) -> None:
        with self._lock:
            self._left += 1
            self._lock.notify_all()

    def _serve(self) -> None:
        while not self.stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            thread = threading.Thread(target=self._handle, args=(connection,), daemon=True)
            with self._lock:
                self._connections.append(connection)
                self._threads.append(thread)
            thread.start()

    def _handle(self, connection: socket.socket) -> None:
        try:
            if self._tls is not None:
                connection.settimeout(30)  # a client that never finishes its handshake does not hold us
                connection = self._tls.wrap_socket(connection, server_side=True)
                connection.settimeout(None)
                with self._lock:
                    self._connections.append(connection)
            if read_request(connection) is None:
                return
            self._note_request()
            self._answer(connection, self)
        except OSError:
            pass
        finally:
            connection.close()

    def __enter__(self) -> FaultyEndpoint:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        self._thread.join(5)
        self._listener.close()
        with self._lock:
            connections, threads = list(self._connections), list(self._threads)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for thread in threads:
            thread.join(5)
