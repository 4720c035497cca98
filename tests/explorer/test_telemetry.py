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
    ReasoningRAGStrategy,
    TreeNavigator,
    WalkEvent,
)
from explorer.cli import options as cli
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.walks.session import WalkSession, WalkSettings, fork, header_for, observing
from explorer.walks.telemetry import ENDPOINT_ENV, TelemetryConfigError, WalkTelemetry, traces_url

from .http_stub import Reply, StubServer
from .otlp_receiver import OtlpReceiver, ReceivedSpan, closed_port

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
SCRIPTS = ROOT / "sample_corpora" / "scripts"
QUERY = "How are refunds issued?"
KEY = "sk-test-OTLP-SECRET-24680"
OK, ERROR, UNSET = 1, 2, 0  # opentelemetry.proto.trace.v1.Status.StatusCode


def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k != ENDPOINT_ENV}  # this test says where spans go
    environment.update({"COLUMNS": "200", **(env or {})})
    return subprocess.run([sys.executable, "-m", "explorer", *map(str, args)], capture_output=True, text=True,
                          cwd=ROOT, env=environment, timeout=120)


def root_of(spans: Sequence[ReceivedSpan]) -> ReceivedSpan:
    (root,) = [s for s in spans if not s.parent]
    return root


def children_of(spans: Sequence[ReceivedSpan], root: ReceivedSpan) -> list[ReceivedSpan]:
    return sorted((s for s in spans if s.parent == root.span_id), key=lambda s: s.start)


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
    assert root.name == "reasoning walk"
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
    assert a["retrieval.documents.0.document.score"] == 1.0
    assert a["retrieval.documents.0.document.content"].startswith("Refunds go back to the payment method")
    document = json.loads(a["retrieval.documents.0.document.metadata"])
    assert (document["stop_reason"], document["path"], document["depth"]) == (
        "leaf", ["billing", "refunds", "refund-delivery"], 2)
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

    children = children_of(spans, root)
    assert [c.name for c in children] == ["choose among the roots", "choose under billing", "choose under refunds"]
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
    assert [label for label, _ in transcript] == ["terms", "scores", "rule"]
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
    children = children_of(spans, root)
    assert [c.name for c in children] == ["choose among the roots", "choose under billing", "choose under refunds",
                                          "choose under invoices"]
    failed = children[2]
    assert failed.status_code == ERROR
    assert "upstream timeout after 30 s" in failed.status_message
    assert failed.attributes["reasoning_explorer.policy"] == "partial"
    assert "upstream timeout after 30 s" in json.loads(failed.attributes["output.value"])["error"]
    assert [e.name for e in root.events if e.name.startswith("stop")] == ["stop: navigator_failed", "stop: leaf"]
    assert root.attributes["reasoning_explorer.landed"] == ("refunds", "invoice-schedule")
    assert json.loads(root.attributes["retrieval.documents.0.document.metadata"])["stop_reason"] == "navigator_failed"
    assert root.status_code == OK


def test_a_walk_that_fails_under_throw_is_an_error_walk_span():
    with OtlpReceiver() as receiver:
        out = run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}",
                  "--otlp-endpoint", receiver.url)
        spans = receiver.spans()
    assert out.returncode == 1
    root = root_of(spans)
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
    billing = children_of(spans, root)[1]
    assert billing.attributes["reasoning_explorer.hallucinated"] == ("refund-policy",)
    assert billing.attributes["reasoning_explorer.selected"] == ("refund-policy", "refunds")
    (invalid,) = [e for e in root.events if e.name == "stop: invalid_choice"]
    assert invalid.attributes["reasoning_explorer.stop.branch"] == "refund-policy"
    assert invalid.attributes["reasoning_explorer.stop.landed"] == "billing"


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
    children = children_of(spans, root)
    assert len(children) == 3
    for child in children:
        a = child.attributes
        assert a["openinference.span.kind"] == "LLM"
        assert (a["llm.model_name"], a["llm.provider"], a["llm.system"]) == ("test-model", "openai", "openai")
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
    return header_for(session.history, corpus)


def test_the_transcript_becomes_input_and_output_messages_and_secrets_are_masked(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Basic%20cGs6c2stbGYtMTIz")
    monkeypatch.setenv("LEAKED", f"{KEY} and Basic cGs6c2stbGYtMTIz")
    events = walk_events(TranscribingNavigator(), "ollama:llama3.1", max_nodes_visited=2)
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(header("ollama:llama3.1"), events, WalkEnd.FINISHED)
        spans = receiver.spans()
    first = children_of(spans, root_of(spans))[0].attributes
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


def test_without_stamps_decisions_are_laid_out_from_the_navigators_seconds():
    events = walk_events(resolve_navigator("lexical:default"), "lexical:default")
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(header("lexical:default"), events, "finished")
        spans = receiver.spans()
    root = root_of(spans)
    children = children_of(spans, root)
    assert [c.end - c.start for c in children] == [round(e.seconds * 1e9) for e in chose]
    assert root.start == children[0].start and root.end == children[-1].end


def test_an_offer_left_unanswered_by_a_cancelled_walk_is_a_span_marked_unanswered():
    events = walk_events(resolve_navigator("lexical:default"), "lexical:default")
    cut = [i for i, e in enumerate(events) if isinstance(e, CandidatesOffered)][1] + 1  # up to the 2nd offer
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(header("lexical:default"), events[:cut], WalkEnd.CANCELLED)
        spans = receiver.spans()
    root = root_of(spans)
    children = children_of(spans, root)
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
        forked = fork(source.history, offers[1], ("invoices",), corpus, navigator, observers=[telemetry.observe])
        forked.run_headless()
        spans = receiver.spans()
    root = root_of(spans)
    assert root.attributes["reasoning_explorer.walk"] == "walk 2 · fork of walk 1: at billing chose invoices"
    children = children_of(spans, root)
    kinds = [(c.name, c.attributes["openinference.span.kind"], c.attributes["reasoning_explorer.replayed"],
              c.attributes["reasoning_explorer.forced"]) for c in children]
    assert kinds[:2] == [("choose among the roots", "CHAIN", True, False),
                         ("choose under billing", "CHAIN", False, True)]
    assert all(kind == "TOOL" and not replayed and not forced for _, kind, replayed, forced in kinds[2:])
    assert children[1].attributes["reasoning_explorer.selected"] == ("invoices",)


def test_sessions_made_inside_observing_tell_the_telemetry_and_others_do_not():
    corpus = load_corpus(HANDBOOK)
    navigator = resolve_navigator("lexical:default")
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        with observing(telemetry.observe):
            inside = WalkSession(corpus, WalkSettings(QUERY), navigator)
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
                          "(timed out); walks go on, but no more spans go there in this run\n")


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
        telemetry.export_walk(header("lexical:default"), events, "finished")
        telemetry.export_walk(header("lexical:default"), events, "finished")
        assert len(server.requests) == 1
    assert reports == [f"cannot send the walk's spans to {server.url}/v1/traces (HTTP 404); walks go on, but no "
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

    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry, observing(telemetry.observe):
        app = make_app(QUERY, start_walk=True)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.history is not None and app.history.events != [])
            assert receiver.requests == []  # nothing is sent while the walk goes on
            await pilot.press("c")
            await wait_for(pilot, lambda: app.history is not None and app.history.end == "finished")
            receiver.wait_for(1)
            name = app.history.name
        spans = receiver.spans()
    root = root_of(spans)
    assert root.attributes["input.value"] == QUERY
    assert root.attributes["reasoning_explorer.walk"] == name
    assert [c.name for c in children_of(spans, root)] == [
        "choose among the roots", "choose under billing", "choose under refunds"]
