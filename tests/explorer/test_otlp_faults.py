"""Endpoints that drip, redirect, refuse or reset, on loopback: the export keeps its deadline and says what happened
(issue 21, points 5, 6, 9 and the smaller item on 429/503 and resets), and the OTLP file escapes as traces do (10)."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import threading
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from core import ReasoningRAGStrategy
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.http import parse_retry_after
from explorer.navigators import resolve_navigator
from explorer.trace import FinishedWalk
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession
from explorer.walks.telemetry import ENDPOINT_ENV, WalkTelemetry
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .faulty_endpoint import CERTIFICATE, FaultyEndpoint
from .http_stub import Reply, StubServer

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERY = "How are refunds issued?"
FINISHED = "finished · visits used 3/15 · navigator calls 3 · characters shipped 2,100"
GUARD = 60.0
"""Seconds a test waits for something that must happen at once (a hang guard: a failure, never a measure)."""
RAW = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env=env, unset=[ENDPOINT_ENV])  # type: ignore[return-value]


def warning(url: str, why: str) -> str:
    return (f"reasoning-explorer: warning: cannot send the walk's spans to {url}/v1/traces ({why}); walks go on, "
            "but no more spans go there in this run\n")


def report(url: str, why: str) -> str:
    return warning(url, why).removeprefix("reasoning-explorer: warning: ").rstrip("\n")


def a_walk() -> tuple[object, list]:
    corpus = load_corpus(HANDBOOK)
    events = list(ReasoningRAGStrategy(corpus.index, resolve_navigator("lexical:default"), "lexical:default")
                  .walk(QUERY))
    session = WalkSession(corpus, WalkSettings(QUERY), resolve_navigator("lexical:default"))
    return session.history.finished(corpus).header, events


# -- 5: a dripping endpoint --------------------------------------------------------------------------


def test_a_dripping_endpoint_holds_the_walk_no_longer_than_the_exports_deadline():
    with FaultyEndpoint.dripping() as endpoint:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", endpoint.url)
        assert endpoint.wait_until_left(GUARD)  # the exporter hung up on the drip; it did not wait it out
    assert out.returncode == 0 and FINISHED in out.stdout
    assert out.stderr == warning(endpoint.url, "timed out after 2 s: the answer was still arriving")


def test_closing_while_a_walk_is_sent_to_a_dripping_endpoint_waits_no_longer_than_the_deadline():
    header, events = a_walk()
    reports: list[str] = []
    with FaultyEndpoint.dripping() as endpoint:
        telemetry = WalkTelemetry(endpoint.url, report=reports.append)
        sending = threading.Thread(target=telemetry.export_walk, args=(FinishedWalk(header, events, WalkEnd.FINISHED),),
                                   daemon=True)
        sending.start()
        assert endpoint.wait_for_request(GUARD)  # the export is under way, and the drip has begun
        closing = threading.Thread(target=telemetry.close, daemon=True)  # the explorer's `q` after a walk
        closing.start()
        closing.join(GUARD)
        sending.join(GUARD)
        assert not closing.is_alive() and not sending.is_alive()
    assert reports == [report(endpoint.url, "timed out after 2 s: the answer was still arriving")]


# -- 6: redirects --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "location", "shown"), [
    (307, "https://collector.example/v1/traces", "https://collector.example/v1/traces"),
    (308, "/otel/v1/traces", "{url}/otel/v1/traces"),
    (301, "https://collector.example/\u202egnp.exe\u009b/v1/traces",
     "https://collector.example/\\u202egnp.exe\\x9b/v1/traces"),
])
def test_a_redirect_is_one_line_saying_where_it_points_and_is_never_followed(status, location, shown):
    header, events = a_walk()
    reports: list[str] = []
    with FaultyEndpoint.redirecting(status, location) as endpoint, \
            WalkTelemetry(endpoint.url, report=reports.append) as telemetry:
        telemetry.export_walk(FinishedWalk(header, events, WalkEnd.FINISHED))
        telemetry.export_walk(FinishedWalk(header, events, WalkEnd.FINISHED))
        assert endpoint.requests == 1
    phrase = {301: "Moved Permanently", 307: "Temporary Redirect", 308: "Permanent Redirect"}[status]
    assert reports == [report(endpoint.url, f"the endpoint redirected (HTTP {status} {phrase}) to "
                                            f"{shown.format(url=endpoint.url)}; spans are never sent on to a "
                                            "redirect (it would carry the headers there): give that address "
                                            "instead")]


def test_a_redirect_reaches_stderr_escaped():
    with FaultyEndpoint.redirecting(307, "https://collector.example/\u202egnp.exe") as endpoint:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", endpoint.url)
    assert out.returncode == 0 and FINISHED in out.stdout
    assert not RAW.search(out.stderr.rstrip("\n"))
    assert out.stderr == warning(endpoint.url, "the endpoint redirected (HTTP 307 Temporary Redirect) to "
                                               "https://collector.example/\\u202egnp.exe; spans are never sent on "
                                               "to a redirect (it would carry the headers there): give that "
                                               "address instead")


# -- 429, 503, resets ----------------------------------------------------------------------------------


@pytest.mark.parametrize(("status", "phrase"), [(429, "Too Many Requests"), (503, "Service Unavailable")])
def test_a_status_asking_to_retry_later_than_the_deadline_is_named_with_its_wait(status, phrase):
    with FaultyEndpoint.refusing(status, retry_after="30") as endpoint:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", endpoint.url)
        assert endpoint.requests == 1
    assert out.returncode == 0 and FINISHED in out.stdout
    assert out.stderr == warning(endpoint.url, f"HTTP {status} {phrase}; it asked to retry after 30 s "
                                               "(Retry-After), and the export's 2 s would be over by then")


def test_a_retry_the_deadline_allows_is_made_and_the_walk_arrives():
    header, events = a_walk()
    reports: list[str] = []
    with StubServer() as server, WalkTelemetry(server.url, timeout=30, report=reports.append) as telemetry:
        server.add(Reply(503, headers={"Retry-After": "0"}), Reply(429), Reply(200, b""))
        telemetry.export_walk(FinishedWalk(header, events, WalkEnd.FINISHED))
        assert [r.path for r in server.requests] == ["/v1/traces"] * 3
        assert len({r.body for r in server.requests}) == 1  # the same walk each time
    assert reports == []


def test_a_reset_connection_is_named_as_one():
    with FaultyEndpoint.resetting() as endpoint:
        out = run("walk", HANDBOOK, QUERY, "--otlp-endpoint", endpoint.url)
        assert endpoint.requests == 1
    assert out.returncode == 0 and FINISHED in out.stdout
    assert out.stderr == warning(endpoint.url, "the endpoint reset the connection")


def test_retry_after_reads_seconds_and_http_dates():
    assert parse_retry_after("30") == 30.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:30 GMT", now=1445412480.0) == 30.0
    assert parse_retry_after("Wed, 21 Oct 2015 07:28:00 GMT", now=1445412480.0) == 0.0
    assert parse_retry_after("soon") is None and parse_retry_after(None) is None


# -- 9: an endpoint that would steer the terminal ------------------------------------------------------


def test_an_endpoint_with_control_characters_is_refused_escaped_before_walking():
    out = run("walk", HANDBOOK, QUERY, env={ENDPOINT_ENV: "http://127.0.0.1:1/\x1b]0;PWNED\x07\x1b[2J"})
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr == (f"reasoning-explorer: error: {ENDPOINT_ENV} 'http://127.0.0.1:1/\\x1b]0;PWNED\\x07"
                          "\\x1b[2J' holds a control or invisible character; give the collector's plain OTLP/HTTP "
                          "address\n")


def test_every_report_is_escaped_whatever_the_problem_holds():
    reports: list[str] = []
    telemetry = WalkTelemetry(file=None, report=reports.append)
    telemetry.report_problem("endpoint", "cannot send (\x1b]0;PWNED\x07 \u202e \x9b\nnext line)")
    assert reports == ["cannot send (\\x1b]0;PWNED\\x07 \\u202e \\x9b next line)"]


# -- 10: the OTLP file escapes as the trace does -------------------------------------------------------


def test_the_otlp_file_escapes_c1_and_bidi_characters_as_the_trace_does(tmp_path):
    corpus = tmp_path / "hostile.yaml"
    corpus.write_text('source: hostile\ntitle: Hostile\nnodes:\n'
                      '  - id: refunds\n    title: "Refunds \\u202eevil\\x9b"\n'
                      '    summary: "How refunds are issued \\u202e\\x9b"\n'
                      '    content: "Refunds go back \\u202e\\x9b to the card."\n', encoding="utf-8")
    spans, trace = tmp_path / "spans.jsonl", tmp_path / "walk.jsonl"
    out = run("walk", corpus, QUERY, "--otlp-file", spans, "--trace", trace)
    assert out.returncode == 0, out.stderr
    for written in (trace, spans):
        text = written.read_text(encoding="utf-8")
        assert not RAW.search(text.replace("\n", "")), written.name
        assert "\\u202e" in text and "\\u009b" in text
    (line,) = spans.read_text(encoding="utf-8").splitlines()
    request = json.loads(line)  # the same strings, read back
    (root,) = [s for s in request["resourceSpans"][0]["scopeSpans"][0]["spans"] if "parentSpanId" not in s]
    attributes = {kv["key"]: kv["value"] for kv in root["attributes"]}
    assert attributes["retrieval.documents.0.document.content"] == {"stringValue": "Refunds go back \u202e\x9b to "
                                                                                   "the card."}


# -- TLS, headers and compression, as the OTEL_EXPORTER_OTLP_* variables say ---------------------------


def test_a_tls_endpoint_is_trusted_through_the_certificate_variable_and_refused_without_it(monkeypatch):
    header, events = a_walk()
    with FaultyEndpoint.answering(200, {}, tls=True) as endpoint:
        reports: list[str] = []
        with WalkTelemetry(endpoint.url, report=reports.append) as telemetry:  # the system's CAs: not ours
            telemetry.export_walk(FinishedWalk(header, events, WalkEnd.FINISHED))
        assert reports == [report(endpoint.url, "TLS failed: CERTIFICATE_VERIFY_FAILED")]
        monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_CERTIFICATE", str(CERTIFICATE))
        reports.clear()
        with WalkTelemetry(endpoint.url, report=reports.append) as telemetry:
            telemetry.export_walk(FinishedWalk(header, events, WalkEnd.FINISHED))
        assert reports == [] and endpoint.requests == 1


def test_a_tls_endpoint_that_drips_is_given_up_at_the_deadline_too(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_CERTIFICATE", str(CERTIFICATE))
    header, events = a_walk()
    reports: list[str] = []
    with FaultyEndpoint.dripping(tls=True) as endpoint:
        telemetry = WalkTelemetry(endpoint.url, report=reports.append)
        sending = threading.Thread(target=telemetry.export_walk, args=(FinishedWalk(header, events, WalkEnd.FINISHED),),
                                   daemon=True)
        sending.start()
        sending.join(GUARD)
        assert not sending.is_alive()
        assert endpoint.wait_until_left(GUARD)
        telemetry.close()
    assert reports == [report(endpoint.url, "timed out after 2 s: the answer was still arriving")]


def test_headers_and_gzip_come_from_the_variables_the_traces_ones_first(monkeypatch):
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_HEADERS", "x-general=1,authorization=Basic%20general")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TRACES_HEADERS", "Authorization=Basic%20traces%3D%3D,x-project=walks")
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_COMPRESSION", "gzip")
    header, events = a_walk()
    with StubServer() as server, WalkTelemetry(server.url) as telemetry:
        server.add(Reply(200, b""))
        telemetry.export_walk(FinishedWalk(header, events, WalkEnd.FINISHED))
        (request,) = server.requests
    assert (request.headers["authorization"], request.headers["x-project"]) == ("Basic traces==", "walks")
    assert "x-general" not in request.headers  # the traces variable replaces the general one, as the SDK reads them
    assert (request.headers["content-type"], request.headers["content-encoding"]) == (
        "application/x-protobuf", "gzip")
    sent = ExportTraceServiceRequest()
    sent.ParseFromString(gzip.decompress(request.body))
    (root,) = [s for s in sent.resource_spans[0].scope_spans[0].spans if not s.parent_span_id]
    assert root.name == QUERY
