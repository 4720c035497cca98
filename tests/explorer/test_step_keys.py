"""What a step key does to the walk on screen (explorer.walks.stepping), without the screen: through what already
happened first, then one more event pulled, unless a person must answer or the walk is over."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator
from pathlib import Path

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators.manual import PendingDecision
from explorer.walk_settings import WalkSettings
from explorer.walks.history import WalkHistory
from explorer.walks.picking import Pick
from explorer.walks.session import WalkSession
from explorer.walks.stepping import Step, play_beat, step_next
from explorer.walks.walk_list import Walk

from .app.helpers import Blocking
from .test_walk_list import live_walk

HANDBOOK = load_corpus(Path(__file__).resolve().parents[2] / "sample_corpora" / "handbook.yaml")


@contextlib.contextmanager
def recorded(count: int) -> Iterator[Walk]:
    """A live walk holding the first ``count`` events of the same walk run to its end, its worker parked at the
    gate: it has pulled its first offer and waits for a permit, so its next pull asks the navigator, which blocks
    until the test ends (so a permit given stays untaken: ``waiting`` is exact, and nothing races)."""
    source = live_walk("lexical:default")
    source.session.run_headless()
    navigator = Blocking()
    session = WalkSession(HANDBOOK, WalkSettings("refunds", "lexical:default"), navigator)
    walk = Walk(session.history, session)
    for seq, event in enumerate(source.history.events[:count], 1):
        walk.record(seq, event, forced=False)
    worker = threading.Thread(target=session.run, args=(lambda message: None,), daemon=True)
    worker.start()
    session.step(2)  # its WalkStarted and its first offer
    deadline = time.monotonic() + 30
    while not session.waiting:  # bounded: a worker that never parks fails the test
        assert time.monotonic() < deadline, "the walk's worker never reached the gate"
        time.sleep(0.01)
    try:
        yield walk
    finally:
        navigator.release.set()
        session.cancel()
        worker.join(10)


def waiting_pick() -> Pick:
    request = NavigatorRequest("q", "manual:", None, (NodeView("a", "A", ""),), 5, CancellationToken())
    return Pick.for_request(PendingDecision(request))


def test_next_shows_what_already_happened_before_it_asks_for_more():
    with recorded(3) as walk:
        walk.history.go(1)
        assert [step_next(walk, None) for _ in range(2)] == [Step.SHOWN, Step.SHOWN]
        assert walk.history.cursor == 3 and walk.session.waiting  # no permit given while there was more to show


def test_next_at_the_latest_event_lets_the_session_pull_one_more_each_press():
    with recorded(2) as walk:
        assert step_next(walk, None) is Step.PULLED and not walk.session.waiting
        assert step_next(walk, None) is Step.PULLED and walk.history.cursor == 2  # permits add up; nothing moved


def test_next_waits_for_a_person_and_a_walk_that_is_over_or_none_is_the_cue_for_a_new_walk():
    with recorded(2) as walk:
        assert step_next(walk, waiting_pick()) is Step.WAITING and walk.session.waiting
        walk.end(WalkEnd.FINISHED)
        assert step_next(walk, None) is Step.OVER
        assert step_next(None, None) is Step.OVER
        assert step_next(Walk(WalkHistory(walk.history.settings)), None) is Step.OVER  # a trace's: no session


def test_a_beat_of_play_pulls_only_once_the_session_took_the_one_before_and_no_pick_is_open():
    with recorded(2) as walk:
        walk.history.go(1)
        assert play_beat(walk, None) is Step.SHOWN and walk.history.cursor == 2
        assert play_beat(walk, waiting_pick()) is Step.WAITING and walk.session.waiting
        assert play_beat(walk, None) is Step.PULLED and not walk.session.waiting
        assert play_beat(walk, None) is Step.WAITING  # the one before is not taken yet: no second permit
        walk.cancel()
        assert play_beat(walk, None) is Step.OVER and play_beat(None, None) is Step.OVER
