"""Walks back from spans: what ``--otlp-file`` wrote, or what a real OTLP/HTTP receiver got, opened as walks by
``replay`` and ``diff``, event for event the walk that made them."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from google.protobuf.json_format import MessageToDict

from explorer.corpora import load_corpus
from explorer.trace import read_trace
from explorer.walks.telemetry.span_walks import SpanError, read_span_walks, rebuild
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .http_stub import Recorded, Reply, StubServer
from .otlp_receiver import OtlpReceiver

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERY = "how do I get a refund for my plan"
ENV = {"OPENAI_API_KEY": "sk-spans-000111", "REASONING_EXPLORER_MAX_RETRIES": "0", "COLUMNS": "200"}


def cli(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**ENV, **(env or {})})  # type: ignore[return-value]


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(HANDBOOK)


def walked(tmp_path: Path, *args: object, env: dict[str, str] | None = None) -> tuple[Path, Path]:
    spans, trace = tmp_path / "spans.jsonl", tmp_path / "walk.jsonl"
    done = cli("walk", HANDBOOK, QUERY, *args, "--otlp-file", spans, "--trace", trace, env=env)
    assert done.returncode in (0, 1), done.stderr
    return spans, trace


def assert_same_walk(spans: Path, trace: Path, corpus) -> None:
    (walk,) = read_span_walks(spans)
    rebuilt, recorded = rebuild(walk, corpus, spans), read_trace(trace)
    assert rebuilt.events == recorded.events
    assert (rebuilt.end, rebuilt.error, rebuilt.forced) == (recorded.end, recorded.error, recorded.forced)
    header, expected = rebuilt.header, recorded.header
    assert (header.settings, header.corpus_sha256, header.sources) == (
        expected.settings, expected.corpus_sha256, expected.sources)
    assert walk.notes == ()


def test_a_walk_comes_back_from_its_span_file_event_for_event(tmp_path: Path, corpus) -> None:
    spans, trace = walked(tmp_path, "--navigator", "lexical:wide", "--max-visits", "6")
    assert_same_walk(spans, trace, corpus)


def test_forced_and_failed_decisions_come_back(tmp_path: Path, corpus) -> None:
    spans, trace = walked(tmp_path, "--navigator", "script:sample_corpora/scripts/provider-failure.yaml",
                          "--on-failure", "partial", "--force", "start=billing,invoices")
    assert read_trace(trace).forced  # the walk has a forced decision, and a failure further down
    assert_same_walk(spans, trace, corpus)


def first_two(request: Recorded) -> Reply:
    offered = request.json()["response_format"]["json_schema"]["schema"]["properties"]["selected"]["items"]["enum"]
    content = json.dumps({"selected": offered[:2], "rationale": "the first two"})
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 9, "total_tokens": 109}})


def test_an_llm_walks_transcripts_come_back_whole(tmp_path: Path, corpus) -> None:
    with StubServer(respond=first_two) as server:
        spans, trace = walked(tmp_path, "--navigator", "openai:span-model", "--max-visits", "4", "--no-cache",
                              env={"OPENAI_BASE_URL": server.url})
    recorded = read_trace(trace)
    transcripts = [e.transcript for e in recorded.events if getattr(e, "transcript", None)]
    assert transcripts and {label for label, _ in transcripts[0]} >= {"system", "user", "answer", "provider"}
    assert_same_walk(spans, trace, corpus)


def test_spans_that_reached_a_real_receiver_come_back(tmp_path: Path, corpus) -> None:
    trace = tmp_path / "walk.jsonl"
    with OtlpReceiver() as receiver:
        done = cli("walk", HANDBOOK, QUERY, "--navigator", "lexical:wide", "--otlp-endpoint", receiver.url,
                   "--trace", trace)
        assert done.returncode == 0, done.stderr
        receiver.wait_for(1)
        exported = tmp_path / "exported.json"
        exported.write_text(json.dumps([MessageToDict(r) for r in receiver.requests]))  # one document, base64 ids
    assert_same_walk(exported, trace, corpus)


def test_replay_and_diff_open_a_span_file(tmp_path: Path) -> None:
    spans, trace = walked(tmp_path, "--navigator", "lexical:wide", "--max-visits", "6")
    from_spans = json.loads(cli("replay", spans, "--json").stdout)
    from_trace = json.loads(cli("replay", trace, "--json").stdout)
    assert from_spans["summary"] == from_trace["summary"]
    assert from_spans["stops"] == from_trace["stops"]
    bigger = json.loads(cli("replay", spans, "--max-visits", "20", "--navigator", "lexical:wide", "--json").stdout)
    assert bigger["summary"]["answered"]["replayed"] == 3 and bigger["summary"]["answered"]["live"] > 0
    same = cli("diff", spans, trace)
    assert same.returncode == 0, same.stdout + same.stderr


def test_a_file_of_many_walks_names_each_and_says_which_it_opened(tmp_path: Path) -> None:
    spans = tmp_path / "many.jsonl"
    lines = []
    for number, query in enumerate(("refunds", "sign in", "taxes")):
        one = tmp_path / f"{number}.jsonl"
        assert cli("walk", HANDBOOK, query, "--otlp-file", one).returncode == 0
        lines.append(one.read_text())
    spans.write_text("".join(lines))  # one export per line, as a collector's file exporter appends them
    walks = read_span_walks(spans)
    assert [w.header.settings.query for w in walks] == ["refunds", "sign in", "taxes"]
    first = cli("replay", spans, "--json")
    assert json.loads(first.stdout)["query"] == "refunds"
    assert first.stderr == (f"reasoning-explorer: {spans} holds 3 walks; this is the first ({spans}#2 names "
                            "the next)\n")
    assert json.loads(cli("replay", f"{spans}#3", "--json").stdout)["query"] == "taxes"
    past = cli("replay", f"{spans}#4")
    assert past.returncode == 2
    assert past.stderr == f"reasoning-explorer: error: {spans} holds 3 walks; name one as {spans}#1 to {spans}#3\n"


def test_damaged_truncated_or_foreign_span_files_are_one_line(tmp_path: Path, corpus) -> None:
    spans, _ = walked(tmp_path, "--navigator", "lexical:wide", "--max-visits", "6")
    text = spans.read_text()
    cut = tmp_path / "cut.jsonl"
    cut.write_text(text + text[: len(text) // 2])
    with pytest.raises(SpanError, match=r"cut.jsonl:2: not JSON \(the file is damaged or cut short\)"):
        read_span_walks(cut)
    foreign = tmp_path / "foreign.json"
    foreign.write_text(json.dumps({"resourceSpans": [{"scopeSpans": [{"spans": [
        {"traceId": "01", "spanId": "02", "name": "GET /", "attributes": []}]}]}]}))
    with pytest.raises(SpanError, match="holds no walk's spans"):
        read_span_walks(foreign)
    done = cli("replay", foreign)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1 and "Traceback" not in done.stderr
    # A walk whose last decision's span was lost stops where its answers run out, as cancelled.
    document = json.loads(text.splitlines()[0])
    scope = document["resourceSpans"][0]["scopeSpans"][0]
    decisions = [s for s in scope["spans"] if s.get("parentSpanId")]
    last = max(decisions, key=lambda s: int(s["startTimeUnixNano"]))
    scope["spans"].remove(last)
    lost = tmp_path / "lost.jsonl"
    lost.write_text(json.dumps(document) + "\n")
    (walk,) = read_span_walks(lost)
    assert rebuild(walk, corpus, lost).end.value == "cancelled"


@pytest.mark.slow  # two pages exported, each frame drawn by the app
def test_export_draws_a_span_files_walk(tmp_path: Path) -> None:
    spans, trace = walked(tmp_path, "--navigator", "lexical:wide", "--max-visits", "6")
    from_spans, from_trace = tmp_path / "spans.html", tmp_path / "trace.html"
    for source, out in ((spans, from_spans), (trace, from_trace)):
        done = cli("export", source, "--html", out)
        assert done.returncode == 0, done.stderr
    import re

    def frames(path: Path) -> str:  # the page without its random script nonce
        return re.sub(r'nonce="[^"]*"|nonce-[A-Za-z0-9+/=_-]+', "", path.read_text())

    assert frames(from_spans) == frames(from_trace)


@pytest.mark.slow  # six walks, each exported as a page: make test, not make test-fast
@pytest.mark.parametrize("start", [10**21, 10**30, "1" * 40, "1.5e30", "Infinity", -5])
def test_a_walk_whose_start_time_is_out_of_range_replays_as_the_same_walk(tmp_path: Path, start: object) -> None:
    """A start time past the calendar (10^21 ns is the year 33658), past an unsigned 64-bit count, or not a whole
    number was a traceback, exit 1 (issue 38, point 6): it is a time no one can read, and the walk is the same."""
    spans, trace = walked(tmp_path, "--navigator", "lexical:wide", "--max-visits", "6")
    document = json.loads(spans.read_text())
    root = next(s for s in document["resourceSpans"][0]["scopeSpans"][0]["spans"] if not s.get("parentSpanId"))
    root["startTimeUnixNano"] = start
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(json.dumps(document).replace('"Infinity"', "Infinity") + "\n")
    for args in (["replay", damaged, "--json"], ["diff", damaged, trace]):
        done = cli(*args)
        assert (done.returncode, done.stderr) == (0, ""), (args, done.stderr)
    exported = cli("export", damaged, "--html", tmp_path / "walk.html")
    assert exported.returncode == 0 and exported.stderr.startswith(
        f"reasoning-explorer: wrote {tmp_path / 'walk.html'}: 21 steps (5 decision steps)"), exported.stderr
    assert json.loads(cli("replay", damaged, "--json").stdout)["summary"] == json.loads(
        cli("replay", trace, "--json").stdout)["summary"]


def test_a_span_file_or_kept_run_nested_too_deep_is_one_line_and_exit_2(tmp_path: Path) -> None:
    deep = "[" * 100_000 + "]" * 100_000 + "\n"
    spans = tmp_path / "deep.jsonl"
    spans.write_text(deep)
    for args in (["replay", spans], ["diff", spans, spans], ["export", spans, "--html", tmp_path / "w.html"],
                 [spans]):
        done = cli(*args)
        assert (done.returncode, done.stdout) == (2, ""), (args, done.stderr)
        assert done.stderr == (f"reasoning-explorer: error: {spans}:1: not a reasoning-explorer trace (JSON nested too "
                               "deeply to read)\n"), args
    spans.write_text('{"resourceSpans": ' + deep)  # read as spans: its first line says so
    done = cli("replay", spans)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"reasoning-explorer: error: {spans}:1: not JSON (the file is damaged or cut short); give "
                           "the OTLP JSON file --otlp-file wrote or a tracing tool exported\n")
    kept = tmp_path / "deep.run.json"
    kept.write_text(deep)
    done = cli("eval", SAMPLES / "handbook.questions.yaml", "--against", kept)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"reasoning-explorer: error: {kept}: not a kept run (RecursionError); give a file written "
                           "by eval --save-run\n")


@pytest.mark.parametrize("tail", ["-1", "abc", "1.5", ""])
def test_a_bad_walk_number_after_the_hash_says_so_not_no_such_file(tmp_path: Path, tail: str) -> None:
    """``#-1`` was "no such trace file" although the file is there (issue 38, point 19)."""
    spans, _ = walked(tmp_path, "--navigator", "lexical:wide", "--max-visits", "6")
    done = cli("replay", f"{spans}#{tail}")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (f"reasoning-explorer: error: {spans}#{tail}: #{tail} is not a walk's number; name one as "
                           f"{spans}#1, {spans}#2, ...\n")
