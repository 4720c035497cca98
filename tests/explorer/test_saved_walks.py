"""Saved walks, listed from their headers and read whole the first time they are needed: a folder of recorded
traces and a span file of many walks open as the walk list without reading any walk, and a walk damaged after its
header is found out (one line) only when it is read, the others untouched."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core import ReasoningRAGStrategy
from explorer.cli.inputs import all_walks
from explorer.cli.options import UsageError
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.recording import WalkRecorder
from explorer.trace import Trace, TraceError, read_trace, read_trace_header
from explorer.walks.saved import TraceFile
from explorer.walks.telemetry import WalkTelemetry
from explorer.walks.telemetry.span_walks import (
    SpanError,
    SpanFileWalk,
    index_span_walks,
    read_span_walk,
    read_span_walks,
    rebuild,
)
from explorer.walks.walk_list import Walk, WalkList, WalkUnreadable
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
TOPICS = ["refunds", "sign in", "taxes", "parental leave", "invoices"]


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(HANDBOOK)


@pytest.fixture(scope="module")
def recorded(corpus, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """Six walks an application recorded, as a folder of traces and as one span file."""
    base = tmp_path_factory.mktemp("recorded")
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator("lexical:default"), "lexical:default")
    telemetry = WalkTelemetry(file=base / "walks.otlp.jsonl")
    with WalkRecorder(base / "walks", corpus, send_to=[telemetry.export_walk]) as recorder:
        for number in range(6):
            recorder.retrieve(strategy, f"{TOPICS[number % 5]} question {number}")
    telemetry.close()
    assert (recorder.written, recorder.unsent) == (6, 0)
    return base / "walks", base / "walks.otlp.jsonl"


def copied(folder: Path, into: Path) -> list[Path]:
    into.mkdir()
    for path in sorted(folder.glob("walk-*.jsonl")):
        (into / path.name).write_bytes(path.read_bytes())
    return sorted(into.glob("walk-*.jsonl"))


def damage(path: Path) -> list[str]:
    """Replace the trace's second line with text that is not JSON, keeping when the file was written (the walk
    list's order); returns its lines as they were."""
    lines, written = path.read_text().splitlines(), path.stat()
    path.write_text("\n".join([lines[0], "{not JSON", *lines[2:]]) + "\n")
    os.utime(path, ns=(written.st_atime_ns, written.st_mtime_ns))
    return lines


def test_a_trace_header_is_read_from_the_first_line_alone(recorded: tuple[Path, Path], tmp_path: Path) -> None:
    path = sorted(recorded[0].glob("walk-*.jsonl"))[0]
    header_only = tmp_path / "cut.jsonl"
    header_only.write_text(path.read_text().splitlines()[0] + "\n{not even JSON\n")
    assert read_trace_header(header_only) == read_trace(path).header
    with pytest.raises(TraceError, match=r"cut.jsonl:2: the trace is truncated \(its last line is cut short\)"):
        read_trace(header_only)
    for text, said in (("", "the trace is empty"), ("nope\n", "1: not a reasoning-explorer trace (the first line "
                                                                 "is not JSON)"),
                       ('{"format": "other"}\n', '1: not a reasoning-explorer trace (no "format": '
                                                 '"reasoning-explorer-trace" header)')):
        header_only.write_text(text)
        with pytest.raises(TraceError) as raised:
            read_trace_header(header_only)
        assert str(raised.value) == f"{header_only}{':' if said[0] == '1' else ': '}{said}"
    with pytest.raises(TraceError, match="a folder, not a trace file"):
        read_trace_header(tmp_path)


def test_a_folder_opens_from_headers_and_a_trace_damaged_after_its_header_says_so_when_first_read(
        recorded: tuple[Path, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    paths = copied(recorded[0], tmp_path / "walks")
    damaged = paths[2]  # the fourth newest
    lines = damage(damaged)
    saved, _ = all_walks(str(tmp_path / "walks"))
    assert capsys.readouterr().err == ""  # nothing left out: only the headers were read
    assert all(isinstance(s, TraceFile) for s in saved)
    assert [s.header.settings.query for s in saved] == [f"{TOPICS[n % 5]} question {n}" for n in range(5, -1, -1)]
    assert [s.path for s in saved] == paths[::-1]
    walks = WalkList()
    listed = [walks.add(Walk(saved=s)) for s in saved]
    assert [w.loaded for w in listed] == [None] * 6
    assert [w.name for w in listed] == [f"walk {n} · trace {p.name} · lexical:default"
                                        for n, p in enumerate(paths[::-1], start=1)]
    assert listed[0].settings.query == "refunds question 5"
    with pytest.raises(WalkUnreadable) as raised:
        listed[3].read()
    assert str(raised.value) == f"walk 4 cannot be shown: {damaged}:2: not JSON; the file is damaged"
    assert [w.loaded for w in listed] == [None] * 6  # the others are not read for it
    damaged.write_text("\n".join(lines) + "\n")
    with pytest.raises(WalkUnreadable, match="walk 4 cannot be shown"):
        listed[3].history  # read once: asked again, it says the same  # noqa: B018
    history = listed[0].read()
    assert listed[0].read() is history is listed[0].history is listed[0].loaded
    assert (history.number, history.name, history.settings) == (1, listed[0].name, saved[0].header.settings)
    assert history.events == list(read_trace(paths[-1]).events) and history.cursor == 1
    assert walks.holding(history) is listed[0]
    assert [w.loaded is None for w in listed] == [False, True, True, True, True, True]


def test_a_span_file_opens_from_its_walks_headers_and_each_walk_is_rebuilt_when_first_read(
        recorded: tuple[Path, Path], corpus, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    spans = tmp_path / "walks.otlp.jsonl"
    spans.write_bytes(recorded[1].read_bytes())
    walks = read_span_walks(spans)
    places = index_span_walks(spans)
    assert [p.header for p in places] == [w.header for w in walks]
    assert [read_span_walk(spans, p) for p in places] == walks
    saved, _ = all_walks(str(spans))
    assert capsys.readouterr().err == ""
    assert all(isinstance(s, SpanFileWalk) for s in saved) and len(saved) == 6
    listed = [Walk(saved=s) for s in saved]
    first = listed[0].read()
    expected = rebuild(next(w for w in walks if w.header == saved[0].header), corpus, spans)
    assert first.events == list(expected.events) and first.trace == expected
    spans.write_text(spans.read_text().splitlines()[0] + "\n")  # the file changes under the open list
    unread = next(w for w in listed[1:] if w.saved is not None and w.saved.header != walks[0].header)
    with pytest.raises(WalkUnreadable) as raised:
        unread.read()
    assert str(raised.value) == (
        f"walk 1 cannot be shown: {spans}: the walk “{unread.settings.query}” is no longer where it was (the file "
        "changed since it was opened); open the file again")
    assert listed[0].read() is first  # read already: kept


def test_a_span_file_that_is_one_document_is_read_whole_again_for_each_walk(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    documents = [json.loads(line) for line in recorded[1].read_text().splitlines()]
    download = tmp_path / "download.json"
    download.write_text(json.dumps(documents, indent=2))  # a tracing tool's download: one pretty-printed document
    places = index_span_walks(download)
    assert [p.lines for p in places] == [None] * 6
    assert [read_span_walk(download, p) for p in places] == read_span_walks(download)
    download.write_text("[]")
    with pytest.raises(SpanError, match="is no longer where it was"):
        read_span_walk(download, places[0])


def test_one_walk_to_open_is_read_whole_at_once_and_a_damaged_one_is_one_line(
        recorded: tuple[Path, Path], tmp_path: Path) -> None:
    path = sorted(recorded[0].glob("walk-*.jsonl"))[0]
    (opened,), _ = all_walks(str(path))
    assert isinstance(opened, Trace) and opened == read_trace(path)
    damaged = tmp_path / "damaged.jsonl"
    damaged.write_text(path.read_text().splitlines()[0] + "\n")
    with pytest.raises(UsageError) as refused:  # the command line says it in one line, and exits 2
        all_walks(str(damaged))
    assert str(refused.value) == f"{damaged}: the trace is truncated (no end line after line 1); save the walk again"
