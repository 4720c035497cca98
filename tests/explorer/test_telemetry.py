"""Walks in tracing tools: the spans that reach a real OTLP/HTTP receiver on 127.0.0.1, and the OTLP/JSON file."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest

from core import (
    CandidatesOffered,
    NavigatorChoice,
    NavigatorChose,
    NavigatorRequest,
    NodeEntered,
    PathStopped,
    ReasoningRAGStrategy,
    TreeNavigator,
    WalkEvent,
)
from explorer.cli import options as cli
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.recording import WalkRecorder
from explorer.trace import FinishedWalk, read_trace, write_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession, Wiring, fork
from explorer.walks.telemetry import ENDPOINT_ENV, TelemetryConfigError, WalkTelemetry, traces_url
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .http_stub import Reply, StubServer
from .otlp_receiver import OtlpReceiver, ReceivedSpan, closed_port

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
SCRIPTS = ROOT / "sample_corpora" / "scripts"
QUERY = "How are refunds issued?"
KEY = "sk-test-OTLP-SECRET-24680"
OK, ERROR, UNSET = 1, 2, 0  # opentelemetry.proto.trace.v1.Status.StatusCode


def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, unset=[ENDPOINT_ENV])  # type: ignore[return-value]


def root_of(spans: Sequence[ReceivedSpan]) -> ReceivedSpan:
    (root,) = [s for s in spans if not s.parent]
    return root


def children_of(spans: Sequence[ReceivedSpan], root: ReceivedSpan) -> list[ReceivedSpan]:
    return sorted((s for s in spans if s.parent == root.span_id), key=lambda s: s.start)


def decisions_of(spans: Sequence[ReceivedSpan]) -> list[ReceivedSpan]:
    """Every decision span of one walk, in walk order (they sit in the walk's tree, not all under the root)."""
    return sorted((s for s in spans if s.parent), key=lambda s: s.start)


def tree_of(spans: Sequence[ReceivedSpan]) -> list[tuple[str, str]]:
    """Each decision span's name and its parent's name, in walk order."""
    names = {s.span_id: s.name for s in spans}
    return [(s.name, names[s.parent]) for s in decisions_of(spans)]


def strings_in(spans: Iterable[ReceivedSpan]) -> list[str]:
    found: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, tuple | list):
            for v in value:
                walk(v)
        elif isinstance(value, dict):
            for k, v in value.items():
                found.append(k)
                walk(v)

    for span in spans:
        found += [span.name, span.status_message]
        walk(span.attributes)
        walk(span.resource)
        for event in span.events:
            found.append(event.name)
            walk(event.attributes)
    return found


# -- a walk from the command line ---------------------------------------------------------------------


def test_a_walk_arrives_as_one_retriever_span_with_a_child_per_decision_and_stops_as_events():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", receiver.url)
        assert out.returncode == 0, out.stderr
        assert out.stderr == ""
        assert len(receiver.requests) == 1  # the whole walk in one request, when it is over
        assert receiver.content_types == ["application/x-protobuf"]
        spans = receiver.spans()
    assert "finished · visits used 3/15 · navigator calls 3 · characters shipped 2,100" in out.stdout
    assert len(spans) == 4 and len({s.trace_id for s in spans}) == 1
    root = root_of(spans)
    assert root.name == QUERY  # each walk's row in a trace list reads as its question
    assert root.resource["service.name"] == "reasoning-explorer"
    assert root.resource["openinference.project.name"] == "reasoning-explorer"
    a = root.attributes
    assert a["openinference.span.kind"] == "RETRIEVER"
    assert (a["input.value"], a["input.mime_type"]) == (QUERY, "text/plain")
    assert (a["reasoning_explorer.navigator"], a["reasoning_explorer.max_nodes_visited"],
            a["reasoning_explorer.max_depth"], a["reasoning_explorer.on_failure"]) == ("lexical:default", 15, 6, "throw")
    assert a["reasoning_explorer.corpus.source"] == "handbook" and a["reasoning_explorer.corpus.format"] == "yaml"
    assert len(a["reasoning_explorer.corpus.sha256"]) == 64
    assert (a["reasoning_explorer.end"], a["reasoning_explorer.visits_used"], a["reasoning_explorer.navigator_calls"],
            a["reasoning_explorer.chars_shipped"]) == ("finished", 3, 3, 2100)
    assert a["reasoning_explorer.landed"] == ("refund-delivery",)
    metadata = json.loads(a["metadata"])
    assert metadata["navigator"] == "lexical:default" and metadata["max_nodes_visited"] == 15
    assert metadata["corpus"]["source"] == "handbook"
    assert a["retrieval.documents.0.document.id"] == "refund-delivery"
    chose_it = decisions_of(spans)[2]  # the decision under refunds chose refund-delivery: its BM25 is the score
    scored = dict(json.loads(chose_it.attributes["reasoning_explorer.transcript"]))["scored"]
    bm25 = json.loads(scored)["scores"]["refund-delivery"]
    assert bm25 > 0 and a["retrieval.documents.0.document.score"] == bm25
    assert a["reasoning_explorer.score_unknown"] == ()
    assert a["retrieval.documents.0.document.content"].startswith("Refunds go back to the payment method")
    document = json.loads(a["retrieval.documents.0.document.metadata"])
    assert (document["stop_reason"], document["path"], document["depth"]) == (
        "leaf", ["billing", "refunds", "refund-delivery"], 2)
    assert (document["score_kind"], document["rank"], document["chosen_at"], document["answered"]) == (
        "bm25", 1, "refunds", "live")
    assert "retrieval.documents.1.document.id" not in a
    assert json.loads(a["output.value"]) == {"end": "finished", "landed": ["refund-delivery"], "error": None}
    assert root.status_code == OK
    assert [e.name for e in root.events] == ["enter", "enter", "enter", "stop: leaf"]
    assert [e.attributes["reasoning_explorer.node.id"] for e in root.events[:3]] == [
        "billing", "refunds", "refund-delivery"]
    assert [e.attributes["reasoning_explorer.remaining_visits"] for e in root.events[:3]] == [14, 13, 12]
    stop = root.events[3].attributes
    assert stop == {"reasoning_explorer.stop.reason": "leaf",
                    "reasoning_explorer.stop.path": ("billing", "refunds", "refund-delivery"),
                    "reasoning_explorer.stop.node": "refund-delivery", "reasoning_explorer.stop.landed": "refund-delivery"}

    # The trace's tree is the walk's: each decision under the decision that chose its node.
    assert tree_of(spans) == [("choose among the roots", QUERY), ("choose under billing", "choose among the roots"),
                              ("choose under refunds", "choose under billing")]
    children = decisions_of(spans)
    assert {c.attributes["openinference.span.kind"] for c in children} == {"TOOL"}
    assert {c.attributes["tool.name"] for c in children} == {"lexical:default"}
    assert [c.attributes["reasoning_explorer.selected"] for c in children] == [
        ("billing",), ("refunds",), ("refund-delivery",)]
    assert [c.attributes.get("reasoning_explorer.node.id") for c in children] == [None, "billing", "refunds"]
    assert [c.attributes["reasoning_explorer.remaining_visits"] for c in children] == [15, 14, 13]
    first = json.loads(children[0].attributes["input.value"])
    assert first["query"] == QUERY and first["current"] is None and first["remaining_visits"] == 15
    assert [c["id"] for c in first["candidates"]][:3] == ["accounts", "plans", "billing"]
    assert children[0].attributes["input.mime_type"] == "application/json"
    answer = json.loads(children[2].attributes["output.value"])
    assert answer["selected"] == ["refund-delivery"] and answer["hallucinated"] == []
    assert answer["rationale"].startswith("matched refund-delivery")
    transcript = json.loads(children[0].attributes["reasoning_explorer.transcript"])
    assert [label for label, _ in transcript] == ["terms", "scores", "rule", "scored"]
    assert "llm.input_messages.0.message.role" not in children[0].attributes
    # Times: each decision lasts the navigator's own seconds, inside the walk's span, in walk order.
    for child in children:
        assert child.end - child.start == round(child.attributes["reasoning_explorer.seconds"] * 1e9)
        assert root.start <= child.start <= child.end <= root.end
        assert child.status_code == UNSET
    assert children[0].end <= children[1].start and children[1].end <= children[2].start
    assert root.events[0].time >= children[0].end and root.events[-1].time <= root.end


def test_a_navigator_failure_is_an_error_span_and_every_stop_an_event():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}",
                  "--on-failure", "partial", "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    root = root_of(spans)
    children = decisions_of(spans)
    # billing chose two branches: both decisions sit under it.
    assert tree_of(spans) == [("choose among the roots", "q"), ("choose under billing", "choose among the roots"),
                              ("choose under refunds", "choose under billing"),
                              ("choose under invoices", "choose under billing")]
    failed = children[2]
    assert failed.status_code == ERROR
    assert "upstream timeout after 30 s" in failed.status_message
    assert failed.attributes["reasoning_explorer.policy"] == "partial"
    assert "upstream timeout after 30 s" in json.loads(failed.attributes["output.value"])["error"]
    assert [e.name for e in root.events if e.name.startswith("stop")] == ["stop: navigator_failed", "stop: leaf"]
    assert root.attributes["reasoning_explorer.landed"] == ("refunds", "invoice-schedule")
    assert json.loads(root.attributes["retrieval.documents.0.document.metadata"])["stop_reason"] == "navigator_failed"
    # The walk went on, but a decision failed: the walk's row is red, and says where and why.
    assert root.status_code == ERROR
    assert root.status_message.startswith("the navigator failed at refunds: ")
    assert "upstream timeout after 30 s" in root.status_message
    assert root.status_message.endswith(" (the walk went on: on failure partial)")


def test_a_forced_branching_decision_is_marked_its_branches_sit_under_it_and_an_unoffered_id_is_flagged():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, QUERY, "--force", "billing=refunds,invoices,ghost", "--otlp-endpoint",
                  receiver.url)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    root = root_of(spans)
    assert (root.name, root.status_code) == (QUERY, OK)
    tree = tree_of(spans)
    assert tree[:2] == [("choose among the roots", QUERY), ("choose under billing (forced)", "choose among the roots")]
    assert sorted(tree[2:]) == sorted([("choose under refunds", "choose under billing (forced)"),
                                       ("choose under invoices", "choose under billing (forced)")])
    forced = decisions_of(spans)[1]
    a = forced.attributes
    assert (a["openinference.span.kind"], a["reasoning_explorer.forced"], a["reasoning_explorer.answered_by"]) == (
        "CHAIN", True, "forced")
    assert (a["reasoning_explorer.hallucinated"], a["reasoning_explorer.hallucinated_count"]) == (("ghost",), 1)
    assert [(e.name, e.attributes) for e in forced.events] == [
        ("unoffered id", {"reasoning_explorer.id": "ghost", "reasoning_explorer.node.id": "billing"})]
    assert all(s.events == () for s in decisions_of(spans) if s is not forced)
    assert [s.attributes["reasoning_explorer.hallucinated_count"] for s in decisions_of(spans)] == [0, 1, 0, 0]
    assert (root.attributes["reasoning_explorer.hallucinated"], root.attributes["reasoning_explorer.hallucinated_count"],
            root.attributes["reasoning_explorer.forced_decisions"]) == (("ghost",), 1, 1)
    # A landed document chosen by a live lexical decision has its BM25; nothing is scored 1 for want of a score.
    landed = root.attributes["reasoning_explorer.landed"]
    assert landed and root.attributes["reasoning_explorer.score_unknown"] == ()
    for number in range(len(landed)):
        assert json.loads(root.attributes[f"retrieval.documents.{number}.document.metadata"])["score_kind"] == "bm25"


def test_a_document_chosen_by_a_forced_decision_says_its_score_is_unknown():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, QUERY, "--force", "billing=refunds", "--force", "refunds=refund-delivery",
                  "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    a = root_of(spans).attributes
    assert a["reasoning_explorer.landed"] == ("refund-delivery",)
    assert "retrieval.documents.0.document.score" not in a
    assert a["reasoning_explorer.score_unknown"] == ("refund-delivery",)
    document = json.loads(a["retrieval.documents.0.document.metadata"])
    assert (document["score_kind"], document["rank"], document["chosen_at"], document["answered"]) == (
        "unknown", 1, "refunds", "forced")


def test_a_walk_that_fails_under_throw_is_an_error_walk_span():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}",
                  "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 1
    root = root_of(spans)
    assert root.name == "q"
    assert root.status_code == ERROR and "upstream timeout after 30 s" in root.status_message
    assert root.attributes["reasoning_explorer.end"] == "failed"
    assert "upstream timeout after 30 s" in root.attributes["reasoning_explorer.error"]
    assert "reasoning_explorer.visits_used" not in root.attributes  # it never finished


def test_a_hallucinated_branch_stops_with_invalid_choice_on_the_walk_span():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, "How do I get a refund?", "--navigator",
                  f"script:{SCRIPTS / 'hallucinated-branch.yaml'}", "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    root = root_of(spans)
    billing = decisions_of(spans)[1]
    assert billing.attributes["reasoning_explorer.hallucinated"] == ("refund-policy",)
    assert billing.attributes["reasoning_explorer.selected"] == ("refund-policy", "refunds")
    (invalid,) = [e for e in root.events if e.name == "stop: invalid_choice"]
    assert invalid.attributes["reasoning_explorer.stop.branch"] == "refund-policy"
    assert invalid.attributes["reasoning_explorer.stop.landed"] == "billing"
    assert billing.attributes["reasoning_explorer.hallucinated_count"] == 1
    assert [(e.name, e.attributes["reasoning_explorer.id"]) for e in billing.events] == [
        ("unoffered id", "refund-policy")]
    assert root.attributes["reasoning_explorer.hallucinated"] == ("refund-policy",)


def llm_answer(selected: list[str]) -> Reply:
    content = json.dumps({"selected": selected, "rationale": "because"})
    return Reply(200, {"id": "c1", "object": "chat.completion", "model": "test-model",
                       "choices": [{"index": 0, "message": {"role": "assistant", "content": content},
                                    "finish_reason": "stop"}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120}})


def test_an_llm_walk_has_llm_spans_with_the_model_and_token_counts_and_no_key():
    with StubServer() as server, OtlpReceiver() as receiver:
        server.add(llm_answer(["billing"]), llm_answer(["refunds"]), llm_answer(["refund-delivery"]))
        out = run("walk", HANDBOOK, "When do I get my money back?", "--navigator", "openai:test-model",
                  "--otlp-endpoint", receiver.url, env={"OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": server.url})
        assert out.returncode == 0, out.stderr
        assert server.requests[0].headers["authorization"] == f"Bearer {KEY}"
        spans = receiver.spans()
    root = root_of(spans)
    children = decisions_of(spans)
    assert len(children) == 3
    for child, request in zip(children, server.requests, strict=True):
        a = child.attributes
        assert a["openinference.span.kind"] == "LLM"
        # The navigator names its provider and the parameters it really sent (the request's own fields).
        assert (a["llm.model_name"], a["llm.provider"], a["llm.system"]) == ("test-model", "openai", "openai")
        sent = request.json()
        assert json.loads(a["llm.invocation_parameters"]) == {
            "temperature": sent["temperature"], "max_tokens": sent["max_tokens"], "structured_output": True}
        assert (a["llm.token_count.prompt"], a["llm.token_count.completion"], a["llm.token_count.total"]) == (
            100, 20, 120)
        assert "tool.name" not in a
    assert root.attributes["reasoning_explorer.landed"] == ("refund-delivery",)
    assert not [text for text in strings_in(spans) if KEY in text]


# -- the transcript as messages, and secrets ----------------------------------------------------------


class TranscribingNavigator(TreeNavigator):
    """A stand-in for an LLM provider: answers the first candidate, with a transcript and usage like an LLM's."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        first = request.candidates[0].id
        leaked = os.environ.get("LEAKED", "")  # what a buggy provider might let slip
        transcript = (("system", "You choose branches."), ("user", f"Query: {request.query}"),
                      ("answer", json.dumps({"selected": [first]})), ("http", f"200 after 1 attempt {leaked}"))
        return NavigatorChoice((first,), "the first", {"prompt_tokens": 7, "completion_tokens": 3}, transcript)


def walk_events(navigator: TreeNavigator, model: str, query: str = QUERY, **limits: int) -> list[WalkEvent]:
    corpus = load_corpus(HANDBOOK)
    return list(ReasoningRAGStrategy(corpus.index, navigator, model, **limits).walk(query))


def header(model: str, query: str = QUERY):
    corpus = load_corpus(HANDBOOK)
    session = WalkSession(corpus, WalkSettings(query, model), resolve_navigator("lexical:default"))
    return session.history.finished(corpus).header


def test_the_transcript_becomes_input_and_output_messages_and_secrets_are_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Basic%20cGs6c2stbGYtMTIz")
    monkeypatch.setenv("LEAKED", f"{KEY} and Basic cGs6c2stbGYtMTIz")
    events = walk_events(TranscribingNavigator(), "ollama:llama3.1", max_nodes_visited=2)
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(header("ollama:llama3.1"), events, WalkEnd.FINISHED))
        spans = receiver.spans()
    first = decisions_of(spans)[0].attributes
    assert first["openinference.span.kind"] == "LLM"
    assert (first["llm.model_name"], first["llm.provider"]) == ("llama3.1", "ollama")
    assert (first["llm.input_messages.0.message.role"], first["llm.input_messages.0.message.content"]) == (
        "system", "You choose branches.")
    assert (first["llm.input_messages.1.message.role"], first["llm.input_messages.1.message.content"]) == (
        "user", f"Query: {QUERY}")
    assert (first["llm.output_messages.0.message.role"], first["llm.output_messages.0.message.content"]) == (
        "assistant", '{"selected": ["accounts"]}')
    assert "llm.input_messages.2.message.role" not in first and "llm.output_messages.1.message.role" not in first
    assert (first["llm.token_count.prompt"], first["llm.token_count.completion"], first["llm.token_count.total"]) == (
        7, 3, 10)
    assert json.loads(first["reasoning_explorer.transcript"]) == [["http", "200 after 1 attempt *** and ***"]]
    assert not [text for text in strings_in(spans) if KEY in text or "cGs6c2stbGYtMTIz" in text]


class LocalLlmNavigator(TreeNavigator):
    """A stand-in for an LLM navigator that says what it really talked to, as the LLM navigators' transcripts do:
    a ``parameters`` pair (the invocation parameters sent, one line of JSON) and a ``provider`` pair."""

    def __init__(self, provider: str = "llama.cpp", cached: bool = False) -> None:
        self.provider, self.cached = provider, cached

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        picked = tuple(c.id for c in request.candidates[:2])
        transcript = (("system", "You choose branches."), ("user", f"Query: {request.query}"),
                      ("answer", json.dumps({"selected": list(picked)})),
                      ("parameters", '{"temperature": 0, "top_p": 1, "seed": 7, "max_tokens": 256, '
                                     '"response_format": "json_schema"}'),
                      ("provider", self.provider), ("http", "200 after 1 attempt"),
                      *((("answered", "cached: the same request answered before"),) if self.cached else ()))
        return NavigatorChoice(picked, "the first two", {"prompt_tokens": 7, "completion_tokens": 3}, transcript)


@pytest.mark.parametrize(("model", "name"), [("openai:qwen2.5-0.5b", "qwen2.5-0.5b"),
                                             ("local:/models/qwen.gguf", "/models/qwen.gguf")])
def test_llm_spans_carry_the_invocation_parameters_and_the_provider_the_transcript_names(model, name):
    events = walk_events(LocalLlmNavigator(), model, max_nodes_visited=3)
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(header(model), events, WalkEnd.FINISHED))
        spans = receiver.spans()
    for span in decisions_of(spans):
        a = span.attributes
        assert a["openinference.span.kind"] == "LLM"
        assert (a["llm.model_name"], a["llm.provider"], a["llm.system"]) == (name, "llama.cpp", "openai")
        assert json.loads(a["llm.invocation_parameters"]) == {
            "temperature": 0, "top_p": 1, "seed": 7, "max_tokens": 256, "response_format": "json_schema"}
        assert json.loads(a["reasoning_explorer.transcript"]) == [["http", "200 after 1 attempt"]]
        assert (a["llm.token_count.total"], a["reasoning_explorer.answered_by"]) == (10, "live")
    # An LLM ranks without scoring: its documents say their place in its answer, and that the score is unknown.
    root = root_of(spans).attributes
    landed = root["reasoning_explorer.landed"]
    assert landed and root["reasoning_explorer.score_unknown"] == landed
    for number in range(len(landed)):
        assert f"retrieval.documents.{number}.document.score" not in root
        document = json.loads(root[f"retrieval.documents.{number}.document.metadata"])
        assert document["score_kind"] == "order" and document["rank"] in (1, 2)


def test_a_cached_llm_answer_is_marked_and_counts_no_tokens():
    events = walk_events(LocalLlmNavigator(cached=True), "openai:qwen", max_nodes_visited=2)
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(header("openai:qwen"), events, WalkEnd.FINISHED))
        spans = receiver.spans()
    first = decisions_of(spans)[0]
    assert first.name == "choose among the roots (cached)"
    a = first.attributes
    assert (a["openinference.span.kind"], a["reasoning_explorer.answered_by"], a["llm.provider"]) == (
        "LLM", "cached", "llama.cpp")
    assert not [k for k in a if k.startswith("llm.token_count")]
    assert json.loads(a["reasoning_explorer.usage"]) == {"prompt_tokens": 7, "completion_tokens": 3}


def test_the_walk_span_is_named_after_its_query_on_one_line_and_shortened():
    query = "How are refunds issued\nwhen the card I paid with has been cancelled by the bank in the meantime?"
    events = walk_events(resolve_navigator("lexical:default"), "lexical:default", query)
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(header("lexical:default", query), events, WalkEnd.FINISHED))
        root = root_of(receiver.spans())
    assert root.name == "How are refunds issued when the card I paid with has been c…"
    assert len(root.name) == 60 and root.attributes["input.value"] == query


def test_without_stamps_decisions_are_laid_out_from_the_navigators_seconds():
    events = walk_events(resolve_navigator("lexical:default"), "lexical:default")
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(header("lexical:default"), events, "finished"))
        spans = receiver.spans()
    root = root_of(spans)
    children = decisions_of(spans)
    assert [c.end - c.start for c in children] == [round(e.seconds * 1e9) for e in chose]
    assert root.start == children[0].start and root.end == children[-1].end


def test_an_offer_left_unanswered_by_a_cancelled_walk_is_a_span_marked_unanswered():
    events = walk_events(resolve_navigator("lexical:default"), "lexical:default")
    cut = [i for i, e in enumerate(events) if isinstance(e, CandidatesOffered)][1] + 1  # up to the 2nd offer
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(header("lexical:default"), events[:cut], WalkEnd.CANCELLED))
        spans = receiver.spans()
    root = root_of(spans)
    children = decisions_of(spans)
    assert [c.attributes["reasoning_explorer.answered"] for c in children] == [True, False]
    assert "output.value" not in children[1].attributes and children[1].end == root.end
    assert root.attributes["reasoning_explorer.end"] == "cancelled" and root.status_code == UNSET
    assert root.attributes["reasoning_explorer.landed"] == ()


# -- sessions, forks and the explorer's hook ----------------------------------------------------------


def test_a_fork_sends_forced_and_replayed_decisions_as_chain_spans():
    corpus = load_corpus(HANDBOOK)
    navigator = resolve_navigator("lexical:default")
    source = WalkSession(corpus, WalkSettings(QUERY), navigator)
    source.run_headless()
    offers = [seq for seq, e in enumerate(source.events, start=1) if isinstance(e, CandidatesOffered)]
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        forked = fork(source.history, offers[1], ("invoices",), corpus, navigator,
                      hook=Wiring(observers=(telemetry.export_walk,)).hook())
        forked.run_headless()
        spans = receiver.spans()
    root = root_of(spans)
    assert root.attributes["reasoning_explorer.walk"] == "walk 2 · fork of walk 1: at billing chose invoices"
    children = decisions_of(spans)
    kinds = [(c.name, c.attributes["openinference.span.kind"], c.attributes["reasoning_explorer.replayed"],
              c.attributes["reasoning_explorer.forced"]) for c in children]
    assert kinds[:2] == [("choose among the roots (replayed)", "CHAIN", True, False),
                         ("choose under billing (forced)", "CHAIN", False, True)]
    assert all(kind == "TOOL" and not replayed and not forced for _, kind, replayed, forced in kinds[2:])
    assert [c.attributes["reasoning_explorer.answered_by"] for c in children[:3]] == ["replayed", "forced", "live"]
    assert children[1].attributes["reasoning_explorer.selected"] == ("invoices",)
    assert tree_of(spans)[:3] == [
        ("choose among the roots (replayed)", QUERY), ("choose under billing (forced)", "choose among the roots (replayed)"),
        ("choose under invoices", "choose under billing (forced)")]
    assert root.attributes["reasoning_explorer.forced_decisions"] == 1


def test_a_walks_trace_spans_and_recording_come_from_its_one_record_through_one_hook(tmp_path):
    corpus = load_corpus(HANDBOOK)
    navigator = resolve_navigator("lexical:default")
    source = WalkSession(corpus, WalkSettings(QUERY), navigator)
    source.run_headless()
    offers = [seq for seq, e in enumerate(source.events, start=1) if isinstance(e, CandidatesOffered)]
    told: list[FinishedWalk] = []
    path = tmp_path / "fork.jsonl"

    def trace_writer(walk: FinishedWalk) -> None:
        write_trace(path, walk)

    with (OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry,
          WalkRecorder(tmp_path / "kept", corpus) as recorder):
        forked = fork(source.history, offers[1], ("invoices",), corpus, navigator,
                      hook=Wiring(observers=(told.append, trace_writer, telemetry.export_walk, recorder.keep)).hook())
        forked.run_headless()
        spans = receiver.spans()
    (record,) = told  # one record, made once, handed to every observer
    assert record is forked.finished
    (kept,) = (tmp_path / "kept").glob("walk-*.jsonl")
    assert kept.read_bytes() == path.read_bytes()  # the recorder's trace and the trace written: the same record
    trace = read_trace(path, corpus_sha256=corpus.sha256)
    assert (trace.header, trace.events, trace.end, trace.forced) == (record.header, record.events, record.end,
                                                                      record.forced)
    assert record.forced and record.replayed  # the fork's decision forced, the one before it replayed

    root = root_of(spans)
    a = root.attributes
    header = trace.header
    assert (a["input.value"], a["reasoning_explorer.navigator"], a["reasoning_explorer.max_nodes_visited"],
            a["reasoning_explorer.corpus.sha256"], a["reasoning_explorer.corpus.path"]) == (
        header.settings.query, header.settings.model, header.settings.max_nodes_visited, header.corpus_sha256,
        header.corpus_path)
    assert a["reasoning_explorer.walk"] == record.name == forked.history.name
    # One decision span per decision of the trace, in order: the node judged, the ids chosen, forced or replayed.
    in_trace = [(seq, e) for seq, e in enumerate(trace.events, start=1) if isinstance(e, NavigatorChose)]
    assert [(d.attributes.get("reasoning_explorer.node.id"), d.attributes["reasoning_explorer.selected"],
             d.attributes["reasoning_explorer.forced"], d.attributes["reasoning_explorer.replayed"])
            for d in decisions_of(spans)] == [
        (e.current, e.selected, seq in trace.forced, seq in record.replayed) for seq, e in in_trace]
    assert [d.end for d in decisions_of(spans)] == [record.times[seq - 1] for seq, _ in in_trace]
    # One span event per node entered and per stop of the trace, in order.
    assert [(event.name, event.attributes.get("reasoning_explorer.node.id", event.attributes.get(
        "reasoning_explorer.stop.node"))) for event in root.events] == [
        ("enter", e.node.id) if isinstance(e, NodeEntered) else (f"stop: {e.record.reason.value}", e.record.node)
        for e in trace.events if isinstance(e, NodeEntered | PathStopped)]


def test_a_session_handed_the_telemetry_tells_it_and_others_do_not():
    corpus = load_corpus(HANDBOOK)
    navigator = resolve_navigator("lexical:default")
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        inside = WalkSession(corpus, WalkSettings(QUERY), navigator,
                             hook=Wiring(observers=(telemetry.export_walk,)).hook())
        outside = WalkSession(corpus, WalkSettings("How do I reset my password?"), navigator)
        inside.run_headless()
        outside.run_headless()
        spans = receiver.spans()
    assert [s.attributes["input.value"] for s in spans if not s.parent] == [QUERY]


# -- eval, the environment, the file ------------------------------------------------------------------


def questions_file(tmp_path: Path) -> Path:
    path = tmp_path / "three.questions.yaml"
    path.write_text(f"corpus: {HANDBOOK}\nquestions:\n"
                    "  - {id: refunds, query: How are refunds issued?, expect: [refund-delivery]}\n"
                    "  - {id: password, query: How do I reset my password?, expect: [password-reset]}\n"
                    "  - {id: leave, query: How much parental leave do I get?, expect: [parental-leave]}\n")
    return path


def test_eval_sends_one_walk_span_per_question_in_one_session(tmp_path):
    with OtlpReceiver() as receiver:
        out = run("eval", questions_file(tmp_path), "--jobs", "2", "--json", "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    assert len(json.loads(out.stdout)["results"]) == 3
    roots = [s for s in spans if not s.parent]
    assert sorted(r.attributes["input.value"] for r in roots) == sorted([
        "How are refunds issued?", "How do I reset my password?", "How much parental leave do I get?"])
    assert len({r.trace_id for r in roots}) == 3
    assert len({r.attributes["session.id"] for r in roots}) == 1
    for root in roots:
        assert all(s.trace_id == root.trace_id for s in children_of(spans, root))


def test_eval_walk_spans_carry_the_question_the_expected_ids_and_hit_or_miss(tmp_path):
    questions = tmp_path / "two.questions.yaml"
    questions.write_text(f"corpus: {HANDBOOK}\nquestions:\n"
                         "  - {id: refunds, query: How are refunds issued?, expect: [refund-delivery]}\n"
                         "  - {id: money, query: When do I get my money back?, expect: [refund-delivery, invoices]}\n")
    with OtlpReceiver() as receiver:
        out = run("eval", questions, "--jobs", "2", "--json", "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    assert [(r["id"], r["hit"]) for r in json.loads(out.stdout)["results"]] == [("refunds", True), ("money", False)]
    roots = {r.attributes["reasoning_explorer.eval.question_id"]: r for r in spans if not r.parent}
    assert set(roots) == {"refunds", "money"}
    hit, miss = roots["refunds"].attributes, roots["money"].attributes
    assert roots["refunds"].name == "How are refunds issued?" and roots["money"].name == "When do I get my money back?"
    assert (hit["reasoning_explorer.eval.expected"], hit["reasoning_explorer.eval.hit"], hit["tag.tags"]) == (
        ("refund-delivery",), True, ("eval", "hit"))
    assert "reasoning_explorer.eval.missed" not in hit and "reasoning_explorer.eval.miss_reason" not in hit
    assert (miss["reasoning_explorer.eval.expected"], miss["reasoning_explorer.eval.hit"], miss["tag.tags"]) == (
        ("refund-delivery", "invoices"), False, ("eval", "miss"))
    # The walk never entered billing, the first node on the way to either expected node.
    assert (miss["reasoning_explorer.eval.missed"], miss["reasoning_explorer.eval.first_wrong_turn"]) == ("billing", 0)
    assert miss["reasoning_explorer.eval.miss_reason"] == "turned away"  # the evaluation's own reason
    # Judged as eval judges it (the bundled embeddings): whose fault the miss was, where a flat search ranks it.
    result = json.loads(out.stdout)["results"][1]
    assert result["blame"]["says"] and result["flat"] >= 1
    assert (miss["reasoning_explorer.eval.blame_kind"], miss["reasoning_explorer.eval.blame"],
            miss["reasoning_explorer.eval.flat_rank"]) == (result["blame"]["kind"], result["blame"]["says"],
                                                           result["flat"])
    assert "reasoning_explorer.eval.blame" not in hit
    assert json.loads(miss["metadata"])["eval"] == {
        "question_id": "money", "expected": ["refund-delivery", "invoices"], "hit": False, "missed": "billing",
        "first_wrong_turn": 0, "miss_reason": "turned away", "blame_kind": result["blame"]["kind"],
        "blame": result["blame"]["says"], "flat_rank": result["flat"]}


def test_the_miss_reason_the_evaluation_gives_goes_on_the_walk_span(tmp_path):
    from explorer.corpora.questions import load_questions
    from explorer.walks.evaluation import MissReason, evaluate
    from explorer.walks.telemetry import QuestionFacts, miss_reason_of

    corpus = load_corpus(HANDBOOK)
    path = tmp_path / "one.questions.yaml"
    path.write_text(f"corpus: {HANDBOOK}\nquestions:\n"
                    "  - {id: money, query: When do I get my money back?, expect: [refund-delivery]}\n")
    questions = load_questions(path).questions
    (outcome,) = evaluate(corpus, questions, WalkSettings("", "lexical:default"))
    assert outcome.miss_reason is MissReason.TURNED_AWAY and miss_reason_of(outcome) == "turned away"
    facts = QuestionFacts.of(outcome)
    assert (facts.question_id, facts.expected, facts.hit, facts.miss_reason) == (
        "money", ("refund-delivery",), False, "turned away")
    history = outcome.history
    assert history is not None
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(FinishedWalk(history.finished(corpus).header, history.events, WalkEnd.FINISHED),
                              question=facts)
        (root,) = [s for s in receiver.spans() if not s.parent]
    assert root.attributes["reasoning_explorer.eval.miss_reason"] == "turned away"


def test_an_evaluation_walk_whose_score_never_came_is_sent_without_one_when_the_telemetry_closes():
    corpus = load_corpus(HANDBOOK)
    with OtlpReceiver() as receiver:
        telemetry = WalkTelemetry(receiver.url)
        spans = telemetry.for_evaluation()
        WalkSession(corpus, WalkSettings(QUERY), resolve_navigator("lexical:default"),
                    hook=Wiring(observers=(spans.observe,)).hook()).run_headless()
        assert receiver.requests == []  # held for its score
        telemetry.close()
        (root,) = [s for s in receiver.spans() if not s.parent]
    assert root.name == QUERY and not [k for k in root.attributes if ".eval." in k]


def test_the_endpoint_can_come_from_the_environment_and_gets_v1_traces_added():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, QUERY, env={ENDPOINT_ENV: receiver.url + "/"})
        assert out.returncode == 0, out.stderr
        assert len(receiver.spans()) == 4 and receiver.other_paths == []
    assert cli.OTLP_ENDPOINT_ENV == ENDPOINT_ENV
    assert traces_url("http://h:6006") == "http://h:6006/v1/traces"
    assert traces_url("https://h/api/public/otel/v1/traces") == "https://h/api/public/otel/v1/traces"
    assert traces_url("https://h/api/public/otel/") == "https://h/api/public/otel/v1/traces"


@pytest.mark.parametrize(("args", "env", "message"), [
    (["--otlp-endpoint", "localhost:4318"], {},
     "reasoning-explorer: error: --otlp-endpoint 'localhost:4318' is not an http(s) address; give the collector's "
     "OTLP/HTTP address, e.g. http://127.0.0.1:6006 (Phoenix) or http://127.0.0.1:4318 (an OpenTelemetry collector)"),
    (["--otlp-endpoint", "http://127.0.0.1:port"], {},
     "reasoning-explorer: error: --otlp-endpoint 'http://127.0.0.1:port' has a port that is not a number"),
    ([], {ENDPOINT_ENV: "ftp://x"},
     f"reasoning-explorer: error: {ENDPOINT_ENV} 'ftp://x' is not an http(s) address; give the collector's "
     "OTLP/HTTP address, e.g. http://127.0.0.1:6006 (Phoenix) or http://127.0.0.1:4318 (an OpenTelemetry collector)"),
    (["--otlp-file", "/no/such/folder/spans.jsonl"], {},
     "reasoning-explorer: error: cannot write spans to /no/such/folder/spans.jsonl: no folder /no/such/folder"),
])
def test_a_bad_endpoint_or_file_is_one_line_and_exit_2_before_walking(args, env, message):
    out = run("walk", HANDBOOK, QUERY, *args, env=env)
    assert (out.returncode, out.stdout, out.stderr) == (2, "", message + "\n")


def test_an_unreachable_endpoint_never_breaks_the_walk_and_is_reported_once():
    plain = run("walk", HANDBOOK, QUERY)
    url = f"http://127.0.0.1:{closed_port()}"
    out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", url)
    assert out.returncode == 0
    assert out.stdout == plain.stdout
    assert out.stderr == (f"reasoning-explorer: warning: cannot send the walk's spans to {url}/v1/traces "
                          "(connection refused); walks go on, but no more spans go there in this run\n")


def test_an_unreachable_endpoint_is_tried_once_per_run_even_for_many_walks(tmp_path):
    questions = questions_file(tmp_path)
    plain = run("eval", questions, "--json")
    out = run("eval", questions, "--json", "--jobs", "2", "--otlp-endpoint", f"http://127.0.0.1:{closed_port()}")
    assert out.returncode == 0
    assert json.loads(out.stdout)["results"] == json.loads(plain.stdout)["results"]
    assert len(out.stderr.splitlines()) == 1 and "(connection refused)" in out.stderr


def test_an_endpoint_that_never_answers_is_given_up_after_the_timeout_and_reported_once():
    with StubServer() as server:
        server.add(*[Reply(200, b"", delay=60)] * 6)
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", server.url)
    assert out.returncode == 0
    assert "finished · visits used 3/15 · navigator calls 3 · characters shipped 2,100" in out.stdout
    assert out.stderr == (f"reasoning-explorer: warning: cannot send the walk's spans to {server.url}/v1/traces "
                          "(timed out after 2 s: no answer); walks go on, but no more spans go there in this run\n")


def test_a_backends_key_goes_in_the_headers_from_the_environment_and_never_into_a_span():
    secret = "Basic cGs6c2stbGYtMTIzNDU2Nzg5"
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", receiver.url,
                  env={"OTEL_EXPORTER_OTLP_HEADERS": f"Authorization={secret.replace(' ', '%20')}"})
        assert out.returncode == 0, out.stderr
        assert receiver.headers[0]["authorization"] == secret
        spans = receiver.spans()
    assert len(spans) == 4 and not [text for text in strings_in(spans) if "cGs6c2stbGYtMTIzNDU2Nzg5" in text]


def test_an_endpoint_that_answers_an_error_is_reported_once_with_its_status(tmp_path):
    reports: list[str] = []
    with StubServer() as server, WalkTelemetry(server.url, report=reports.append) as telemetry:
        server.add(Reply(404, "no such route"))
        events = walk_events(resolve_navigator("lexical:default"), "lexical:default")
        telemetry.export_walk(FinishedWalk(header("lexical:default"), events, "finished"))
        telemetry.export_walk(FinishedWalk(header("lexical:default"), events, "finished"))
        assert len(server.requests) == 1
    assert reports == [f"cannot send the walk's spans to {server.url}/v1/traces (HTTP 404 Not Found); walks go on, but no "
                       "more spans go there in this run"]


def test_the_otlp_file_holds_the_same_spans_as_otlp_json_lines(tmp_path):
    spans_file = tmp_path / "spans.jsonl"
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", receiver.url, "--otlp-file", spans_file)
        sent = receiver.spans()
    assert out.returncode == 0, out.stderr
    lines = spans_file.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    request = json.loads(lines[0])
    (resource_spans,) = request["resourceSpans"]
    resource = {kv["key"]: kv["value"] for kv in resource_spans["resource"]["attributes"]}
    assert resource["service.name"] == {"stringValue": "reasoning-explorer"}
    (scope_spans,) = resource_spans["scopeSpans"]
    assert scope_spans["scope"]["name"] == "explorer.walks.telemetry"
    written = scope_spans["spans"]
    assert sorted((s["traceId"], s["spanId"], s.get("parentSpanId", "")) for s in written) == sorted(
        (s.trace_id, s.span_id, s.parent) for s in sent)
    assert all(len(s["traceId"]) == 32 and len(s["spanId"]) == 16 for s in written)
    root = next(s for s in written if "parentSpanId" not in s)
    attributes = {kv["key"]: kv["value"] for kv in root["attributes"]}
    assert attributes["openinference.span.kind"] == {"stringValue": "RETRIEVER"}
    assert attributes["input.value"] == {"stringValue": QUERY}
    assert attributes["reasoning_explorer.visits_used"] == {"intValue": "3"}
    assert [e["name"] for e in root["events"]] == ["enter", "enter", "enter", "stop: leaf"]
    assert int(root["startTimeUnixNano"]) == next(s.start for s in sent if not s.parent)
    assert root["kind"] == 1 and root["status"] == {"code": 1}


def test_the_otlp_file_gets_a_line_per_walk_without_an_endpoint(tmp_path):
    spans_file = tmp_path / "spans.jsonl"
    out = run("eval", questions_file(tmp_path), "--json", "--otlp-file", spans_file)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""
    requests = [json.loads(line) for line in spans_file.read_text(encoding="utf-8").splitlines()]
    queries = sorted(
        kv["value"]["stringValue"]
        for request in requests for span in request["resourceSpans"][0]["scopeSpans"][0]["spans"]
        if "parentSpanId" not in span for kv in span["attributes"] if kv["key"] == "input.value")
    assert queries == ["How are refunds issued?", "How do I reset my password?", "How much parental leave do I get?"]


def test_from_options_asks_for_nothing_without_an_endpoint_or_a_file():
    assert WalkTelemetry.from_options(None, None, environ={}) is None
    with pytest.raises(TelemetryConfigError, match="has a port that is not a number"):
        WalkTelemetry.from_options(None, None, environ={ENDPOINT_ENV: "http://h:x"})


@pytest.mark.process
def test_a_walk_without_tracing_never_loads_opentelemetry_and_telemetry_never_loads_textual():
    code = ("import sys, explorer.cli.main as c; c.main(['walk', sys.argv[1], 'refunds', '--json']); "
            "print(sorted({m.split('.')[0] for m in sys.modules} & {'opentelemetry', 'openinference', 'textual'}))")
    out = subprocess.run([sys.executable, "-c", code, str(HANDBOOK)], capture_output=True, text=True, cwd=ROOT,
                         timeout=60,
                         env={k: v for k, v in os.environ.items() if k != ENDPOINT_ENV})
    assert out.stdout.strip().splitlines()[-1] == "[]"
    code = "import sys, explorer.walks.telemetry; print('textual' in sys.modules, 'rich' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip() == "False False"


async def test_the_explorers_walks_reach_the_receiver_when_they_end():
    from .app.helpers import SIZE, make_app, wait_for

    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        app = make_app(QUERY, start_walk=True, observers=[telemetry.export_walk])
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.walk_screen.view.history is not None and app.walk_screen.view.history.events != [])
            assert receiver.requests == []  # nothing is sent while the walk goes on
            await pilot.press("c")
            await wait_for(pilot, lambda: app.walk_screen.view.history is not None and app.walk_screen.view.history.end == "finished")
            receiver.wait_for(1)
            name = app.walk_screen.view.history.name
        spans = receiver.spans()
    root = root_of(spans)
    assert root.attributes["input.value"] == QUERY
    assert root.attributes["reasoning_explorer.walk"] == name
    assert [c.name for c in decisions_of(spans)] == [
        "choose among the roots", "choose under billing", "choose under refunds"]


def test_eval_compare_sends_the_walks_of_both_navigators(tmp_path):
    spans_file = tmp_path / "spans.jsonl"
    out = run("eval", questions_file(tmp_path), "--compare", "lexical:strict", "--json", "--otlp-file", spans_file)
    assert out.returncode == 0, out.stderr
    roots = [span for line in spans_file.read_text(encoding="utf-8").splitlines()
             for span in json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"] if "parentSpanId" not in span]
    navigators = sorted(kv["value"]["stringValue"] for root in roots for kv in root["attributes"]
                        if kv["key"] == "reasoning_explorer.navigator")
    assert navigators == ["lexical:default"] * 3 + ["lexical:strict"] * 3
