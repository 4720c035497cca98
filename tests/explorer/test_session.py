"""The walk session (gate, history, cancellation, trace) and the walk state, without a screen."""

from __future__ import annotations

import queue
import threading
import time
from pathlib import Path

import pytest

from core import CandidatesOffered, NavigatorChose, NodeEntered, OnFailure, WalkFinished, WalkStarted
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.trace import read_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.session import SessionEnded, SessionEvent, WalkSession
from explorer.walks.state import Mark, WalkState
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def session(script=None, query="How are refunds issued?", **settings):
    model = f"script:{SCRIPTS / script}" if script else settings.pop("model", "lexical:default")
    walk = WalkSettings(query, model, **settings)
    return WalkSession(HANDBOOK, walk, resolve_navigator(model))


class Worker:
    """Runs a session on a thread, collecting what it emits."""

    def __init__(self, walk: WalkSession) -> None:
        self.walk = walk
        self.messages: queue.Queue = queue.Queue()
        self.thread = threading.Thread(target=walk.run, args=(self.messages.put,), daemon=True)
        self.thread.start()

    def next(self, timeout=30.0):  # only a hang-guard: a busy machine may take seconds
        message = self.messages.get(timeout=timeout)
        self.walk.record(message)  # as the explorer does on its UI thread: the history has one writer
        return message

    def parked_with_nothing_more(self) -> bool:
        """Whether the worker reached the gate and waits there for a permit, having emitted nothing more: had it
        pulled another event first, that event would be in the queue by now (it is emitted before the gate)."""
        return wait_until(lambda: self.walk.waiting) and self.messages.empty()


def wait_until(condition, guard=30.0) -> bool:
    """Poll ``condition`` until it holds; ``guard`` only stops a hang."""
    deadline = time.monotonic() + guard
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_nothing_is_pulled_until_the_gate_opens_then_one_event_per_step():
    walk = session()
    worker = Worker(walk)
    assert worker.parked_with_nothing_more()
    walk.step()
    first = worker.next()
    assert isinstance(first, SessionEvent) and (first.walk_id, first.seq) == (walk.id, 1)
    assert isinstance(first.event, WalkStarted)
    assert worker.parked_with_nothing_more()
    walk.step(2)
    assert [type(worker.next().event) for _ in range(2)] == [CandidatesOffered, NavigatorChose]
    assert worker.parked_with_nothing_more()
    walk.close()
    assert isinstance(worker.next(), SessionEnded)


def test_run_to_end_finishes_and_ends_once():
    walk = session()
    worker = Worker(walk)
    walk.run_to_end()
    messages = [worker.next()]
    for _ in range(1000):  # a walk of the handbook has a few dozen events: bounded, so a session that never ends fails
        if isinstance(messages[-1], SessionEnded):
            break
        messages.append(worker.next())
    assert isinstance(messages[-2].event, WalkFinished)
    assert messages[-1] == SessionEnded(walk.id, "finished", None)
    assert [m.seq for m in messages[:-1]] == list(range(1, len(messages)))
    assert walk.events == [m.event for m in messages[:-1]]
    worker.thread.join(30)
    assert not worker.thread.is_alive()


def test_each_session_has_a_new_walk_id():
    assert session().id < session().id


def test_cancel_while_the_navigator_is_blocked_wakes_it_and_ends_the_walk(tmp_path):
    script = tmp_path / "hour-long.yaml"
    script.write_text("decisions:\n  start: {select: [billing], delay: 3600}\n")  # only the cancel can end it
    model = f"script:{script}"
    walk = WalkSession(HANDBOOK, WalkSettings("How are refunds issued?", model), resolve_navigator(model))
    worker = Worker(walk)
    walk.step(3)  # started, offered, then the hour-long decision
    assert isinstance(worker.next().event, WalkStarted)
    assert isinstance(worker.next().event, CandidatesOffered)
    assert wait_until(lambda: walk.busy)
    walk.cancel()  # how long this takes: bench/responsiveness.py
    assert worker.next() == SessionEnded(walk.id, "cancelled", None)
    assert [type(e) for e in walk.events] == [WalkStarted, CandidatesOffered]
    worker.thread.join(30)
    assert not worker.thread.is_alive()


def test_close_while_paused_ends_the_worker():
    walk = session()
    worker = Worker(walk)
    walk.step()
    worker.next()
    walk.close()  # how long this takes: bench/responsiveness.py
    assert worker.next().end == "cancelled"
    worker.thread.join(30)
    assert not worker.thread.is_alive()


def test_a_failure_under_throw_ends_the_session_failed_with_the_message():
    walk = session("provider-failure.yaml")
    walk.run_headless()
    assert walk.history.end == "failed"
    assert "upstream timeout after 30 s" in walk.history.error


def test_saved_trace_holds_every_event(tmp_path):
    walk = session("hallucinated-branch.yaml", on_failure=OnFailure.PARTIAL)
    events = walk.run_headless()
    trace = read_trace(walk.save_trace(tmp_path / "t.jsonl"), corpus_sha256=HANDBOOK.sha256)
    assert trace.events == tuple(events)
    assert (trace.end, trace.header.settings.model, trace.header.settings.on_failure) == (
        "finished", walk.settings.model, OnFailure.PARTIAL)


# The walk state ---------------------------------------------------------------------------------------


def test_walk_state_marks_and_counts_step_by_step():
    events = session("hallucinated-branch.yaml").run_headless()
    state = WalkState.from_events(events[:3])  # started, offered roots, chose billing
    assert state.current is None and state.live_calls == 1 and state.visits_used == 0
    assert state.mark_of("billing") is Mark.CHOSEN
    assert state.mark_of("accounts") is Mark.REJECTED
    state = WalkState.from_events(events[:4])  # entered billing
    assert isinstance(events[3], NodeEntered)
    assert (state.current, state.current_path, state.depth, state.visits_used, state.remaining) == (
        "billing", ("billing",), 0, 1, 14)
    assert state.mark_of("billing") is Mark.CURRENT
    assert state.mark_of("accounts") is Mark.REJECTED
    final = WalkState.from_events(events)
    assert final.finished
    assert list(final.landed) == ["billing", "requesting-a-refund"]
    assert final.mark_of("billing") is Mark.LANDED
    assert final.mark_of("refunds") is Mark.VISITED
    assert final.live_calls == 3 and final.visits_used == 3
    assert final.chars_shipped == final.result.chars_shipped


def test_walk_state_offer_before_the_choice_marks_candidates_offered():
    events = session("hallucinated-branch.yaml").run_headless()
    state = WalkState.from_events(events[:2])
    assert {state.mark_of(c.id) for c in state.offer.candidates} == {Mark.OFFERED}


@pytest.mark.parametrize("cut", range(1, 12))
def test_folding_a_prefix_equals_folding_step_by_step(cut):
    events = session("hallucinated-branch.yaml").run_headless()[:cut]
    stepped = WalkState()
    for event in events:
        stepped.apply(event)
    assert stepped == WalkState.from_events(events)
