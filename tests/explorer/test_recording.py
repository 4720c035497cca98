"""An application records its walks with :class:`explorer.recording.WalkRecorder`: real threads, real files, read
back with the explorer's own trace reader."""

from __future__ import annotations

import logging
from dataclasses import replace
from pathlib import Path

import pytest

from core import (
    CancellationToken,
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    OnFailure,
    RAGContext,
    RetrievalCancelled,
    RetrievalError,
    TreeNavigator,
    WalkFinished,
)
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.recording import WalkRecorder
from explorer.trace import read_trace
from explorer.walk_settings import WalkSettings

from .recording_helpers import EIGHT_QUERIES, HANDBOOK, strategy_for, walk_on_eight_threads


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(HANDBOOK)


def timeless(events):
    """Events as recorded, without the seconds each answer took (which differ from walk to walk)."""
    return tuple(replace(e, seconds=0.0) if isinstance(e, NavigatorChose | NavigatorFailed) else e
                 for e in events)


def traces(folder: Path):
    return [read_trace(path) for path in sorted(folder.glob("walk-*.jsonl"))]


def test_retrieve_returns_what_the_strategy_returns_and_records_the_walk(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus, max_nodes_visited=8)
    with WalkRecorder(tmp_path, corpus) as recorder:
        documents = recorder.retrieve(strategy, "how long do refunds take", RAGContext(max_results=5))
    assert [d.id for d in documents] == [d.id for d in strategy.retrieve("how long do refunds take",
                                                                          RAGContext(max_results=5))]
    (trace,) = traces(tmp_path)
    header = trace.header
    assert (header.corpus_path, header.corpus_sha256, header.corpus_source, header.corpus_format) == (
        str(HANDBOOK), corpus.sha256, "handbook", "yaml")
    assert header.settings == WalkSettings("how long do refunds take", "lexical:default", 8, 6, OnFailure.THROW)
    assert trace.end is WalkEnd.FINISHED
    assert timeless(trace.events) == timeless(strategy.walk("how long do refunds take"))
    assert (recorder.written, recorder.failed, recorder.dropped) == (1, 0, 0)


def test_eight_threads_walking_at_once_each_get_their_trace(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus)
    queries = EIGHT_QUERIES
    recorder = WalkRecorder(tmp_path, corpus)
    errors = walk_on_eight_threads(recorder, strategy, 5)
    recorder.close()
    assert errors == []
    found = traces(tmp_path)
    assert len(found) == recorder.written == 40
    assert sorted(t.header.settings.query for t in found) == sorted(queries * 5)
    for trace in found:
        assert timeless(trace.events) == timeless(strategy.walk(trace.header.settings.query))


def test_a_walk_the_application_stops_pulling_or_cancels_is_saved_as_cancelled(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus)
    recorder = WalkRecorder(tmp_path, corpus)
    events = recorder.walk(strategy, "refunds")
    first_two = [next(events), next(events)]
    events.close()
    token = CancellationToken()
    walk = recorder.walk(strategy, "refunds", cancellation=token)
    next(walk)
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        list(walk)
    recorder.close()
    stopped, cancelled = traces(tmp_path)
    assert (stopped.end, stopped.error, stopped.events) == (
        WalkEnd.CANCELLED, "the application stopped pulling the walk", tuple(first_two))
    assert cancelled.end is WalkEnd.CANCELLED and len(cancelled.events) >= 1


class Broken(TreeNavigator):
    def supports(self, model: str) -> bool:
        return False

    def choose(self, request):
        raise RuntimeError("the vector store is down")


def test_a_walk_that_fails_raises_as_before_and_is_saved_as_failed(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus, Broken(), "mine:broken")
    with WalkRecorder(tmp_path, corpus) as recorder, pytest.raises(RetrievalError):
        recorder.retrieve(strategy, "refunds")
    (trace,) = traces(tmp_path)
    assert trace.end is WalkEnd.FAILED
    assert trace.error is not None and "the vector store is down" in trace.error
    assert not isinstance(trace.events[-1], WalkFinished)


def test_the_folder_stays_under_its_cap_by_removing_the_oldest(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus)
    with WalkRecorder(tmp_path, corpus) as one:
        one.retrieve(strategy, "refunds")
    (size,) = [p.stat().st_size for p in tmp_path.glob("walk-*.jsonl")]
    (tmp_path / "notes.txt").write_text("not a trace: never removed")
    cap = size * 3 + size // 2  # room for three, whatever a few bytes of timing differ by
    with WalkRecorder(tmp_path, corpus, max_bytes=cap) as recorder:
        for _ in range(6):
            recorder.retrieve(strategy, "refunds")
    kept = sorted(tmp_path.glob("walk-*.jsonl"))
    assert len(kept) == 3 and recorder.removed == 4
    assert sum(p.stat().st_size for p in kept) <= cap
    assert (tmp_path / "notes.txt").exists()


def test_a_write_that_fails_is_counted_and_logged_once_and_never_reaches_the_walk(
        corpus, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder = tmp_path / "walks"
    strategy = strategy_for(corpus)
    recorder = WalkRecorder(folder, corpus)
    folder.rmdir()
    folder.write_text("a file where the folder was")
    expected = [d.id for d in strategy.retrieve("refunds")]
    with caplog.at_level(logging.WARNING, logger="explorer.recording"):
        for _ in range(3):
            assert [d.id for d in recorder.retrieve(strategy, "refunds")] == expected
        recorder.close()
    assert (recorder.written, recorder.failed) == (0, 3)
    (message,) = [r.getMessage() for r in caplog.records if r.name == "explorer.recording"]
    assert message.startswith(f"walk recorder: cannot write a trace in {folder}: ")


def test_secrets_are_masked_as_in_every_trace(corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-recorder-canary-123456")

    class Leaky(TreeNavigator):
        def supports(self, model: str) -> bool:
            return False

        def choose(self, request):
            return NavigatorChoice(("billing",), rationale="key sk-recorder-canary-123456")

    with WalkRecorder(tmp_path, corpus) as recorder:
        recorder.retrieve(strategy_for(corpus, Leaky(), "mine:leaky"), "refunds")
    (path,) = tmp_path.glob("walk-*.jsonl")
    text = path.read_text()
    assert "sk-recorder-canary-123456" not in text and "key " in text


def test_an_index_is_recorded_with_the_identity_of_the_file_it_came_from(corpus, tmp_path: Path) -> None:
    with WalkRecorder(tmp_path, corpus.index, path=HANDBOOK) as recorder:
        recorder.retrieve(strategy_for(corpus), "refunds")
    (trace,) = traces(tmp_path)
    assert (trace.header.corpus_path, trace.header.corpus_sha256) == (str(HANDBOOK), corpus.sha256)
    with pytest.raises(ValueError, match="a HierarchyIndex is recorded with path="):
        WalkRecorder(tmp_path, corpus.index)


@pytest.mark.process
def test_the_temporary_a_recorder_killed_mid_write_left_is_removed_by_the_next_one(corpus, tmp_path: Path) -> None:
    """A recorder killed mid-write left a 6 MB .walk-….tmp that nothing removed and max_bytes did not count
    (issue 38, point 14). One of a writer still alive (this process) is left alone."""
    import os
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()  # a pid whose process is gone: the writer of the temporary below
    dead = tmp_path / f".walk-20261202T101010.000001Z-{child.pid}-1.jsonl.{child.pid}.abcd1234.tmp"
    dead.write_bytes(b"x" * 6_000_000)
    alive = tmp_path / f".walk-20261202T101011.000001Z-{os.getpid()}-2.jsonl.{os.getpid()}.efgh5678.tmp"
    alive.write_bytes(b"y")
    other = tmp_path / ".notes.tmp"  # not the recorder's: never touched
    other.write_bytes(b"z")
    with WalkRecorder(tmp_path, corpus) as recorder:
        recorder.retrieve(strategy_for(corpus), "refunds")
    assert not dead.exists() and alive.exists() and other.exists()
    assert len(traces(tmp_path)) == 1
