"""Spans a collector can take (issue 30, point 11): every attribute's text is cut to OpenTelemetry's attribute limit
(32,768 characters unless OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT says), and every string reaches a real OTLP/HTTP receiver
on 127.0.0.1 escaped as the OTLP file's text escapes it."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

import pytest

from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.trace import FinishedWalk
from explorer.walks.telemetry import ATTRIBUTE_LENGTH, ENDPOINT_ENV, WalkTelemetry
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .otlp_receiver import OtlpReceiver, ReceivedSpan
from .test_telemetry import header, walk_events

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
MB = 1_000_000
LONG_QUERY = "How are refunds issued? " + "refund " * (MB // 7)
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff]")
LIMITS = ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT")


def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, unset=[ENDPOINT_ENV, *LIMITS])  # type: ignore[return-value]


def texts(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, tuple | list):
        return [t for v in value for t in texts(v)]
    if isinstance(value, dict):
        return [t for k, v in value.items() for t in [k, *texts(v)]]
    return []


def span_texts(span: ReceivedSpan) -> list[str]:
    return texts(span.attributes)


def values(span: ReceivedSpan) -> list[str]:
    """Every text of the span's and its events' attribute values (not their keys)."""
    return texts([list(span.attributes.values()), *[list(e.attributes.values()) for e in span.events]])


def event_texts(span: ReceivedSpan) -> list[str]:
    return [t for event in span.events for t in [event.name, *texts(event.attributes)]]


def export(query: str, file: Path) -> list[ReceivedSpan]:
    events = walk_events(resolve_navigator("lexical:default"), "lexical:default", query)
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url, file=file) as telemetry:
        telemetry.export_walk(FinishedWalk(header("lexical:default", query), events, WalkEnd.FINISHED))
        return receiver.spans()


def root_in_file(file: Path) -> dict[str, Any]:
    (line,) = file.read_text(encoding="utf-8").splitlines()
    spans = json.loads(line)["resourceSpans"][0]["scopeSpans"][0]["spans"]
    (root,) = [s for s in spans if "parentSpanId" not in s]
    return root


def test_a_1_mb_query_gives_a_bounded_otlp_file_and_bounded_attributes_at_the_receiver(tmp_path, monkeypatch):
    """Cut to 32,768 characters by default, or to what OTEL_(SPAN_)ATTRIBUTE_VALUE_LENGTH_LIMIT says."""
    for name in LIMITS:
        monkeypatch.delenv(name, raising=False)
    assert len(LONG_QUERY) > MB and ATTRIBUTE_LENGTH == 32_768
    file = tmp_path / "spans.jsonl"
    spans = export(LONG_QUERY, file)
    root = next(s for s in spans if not s.parent)
    assert root.attributes["input.value"] == LONG_QUERY[:ATTRIBUTE_LENGTH]  # cut, as the SDK cuts: the start kept
    assert max(len(t) for s in spans for t in values(s)) == ATTRIBUTE_LENGTH
    assert len(spans) == 4
    assert file.stat().st_size < 8 * ATTRIBUTE_LENGTH * 2  # 7 attributes held the query; unlimited, 7 MB
    attributes = {kv["key"]: kv["value"] for kv in root_in_file(file)["attributes"]}
    assert attributes["input.value"] == {"stringValue": LONG_QUERY[:ATTRIBUTE_LENGTH]}

    # The default is only the default: the SDK's variables set the limit, the span one first for spans.
    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "8")
    monkeypatch.delenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", raising=False)
    spans = export(LONG_QUERY, tmp_path / "spans.jsonl")
    root = next(s for s in spans if not s.parent)
    assert root.attributes["input.value"] == "How are "
    assert [e.attributes["reasoning_explorer.node.title"] for e in root.events[:3]] == [
        "Billing", "Refunds", "Refund d"]
    assert max(len(t) for s in spans for t in values(s)) == 8
    monkeypatch.setenv("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "12")  # spans' own: events keep the general one
    spans = export(LONG_QUERY, tmp_path / "spans.jsonl")
    root = next(s for s in spans if not s.parent)
    assert root.attributes["input.value"] == "How are refu"
    assert root.events[2].attributes["reasoning_explorer.node.title"] == "Refund d"
    assert max(len(t) for s in spans for t in texts(list(s.attributes.values()))) == 12


@pytest.mark.parametrize(("name", "value", "said"), [
    ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "lots", "'lots' is not a whole number"),
    ("OTEL_SPAN_ATTRIBUTE_VALUE_LENGTH_LIMIT", "-5", "-5 must be at least 0"),
    ("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "1\x1b[2J", "'1\\x1b[2J' is not a whole number"),
])
def test_a_bad_attribute_limit_is_one_line_and_exit_2_before_walking(tmp_path, name, value, said):
    out = run("walk", HANDBOOK, "How are refunds issued?", "--otlp-file", tmp_path / "spans.jsonl", env={name: value})
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"reasoning-explorer: error: {name}: {said}; give the most characters an attribute keeps, "
                          "e.g. 32768 (the default)\n")


def test_a_root_span_name_with_control_characters_reaches_the_receiver_escaped(tmp_path):
    corpus = tmp_path / "hostile.yaml"
    corpus.write_text('source: hostile\ntitle: Hostile\nnodes:\n'
                      '  - id: refunds\n    title: "Refunds \\u202eevil\\x9b"\n'
                      '    summary: "How refunds are issued \\u202e\\x9b"\n'
                      '    content: "Refunds go back \\u202e\\x9b\\x1b[2J to the card."\n', encoding="utf-8")
    query = "refunds \x1b]0;PWNED\x07 issued \u202e\x9b\u200b?"
    spans_file = tmp_path / "spans.jsonl"
    with OtlpReceiver() as receiver:
        out = run("walk", corpus, query, "--otlp-endpoint", receiver.url, "--otlp-file", spans_file)
        spans = receiver.spans()
    assert out.returncode == 0, out.stderr
    root = next(s for s in spans if not s.parent)
    assert root.name == "refunds \\u001b]0;PWNED\\u0007 issued \\u202e\\u009b\\u200b?"
    assert root.attributes["input.value"] == root.name
    assert root.attributes["retrieval.documents.0.document.content"] == (
        "Refunds go back \\u202e\\u009b\\u001b[2J to the card.")
    assert root.events[0].attributes["reasoning_explorer.node.title"] == "Refunds \\u202eevil\\u009b"
    (decision,) = [s for s in spans if s.parent]
    assert json.loads(decision.attributes["input.value"])["query"] == query  # a JSON text still means the same
    received = [t for s in spans for t in [s.name, s.status_message, *span_texts(s), *event_texts(s)]]
    assert not [t for t in received if RAW.search(t.replace("\n", ""))]
    # The file's text escapes the same characters the same way, and reads back as they were.
    text = spans_file.read_text(encoding="utf-8")
    assert "refunds \\u001b]0;PWNED\\u0007 issued \\u202e\\u009b\\u200b?" in text
    assert not RAW.search(text.replace("\n", ""))
    assert root_in_file(spans_file)["name"] == query


def test_the_cut_warnings_are_left_out_of_our_spans_only(caplog, monkeypatch) -> None:
    """The filter that leaves out the SDK's warning for each attribute cut was process-wide: another program's
    spans in the same process lost their warnings too (issue 38, point 20)."""
    from opentelemetry.sdk.trace import SpanLimits, TracerProvider

    from explorer.walks.telemetry.walk_spans import WalkTracer

    monkeypatch.setenv("OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT", "64")
    tracer = WalkTracer("limits")
    navigator = resolve_navigator("lexical:default")
    query = "refunds " + "x" * 500
    with caplog.at_level("WARNING", logger="opentelemetry.attributes"):
        tracer.spans_for(FinishedWalk(header("lexical:default", query),
                                      walk_events(navigator, "lexical:default", query), WalkEnd.FINISHED))
        ours = [r for r in caplog.records if "exceeds max length" in r.getMessage()]
        theirs = TracerProvider(span_limits=SpanLimits(max_attribute_length=8)).get_tracer("another program")
        with theirs.start_as_current_span("their span") as span:
            span.set_attribute("text", "longer than eight characters")
        cut = [r for r in caplog.records if "exceeds max length" in r.getMessage()]
    assert ours == [] and len(cut) == 1
