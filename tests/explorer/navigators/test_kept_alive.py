"""A kept-alive connection the server lets go just as a request is sent on it (a server's idle timeout firing as
the request comes: uvicorn's is 5 s, as long as httpx keeps a connection for reuse): the request is sent again on a
new connection, once, and the walk never sees it. A real server on 127.0.0.1, raw sockets
(:meth:`FaultyEndpoint.letting_go`), so that "closed before any answer" is exactly that."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators.openai_compat import (
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    NavigatorHTTPError,
    OpenAICompatibleNavigator,
)

from ..faulty_endpoint import FaultyEndpoint

CANDIDATES = (NodeView("billing", "Billing"), NodeView("accounts", "Accounts"))
ANSWER = json.dumps({"choices": [{"message": {"role": "assistant", "content": json.dumps(
    {"selected": ["billing"], "rationale": "kept"})}}]}).encode()


@pytest.fixture
def navigator(monkeypatch: pytest.MonkeyPatch) -> Iterator[OpenAICompatibleNavigator]:
    monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-kept-alive")
    for name in ("REASONING_EXPLORER_MAX_RETRIES", "REASONING_EXPLORER_CALL_DEADLINE"):
        monkeypatch.delenv(name, raising=False)
    with OpenAICompatibleNavigator() as made:
        yield made


def ask(navigator: OpenAICompatibleNavigator) -> tuple[str, ...]:
    return navigator.choose(NavigatorRequest("q", "openai:m", None, CANDIDATES, 5, CancellationToken())).selected


def test_a_request_on_a_connection_let_go_before_any_answer_is_sent_again_on_a_new_one(
        navigator: OpenAICompatibleNavigator, monkeypatch: pytest.MonkeyPatch) -> None:
    with FaultyEndpoint.letting_go(1, ANSWER) as server:
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, f"{server.url}/v1")
        assert ask(navigator) == ("billing",)  # the first connection, kept alive
        assert ask(navigator) == ("billing",)  # sent on it, let go unanswered, sent again on a second
        assert (server.requests, server.connections) == (3, 2)


def test_a_server_that_lets_every_request_go_is_one_failure_after_the_second_try(
        navigator: OpenAICompatibleNavigator, monkeypatch: pytest.MonkeyPatch) -> None:
    with FaultyEndpoint.letting_go(0, ANSWER) as server:
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, f"{server.url}/v1")
        with pytest.raises(NavigatorHTTPError) as caught:
            ask(navigator)
        assert str(caught.value) == (
            f"the connection to {server.url}/v1/chat/completions failed (RemoteProtocolError: the server closed it "
            "or sent something that is not HTTP); check OPENAI_BASE_URL and that the server is up")
        assert (server.requests, server.connections) == (2, 2)
