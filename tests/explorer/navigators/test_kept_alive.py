"""A kept-alive connection the server lets go just as a request is sent on it (a server's idle timeout firing as
the request comes: uvicorn's is 5 s, as long as httpx keeps a connection for reuse): the request is sent again on a
new connection, once, and the walk never sees it. A real server on 127.0.0.1, raw sockets, so that "closed before
any answer" is exactly that."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import Iterator

import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators.openai_compat import (
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    NavigatorHTTPError,
    OpenAICompatibleNavigator,
)

from ..faulty_endpoint import read_request

CANDIDATES = (NodeView("billing", "Billing"), NodeView("accounts", "Accounts"))


class LettingGo:
    """Answers ``answered`` requests on each connection (keeping it alive), then reads the next one and closes the
    connection without a word; counts the requests read and the connections taken."""

    def __init__(self, answered: int) -> None:
        self.answered = answered
        self.requests = 0
        self.connections = 0
        self._lock = threading.Lock()
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self.url = f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._open: list[socket.socket] = []

    def _serve(self) -> None:
        while not self._stopping.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with self._lock:
                self.connections += 1
                self._open.append(connection)
            thread = threading.Thread(target=self._handle, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _handle(self, connection: socket.socket) -> None:
        body = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps(
            {"selected": ["billing"], "rationale": "kept"})}}]}).encode()
        with contextlib.suppress(OSError), connection:
            for number in range(self.answered + 1):
                if read_request(connection) is None:
                    return
                with self._lock:
                    self.requests += 1
                if number == self.answered:
                    return  # let go: closed, unanswered
                connection.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                                   b"Content-Length: %d\r\n\r\n%s" % (len(body), body))

    def __enter__(self) -> LettingGo:
        self._serving = threading.Thread(target=self._serve, daemon=True)
        self._serving.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stopping.set()
        self._serving.join(5)
        self._listener.close()
        for connection in self._open:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)
        for thread in self._threads:
            thread.join(5)


@pytest.fixture
def navigator(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleNavigator]:
    monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-kept-alive")
    for name in ("REASONING_EXPLORER_MAX_RETRIES", "REASONING_EXPLORER_CALL_DEADLINE"):
        monkeypatch.delenv(name, raising=False)
    with OpenAICompatibleNavigator() as made:
        yield made


def ask(navigator: OpenAICompatibleNavigator) -> tuple[str, ...]:
    return navigator.choose(NavigatorRequest("q", "openai:m", None, CANDIDATES, 5,
                                             CancellationToken())).selected


def test_a_request_on_a_connection_let_go_before_any_answer_is_sent_again_on_a_new_one(
        navigator: OpenAICompatibleNavigator, monkeypatch: pytest.MonkeyPatch) -> None:
    with LettingGo(answered=1) as server:
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, server.url)
        assert ask(navigator) == ("billing",)  # the first connection, kept alive
        assert ask(navigator) == ("billing",)  # sent on it, let go unanswered, sent again on a second
        assert (server.requests, server.connections) == (3, 2)


def test_a_server_that_lets_every_request_go_is_one_failure_after_the_second_try(
        navigator: OpenAICompatibleNavigator, monkeypatch: pytest.MonkeyPatch) -> None:
    with LettingGo(answered=0) as server:
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, server.url)
        with pytest.raises(NavigatorHTTPError) as caught:
            ask(navigator)
        assert str(caught.value) == (
            f"the connection to {server.url}/chat/completions failed (RemoteProtocolError: the server closed it or "
            "sent something that is not HTTP); check OPENAI_BASE_URL and that the server is up")
        assert (server.requests, server.connections) == (2, 2)
