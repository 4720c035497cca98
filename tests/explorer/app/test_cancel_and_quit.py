"""Cancelling a walk and quitting the explorer: at once, whatever the navigator is doing; the partial walk
stays, and nothing is left running."""

from __future__ import annotations

import threading

import pytest

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.tui.widgets.query_input import QueryInput
from explorer.walks import pulling

from .helpers import SIZE, Blocking, hour_long_script, make_app, wait_for
from .reading import results_summary, status_text, step_text


async def test_cancel_during_a_slow_step_shows_at_once_keeps_the_partial_walk_and_stays_usable():
    navigator = Blocking()  # ignores the token: the screen cannot wait for the navigator to notice the cancel
    app = make_app("parental leave", navigator=navigator, start_walk=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n", "n")  # offered roots, then the decision blocks
            await wait_for(pilot, lambda: app.walk_screen.view.session.busy and navigator.inside.is_set())
            await wait_for(pilot, lambda: status_text(app).startswith("working… "))  # the clock ticks while it waits
            cancelled = app.walk_screen.view.session
            await pilot.press("x")  # how long this takes: bench/responsiveness.py
            assert app.walk_screen.view.history.end == "cancelled"
            assert cancelled.token.cancelled
            assert status_text(app) == "cancelled · b steps back · e forks · r restarts"
            assert not navigator.left.is_set()  # shown while the navigator was still blocked
            assert len(app.walk_screen.view.history.events) == 2 and "offered 9 roots" in step_text(app)  # the partial walk stays
            assert "cancelled · visits used 0/15 · navigator calls 0 · characters shipped 1,003" in results_summary(app)
            await pilot.press("r")  # usable: a new walk starts while the old navigator is still blocked (n stays on the end)
            await wait_for(pilot, lambda: app.walk_screen.view.history.end is None and len(app.walk_screen.view.history.events) == 1)
            assert app.walk_screen.view.session is not cancelled and not navigator.left.is_set()
            navigator.release.set()  # the late answer is dropped: the old worker ends cancelled
            await wait_for(pilot, lambda: cancelled.over)
            assert cancelled.history.end == "cancelled"
            assert len(app.walk_screen.view.history.events) == 1
    finally:
        navigator.release.set()


async def test_quitting_while_the_navigator_is_blocked_wakes_it_and_exits(tmp_path):
    app = make_app("parental leave", model=hour_long_script(tmp_path), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.session.busy)  # an hour-long decision: only the quit can end it
        session = app.walk_screen.view.session
        await pilot.press("q")  # how long quitting takes: bench/responsiveness.py
        await wait_for(pilot, lambda: session.over)
    assert session.history.end == "cancelled" and not session.busy
    assert app.return_code == 0


async def test_quitting_while_paused_ends_the_walk_and_exits():
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 1)
        session = app.walk_screen.view.session
        await pilot.press("q")  # how long quitting takes: bench/responsiveness.py
    assert session.over and session.history.end == "cancelled"  # the worker left its gate and ended before the app
    assert app.return_code == 0


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_ctrl_c_cancels_a_running_walk_as_x_does_and_at_rest_says_how_to_quit(tmp_path):
    """Issue 30, point 10: Ctrl+C did nothing the explorer said; the README promises it cancels a walk."""
    app = make_app("parental leave", model=hour_long_script(tmp_path), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.session.busy)  # an hour-long decision
        session = app.walk_screen.view.session
        await pilot.press("ctrl+c")
        assert app.walk_screen.view.history.end == "cancelled" and session.token.cancelled
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


class Stuck(TreeNavigator):
    """Ignores the walk's token: a call made while ``stuck`` is set blocks until the test ends (``never`` is set at
    its end, so no thread outlives it); one made after answers as the lexical navigator does."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.stuck = True
        self.never = threading.Event()
        self.calls = 0

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        self.calls += 1
        if self.stuck:
            self.never.wait(120)
        return self.inner.choose(request)  # type: ignore[return-value]


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_navigator_that_ignores_the_token_is_said_plainly_and_new_walks_still_run(monkeypatch):
    """Each `x` left its thread in the stuck navigator; after six, no walk started at all (issue 38, point 4)."""
    monkeypatch.setattr(pulling, "GRACE_SECONDS", 0.3)
    navigator = Stuck()
    app = make_app("refunds", navigator=navigator, start_walk=True)
    said = "the navigator has not returned after 0.3 s: it ignores the cancellation token"
    try:
        async with app.run_test(size=SIZE) as pilot:
            for number in range(1, 8):  # more stuck walks than the app's pool of worker threads (6 on two cores)
                if number > 1:
                    await pilot.press("r")
                    await wait_for(pilot, lambda n=number: len(app.walks) == n)
                calls = navigator.calls
                await pilot.press("c")
                await wait_for(pilot, lambda c=calls: navigator.calls > c)
                await pilot.press("x")
                await wait_for(pilot, lambda n=number: [note.message for note in app.notes].count(said) == n)
                assert app.walk_screen.view.history.end == "cancelled"
            navigator.stuck = False
            await pilot.press("r")
            await wait_for(pilot, lambda: len(app.walks) == 8)
            await pilot.press("c")
            await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
            assert [note.severity for note in app.notes if note.message == said] == ["warning"] * 7
            assert [walk.history.end for walk in app.walks] == ["cancelled"] * 7 + ["finished"]
    finally:
        navigator.never.set()


async def test_a_py_navigator_that_prints_walks_on_in_the_explorer(tmp_path):
    """Its prints go to stderr on its thread; under the explorer, where Textual captures print() and its write
    returns None, the stream's own answer is handed back (an int() of it failed every later decision)."""
    (tmp_path / "prints.py").write_text(
        "from core import NavigatorChoice, TreeNavigator\n\n\nclass Prints(TreeNavigator):\n"
        "    def supports(self, model):\n        return False\n\n"
        "    def choose(self, request):\n        print('choosing')\n"
        "        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), 'the first')\n")
    model = f"py:{tmp_path / 'prints.py'}:Prints"
    navigator = resolve_navigator(model)
    app = make_app("refunds", model=model, navigator=navigator, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        print("the explorer's own print, after the navigator's")
        assert app.walk_screen.view.history.end == "finished", app.walk_screen.view.history.error
