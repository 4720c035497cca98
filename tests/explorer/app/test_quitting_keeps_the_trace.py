"""Quitting in the middle of a walk keeps it (``--trace`` writes it as a cancelled walk, with every event so far), and a
key that arrives as the app closes is dropped."""

from __future__ import annotations

from pathlib import Path

from core import CandidatesOffered, NavigatorChose, WalkStarted
from explorer.trace import read_trace

from .helpers import HANDBOOK, SIZE, make_app, wait_for


async def test_q_half_way_through_a_walk_saves_it_cancelled_with_the_steps_so_far(tmp_path: Path) -> None:
    path = tmp_path / "quit.jsonl"
    app = make_app("refunds", start_walk=True, trace_path=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # the walk started at launch: the roots offered, then answered
        walk = app.walk_screen
        await wait_for(pilot, lambda: walk.view.history is not None and len(walk.view.history.events) == 3)
        assert not path.exists()  # nothing is saved before the walk is over
        await pilot.press("q")
    trace = read_trace(path, corpus_sha256=HANDBOOK.sha256)
    assert trace.end == "cancelled"
    assert [type(event) for event in trace.events] == [WalkStarted, CandidatesOffered, NavigatorChose]


async def test_q_before_a_walk_took_a_step_writes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "nothing.jsonl"
    app = make_app("refunds", trace_path=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "q")
    assert not path.exists()


async def test_a_key_handed_back_after_the_app_closed_is_dropped_not_an_error() -> None:
    from textual import events

    app = make_app("refunds")
    async with app.run_test(size=SIZE):
        pass
    assert app.screen_stack == []
    await app.on_event(events.Key("v", "v"))  # a held prompt key typed anew as the app shut down: nothing takes it
