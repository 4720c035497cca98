"""Structured output and sampling settings: the request each server is sent (``httpx.MockTransport``), the
fallback when a server refuses the schema, and what the transcript says. The real llama.cpp shape is
checked against the local model in test_local_model.py."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators.llm.schema import RATIONALE_MAX_CHARS, SCHEMA_NAME, choice_schema, request_fields
from explorer.navigators.openai_compat import (
    OLLAMA_BASE_URL_ENV,
    OPENAI_API_KEY_ENV,
    OPENAI_BASE_URL_ENV,
    VLLM_API_KEY_ENV,
    VLLM_BASE_URL_ENV,
    NavigatorHTTPError,
    OpenAICompatibleNavigator,
)

KEY = "sk-mock-SECRET-4242"
CANDIDATES = (NodeView("billing", "Billing"), NodeView("accounts", "Accounts"), NodeView("support", "Support"),
              NodeView("plans", "Plans"))
IDS = ["billing", "accounts", "support", "plans"]
Handler = Callable[[httpx.Request], httpx.Response]


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("REASONING_EXPLORER_MAX_RETRIES", "REASONING_EXPLORER_RETRY_BACKOFF", VLLM_API_KEY_ENV):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(OPENAI_API_KEY_ENV, KEY)
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, "http://openai.test/v1")
    monkeypatch.setenv(OLLAMA_BASE_URL_ENV, "http://ollama.test/v1")
    monkeypatch.setenv(VLLM_BASE_URL_ENV, "http://vllm.test/v1")
    yield


def completion(selected: list[str], rationale: str = "because") -> httpx.Response:
    text = json.dumps({"selected": selected, "rationale": rationale})
    return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}],
                                     "usage": {"prompt_tokens": 90, "completion_tokens": 12, "total_tokens": 102}})


class Recorder:
    """Answers with ``replies`` in order and keeps every request's JSON body."""

    def __init__(self, *replies: httpx.Response) -> None:
        self.replies = list(replies)
        self.bodies: list[dict[str, Any]] = []
        self.headers: list[httpx.Headers] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(json.loads(request.content))
        self.headers.append(request.headers)
        return self.replies.pop(0) if self.replies else httpx.Response(599, json={"error": "no reply scripted"})


def request(model: str, remaining: int = 5, candidates: tuple[NodeView, ...] = CANDIDATES) -> NavigatorRequest:
    return NavigatorRequest("How long do refunds take?", model, None, candidates, remaining, CancellationToken())


def ask(recorder: Recorder, model: str, remaining: int = 5, nav: OpenAICompatibleNavigator | None = None) -> Any:
    if nav is not None:
        return nav.choose(request(model, remaining))
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(recorder)) as navigator:
        return navigator.choose(request(model, remaining))


def full_schema(max_items: int) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "selected": {"type": "array", "items": {"type": "string", "enum": IDS}, "uniqueItems": True,
                         "maxItems": max_items},
            "rationale": {"type": "string", "maxLength": RATIONALE_MAX_CHARS},
        },
        "required": ["selected", "rationale"],
        "additionalProperties": False,
    }


# -- each server's shape ----------------------------------------------------------------------------------


def test_openai_gets_a_strict_json_schema_in_the_subset_strict_mode_takes() -> None:
    recorder = Recorder(completion(["billing"]))
    ask(recorder, "openai:gpt-4o-mini", remaining=3)
    (body,) = recorder.bodies
    schema = full_schema(3)
    del schema["properties"]["selected"]["uniqueItems"], schema["properties"]["rationale"]["maxLength"]
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": schema}}


def test_vllm_gets_a_strict_json_schema_whole_and_its_own_base_url_and_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(VLLM_API_KEY_ENV, "vllm-token-77")
    seen: list[httpx.Request] = []
    recorder = Recorder(completion(["plans"]))

    def handler(sent: httpx.Request) -> httpx.Response:
        seen.append(sent)
        return recorder(sent)

    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        nav.choose(request("vllm:meta-llama/Llama-3.1-8B-Instruct", remaining=9))
    (body,) = recorder.bodies
    assert str(seen[0].url) == "http://vllm.test/v1/chat/completions"
    assert seen[0].headers["authorization"] == "Bearer vllm-token-77"  # its own key, never OPENAI_API_KEY
    assert body["model"] == "meta-llama/Llama-3.1-8B-Instruct"
    assert body["response_format"] == {"type": "json_schema",
                                       "json_schema": {"name": SCHEMA_NAME, "strict": True, "schema": full_schema(4)}}


def test_ollama_gets_the_schema_alone_which_its_v1_endpoint_hands_on_as_format() -> None:
    recorder = Recorder(completion(["support"]))
    ask(recorder, "ollama:llama3.1:8b", remaining=2)
    (body,) = recorder.bodies
    schema = full_schema(2)
    del schema["properties"]["selected"]["uniqueItems"]
    assert body["response_format"] == {"type": "json_schema", "json_schema": {"schema": schema}}
    assert body["model"] == "llama3.1:8b"
    assert "authorization" not in recorder.headers[0]


def test_llama_cpp_gets_the_whole_schema_without_strict() -> None:
    assert request_fields("llama.cpp", choice_schema(CANDIDATES, 7)) == {
        "response_format": {"type": "json_schema", "json_schema": {"name": SCHEMA_NAME, "schema": full_schema(4)}}}


def test_max_items_is_the_smaller_of_the_offer_and_the_visits_left_and_the_enum_is_the_offer() -> None:
    offer = (NodeView("a", "A"), NodeView("b", "B"), NodeView("a", "again"))
    schema = choice_schema(offer, 1)
    assert schema["properties"]["selected"]["items"]["enum"] == ["a", "b"]
    assert schema["properties"]["selected"]["maxItems"] == 1
    assert choice_schema(offer, 10)["properties"]["selected"]["maxItems"] == 2


# -- sampling and max_tokens --------------------------------------------------------------------------------


def test_sampling_options_in_the_model_id_are_sent_and_named_in_the_transcript() -> None:
    recorder = Recorder(completion(["billing"]))
    choice = ask(recorder, "openai:gpt-4o-mini@temperature=0.8,seed=7,top_p=0.9,max_tokens=120")
    (body,) = recorder.bodies
    assert (body["temperature"], body["seed"], body["top_p"], body["max_tokens"]) == (0.8, 7, 0.9, 120)
    assert body["model"] == "gpt-4o-mini"
    pairs = dict(choice.transcript)
    assert pairs["parameters"] == ('{"temperature": 0.8, "seed": 7, "top_p": 0.9, "max_tokens": 120, '
                                   '"structured_output": true}')
    assert pairs["provider"] == "openai"
    assert json.loads(pairs["schema"]) == {"response_format": body["response_format"]}


def test_by_default_temperature_0_no_seed_no_top_p_and_enough_tokens_for_the_answer() -> None:
    recorder = Recorder(completion(["billing"]))
    choice = ask(recorder, "ollama:llama3.1", remaining=2)
    (body,) = recorder.bodies
    assert body["temperature"] == 0 and "seed" not in body and "top_p" not in body
    # 48 + the two longest ids' allowance (len // 2 + 4 each) + the whole rationale at a token a character
    assert body["max_tokens"] == 48 + (8 // 2 + 4) + (7 // 2 + 4) + RATIONALE_MAX_CHARS
    assert dict(choice.transcript)["parameters"] == (
        f'{{"temperature": 0, "max_tokens": {body["max_tokens"]}, "structured_output": true}}')
    assert dict(choice.transcript)["provider"] == "ollama"


@pytest.mark.parametrize(("model", "message"), [
    ("openai:m@temperature=3", "temperature=3: temperature must be a number from 0 to 2, e.g. temperature=0.7"),
    ("openai:m@seed=-1", "seed=-1: seed must be a whole number from 0 to 9,223,372,036,854,775,807, e.g. seed=7"),
    ("openai:m@tempreature=1", "'openai:m@tempreature=1': unknown option 'tempreature'; did you mean 'temperature'?"),
    ("openai:m@schema=maybe", "schema=maybe: schema must be auto, on or off"),
    ("openai:m@threads=2", "model 'openai:m@threads=2': threads set a local: model's server; a openai: model's "
                           "server is configured where it runs"),
])
def test_a_bad_option_is_one_line_before_any_request(model: str, message: str) -> None:
    recorder = Recorder()
    with pytest.raises(NavigatorHTTPError) as caught:
        ask(recorder, model)
    assert str(caught.value) == message
    assert recorder.bodies == []


# -- structured output off, on, auto and its fallback --------------------------------------------------------


def test_schema_off_sends_no_schema_and_says_so() -> None:
    recorder = Recorder(completion(["billing"]))
    choice = ask(recorder, "openai:m@schema=off")
    assert "response_format" not in recorder.bodies[0]
    pairs = dict(choice.transcript)
    assert pairs["structured output"] == "off (schema=off)"
    assert "schema" not in pairs
    assert json.loads(pairs["parameters"])["structured_output"] is False


def refusal(status: int = 400) -> httpx.Response:
    return httpx.Response(status, json={"error": {"message": "Invalid schema for response_format: uniqueItems"}})


@pytest.mark.parametrize("status", [400, 422])
def test_a_refused_schema_is_asked_again_once_without_it_and_the_transcript_says_so(status: int) -> None:
    recorder = Recorder(refusal(status), completion(["accounts"], "no schema"))
    choice = ask(recorder, "openai:m")
    assert ["response_format" in body for body in recorder.bodies] == [True, False]
    assert recorder.bodies[0]["messages"] == recorder.bodies[1]["messages"]
    assert choice.selected == ("accounts",)
    pairs = dict(choice.transcript)
    assert pairs["structured output"] == (f'refused by the server (HTTP {status}: "Invalid schema for '
                                          'response_format: uniqueItems"); asked again without it')
    assert pairs["http"] == f"200 after 2 attempts (earlier: {status})"
    assert json.loads(pairs["parameters"])["structured_output"] is False
    assert "schema" not in pairs


def test_after_a_refusal_the_same_server_is_asked_without_the_schema_from_the_start() -> None:
    recorder = Recorder(refusal(), completion(["accounts"]), completion(["support"]))
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(recorder)) as nav:
        ask(recorder, "openai:m", nav=nav)
        second = ask(recorder, "openai:m", nav=nav)
    assert ["response_format" in body for body in recorder.bodies] == [True, False, False]
    assert dict(second.transcript)["structured output"] == (
        'off: the server refused it earlier (HTTP 400: "Invalid schema for response_format: uniqueItems")')
    assert dict(second.transcript)["http"] == "200 after 1 attempt"


def test_schema_on_makes_a_refusal_a_failure_that_says_what_to_do() -> None:
    recorder = Recorder(refusal())
    with pytest.raises(NavigatorHTTPError) as caught:
        ask(recorder, "openai:m@schema=on")
    assert len(recorder.bodies) == 1
    assert str(caught.value) == (
        'HTTP 400 from http://openai.test/v1/chat/completions: the request was refused (server said: "Invalid '
        "schema for response_format: uniqueItems\"); check the model name 'm'; if the server refuses structured "
        "output, add @schema=off to the model id (or leave it at auto)")
    assert dict(caught.value.transcript or ())["schema"].startswith('{"response_format": {"type": "json_schema"')


def test_a_refusal_asked_again_that_fails_again_is_one_failure_with_both_attempts() -> None:
    recorder = Recorder(refusal(), httpx.Response(400, json={"error": {"message": "model not allowed"}}))
    with pytest.raises(NavigatorHTTPError, match='HTTP 400 .* after 2 attempts: .*"model not allowed"') as caught:
        ask(recorder, "openai:m")
    assert dict(caught.value.transcript or ())["http"] == "400 after 2 attempts (earlier: 400)"


def test_other_statuses_are_not_taken_for_a_refused_schema() -> None:
    recorder = Recorder(httpx.Response(404, json={"error": {"message": "no such model"}}))
    with pytest.raises(NavigatorHTTPError, match="HTTP 404"):
        ask(recorder, "openai:m")
    assert len(recorder.bodies) == 1
