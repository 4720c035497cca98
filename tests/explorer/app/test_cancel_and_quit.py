"""Cancelling a walk and quitting the explorer: at once, whatever the navigator is doing; the partial walk
stays, and nothing is left running."""

from __future__ import annotations

from explorer.tui.widgets.query_input import QueryInput

from .helpers import SIZE, Blocking, hour_long_script, make_app, wait_for
from .reading import results_summary, status_text, step_text


async def test_cancel_during_a_slow_step_shows_at_once_keeps_the_partial_walk_and_stays_usable():
    navigator = Blocking()  # ignores the token: the screen cannot wait for the navigator to notice the cancel
    app = make_app("parental leave", navigator=navigator, start_walk=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n", "n")  # offered roots, then the decision blocks
            await wait_for(pilot, lambda: app.walk_screen.session.busy and navigator.inside.is_set())
            await wait_for(pilot, lambda: status_text(app).startswith("working… "))  # the clock ticks while it waits
            cancelled = app.walk_screen.session
            await pilot.press("x")  # how long this takes: bench/responsiveness.py
            assert app.walk_screen.history.end == "cancelled"
            assert cancelled.token.cancelled
            assert status_text(app) == "cancelled · b steps back · e forks · r restarts"
            assert not navigator.left.is_set()  # shown while the navigator was still blocked
            assert len(app.walk_screen.history.events) == 2 and "offered 9 roots" in step_text(app)  # the partial walk stays
            assert "cancelled · visits used 0/15 · navigator calls 0 · characters shipped 1,003" in results_summary(app)
            await pilot.press("r")  # usable: a new walk starts while the old navigator is still blocked (n stays on the end)
            await wait_for(pilot, lambda: app.walk_screen.history.end is None and len(app.walk_screen.history.events) == 1)
            assert app.walk_screen.session is not cancelled and not navigator.left.is_set()
            navigator.release.set()  # the late answer is dropped: the old worker ends cancelled
            await wait_for(pilot, lambda: cancelled.over)
            assert cancelled.history.end == "cancelled"
            assert len(app.walk_screen.history.events) == 1
    finally:
        navigator.release.set()


async def test_quitting_while_the_navigator_is_blocked_wakes_it_and_exits(tmp_path):
    app = make_app("parental leave", model=hour_long_script(tmp_path), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.session.busy)  # an hour-long decision: only the quit can end it
        session = app.walk_screen.session
        await pilot.press("q")  # how long quitting takes: bench/responsiveness.py
        await wait_for(pilot, lambda: session.over)
    assert session.history.end == "cancelled" and not session.busy
    assert app.return_code == 0


async def test_quitting_while_paused_ends_the_walk_and_exits():
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 1)
        session = app.walk_screen.session
        await pilot.press("q")  # how long quitting takes: bench/responsiveness.py
    assert session.over and session.history.end == "cancelled"  # the worker left its gate and ended before the app
    assert app.return_code == 0


async def test_ctrl_c_cancels_a_running_walk_as_x_does_and_at_rest_says_how_to_quit(tmp_path):
    """Issue 30, point 10: Ctrl+C did nothing the explorer said; the README promises it cancels a walk."""
    app = make_app("parental leave", model=hour_long_script(tmp_path), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.session.busy)  # an hour-long decision
        session = app.walk_screen.session
        await pilot.press("ctrl+c")
        assert app.walk_screen.history.end == "cancelled" and session.token.cancelled
        assert status_text(app) == "cancelled · b steps back · e forks · r restarts"
        await wait_for(pilot, lambda: session.over)
        assert [note.message for note in app.notes][-1] == "Walk cancelled."
        await pilot.press("ctrl+c")  # at rest
        assert app.is_running and [note.message for note in app.notes][-1] == (
            "No walk is running: q quits (Ctrl+C cancels a running walk, as x does).")
        said = len(app.notes)
        await pilot.press("ctrl+c")  # again, while its toast shows: not stacked
        await pilot.pause()
        assert len(app.notes) == said
        # once its toast has expired (waited for, not timed), the same words are said again
        await wait_for(pilot, lambda: app.notes[said - 1].has_expired)
        await pilot.press("slash", "end", "ctrl+c")  # in the query box, nothing selected: the same
        assert app.walk_screen.query_one(QueryInput).has_focus
        await wait_for(pilot, lambda: len(app.notes) > said)
        assert [note.message for note in app.notes][-2:] == [
            "No walk is running: q quits (Ctrl+C cancels a running walk, as x does)."] * 2
