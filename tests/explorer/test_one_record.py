"""A walk's one record (issue 44, point 2): what its session handed the trace, the spans and the session folder
as it ended is what ctrl+s saves and the HTML export draws — the same object, not a record built again; and the one
hook it goes through, given to the session when it is made, each sink inline or on a worker."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.trace import FinishedWalk, read_trace, write_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.history import WalkHistory
from explorer.walks.session import NO_SINKS, EndHook, SessionEnded, SessionEvent, Sink, WalkSession
from explorer.walks.walk_list import Walk
from explorer.walks.wiring import Wiring

from .test_walk_list import DEPTH_LIMIT, HANDBOOK, live_walk

WAIT = 30.0
"""The bound on waiting for a worker's thread (never reached unless the sink is lost)."""


class Probe:
    """A sink that notes each record it is told and the thread it was told on."""

    def __init__(self) -> None:
        self.told: list[tuple[FinishedWalk, str]] = []

    def __call__(self, finished: FinishedWalk) -> None:
        self.told.append((finished, threading.current_thread().name))


class Threads:
    """A program's worker: each job on a thread of its own, named ``sink-N``, kept to be joined."""

    def __init__(self) -> None:
        self.started: list[threading.Thread] = []

    def __call__(self, job: Callable[[], None]) -> None:
        thread = threading.Thread(target=job, name=f"sink-{len(self.started) + 1}")
        self.started.append(thread)
        thread.start()

    def join(self) -> None:
        for thread in self.started:
            thread.join(WAIT)
            assert not thread.is_alive()


def session_with(hook: EndHook, query: str = "refunds") -> WalkSession:
    return WalkSession(HANDBOOK, WalkSettings(query, DEPTH_LIMIT), resolve_navigator(DEPTH_LIMIT), hook=hook)


def test_a_session_made_with_an_inline_and_a_worker_sink_tells_each_once_the_one_record() -> None:
    inline, later, threads = Probe(), Probe(), Threads()
    session = session_with(EndHook((Sink(later, on_worker=True), Sink(inline)), threads))
    session.run_headless()
    threads.join()
    record = session.finished
    assert record is not None and record.end is WalkEnd.FINISHED
    here = threading.current_thread().name
    assert inline.told == [(record, here)]  # told on the thread that owns the history
    assert [thread.name for thread in threads.started] == ["sink-1"]  # one job, for the one sink on a worker
    assert later.told == [(record, "sink-1")]  # the same object, on the worker
    session.finish(WalkEnd.FINISHED)  # ended again: nobody is told twice
    threads.join()
    assert (len(inline.told), len(later.told), len(threads.started)) == (1, 1, 1)


def test_a_closed_sessions_walk_goes_to_every_sink_at_once_as_the_program_quits() -> None:
    inline, later, threads = Probe(), Probe(), Threads()
    session = session_with(EndHook((Sink(inline), Sink(later, on_worker=True)), threads))
    walk = Walk(session.history, session)
    messages: list[SessionEvent | SessionEnded] = []
    worker = threading.Thread(target=session.run, args=(messages.append,), name="walk")
    session.step(3)
    worker.start()
    deadline = time.monotonic() + WAIT
    while not session.waiting and time.monotonic() < deadline:  # three events, then the gate holds it
        time.sleep(0.01)
    for message in messages:
        session.record(message)  # on this thread, which owns the history, as the screen's does
    session.close()  # the app quits: the session is closed, its worker leaves, and the walk ends cancelled here
    worker.join(WAIT)
    walk.end(WalkEnd.CANCELLED)
    here = threading.current_thread().name
    record = walk.finished(HANDBOOK)
    assert record.end is WalkEnd.CANCELLED and len(record.events) == 3
    assert inline.told == [(record, here)] and later.told == [(record, here)]  # no worker outlives the program
    assert threads.started == []


def test_every_program_hooks_its_sinks_the_same_way_the_keeper_only_for_its_walk_list() -> None:
    class Keeper:
        def keep(self, walk: FinishedWalk) -> None: ...

        def close(self, timeout: float | None = None) -> None: ...

    telemetry, trace, keeper, threads = Probe(), Probe(), Keeper(), Threads()
    wiring = Wiring(observers=(telemetry,), keeper=keeper)
    screens = wiring.hook(Sink(trace, on_worker=True), kept=True, worker=threads)
    assert screens == EndHook((Sink(trace, on_worker=True), Sink(keeper.keep), Sink(telemetry, on_worker=True)),
                              threads)
    assert wiring.hook() == EndHook((Sink(telemetry, on_worker=True),))  # an evaluation's: no keeper, no worker


def test_an_ended_walks_record_is_the_one_its_session_handed_its_sinks() -> None:
    handed = Probe()
    session = session_with(EndHook((Sink(handed),)))
    walk = Walk(session.history, session)
    session.run_headless()
    assert walk.history.end is WalkEnd.FINISHED
    walk.retire()
    ((record, _),) = handed.told
    assert walk.finished(HANDBOOK) is record  # the session's, kept with the walk once its session is gone
    assert walk.finished(HANDBOOK) is walk.finished(HANDBOOK)


def test_a_walk_still_going_is_recorded_as_it_stands_as_cancelled() -> None:
    walked = live_walk()
    walked.session.run_headless()
    going = WalkHistory(walked.history.settings)
    for event in walked.history.events[:3]:
        going.append(event)
    walk = Walk(going)
    record = walk.finished(HANDBOOK)
    assert record.end is WalkEnd.CANCELLED and going.end is None
    assert record.events == tuple(walked.history.events[:3])
    assert walk.finished(HANDBOOK) is not record  # nothing is kept of a walk that has not ended


def test_a_saved_walk_is_recorded_from_its_history() -> None:
    walk = live_walk()
    walk.session.run_headless()
    copy = Walk(walk.history)  # made elsewhere, with no session
    assert copy.finished(HANDBOOK).events == walk.finished(HANDBOOK).events


SECRET = "sk-house-secret-0123456789"


def test_the_html_export_draws_the_record_itself_and_masks_a_secret_as_the_trace_file_does(tmp_path, monkeypatch):
    from explorer.tui.walk_screen.walk_export import recorded

    for name in ("OPENAI_API_KEY", "VLLM_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY", "LANGFUSE_SECRET_KEY",
                 "LANGFUSE_PUBLIC_KEY", "PHOENIX_API_KEY", "OTEL_EXPORTER_OTLP_HEADERS",
                 "OTEL_EXPORTER_OTLP_TRACES_HEADERS"):
        monkeypatch.delenv(name, raising=False)
    session = session_with(NO_SINKS, query=f"refunds with key {SECRET}")
    session.run_headless()
    record = session.finished
    assert record is not None
    drawn = recorded(record)  # no secret set: the record's own events, not read back from text
    assert drawn.events is record.events and drawn.header is record.header
    assert (drawn.end, drawn.error, drawn.forced) == (record.end, record.error, record.forced)

    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    drawn = recorded(record)
    saved = read_trace(write_trace(tmp_path / "walk.trace.jsonl", record), corpus_sha256=HANDBOOK.sha256)
    assert drawn.header.settings.query == "refunds with key ***" == saved.header.settings.query
    assert (drawn.header, drawn.events, drawn.end, drawn.forced) == (saved.header, saved.events, saved.end,
                                                                      saved.forced)
