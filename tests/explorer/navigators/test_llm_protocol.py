"""Protocol edge cases of the LLM navigator's HTTP, through ``httpx.MockTransport`` (the real loopback
server is in test_openai_compat.py), and its retry policy on its own."""

from __future__ import annotations

import asyncio
import gc
import gzip
import json
import threading
import tracemalloc
import zlib
from collections.abc import AsyncIterator, Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest

from core import CancellationToken, NavigatorRequest, NodeView, RetrievalCancelled
from explorer.navigators.llm.retry import retry_policy
from explorer.navigators.llm.transport import THREAD_NAME
from explorer.navigators.openai_compat import (
    CALL_DEADLINE_ENV,
    MAX_ANSWER_BYTES_ENV,
    OLLAMA_BASE_URL_ENV,
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    NavigatorHTTPError,
    OpenAICompatibleNavigator,
)

KEY = "sk-mock-SECRET-4242"
URL = "http://llm.test/v1"
CANDIDATES = (NodeView("billing", "Billing"), NodeView("accounts", "Accounts"), NodeView("support", "Support"))
Handler = Callable[[httpx.Request], Any]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in (CALL_DEADLINE_ENV, MAX_ANSWER_BYTES_ENV, OLLAMA_BASE_URL_ENV, "REASONING_EXPLORER_READ_TIMEOUT",
                 "REASONING_EXPLORER_MAX_RETRIES", "REASONING_EXPLORER_RETRY_BACKOFF"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(OPENAI_API_KEY_ENV, KEY)
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, URL)
    yield
    for generation in (1, 2):
        # A navigator held by a cycle (an exception's traceback) ends its client thread when collected. Only then,
        # the young objects first: a full collection costs up to seconds in a worker whose heap holds what the app
        # tests left.
        if any(thread.name.startswith(THREAD_NAME) for thread in threading.enumerate()):
            gc.collect(generation)


def respond(body: bytes | Iterator[bytes], status: int = 200, headers: dict[str, str] | None = None) -> httpx.Response:
    """A response whose body is still to be read, as a network transport hands it over.

    (``httpx.Response(content=...)`` would read and decode it on the spot, bypassing the
    navigator's bounded reader.)
    """
    stream = httpx.ByteStream(body) if isinstance(body, bytes) else _Pieces(body)
    return httpx.Response(status, headers=headers, stream=stream)


class _Pieces(httpx.AsyncByteStream):
    """A body that arrives in pieces, with no length said up front."""

    def __init__(self, pieces: Iterator[bytes]) -> None:
        self._pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self._pieces:
            yield piece


def content(selected: Any, rationale: str = "because") -> str:
    return json.dumps({"selected": selected, "rationale": rationale})


def completion(text: str) -> bytes:
    return json.dumps({"choices": [{"message": {"role": "assistant", "content": text}}]}).encode()


def choose(handler: Handler, *, model: str = "openai:m", token: CancellationToken | None = None) -> Any:
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        return nav.choose(NavigatorRequest("q", model, None, CANDIDATES, 5, token or CancellationToken()))


def failure(handler: Handler) -> str:
    with pytest.raises(NavigatorHTTPError) as caught:
        choose(handler)
    return str(caught.value)


# -- what is sent -------------------------------------------------------------------------------


def test_the_request_is_json_with_the_key_and_the_encodings_we_can_bound() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return respond(completion(content(["billing"])))

    assert choose(handler).selected == ("billing",)
    (request,) = seen
    assert (request.method, str(request.url)) == ("POST", f"{URL}/chat/completions")
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["accept-encoding"] == "gzip, deflate"
    assert request.headers["content-type"] == "application/json"
    body = json.loads(request.content)
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert (body["model"], body["temperature"], body["stream"]) == ("m", 0, False)


def test_ollama_sends_no_authorization(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OLLAMA_BASE_URL_ENV, "http://ollama.test/v1")
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return respond(completion(content(["support"])))

    assert choose(handler, model="ollama:llama3.1").selected == ("support",)
    assert "authorization" not in seen[0].headers
    assert str(seen[0].url) == "http://ollama.test/v1/chat/completions"


# -- encodings and the cap ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("encoding", "encode"),
    [
        pytest.param("gzip", gzip.compress, id="gzip"),
        pytest.param("deflate", zlib.compress, id="deflate-zlib"),
        pytest.param("deflate", lambda data: zlib.compress(data)[2:-4], id="deflate-raw"),
        pytest.param("identity", lambda data: data, id="identity"),
    ],
)
def test_a_compressed_answer_is_read(encoding: str, encode: Callable[[bytes], bytes]) -> None:
    body = encode(completion(content(["accounts"], "packed")))
    choice = choose(lambda _: respond(body, headers={"Content-Encoding": encoding}))
    assert (choice.selected, choice.rationale) == (("accounts",), "packed")


def test_an_encoding_not_asked_for_is_a_failure() -> None:
    message = failure(lambda _: respond(b"\x1b\x00", headers={"Content-Encoding": "br"}))
    assert message == (
        f"the answer from {URL}/chat/completions came in an encoding that was not asked for ('br'); "
        "check OPENAI_BASE_URL"
    )


def test_a_corrupt_gzip_is_a_failure() -> None:
    message = failure(lambda _: respond(b"not gzip at all", headers={"Content-Encoding": "gzip"}))
    assert message == f"the answer from {URL}/chat/completions could not be decompressed ('gzip'); check OPENAI_BASE_URL"


def test_a_gzip_bomb_costs_the_cap_in_memory_not_its_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, "100000")
    bomb = gzip.compress(b"\0" * 50_000_000, compresslevel=9)  # 50 kB that inflate to 50 MB
    tracemalloc.start()
    try:
        message = failure(lambda _: respond(bomb, headers={"Content-Encoding": "gzip"}))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert "is over 100000 bytes once decompressed" in message
    assert peak < 10_000_000  # a small multiple of the cap; inflating it whole would take 50 MB


def test_a_body_streamed_past_the_cap_without_a_length_is_a_failure(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, "1000")
    pieces: list[int] = []

    def endless() -> Iterator[bytes]:
        for _ in range(100_000):  # endless to the reader, which must stop by itself; bounded so a bug fails, not hangs
            pieces.append(1)
            yield b"x" * 300

    message = failure(lambda _: respond(endless()))
    assert "is over 1000 bytes once decompressed" in message
    assert len(pieces) == 4


# -- what the server says ------------------------------------------------------------------------


def test_a_body_read_before_it_reached_the_navigator_is_capped_too(monkeypatch: pytest.MonkeyPatch) -> None:
    body = completion(content(["support"]))
    assert choose(lambda _: httpx.Response(200, content=body)).selected == ("support",)
    monkeypatch.setenv(MAX_ANSWER_BYTES_ENV, str(len(body) - 1))
    assert "is over" in failure(lambda _: httpx.Response(200, content=body))


def test_a_redirect_is_not_followed_and_its_location_is_scrubbed() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return respond(b"", 307, {"Location": f"http://elsewhere.test/?key={KEY}"})

    message = failure(handler)
    assert len(seen) == 1
    assert message == (
        f'HTTP 307 from {URL}/chat/completions: the server redirects to "http://elsewhere.test/?key=***"; '
        "set OPENAI_BASE_URL to the final address"
    )


def test_an_answer_nested_past_the_parsers_depth_is_a_failure_not_a_crash() -> None:
    deep = "[" * 100_000
    assert failure(lambda _: respond(completion(deep))).startswith(
        "the answer of model 'm' is not the JSON asked for; it starts \"[[[["
    )
    assert failure(lambda _: respond(deep.encode())).startswith(
        f"the answer from {URL}/chat/completions is not a chat completion;"
    )


def test_the_charset_the_server_names_is_used_and_an_unknown_one_falls_back_to_utf8() -> None:
    latin = completion(content(["billing"], "café")).decode().encode("latin-1")  # json.dumps escaped é: same bytes
    raw = '{"choices": [{"message": {"content": "{\\"selected\\": [\\"billing\\"], \\"rationale\\": \\"café\\"}"}}]}'
    for charset, body in (("iso-8859-1", raw.encode("latin-1")), ("no-such-charset", raw.encode()), (None, latin)):
        headers = {"Content-Type": f"application/json; charset={charset}"} if charset else {}
        assert choose(lambda _, b=body, h=headers: respond(b, headers=h)).rationale == "café"


def test_a_connection_dropped_mid_answer_is_a_clear_failure() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.RemoteProtocolError("peer closed connection without sending complete message body")

    assert failure(handler) == (
        f"the connection to {URL}/chat/completions failed (RemoteProtocolError: the server closed it or sent "
        "something that is not HTTP); check OPENAI_BASE_URL and that the server is up"
    )


# -- cancellation, concurrency, the deadline ---------------------------------------------------


def test_cancel_cancels_the_request_on_the_clients_loop() -> None:
    entered, cancelled = threading.Event(), threading.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        entered.set()
        try:
            await asyncio.wait_for(asyncio.Event().wait(), 60)  # an answer that never comes (60 s: a hang guard)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        raise AssertionError("unreachable")

    token = CancellationToken()
    threading.Thread(target=lambda: entered.wait(30) and token.cancel(), daemon=True).start()
    with pytest.raises(RetrievalCancelled):
        choose(handler, token=token)
    assert cancelled.wait(30)  # not merely abandoned: the request itself was stopped


def test_calls_from_several_threads_share_one_client_at_once() -> None:
    arrived = 0
    both = asyncio.Event()

    async def handler(request: httpx.Request) -> httpx.Response:
        nonlocal arrived
        arrived += 1  # on the client's one loop: no lock needed
        if arrived == 2:
            both.set()
        await asyncio.wait_for(both.wait(), 60)  # each waits for the other request: serialised calls would fail
        return respond(completion(content(["billing"])))

    results: list[Any] = []
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        def call() -> None:
            results.append(nav.choose(NavigatorRequest("q", "openai:m", None, CANDIDATES, 5)))

        threads = [threading.Thread(target=call, daemon=True) for _ in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(60)
    assert [choice.selected for choice in results] == [("billing",), ("billing",)]


def test_a_call_past_its_deadline_is_abandoned(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CALL_DEADLINE_ENV, "0.3")

    async def handler(request: httpx.Request) -> httpx.Response:
        await asyncio.wait_for(asyncio.Event().wait(), 60)  # never answers (60 s: a hang guard)
        raise AssertionError("unreachable")

    assert failure(handler).startswith(f"no complete answer from {URL}/chat/completions within 0.3 s")


# -- the retry policy ----------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "retryable"), [(429, True), (500, True), (503, True), (599, True), (400, False),
                                                   (401, False), (404, False), (307, False), (200, False)])
def test_which_statuses_are_retried(status: int, retryable: bool) -> None:
    assert retry_policy(max_retries=3, backoff=0.5).retryable(status) is retryable


def test_retries_stop_after_max_retries() -> None:
    policy = retry_policy(max_retries=2, backoff=0.5)
    assert policy.attempts == 3
    assert [policy.should_retry(503, attempt) for attempt in (1, 2, 3)] == [True, True, False]
    assert retry_policy(max_retries=0, backoff=0.5).should_retry(429, 1) is False


def test_the_backoff_doubles_and_is_capped() -> None:
    policy = retry_policy(max_retries=10, backoff=0.5)
    assert [policy.delay(retry) for retry in (1, 2, 3, 4, 7, 8)] == [0.5, 1.0, 2.0, 4.0, 30.0, 30.0]


@pytest.mark.parametrize(
    ("header", "delay"),
    [
        ("0", 0.0),
        ("2.5", 2.5),
        (" 7 ", 7.0),
        ("3600", 30.0),  # capped
        ("-1", 0.5),  # nonsense: the backoff
        ("soon", 0.5),
        ("nan", 0.5),
        ("inf", 0.5),
        ("Wed, 21 Oct 2015 07:28:10 GMT", 10.0),  # an HTTP date, 10 s after "now"
        ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),  # already past
    ],
)
def test_retry_after_in_seconds_or_as_a_date_replaces_the_backoff(header: str, delay: float) -> None:
    now = datetime(2015, 10, 21, 7, 28, 0, tzinfo=UTC)
    assert retry_policy(max_retries=3, backoff=0.5).delay(1, header, now=now.timestamp()) == delay
