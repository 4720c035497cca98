"""The trace file: written atomically, read back exactly, and refused with one clear line when broken."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core import OnFailure
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.session import WalkSession, WalkSettings
from explorer.trace import TraceError, read_trace, trace_lines, write_trace

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(ROOT / "sample_corpora" / "handbook.yaml")
SCRIPT = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'provider-failure.yaml'}"


@pytest.fixture
def walked():
    session = WalkSession(HANDBOOK, WalkSettings("refunds", SCRIPT, on_failure=OnFailure.PARTIAL),
                          resolve_navigator(SCRIPT))
    session.run_headless()
    return session


def test_round_trip_keeps_every_event_exactly(tmp_path, walked):
    path = walked.save_trace(tmp_path / "t.jsonl")
    trace = read_trace(path, corpus_sha256=HANDBOOK.sha256)
    assert trace.events == tuple(walked.events)
    assert (trace.end, trace.error) == ("finished", None)
    header = trace.header
    assert (header.query, header.navigator, header.max_nodes_visited, header.max_depth, header.on_failure) == (
        "refunds", SCRIPT, 15, 6, OnFailure.PARTIAL)
    assert (header.corpus_sha256, header.corpus_source, header.corpus_format) == (HANDBOOK.sha256, "handbook", "yaml")
    lines = path.read_text().splitlines()
    assert json.loads(lines[0])["format"] == "reasoning-explorer-trace" and json.loads(lines[0])["version"] == 1
    assert [json.loads(line)["seq"] for line in lines[1:-1]] == list(range(1, len(walked.events) + 1))
    assert json.loads(lines[-1]) == {"end": "finished", "error": None}


def test_writing_is_atomic_and_leaves_no_temporary_file(tmp_path, walked, monkeypatch):
    path = tmp_path / "t.jsonl"
    path.write_text("the previous trace\n")

    def broken_replace(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        walked.save_trace(path)
    assert path.read_text() == "the previous trace\n"  # untouched
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.jsonl"]


def test_a_secret_in_the_environment_never_reaches_the_file(tmp_path, walked, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-live-abcdef123456")
    header = walked.header()
    leaked = header.__class__(**{**header.__dict__, "query": "what is sk-live-abcdef123456?"})
    text = "\n".join(trace_lines(leaked, walked.events, "finished"))
    assert "sk-live-abcdef123456" not in text and "what is ***?" in text


def test_a_trace_on_another_corpus_is_refused(tmp_path, walked):
    path = walked.save_trace(tmp_path / "t.jsonl")
    with pytest.raises(TraceError, match="the trace was made on a different corpus"):
        read_trace(path, corpus_sha256="0" * 64)


def good_lines(walked, tmp_path):
    return walked.save_trace(tmp_path / "good.jsonl").read_text().splitlines()


def edit(line: str, **changes) -> str:
    data = json.loads(line)
    data.update(changes)
    return json.dumps(data)


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda lines: [edit(lines[0], version=2), *lines[1:]], ":1: trace format version 2 is not supported"),
    (lambda lines: [edit(lines[0], max_nodes_visited=-5), *lines[1:]],
     ":1: the trace header is damaged ('max_nodes_visited' must be a whole number of at least 1, not -5)"),
    (lambda lines: [edit(lines[0], on_failure="explode"), *lines[1:]], ":1: the trace header is damaged"),
    (lambda lines: [lines[0], edit(lines[1], event="teleported"), *lines[2:]],
     ":2: a malformed event (unknown event kind 'teleported')"),
    (lambda lines: [*lines[:3], edit(lines[3], usage=["x"]), *lines[4:]],
     ":4: a malformed event ('usage' must be a mapping of names to counts, or null)"),
    (lambda lines: [*lines[:3], edit(lines[3], selected="abc"), *lines[4:]],
     ":4: a malformed event ('selected' must be a list of ids)"),
    (lambda lines: [*lines[:4], edit(lines[4], path=[1, 2]), *lines[5:]], ":5: a malformed event ('path' must be"),
    (lambda lines: lines[:-1], "the trace is truncated (no end line"),
    (lambda lines: [*lines[:-1], lines[-1][:4]], "the trace is truncated (its last line is cut short)"),
    (lambda lines: [*lines, lines[1]], "lines after the end of the trace"),
    (lambda lines: ["[1, 2]", *lines[1:]], ":1: not a reasoning-explorer trace"),
])
def test_broken_traces_are_refused_with_one_line(tmp_path, walked, mutate, message):
    lines = good_lines(walked, tmp_path)
    path = tmp_path / "bad.jsonl"
    path.write_text("\n".join(mutate(lines)) + "\n")
    with pytest.raises(TraceError) as caught:
        read_trace(path)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_write_trace_refuses_an_unknown_end(tmp_path, walked):
    with pytest.raises(ValueError, match="end must be one of"):
        write_trace(tmp_path / "t.jsonl", walked.header(), walked.events, "exploded")
