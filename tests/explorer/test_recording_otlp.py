"""An application's recorded walks sent to OTLP too (``WalkRecorder(send_to=[telemetry.export_walk])``): a real
OTLP/HTTP receiver on 127.0.0.1, a real span file read back as walks, 8 threads walking at once."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.recording import WalkRecorder
from explorer.walks.telemetry import WalkTelemetry
from explorer.walks.telemetry.span_walks import read_span_walks, rebuild

from .otlp_receiver import OtlpReceiver, closed_port
from .recording_helpers import EIGHT_QUERIES, HANDBOOK, strategy_for, walk_on_eight_threads


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(HANDBOOK)


def test_eight_threads_walks_reach_the_endpoint_and_the_span_file_and_read_back_as_the_walks(
        corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus)
    queries = EIGHT_QUERIES
    spans = tmp_path / "walks.otlp.jsonl"
    problems: list[str] = []
    with OtlpReceiver() as receiver:
        telemetry = WalkTelemetry(receiver.url, spans, report=problems.append)
        recorder = WalkRecorder(tmp_path / "walks", corpus, send_to=[telemetry.export_walk])
        errors = walk_on_eight_threads(recorder, strategy, 2)
        recorder.close()
        telemetry.close()
        receiver.wait_for(16)
        roots = [s for s in receiver.spans() if not s.parent]
    assert errors == [] and problems == []
    assert (recorder.written, recorder.unsent) == (16, 0)
    assert sorted(s.attributes["input.value"] for s in roots) == sorted(queries * 2)
    assert {s.attributes["reasoning_explorer.corpus.sha256"] for s in roots} == {corpus.sha256}
    walks = read_span_walks(spans)
    assert sorted(w.header.settings.query for w in walks) == sorted(queries * 2)
    for walk in walks:
        rebuilt = rebuild(walk, corpus, spans)
        expected = [d.id for d in strategy.retrieve(walk.header.settings.query)]
        assert [d.id for d in rebuilt.events[-1].result.documents] == expected  # type: ignore[attr-defined]


def test_the_spans_carry_the_times_the_events_passed_through(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus)
    with OtlpReceiver() as receiver:
        telemetry = WalkTelemetry(receiver.url)
        with WalkRecorder(tmp_path, corpus, send_to=[telemetry.export_walk]) as recorder:
            recorder.retrieve(strategy, "refunds")
        telemetry.close()
        receiver.wait_for(1)
        (root,) = [s for s in receiver.spans() if not s.parent]
    entered = [e.time for e in root.events if e.name == "enter"]
    assert entered == sorted(entered) and root.start <= entered[0] <= entered[-1] <= root.end


def test_a_sender_that_raises_is_counted_and_logged_once_and_the_trace_is_kept(
        corpus, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    strategy = strategy_for(corpus)

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("collector gone")

    expected = [d.id for d in strategy.retrieve("refunds")]
    with (caplog.at_level(logging.WARNING, logger="explorer.recording"),
          WalkRecorder(tmp_path, corpus, send_to=[broken]) as recorder):
        for _ in range(3):
            assert [d.id for d in recorder.retrieve(strategy, "refunds")] == expected
    assert (recorder.written, recorder.unsent, recorder.failed) == (3, 3, 0)
    (message,) = [r.getMessage() for r in caplog.records if r.name == "explorer.recording"]
    assert message.endswith("raised RuntimeError: collector gone (further failures are counted, not logged)")


def test_an_endpoint_that_is_down_never_reaches_the_walk_and_is_reported_once(corpus, tmp_path: Path) -> None:
    strategy = strategy_for(corpus)
    problems: list[str] = []
    telemetry = WalkTelemetry(f"http://127.0.0.1:{closed_port()}", report=problems.append)
    expected = [d.id for d in strategy.retrieve("refunds")]
    with WalkRecorder(tmp_path, corpus, send_to=[telemetry.export_walk]) as recorder:
        for _ in range(3):
            assert [d.id for d in recorder.retrieve(strategy, "refunds")] == expected
    telemetry.close()
    assert (recorder.written, recorder.unsent) == (3, 0)
    assert len(problems) == 1 and "connection refused" in problems[0]
