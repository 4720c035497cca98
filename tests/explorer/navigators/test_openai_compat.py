"""The OpenAI-compatible navigator against a real HTTP server on 127.0.0.1 (no mocks).

The navigator is resolved through the installed ``core.tree_navigators`` entry points; walks
run with ``core.ReasoningRAGStrategy`` on a small inline hierarchy.
"""

from __future__ import annotations

import gc
import gzip
import json
import logging
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from core import (
    CancellationToken,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    NodeView,
    OnFailure,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    RetrievedDocument,
    TreeNavigator,
    TreeNavigatorRegistry,
    WalkFinished,
    WalkResult,
)
from explorer.navigators.openai_compat import (
    CALL_DEADLINE_ENV,
    CONNECT_TIMEOUT_ENV,
    MAX_ANSWER_BYTES_ENV,
    MAX_RETRIES_ENV,
    OLLAMA_BASE_URL_ENV,
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    READ_TIMEOUT_ENV,
    RETRY_BACKOFF_ENV,
    NavigatorHTTPError,
    OpenAICompatibleNavigator,
)

from ..http_stub import Reply, StubServer

MODEL = "openai:test-model"
KEY = "sk-test-SECRET123"
CONTENT = "CONTENT-MUST-NEVER-SHIP-5a1f"

_ENV = (
    OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV, OLLAMA_BASE_URL_ENV, CONNECT_TIMEOUT_ENV, READ_TIMEOUT_ENV,
    MAX_RETRIES_ENV, RETRY_BACKOFF_ENV, CALL_DEADLINE_ENV, MAX_ANSWER_BYTES_ENV,
    "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy",
)


# -- fixtures and helpers ------------------------------------------------------------------------


def _request_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("llm-http")]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A clean environment with the test key, and no request thread left behind by any test."""
    for name in _ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(OPENAI_API_KEY_ENV, KEY)
    # A worker runs other files' tests too: a request another test abandoned (its daemon thread ends when its server
    # answers or hangs up) is not this test's to answer for. Only the threads this test started are checked.
    before = set(_request_threads())

    def left() -> list[threading.Thread]:
        return [t for t in _request_threads() if t not in before]

    yield
    for generation in (1, 2):
        # A navigator held by a cycle (an exception's traceback) ends its client thread when collected. Only then,
        # the young objects first: a full collection costs up to seconds in a worker whose heap holds what the app
        # tests left.
        if left():
            gc.collect(generation)
    deadline = time.monotonic() + 30  # only a hang-guard: a busy machine may take seconds to end a thread
    while left() and time.monotonic() < deadline:
        time.sleep(0.02)
    assert left() == [], "a request thread outlived its test"


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with StubServer() as stub:
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, f"{stub.url}/v1")
        yield stub


def navigator(model: str = MODEL) -> TreeNavigator:
    return TreeNavigatorRegistry().resolve(model)


def completion(content: str, usage: dict[str, int] | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "model": "test-model",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": usage if usage is not None else {"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135},
    }


def answer(selected: Any, rationale: str = "because") -> Reply:
    return Reply(200, completion(json.dumps({"selected": selected, "rationale": rationale})))


def said(content: str) -> Reply:
    return Reply(200, completion(content))


CANDIDATES = (
    NodeView("billing", "Billing", "Invoices, refunds and payment methods."),
    NodeView("accounts", "Accounts", "Signing in, security, closing an account."),
    NodeView("faq-a", "Help", "Common questions."),
    NodeView("faq-b", "help", "More common questions."),
    NodeView("support", "Customer support", "Contacting a person."),
)


def ask(
    candidates: tuple[NodeView, ...] = CANDIDATES,
    *,
    model: str = MODEL,
    current: NodeView | None = None,
    remaining: int = 5,
    token: CancellationToken | None = None,
) -> Any:
    request = NavigatorRequest(
        "How long does a refund take?", model, current, candidates, remaining, token or CancellationToken()
    )
    return navigator(model).choose(request)


def _doc(node_id: str, parent: str | None, title: str, summary: str) -> RetrievedDocument:
    metadata: dict[str, Any] = {
        HierarchyMetadata.ID: node_id,
        "reasoningTitle": title,
        "reasoningSummary": summary,
    }
    if parent is not None:
        metadata[HierarchyMetadata.PARENT_ID] = parent
    return RetrievedDocument(f"{CONTENT}: the full text of {node_id}", node_id, 0.0, metadata)


def handbook() -> HierarchyIndex:
    return HierarchyIndex([
        _doc("billing", None, "Billing", "Invoices, refunds and payment methods."),
        _doc("invoices", "billing", "Invoices", "Reading and downloading invoices."),
        _doc("refunds", "billing", "Refunds", "Who can get money back, and how fast."),
        _doc("accounts", None, "Accounts", "Signing in, security, closing an account."),
        _doc("sign-in", "accounts", "Signing in", "Passwords and two-factor codes."),
        _doc("support", None, "Support", "Contacting a person."),
    ])


def walk(on_failure: OnFailure = OnFailure.THROW, **kwargs: Any) -> tuple[WalkResult, list[Any]]:
    strategy = ReasoningRAGStrategy(
        handbook(), navigator(), MODEL, max_nodes_visited=5, on_failure=on_failure, **kwargs
    )
    events = list(strategy.walk("How long does a refund take?"))
    finished = events[-1]
    assert isinstance(finished, WalkFinished)
    return finished.result, events


def stops(result: WalkResult) -> list[tuple[str, tuple[str, ...], str | None, str | None]]:
    return [(s.reason.value, tuple(s.path), s.branch, s.landed) for s in result.stops]


def landed(result: WalkResult) -> list[tuple[str, str]]:
    return [(d.id, d.metadata[HierarchyMetadata.STOP_REASON]) for d in result.documents]


def user_prompt(request_body: dict[str, Any]) -> str:
    return str(request_body["messages"][-1]["content"])


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- 1. a good answer ----------------------------------------------------------------------------


def test_a_walk_sends_titles_and_summaries_and_reads_ids_rationale_and_usage(server: StubServer) -> None:
    server.add(
        answer(["billing"], "Refunds are a billing matter."),
        Reply(200, completion(json.dumps({"selected": ["refunds"], "rationale": "Timing is here."}),
                              {"prompt_tokens": 90, "completion_tokens": 9, "total_tokens": 99})),
    )
    result, events = walk()

    assert landed(result) == [("refunds", "leaf")]
    assert stops(result) == [("leaf", ("billing", "refunds"), None, "refunds")]
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert [(c.current, c.selected, c.hallucinated, c.rationale) for c in chose] == [
        (None, ("billing",), (), "Refunds are a billing matter."),
        ("billing", ("refunds",), (), "Timing is here."),
    ]
    assert [dict(c.usage or {}) for c in chose] == [
        {"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135},
        {"prompt_tokens": 90, "completion_tokens": 9, "total_tokens": 99},
    ]

    first, second = server.requests
    assert (first.method, first.path) == ("POST", "/v1/chat/completions")
    assert first.headers["content-type"] == "application/json"
    body = first.json()
    assert body["model"] == "test-model"
    assert body["temperature"] == 0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    system = body["messages"][0]["content"]
    assert '{"selected"' in system and "Use only ids from the list" in system
    prompt = user_prompt(body)
    assert "Query: How long does a refund take?" in prompt
    assert "top of the corpus" in prompt
    assert (
        "1. id: billing\n   title: Billing\n   summary: Invoices, refunds and payment methods.\n"
        "2. id: accounts\n   title: Accounts\n   summary: Signing in, security, closing an account.\n"
        "3. id: support\n   title: Support\n   summary: Contacting a person.\n"
    ) in prompt
    assert "Remaining visits: 5." in prompt
    assert '{"selected": ["<id>", ...], "rationale": "..."}' in prompt and "Use only the ids listed" in prompt

    prompt = user_prompt(second.json())
    assert "You are in: Billing\nIts summary: Invoices, refunds and payment methods." in prompt
    assert "top of the corpus" not in prompt
    assert (
        "1. id: invoices\n   title: Invoices\n   summary: Reading and downloading invoices.\n"
        "2. id: refunds\n   title: Refunds\n   summary: Who can get money back, and how fast.\n"
    ) in prompt
    assert "Remaining visits: 4." in prompt

    for request in server.requests:
        assert CONTENT.encode() not in request.body
        assert b"the full text of" not in request.body


def test_a_direct_choice_carries_ids_rationale_and_usage(server: StubServer) -> None:
    server.add(answer(["support", "billing"], "A person can say how long."))
    choice = ask()
    assert isinstance(choice, NavigatorChoice)
    assert choice.selected == ("support", "billing")
    assert choice.rationale == "A person can say how long."
    assert dict(choice.usage or {}) == {"prompt_tokens": 120, "completion_tokens": 15, "total_tokens": 135}


def test_no_usage_reported_is_none(server: StubServer) -> None:
    body = completion('{"selected": ["billing"]}')
    del body["usage"]
    server.add(Reply(200, body))
    choice = ask()
    assert (choice.selected, choice.rationale, choice.usage) == (("billing",), "", None)


def test_no_candidates_makes_no_request(server: StubServer) -> None:
    assert ask(()).selected == ()
    assert server.requests == []


# -- 2, 3, 6. reading the answer -----------------------------------------------------------------

FENCED = '```json\n{"selected": ["accounts", "billing"], "rationale": "fenced"}\n```'


@pytest.mark.parametrize(
    ("content", "selected", "rationale"),
    [
        pytest.param(FENCED, ("accounts", "billing"), "fenced", id="json-fence"),
        pytest.param('```\n{"selected": ["billing"], "rationale": "bare fence"}\n```', ("billing",), "bare fence",
                     id="bare-fence"),
        pytest.param(
            'Sure! Here is my choice:\n{"selected": ["support"], "rationale": "prose"}\nHope that helps {really}.',
            ("support",), "prose", id="prose-around",
        ),
        pytest.param(
            'I weighed {billing} and {accounts}. {"selected": ["billing"], "rationale": "braces before"}',
            ("billing",), "braces before", id="braces-in-prose",
        ),
        pytest.param(
            '<think>Maybe {"selected": ["accounts"]}?</think>\n{"selected": ["billing"], "rationale": "thought"}',
            ("billing",), "thought", id="thinking-block",
        ),
        pytest.param('{"selected": "accounts", "rationale": "one"}', ("accounts",), "one", id="single-string"),
        pytest.param('{"selected": [], "rationale": "nothing fits"}', (), "nothing fits", id="empty-stops"),
        pytest.param('{"selected": null}', (), "", id="null-stops"),
        pytest.param('["billing", 2]', ("billing", "accounts"), "", id="bare-list"),
        pytest.param('{"Selected": [{"id": "support"}], "Rationale": "keys"}', ("support",), "keys", id="caps-and-objects"),
        pytest.param('{"selected": [" billing "]}', ("billing",), "", id="padded-id"),
        pytest.param(
            '{"selected": [2, "customer SUPPORT", "Help", 9, "1", "refunds-2024"], "rationale": "mixed"}',
            ("accounts", "support", "Help", "9", "billing", "refunds-2024"), "mixed",
            id="numbers-titles-ambiguous-and-unknown",
        ),
    ],
)
def test_answers_are_read_robustly(server: StubServer, content: str, selected: tuple[str, ...], rationale: str) -> None:
    server.add(said(content))
    choice = ask()
    assert (choice.selected, choice.rationale) == (selected, rationale)


def test_an_offered_id_wins_over_a_title_that_spells_it(server: StubServer) -> None:
    candidates = (NodeView("a", "b"), NodeView("b", "Something else"))
    server.add(answer(["b", "B"]))
    # "b" is an id; "B" is no id, and exactly one candidate is titled "b".
    assert ask(candidates).selected == ("b", "a")


# -- 4. garbage ---------------------------------------------------------------------------------

GARBAGE = "I cannot decide between these sections, sorry. Let me think about it some more and get back to you."


def test_garbage_under_throw_raises_retrieval_error_quoting_the_reply(server: StubServer) -> None:
    server.add(said(GARBAGE))
    with pytest.raises(RetrievalError) as caught:
        walk(OnFailure.THROW)
    message = str(caught.value)
    assert f'it starts "{GARBAGE[:80]}…"' in message
    assert message.startswith("navigator 'openai:test-model' failed choosing among the roots: NavigatorHTTPError: ")
    assert "\n" not in message
    assert isinstance(caught.value.__cause__, NavigatorHTTPError)


def test_garbage_under_partial_lands_the_node_with_navigator_failed(server: StubServer) -> None:
    server.add(answer(["billing"]), said("line one\n\nline two, no JSON"))
    result, _ = walk(OnFailure.PARTIAL)
    assert landed(result) == [("billing", "navigator_failed")]
    assert stops(result) == [("navigator_failed", ("billing",), None, "billing")]
    assert 'it starts "line one line two, no JSON"' in result.stops[0].detail


def test_json_without_a_selected_list_is_a_failure(server: StubServer) -> None:
    server.add(said('{"choice": "billing"}'))
    with pytest.raises(NavigatorHTTPError, match='has no "selected" list; it starts "{"choice": "billing"}"'):
        ask()


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("<html>Bad gateway</html>", 'is not a chat completion.*starts "<html>Bad gateway</html>"',
                     id="html"),
        pytest.param({"object": "list", "data": []}, "is not a chat completion", id="not-a-completion"),
        pytest.param(
            {"error": {"message": "model is loading"}}, 'but an error \\(server said: "model is loading"\\)',
            id="error-with-200",
        ),
        pytest.param(completion(""), "gave an empty answer", id="empty-content"),
    ],
)
def test_a_200_that_is_not_a_completion_is_a_failure(server: StubServer, body: Any, expected: str) -> None:
    server.add(Reply(200, body))
    with pytest.raises(NavigatorHTTPError, match=expected):
        ask()


# -- 5. a hallucinated id ------------------------------------------------------------------------


def test_a_hallucinated_id_is_passed_through_and_lands_the_parent_as_invalid_choice(server: StubServer) -> None:
    server.add(answer(["billing"]), answer(["refunds-2024", "refunds"]))
    result, events = walk()
    assert landed(result) == [("billing", "invalid_choice"), ("refunds", "leaf")]
    assert stops(result) == [
        ("invalid_choice", ("billing",), "refunds-2024", "billing"),
        ("leaf", ("billing", "refunds"), None, "refunds"),
    ]
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert chose[1].hallucinated == ("refunds-2024",)


# -- 7. errors that are not retried --------------------------------------------------------------


def test_401_is_not_retried_and_names_the_key_variable(server: StubServer) -> None:
    server.add(Reply(401, {"error": {"message": "Incorrect API key provided"}}), answer(["billing"]))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert len(server.requests) == 1
    assert caught.value.status == 401
    assert str(caught.value) == (
        f"HTTP 401 from {server.url}/v1/chat/completions: the API key was refused; check OPENAI_API_KEY"
    )


def test_403_names_the_key_and_its_permissions(server: StubServer) -> None:
    server.add(Reply(403, {"error": {"message": "no access"}}))
    with pytest.raises(NavigatorHTTPError, match="HTTP 403 .*check OPENAI_API_KEY and its permissions"):
        ask()
    assert len(server.requests) == 1


def test_404_is_not_retried_and_names_the_model_and_base_url(server: StubServer) -> None:
    server.add(Reply(404, {"error": {"message": "The model `test-model` does not exist"}}))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert len(server.requests) == 1
    assert caught.value.status == 404
    assert str(caught.value) == (
        f"HTTP 404 from {server.url}/v1/chat/completions: not found (server said: \"The model `test-model` does "
        "not exist\"); check the model name 'test-model' and OPENAI_BASE_URL (it should end in /v1)"
    )


def test_400_is_not_retried_but_asked_once_more_without_the_schema(server: StubServer) -> None:
    refused = Reply(400, {"error": {"message": "temperature is not supported"}})
    server.add(refused, refused)
    with pytest.raises(NavigatorHTTPError, match='HTTP 400 .*"temperature is not supported"') as caught:
        ask()
    assert ["response_format" in request.json() for request in server.requests] == [True, False]
    assert dict(caught.value.transcript)["structured output"] == (
        'refused by the server (HTTP 400: "temperature is not supported"); asked again without it')
    assert dict(caught.value.transcript)["http"] == "400 after 2 attempts (earlier: 400)"


@pytest.mark.parametrize("schema", ["on", "off"])
def test_400_is_not_retried_when_structured_output_is_on_or_off(server: StubServer, schema: str) -> None:
    server.add(Reply(400, {"error": {"message": "temperature is not supported"}}))
    with pytest.raises(NavigatorHTTPError, match='HTTP 400 .*"temperature is not supported"'):
        ask(model=f"{MODEL}@schema={schema}")
    assert len(server.requests) == 1
    assert ("response_format" in server.requests[0].json()) is (schema == "on")


# -- 8, 9. retries -------------------------------------------------------------------------------


def test_429_then_success_is_retried_once(server: StubServer) -> None:
    server.add(Reply(429, {"error": {"message": "slow down"}}, {"Retry-After": "0"}), answer(["accounts"]))
    assert ask().selected == ("accounts",)
    assert len(server.requests) == 2
    assert server.requests[0].body == server.requests[1].body


def test_503_then_success_is_retried_with_backoff(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RETRY_BACKOFF_ENV, "0.01")
    server.add(Reply(503, "busy"), answer(["support"]))
    assert ask().selected == ("support",)
    assert len(server.requests) == 2


def test_a_numeric_retry_after_replaces_the_backoff(
    server: StubServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    monkeypatch.setenv(RETRY_BACKOFF_ENV, "20")
    server.add(Reply(429, "", {"Retry-After": "0.3"}), answer(["billing"]))
    with caplog.at_level(logging.INFO, logger="explorer.navigators.openai_compat"):
        assert ask().selected == ("billing",)
    assert [r.getMessage() for r in caplog.records if "retry" in r.getMessage()] == [
        f"HTTP 429 from {server.url}/v1/chat/completions; retry 1 of 3 in 0.30 s"  # not the 20 s backoff
    ]
    assert len(server.requests) == 2


def test_5xx_is_retried_the_default_three_times(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(RETRY_BACKOFF_ENV, "0.001")
    server.add(*[Reply(500, {"error": {"message": "boom"}})] * 6)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert len(server.requests) == 4
    assert server.pending == 2
    assert caught.value.status == 500
    assert str(caught.value) == (
        f'HTTP 500 from {server.url}/v1/chat/completions after 4 attempts: the server failed (server said: "boom"); '
        "try again later"
    )


def test_5xx_exhausted_after_the_configured_retries(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_RETRIES_ENV, "2")
    server.add(*[Reply(502, "bad gateway", {"Retry-After": "0"})] * 5)
    with pytest.raises(NavigatorHTTPError, match="HTTP 502 .* after 3 attempts: the server failed"):
        ask()
    assert len(server.requests) == 3


def test_no_retries_means_one_request(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_RETRIES_ENV, "0")
    server.add(Reply(429, "", {"Retry-After": "0"}), answer(["billing"]))
    with pytest.raises(NavigatorHTTPError, match=r"^HTTP 429 from \S+: rate limited"):
        ask()
    assert len(server.requests) == 1


# -- 10. timeouts and connection failures --------------------------------------------------------


def test_a_read_timeout_is_a_clear_error(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(READ_TIMEOUT_ENV, "0.3")
    server.add(Reply(200, completion('{"selected": ["billing"]}'), delay=60))  # the answer would come far too late
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert len(server.requests) == 1
    assert str(caught.value) == (
        f"no answer from {server.url}/v1/chat/completions within 0.3 s (read timeout); the model may be slow or "
        "overloaded: raise REASONING_EXPLORER_READ_TIMEOUT or try a smaller model"
    )


def test_connection_refused_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, url)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert str(caught.value) == (
        f"cannot reach {url}/chat/completions: connection refused; check OPENAI_BASE_URL and that the server is up"
    )


def test_an_unknown_host_names_the_url(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, "http://no-such-host.invalid/v1")
    with pytest.raises(NavigatorHTTPError, match=r"cannot reach http://no-such-host\.invalid/v1/chat/completions: "
                                                 r"the host name could not be resolved \(DNS\); check OPENAI_BASE_URL"):
        ask()


def test_credentials_in_the_base_url_are_never_shown(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, server.url.replace("://", "://user:pw-hidden@") + "/v1/chat/completions/")
    server.add(Reply(404, ""))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert server.requests[0].path == "/v1/chat/completions"
    assert str(caught.value).startswith(f"HTTP 404 from {server.url}/v1/chat/completions: not found; ")
    assert "pw-hidden" not in str(caught.value)


# -- 11. cancellation ---------------------------------------------------------------------------


# How soon a cancel returns is measured in bench/responsiveness.py; here the server's answer (or the retry)
# comes a minute later, so returning RetrievalCancelled at all shows the cancel cut the wait short.


def _trip_when(token: CancellationToken, condition: Callable[[], bool], then: float = 0.0) -> None:
    """Trip ``token`` from another thread ``then`` seconds after ``condition()`` holds (30 s hang-guard)."""

    def trip() -> None:
        deadline = time.monotonic() + 30
        while not condition() and time.monotonic() < deadline:
            time.sleep(0.01)
        time.sleep(then)
        token.cancel()

    threading.Thread(target=trip, name="trip", daemon=True).start()


def test_cancel_abandons_a_slow_response(server: StubServer) -> None:
    server.add(Reply(200, completion('{"selected": ["billing"]}'), delay=60))
    token = CancellationToken()
    _trip_when(token, lambda: len(server.requests) == 1)  # the server holds the request: the client waits
    with pytest.raises(RetrievalCancelled):
        ask(token=token)
    # The connection was really closed: the server saw the client hang up while it still held the answer.
    assert server.wait_for_disconnects(1, timeout=30)
    assert all(t.daemon for t in _request_threads())


class _WaitWitness(CancellationToken):
    """A real token that also notes each wait on it: how long it was asked to wait, and whether a cancel woke it.

    A backoff between retries waits on the walk's token (so a cancel cuts it short); nothing else in a call does.
    """

    def __init__(self) -> None:
        super().__init__()
        self.asked: list[float | None] = []
        self.woken: list[bool] = []

    def wait(self, timeout: float | None = None) -> bool:
        self.asked.append(timeout)
        tripped = super().wait(timeout)
        self.woken.append(tripped)
        return tripped


def test_cancel_during_a_backoff_wait(server: StubServer) -> None:
    server.add(Reply(503, "", {"Retry-After": "3600"}), answer(["billing"]))  # a wait of 30 s, the cap
    token = _WaitWitness()
    _trip_when(token, lambda: bool(token.asked))  # once the client waits to retry, not before
    with pytest.raises(RetrievalCancelled):
        ask(token=token)
    # The cancel came while it waited out the 503's backoff, and woke it: the retry was never sent.
    assert token.asked == [30.0] and token.woken == [True]
    assert len(server.requests) == 1


def test_a_token_tripped_before_the_call_sends_nothing(server: StubServer) -> None:
    token = CancellationToken()
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        ask(token=token)
    assert server.requests == []


def test_cancel_ends_a_walk_even_under_throw(server: StubServer) -> None:
    server.add(answer(["billing"]), Reply(200, completion('{"selected": ["refunds"]}'), delay=60))
    token = CancellationToken()
    strategy = ReasoningRAGStrategy(handbook(), navigator(), MODEL, on_failure=OnFailure.THROW)
    _trip_when(token, lambda: len(server.requests) == 2)  # the second call is waiting for its answer
    with pytest.raises(RetrievalCancelled):
        strategy.retrieve("How long does a refund take?", cancellation=token)
    assert len(server.requests) == 2


# -- 12. the key ---------------------------------------------------------------------------------


def test_the_key_is_sent_but_never_shown(
    server: StubServer, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    for name in ("httpx", "httpcore", "explorer.navigators.openai_compat"):
        caplog.set_level(logging.DEBUG, logger=name)
    monkeypatch.setenv(RETRY_BACKOFF_ENV, "0.001")
    monkeypatch.setenv(MAX_RETRIES_ENV, "1")
    nav = navigator()
    texts: list[str] = [repr(nav)]

    server.add(
        Reply(429, "", {"Retry-After": "0"}),
        answer(["billing"], f"The header said Bearer {KEY}."),
    )
    choice = ask()
    assert choice.rationale == "The header said Bearer ***."
    texts += [repr(choice), choice.rationale, repr(choice.usage)]
    assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"

    failures: list[NavigatorHTTPError] = []
    for replies in (
        [Reply(401, {"error": {"message": f"Incorrect API key provided: {KEY}"}})],
        [Reply(404, {"error": {"message": f"no model for {KEY}"}})],
        [Reply(500, f"crashed on {KEY}"), Reply(500, f"crashed on {KEY}")],
        [said(f"Your key is {KEY}, and this is not JSON")],
    ):
        server.add(*replies)
        with pytest.raises(NavigatorHTTPError) as caught:
            ask()
        failures.append(caught.value)
    monkeypatch.setenv(READ_TIMEOUT_ENV, "0.2")
    server.add(Reply(200, "", delay=60))  # far later than the read timeout, however busy the machine
    with pytest.raises(NavigatorHTTPError, match="read timeout") as caught:
        ask()
    failures.append(caught.value)

    assert 'it starts "Your key is ***, and this is not JSON"' in str(failures[3])
    assert '(server said: "no model for ***")' in str(failures[1])
    for failure in failures:
        texts += [str(failure), repr(failure), "".join(traceback.format_exception(failure))]
    records = [r for r in caplog.records if r.name.startswith(("httpx", "httpcore", "explorer"))]
    assert any(r.name == "httpx" for r in records) and any(r.name.startswith("explorer") for r in records)
    texts += [f"{r.getMessage()} {r.args!r}" for r in records]
    leaked = [text for text in texts if "SECRET123" in text]
    assert leaked == []


# -- 13. supports and configuration --------------------------------------------------------------


@pytest.mark.parametrize(
    ("model", "supported"),
    [
        ("openai:gpt-4o-mini", True),
        ("ollama:llama3.1:8b", True),
        ("ollama:llama3.1", True),
        ("openai:", False),
        ("openai:   ", False),
        ("ollama:", False),
        ("openai", False),
        ("gpt-4o-mini", False),
        ("OPENAI:gpt-4o-mini", False),
        ("openaix:gpt-4o-mini", False),
        ("azure:gpt-4o-mini", False),
        ("lexical:default", False),
        ("", False),
    ],
)
def test_supports(model: str, supported: bool) -> None:
    assert navigator("openai:gpt-4o-mini").supports(model) is supported


def test_both_prefixes_resolve_to_this_navigator() -> None:
    assert type(navigator("openai:gpt-4o-mini")) is type(navigator("ollama:llama3.1:8b"))
    assert repr(navigator()) == "OpenAICompatibleNavigator()"


@pytest.mark.parametrize("key", [None, "", "   "])
def test_openai_without_a_key_says_to_set_it(server: StubServer, monkeypatch: pytest.MonkeyPatch,
                                             key: str | None) -> None:
    if key is None:
        monkeypatch.delenv(OPENAI_API_KEY_ENV)
    else:
        monkeypatch.setenv(OPENAI_API_KEY_ENV, key)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert str(caught.value) == (
        "model 'openai:test-model' needs an API key: set OPENAI_API_KEY (any non-empty value for a server that "
        "needs none)"
    )
    assert server.requests == []


def test_resolve_navigator_checks_the_environment_before_any_walk(monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.navigators import NavigatorConfigError, resolve_navigator

    monkeypatch.delenv(OPENAI_API_KEY_ENV)
    with pytest.raises(NavigatorConfigError, match="set OPENAI_API_KEY"):
        resolve_navigator(MODEL)
    monkeypatch.setenv(OPENAI_API_KEY_ENV, KEY)
    assert repr(resolve_navigator(MODEL)) == "OpenAICompatibleNavigator()"


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (READ_TIMEOUT_ENV, "soon", "REASONING_EXPLORER_READ_TIMEOUT must be a positive number of seconds (e.g. 30), "
                                   "got 'soon'"),
        (READ_TIMEOUT_ENV, "0", "REASONING_EXPLORER_READ_TIMEOUT must be a positive number of seconds"),
        (READ_TIMEOUT_ENV, "-1", "REASONING_EXPLORER_READ_TIMEOUT must be a positive number of seconds"),
        (CONNECT_TIMEOUT_ENV, "nan", "REASONING_EXPLORER_CONNECT_TIMEOUT must be a positive number of seconds"),
        (CONNECT_TIMEOUT_ENV, "inf", "REASONING_EXPLORER_CONNECT_TIMEOUT must be a positive number of seconds"),
        (MAX_RETRIES_ENV, "2.5", "REASONING_EXPLORER_MAX_RETRIES must be a whole number, 0 or more (e.g. 3), "
                                 "got '2.5'"),
        (MAX_RETRIES_ENV, "-1", "REASONING_EXPLORER_MAX_RETRIES must be a whole number"),
        (RETRY_BACKOFF_ENV, "fast", "REASONING_EXPLORER_RETRY_BACKOFF must be a number of seconds, 0 or more"),
        (OPENAI_BASE_URL_ENV, "localhost:8080/v1", "OPENAI_BASE_URL must be an http(s) URL such as "
                                                   "https://api.openai.com/v1, got 'localhost:8080/v1'"),
    ],
)
def test_a_bad_setting_names_its_variable(
    server: StubServer, monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert str(caught.value).startswith(expected)
    assert server.requests == []


def test_a_blank_setting_means_the_default(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(READ_TIMEOUT_ENV, "")
    monkeypatch.setenv(MAX_RETRIES_ENV, " ")
    server.add(answer(["billing"]))
    assert ask().selected == ("billing",)


def test_settings_are_read_at_each_call(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    nav = navigator()
    monkeypatch.setenv(MAX_RETRIES_ENV, "0")
    server.add(*[Reply(503, "", {"Retry-After": "0"})] * 3, answer(["billing"]))
    request = NavigatorRequest("q", MODEL, None, CANDIDATES, 5)
    with pytest.raises(NavigatorHTTPError, match="HTTP 503"):
        nav.choose(request)
    monkeypatch.setenv(MAX_RETRIES_ENV, "1")
    with pytest.raises(NavigatorHTTPError, match="after 2 attempts"):
        nav.choose(request)
    assert len(server.requests) == 3
    monkeypatch.setenv(MAX_RETRIES_ENV, "bad")
    with pytest.raises(NavigatorHTTPError, match="REASONING_EXPLORER_MAX_RETRIES"):
        nav.choose(request)


# -- 14. ollama ----------------------------------------------------------------------------------


def test_ollama_uses_its_base_url_the_bare_model_name_and_no_key(
    server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # OPENAI_BASE_URL (and the OpenAI key) are for openai: models only.
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, f"http://127.0.0.1:{closed_port()}/v1")
    monkeypatch.setenv(OLLAMA_BASE_URL_ENV, f"{server.url}/v1/")
    server.add(answer(["accounts"], "local"))
    choice = ask(model="ollama:llama3.1:8b")
    assert (choice.selected, choice.rationale) == (("accounts",), "local")
    (request,) = server.requests
    assert request.path == "/v1/chat/completions"
    assert request.json()["model"] == "llama3.1:8b"
    assert "authorization" not in request.headers


def test_ollama_needs_no_key(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(OPENAI_API_KEY_ENV)
    monkeypatch.setenv(OLLAMA_BASE_URL_ENV, f"{server.url}/v1")
    server.add(Reply(404, {"error": {"message": 'model "llama3.1:8b" not found, try pulling it first'}}))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask(model="ollama:llama3.1:8b")
    assert "authorization" not in server.requests[0].headers
    assert str(caught.value).endswith(
        "check the model name 'llama3.1:8b' (pulled with `ollama pull llama3.1:8b`?) and OLLAMA_BASE_URL "
        "(it should end in /v1)"
    )


def test_ollama_defaults_to_localhost_11434() -> None:
    with socket.socket() as probe:
        probe.settimeout(0.2)
        if probe.connect_ex(("127.0.0.1", 11434)) == 0:
            pytest.skip("something (an Ollama?) listens on localhost:11434")
    with pytest.raises(NavigatorHTTPError) as caught:
        ask(model="ollama:llama3.1:8b")
    assert str(caught.value) == (
        "cannot reach http://localhost:11434/v1/chat/completions: connection refused; check OLLAMA_BASE_URL and "
        "that Ollama is running (ollama serve)"
    )


# -- 15. one client per navigator (issue 13) -----------------------------------------------------


def _direct(nav: TreeNavigator, *, token: CancellationToken | None = None) -> Any:
    request = NavigatorRequest("How long does a refund take?", MODEL, None, CANDIDATES, 5, token or CancellationToken())
    return nav.choose(request)


def test_calls_of_one_navigator_reuse_one_connection_and_one_thread(server: StubServer) -> None:
    server.add(answer(["billing"]), answer(["accounts"]), answer(["support"]))
    # another test's navigator, dropped but not yet collected, may still hold its thread in this worker
    before = set(_request_threads())
    with OpenAICompatibleNavigator() as nav:
        assert _direct(nav).selected == ("billing",)
        assert _direct(nav).selected == ("accounts",)
        assert len(set(_request_threads()) - before) == 1
    first, second = server.requests[:2]
    assert first.client_port == second.client_port  # kept alive: one TCP connection for both calls
    with OpenAICompatibleNavigator() as other:
        assert _direct(other).selected == ("support",)
    assert server.requests[2].client_port != first.client_port  # another navigator, another client


def test_close_ends_the_client_thread_and_a_later_call_opens_it_again(server: StubServer) -> None:
    server.add(answer(["billing"]), answer(["support"]))
    before = set(_request_threads())  # another test's abandoned request may still be ending in this worker
    nav = OpenAICompatibleNavigator()
    assert set(_request_threads()) == before  # constructing one (the registry does, for every resolve) starts nothing
    assert _direct(nav).selected == ("billing",)
    (thread,) = set(_request_threads()) - before
    nav.close()
    thread.join(timeout=30)
    assert not thread.is_alive()
    assert _direct(nav).selected == ("support",)
    nav.close()
    nav.close()  # twice is harmless


def test_a_navigator_nobody_holds_ends_its_client_thread(server: StubServer) -> None:
    server.add(answer(["billing"]))
    before = set(_request_threads())  # another test's abandoned request may still be ending in this worker
    nav = OpenAICompatibleNavigator()
    assert _direct(nav).selected == ("billing",)
    (thread,) = set(_request_threads()) - before
    del nav
    gc.collect()
    thread.join(timeout=30)
    assert not thread.is_alive()


# -- 16. the transcript: what was sent, what came back (issue 9) ---------------------------------


def test_the_transcript_holds_the_messages_sent_the_raw_answer_and_the_http_outcome(server: StubServer) -> None:
    raw = 'Thinking aloud.\n```json\n{"selected": ["support", "billing"], "rationale": "a person knows"}\n```'
    server.add(Reply(503, "busy", {"Retry-After": "0"}), said(raw))
    choice = ask(remaining=4)
    body = server.requests[-1].json()
    sent = body["messages"]
    assert choice.transcript == (
        ("system", sent[0]["content"]),
        ("user", sent[1]["content"]),
        ("provider", "openai"),
        ("parameters", f'{{"temperature": 0, "max_tokens": {body["max_tokens"]}, "structured_output": true}}'),
        ("schema", json.dumps({"response_format": body["response_format"]}, separators=(", ", ": "))),
        ("answer", raw),
        ("http", "200 after 2 attempts (earlier: 503)"),
    )
    user = dict(choice.transcript)["user"]
    for number, view in enumerate(CANDIDATES, start=1):
        assert f"{number}. id: {view.id}\n   title: {view.title}\n" in user
    assert "Remaining visits: 4." in user
    assert dict(choice.transcript)["system"].startswith("You guide a search down a hierarchy")


def test_a_walk_carries_each_transcript_onto_its_events(server: StubServer) -> None:
    server.add(answer(["billing"], "billing first"), answer(["refunds"], "then refunds"))
    _, events = walk()
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert [dict(e.transcript or ())["http"] for e in chose] == ["200 after 1 attempt", "200 after 1 attempt"]
    assert [json.loads(dict(e.transcript or ())["answer"])["rationale"] for e in chose] == [
        "billing first", "then refunds"
    ]
    assert "1. id: invoices\n" in dict(chose[1].transcript or ())["user"]


def test_a_failure_carries_what_was_sent_what_came_back_the_status_and_the_attempts(
    server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_RETRIES_ENV, "2")
    monkeypatch.setenv(RETRY_BACKOFF_ENV, "0")
    server.add(Reply(502, "gateway down"), Reply(500, "still down"), Reply(503, {"error": {"message": "overloaded"}}))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    labels = [label for label, _ in caught.value.transcript]
    assert labels == ["system", "user", "provider", "parameters", "schema", "answer", "http"]
    assert dict(caught.value.transcript)["answer"] == '{"error": {"message": "overloaded"}}'
    assert dict(caught.value.transcript)["http"] == "503 after 3 attempts (earlier: 502, 500)"


def test_an_unreadable_answer_carries_the_models_text(server: StubServer) -> None:
    server.add(said("no JSON here, sorry"))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert caught.value.transcript[5:] == (("answer", "no JSON here, sorry"), ("http", "200 after 1 attempt"))


def test_a_failure_before_any_answer_says_so(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(READ_TIMEOUT_ENV, "0.2")
    server.add(Reply(200, completion('{"selected": []}'), delay=60))
    with pytest.raises(NavigatorHTTPError, match="read timeout") as caught:
        ask()
    assert [label for label, _ in caught.value.transcript] == ["system", "user", "provider", "parameters", "schema",
                                                               "http"]
    assert dict(caught.value.transcript)["http"] == "no answer after 1 attempt"


def test_a_401_answer_is_not_kept_in_the_transcript(server: StubServer) -> None:
    server.add(Reply(401, {"error": {"message": "Incorrect API key provided: sk-test-********123"}}))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert caught.value.transcript[5:] == (
        ("answer", "(not kept: an HTTP 401 answer may quote part of the key)"),
        ("http", "401 after 1 attempt"),
    )


def test_under_partial_the_failed_event_carries_the_transcript(server: StubServer) -> None:
    server.add(answer(["billing"]), said("not json"))
    _, events = walk(OnFailure.PARTIAL)
    (failed,) = [e for e in events if isinstance(e, NavigatorFailed)]
    assert dict(failed.transcript or ())["answer"] == "not json"
    assert "1. id: invoices\n" in dict(failed.transcript or ())["user"]


# -- 17. a key echoed back is scrubbed from everything (issue 11.2) ------------------------------


def test_a_key_echoed_as_ids_rationale_and_answer_is_scrubbed_everywhere(server: StubServer) -> None:
    escaped = "".join(f"\\u{ord(c):04x}" for c in KEY)  # JSON escapes spell the key past a scrub of the raw text
    content = f'{{"selected": ["{KEY}", "billing", "x-{escaped}", 2], "rationale": "I saw {escaped} and {KEY}"}}'
    server.add(said(content))
    choice = ask()
    assert choice.selected == ("***", "billing", "x-***", "accounts")
    assert choice.rationale == "I saw *** and ***"
    assert dict(choice.transcript)["answer"] == content.replace(KEY, "***")
    assert KEY not in repr(choice)


def test_a_walk_with_a_key_echoed_as_an_id_shows_it_nowhere(server: StubServer) -> None:
    server.add(answer([KEY, "billing"], f"key {KEY}"), answer([f"refunds-{KEY}", "refunds"], KEY))
    result, events = walk()
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert [(c.selected, c.hallucinated) for c in chose] == [
        (("***", "billing"), ("***",)),
        (("refunds-***", "refunds"), ("refunds-***",)),
    ]
    assert [s.branch for s in result.stops if s.reason.value == "invalid_choice"] == ["***", "refunds-***"]
    assert "SECRET123" not in repr(events)


def test_a_key_echoed_in_an_error_answer_is_scrubbed_from_the_message_and_transcript(server: StubServer) -> None:
    refused = Reply(400, {"error": {"message": f"bad request from {KEY}"}})
    server.add(refused, refused)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert '(server said: "bad request from ***")' in str(caught.value)
    assert dict(caught.value.transcript)["structured output"] == (
        'refused by the server (HTTP 400: "bad request from ***"); asked again without it')
    assert "SECRET123" not in repr(caught.value.transcript)


# -- 18. the answer's size and the call's deadline (issue 11.5) ----------------------------------


def _gzip(data: bytes) -> bytes:
    return gzip.compress(data, compresslevel=9)


def _too_large(url: str, cap: int) -> str:
    return (
        f"the answer from {url}/v1/chat/completions is over {cap} bytes once decompressed, so it was abandoned; "
        "check OPENAI_BASE_URL (a chat completions API answers in a few kB) or raise REASONING_EXPLORER_MAX_ANSWER_BYTES"
    )


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Reply(200, b"x" * 5000), id="content-length-over-the-cap"),
        pytest.param(Reply(200, b"x" * 5000, content_length=False), id="streamed-past-the-cap"),
        pytest.param(Reply(200, _gzip(b"\0" * 10_000_000), {"Content-Encoding": "gzip"}), id="gzip-bomb"),
    ],
)
def test_an_answer_over_the_cap_is_a_provider_failure(
    server: StubServer, monkeypatch: pytest.MonkeyPatch, reply: Reply
) -> None:
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, "2000")
    server.add(reply)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert str(caught.value) == _too_large(server.url, 2000)
    assert dict(caught.value.transcript)["http"] == "no answer after 1 attempt"


def test_an_answer_under_the_cap_is_read_also_gzipped(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    body = json.dumps(completion(json.dumps({"selected": ["accounts"], "rationale": "zipped"}))).encode()
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, str(len(body)))  # exactly the cap is fine
    server.add(Reply(200, _gzip(body), {"Content-Encoding": "gzip", "Content-Type": "application/json"}))
    assert ask().selected == ("accounts",)
    assert server.requests[0].headers["accept-encoding"] == "gzip, deflate"


def test_an_answer_over_the_cap_under_partial_lands_navigator_failed(
    server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, "2000")
    server.add(answer(["billing"]), Reply(200, b"y" * 3000, content_length=False))
    result, _ = walk(OnFailure.PARTIAL)
    assert stops(result) == [("navigator_failed", ("billing",), None, "billing")]
    assert "is over 2000 bytes once decompressed" in result.stops[0].detail


def _in_thread(call: Callable[[], Any]) -> tuple[threading.Event, list[BaseException | Any]]:
    """Run ``call`` on a thread; the event is set when it returns or raises (its outcome in the list)."""
    done = threading.Event()
    outcome: list[BaseException | Any] = []

    def run() -> None:
        try:
            outcome.append(call())
        except BaseException as exc:
            outcome.append(exc)
        finally:
            done.set()

    threading.Thread(target=run, name="caller", daemon=True).start()
    return done, outcome


def test_an_answer_dripping_slowly_is_cut_by_the_calls_deadline(
    server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(READ_TIMEOUT_ENV, "30")  # each byte comes well within the read timeout...
    monkeypatch.setenv(CALL_DEADLINE_ENV, "1")
    body = completion('{"selected": ["billing"]}')
    server.add(Reply(200, body, drip=0.5))  # ...and the whole answer would take over two minutes
    done, outcome = _in_thread(ask)
    assert done.wait(60), "the call outlived its deadline"
    (error,) = outcome
    assert isinstance(error, NavigatorHTTPError)
    assert str(error) == (
        f"no complete answer from {server.url}/v1/chat/completions within 1 s (the deadline of the whole call); "
        "the server may be stalling or the model slow: raise REASONING_EXPLORER_CALL_DEADLINE or try again later"
    )
    assert server.wait_for_disconnects(1, timeout=30)  # and the connection was dropped


def test_a_retry_that_would_pass_the_deadline_is_not_waited_for(
    server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CALL_DEADLINE_ENV, "20")
    server.add(Reply(429, "", {"Retry-After": "25"}), answer(["billing"]))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert str(caught.value) == (
        f"HTTP 429 from {server.url}/v1/chat/completions: rate limited or out of quota; wait, check your plan, "
        "or raise REASONING_EXPLORER_MAX_RETRIES; no retry: waiting 25 s would pass the call's deadline "
        "(REASONING_EXPLORER_CALL_DEADLINE)"
    )
    assert len(server.requests) == 1


# -- 19. the ids kept from one answer (issue 11.6) -----------------------------------------------


def test_a_hundred_thousand_invented_ids_keep_the_first_hundred_and_say_how_many_were_dropped(
    server: StubServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, "5000000")
    invented = [f"no-{n}" for n in range(100_000)]
    server.add(answer(["billing", *invented], "all of them"))
    choice = ask()
    assert choice.selected == ("billing", *invented[:99])
    note = "100,001 ids given: only the first 100 kept, 99,901 dropped"
    assert choice.rationale == f"all of them [{note}]"
    assert dict(choice.transcript)["ids"] == note
    assert [label for label, _ in choice.transcript] == ["system", "user", "provider", "parameters", "schema", "answer",
                                                         "ids", "http"]


def test_a_walk_given_junk_ids_records_only_the_kept_ones(server: StubServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, "5000000")
    server.add(answer([f"junk-{n}" for n in range(100_000)]))
    result, _ = walk()
    assert len(result.stops) == 100
    assert {s.reason.value for s in result.stops} == {"invalid_choice"}
    assert result.documents == ()


def test_a_wide_offer_keeps_three_ids_per_candidate(server: StubServer) -> None:
    wide = tuple(NodeView(f"n{i}", f"Node {i}") for i in range(50))
    server.add(answer([f"n{i % 50}" for i in range(200)]))
    choice = ask(wide)
    assert len(choice.selected) == 150
    assert choice.rationale.endswith("[200 ids given: only the first 150 kept, 50 dropped]")


# -- 20. the new settings ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "expected"),
    [
        (MAX_ANSWER_BYTES_ENV, "0", "REASONING_EXPLORER_MAX_ANSWER_BYTES must be a whole number, 1 or more, got '0'"),
        (MAX_ANSWER_BYTES_ENV, "1e6", "REASONING_EXPLORER_MAX_ANSWER_BYTES must be a whole number, 1 or more, "
                                      "got '1e6'"),
        (CALL_DEADLINE_ENV, "0", "REASONING_EXPLORER_CALL_DEADLINE must be a positive number of seconds (e.g. 30), "
                                 "got '0'"),
        (CALL_DEADLINE_ENV, "inf", "REASONING_EXPLORER_CALL_DEADLINE must be a positive number of seconds"),
        (MAX_RETRIES_ENV, "²", "REASONING_EXPLORER_MAX_RETRIES must be a whole number, 0 or more (e.g. 3), got '²'"),
    ],
)
def test_a_bad_limit_names_its_variable(
    server: StubServer, monkeypatch: pytest.MonkeyPatch, name: str, value: str, expected: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    assert str(caught.value).startswith(expected)
    assert caught.value.transcript is None  # nothing was sent
    assert server.requests == []
