"""An LLM asked for scores (``@scores=on``, issue 37, point 2), over a real HTTP server on 127.0.0.1: the structured
output holds a score from 0 to 100 per offered id, inside the schema whose ids are the offer's enum; the answer's
scores, divided by 100, become the choice's; ids not offered are left out and said so; malformed scores are one-line
failures like any malformed answer; the scores are part of the cache's identity; and a best-first walk comes back to a
sibling the model scored but did not choose."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from core import (
    CancellationToken,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChose,
    NavigatorRequest,
    NodeEntered,
    NodeView,
    Policy,
    ReasoningRAGStrategy,
    RetrievedDocument,
    WalkFinished,
)
from explorer.navigators.llm.prompt import SCORES_ASKED
from explorer.navigators.llm.settings import CACHE_DIR_ENV
from explorer.navigators.openai_compat import NavigatorHTTPError, OpenAICompatibleNavigator

from ..http_stub import Reply, StubServer

SCORED = "openai:test-model@scores=on"
CANDIDATES = (
    NodeView("billing", "Billing", "Invoices, refunds and payment methods."),
    NodeView("accounts", "Accounts", "Signing in, security, closing an account."),
    NodeView("support", "Customer support", "Contacting a person."),
)
ITEM = {
    "type": "object",
    "properties": {"id": {"type": "string", "enum": ["billing", "accounts", "support"]},
                   "score": {"type": "integer", "minimum": 0, "maximum": 100}},
    "required": ["id", "score"],
    "additionalProperties": False,
}


def completion(content: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


def handbook() -> HierarchyIndex:
    def node(node_id: str, parent: str | None, title: str) -> RetrievedDocument:
        metadata: dict[str, Any] = {HierarchyMetadata.ID: node_id, "reasoningTitle": title}
        if parent is not None:
            metadata[HierarchyMetadata.PARENT_ID] = parent
        return RetrievedDocument(f"the text of {node_id}", node_id, 0.0, metadata)

    return HierarchyIndex([node("billing", None, "Billing"), node("invoices", "billing", "Invoices"),
                           node("refunds", "billing", "Refunds"), node("accounts", None, "Accounts"),
                           node("sign-in", "accounts", "Signing in"), node("support", None, "Support")])


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with StubServer() as stub:
        monkeypatch.setenv("OPENAI_BASE_URL", f"{stub.url}/v1")
        yield stub


def scored(selected: list[str], scores: Any, rationale: str = "because") -> Reply:
    return Reply(200, completion(json.dumps({"selected": selected, "rationale": rationale, "scores": scores})))


def ask(model: str = SCORED, candidates: tuple[NodeView, ...] = CANDIDATES) -> Any:
    with OpenAICompatibleNavigator() as navigator:
        return navigator.choose(NavigatorRequest("How long does a refund take?", model, None, candidates, 5,
                                                 CancellationToken()))


def test_the_request_asks_for_a_score_per_offered_id_inside_the_schema_of_offered_ids(server: StubServer) -> None:
    server.add(scored(["billing"], [{"id": "billing", "score": 90}, {"id": "accounts", "score": 35},
                                    {"id": "support", "score": 0}]))
    ask()
    body = server.requests[0].json()
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["required"] == ["selected", "rationale", "scores"]
    assert schema["properties"]["scores"] == {"type": "array", "items": ITEM, "maxItems": 3}  # strict: no uniqueItems
    assert schema["properties"]["selected"]["items"]["enum"] == ITEM["properties"]["id"]["enum"]
    assert body["messages"][-1]["content"].endswith("an empty list stops here.\n" + SCORES_ASKED)
    server.add(scored(["billing"], None))
    ask("openai:test-model")
    plain = server.requests[1].json()
    assert "scores" not in plain["response_format"]["json_schema"]["schema"]["properties"]
    assert SCORES_ASKED not in plain["messages"][-1]["content"]
    # room for a score item per id: (billing 7 + 10) + (accounts 8 + 10) + (support 7 + 10) tokens
    assert body["max_tokens"] - plain["max_tokens"] == 52


def test_the_answer_s_scores_divided_by_100_are_the_choice_s_and_ids_not_offered_are_left_out(
        server: StubServer) -> None:
    server.add(scored(["billing"], [{"id": "billing", "score": 90}, {"id": "Accounts", "score": 35},
                                    {"id": "invented", "score": 80}, {"id": "support", "score": 0}]))
    choice = ask()
    assert choice.selected == ("billing",)
    assert dict(choice.scores) == {"billing": 0.9, "accounts": 0.35, "support": 0.0}  # a title resolves as an id does
    notes = dict(choice.transcript)
    assert notes["scores"] == '1 scored ids not offered, left out: "invented"'


def test_an_answer_without_scores_scores_nothing_and_says_so(server: StubServer) -> None:
    server.add(Reply(200, completion(json.dumps({"selected": ["support", "billing"], "rationale": "r"}))))
    choice = ask()
    assert choice.scores is None
    assert dict(choice.transcript)["scores"] == ("none given (asked with scores=on): the walk scores the chosen ids by "
                                                 "their order")


def test_scores_are_read_only_when_asked_for(server: StubServer) -> None:
    server.add(scored(["billing"], [{"id": "billing", "score": 90}]))
    choice = ask("openai:test-model")
    assert choice.scores is None and "scores" not in dict(choice.transcript)


@pytest.mark.parametrize(("scores", "said"), [
    ("high", 'has a "scores" that is not a list'),
    ([{"id": "billing", "score": 150}], 'has a score that is no number from 0 to 100 ("150" for "billing")'),
    ([{"id": "billing", "score": "90"}], 'has a score that is no number from 0 to 100 ("90" for "billing")'),
    ([{"id": "billing", "score": True}], 'has a score that is no number from 0 to 100 ("true" for "billing")'),
    (["billing"], 'has a "scores" item that is no id with a score ("billing")'),
])
def test_malformed_scores_are_a_one_line_failure_like_any_malformed_answer(
        server: StubServer, scores: Any, said: str) -> None:
    server.add(scored(["billing"], scores))
    with pytest.raises(NavigatorHTTPError) as caught:
        ask()
    message = str(caught.value)
    assert message.startswith(f"the answer of model 'test-model' {said}; scores=on asks for "
                              '[{"id": "<id>", "score": <0 to 100>}, ...]; it starts "{')
    assert "\n" not in message and "Traceback" not in message


def test_scores_on_is_part_of_the_cache_s_identity(server: StubServer, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    server.add(scored(["billing"], [{"id": "billing", "score": 90}]), scored(["support"], None))
    assert dict(ask().scores) == {"billing": 0.9}
    assert dict(ask().scores) == {"billing": 0.9}  # the same request: from the cache, no call
    assert len(server.requests) == 1
    assert ask("openai:test-model").selected == ("support",)  # without scores: another request, asked
    assert len(server.requests) == 2


def test_a_best_first_walk_comes_back_to_a_sibling_the_model_scored_but_did_not_choose(server: StubServer) -> None:
    """The roots: billing chosen (90), accounts only scored (60). Under billing, refunds chosen (path score 0.5 × 1 +
    0.5 × 0.9 = 0.95) and entered; then the walk comes back to accounts (0.6), which the model passed over, and asks
    there: three calls, four visits."""
    server.add(
        scored(["billing"], [{"id": "billing", "score": 90}, {"id": "accounts", "score": 60},
                             {"id": "support", "score": 0}]),
        scored(["refunds"], [{"id": "refunds", "score": 100}, {"id": "invoices", "score": 0}]),
        scored(["sign-in"], [{"id": "sign-in", "score": 40}]),
    )
    with OpenAICompatibleNavigator() as navigator:
        strategy = ReasoningRAGStrategy(handbook(), navigator, SCORED, max_nodes_visited=5, policy=Policy.BEST_FIRST)
        events = list(strategy.walk("How long does a refund take?"))
    assert [e.node.id for e in events if isinstance(e, NodeEntered)] == ["billing", "refunds", "accounts", "sign-in"]
    first = next(e for e in events if isinstance(e, NavigatorChose))
    assert dict(first.scores or {}) == {"billing": 0.9, "accounts": 0.6, "support": 0.0}
    assert first.frontier == (("billing", 0.9), ("accounts", 0.6))  # support, scored 0, does not join
    result = events[-1]
    assert isinstance(result, WalkFinished)
    assert [d.id for d in result.result.documents] == ["refunds", "sign-in"]
    # sign-in: 0.5 × 0.4 + 0.5 × 0.6
    assert [(s.landed, round(s.score or 0, 3)) for s in result.result.stops] == [("refunds", 0.95), ("sign-in", 0.5)]
    assert len(server.requests) == 3


@pytest.mark.parametrize(("model", "said"), [
    ("openai:m@scores=yes", "scores=yes: scores must be on (a score from 0 to 100 per offered id) or off"),
    ("local:smollm2@scores=on,grammar=compact",
     "'local:smollm2@scores=on,grammar=compact': scores=on needs the JSON schema, and grammar=compact asks for ids "
     "alone; leave out one of them"),
])
def test_scores_that_cannot_be_asked_for_are_refused_in_one_line(model: str, said: str) -> None:
    from explorer.navigators.llm.options import OptionError, split_options

    with pytest.raises(OptionError) as caught:
        split_options(model)
    assert str(caught.value) == said
    assert split_options("openai:m@scores=OFF").options.scores is False
