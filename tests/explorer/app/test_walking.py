"""The explorer, driven by keys: starting, stepping, continuing, playing, going back and forth."""

from __future__ import annotations

import pytest

from core import EMPTY_PATH, CandidatesOffered, NavigatorChose, WalkStarted
from explorer.tui.messages import WalkEventArrived
from explorer.tui.widgets.budget_meter import BudgetMeter
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.session import SessionEvent
from explorer.walks.state import Mark

from .helpers import SIZE, Blocking, Counting, make_app, script, wait_for
from .reading import (
    landed_content,
    landed_rows,
    meter_text,
    next_settings,
    results_summary,
    status_text,
    step_text,
    stop_rows,
)

EXAMPLE = "How long do refunds take to arrive?"


async def test_the_example_query_is_typed_over_by_a_first_key_and_kept_by_an_arrow():
    """The example is there to walk or to replace: the first letter typed replaces it (it was appended to);
    an arrow key first keeps it, to be edited."""
    app = make_app(example_query=EXAMPLE)
    async with app.run_test(size=(80, 24)) as pilot:
        query = app.query_one("#query")
        assert app.focused is query and query.value == EXAMPLE
        await pilot.press(*"Who pays VAT?")
        assert query.value == "Who pays VAT?"
    app = make_app(example_query=EXAMPLE)
    async with app.run_test(size=(120, 40)) as pilot:
        query = app.query_one("#query")
        await pilot.press("end", *" Quickly?")
        assert query.value == EXAMPLE + " Quickly?"


async def test_the_query_box_starts_a_paused_walk_and_stepping_shows_each_offer_and_choice_to_the_end():
    """One app from its start:

    - the query box is focused with an example, and Enter starts a paused walk (nothing pulled without a key);
    - stepping shows each offer and choice, then continue runs to the end.
    """
    app = make_app(example_query=EXAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        query = app.query_one("#query")
        assert app.focused is query and query.value == EXAMPLE
        assert status_text(app) == "no walk yet · type a question and press Enter"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 1)
        assert isinstance(app.walk_screen.view.history.events[0], WalkStarted)
        assert isinstance(app.focused, WalkTree)
        step = step_text(app)
        assert "Step 1/1  walk started · budget 15 · depth limit 6 · on failure throw" in step
        assert "Press n to see the first offer." in step
        session = app.walk_screen.view.session
        await wait_for(pilot, lambda: session.waiting)  # its worker is parked at the gate, with no permit left
        assert len(app.walk_screen.view.history.events) == 1  # paused: nothing more is pulled without a key

        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 2)
        step = step_text(app)
        assert "Step 2/2  offered 9 roots" in step
        assert "Offered 9 roots at depth 0 · 15 visits left · 1,003 chars shipped" in step
        assert "?  Billing  billing" in step
        tree = app.query_one(WalkTree)
        assert tree.marks["billing"] is Mark.OFFERED
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 3)
        step = step_text(app)
        assert "navigator chose billing" in step
        # lexical scored billing alone: its bar and figure; the rest unscored
        assert "✓  ██████ 1.00  Billing  billing  Invoices" in step and "✗    –          Plans and pricing  plans" in step
        assert "Why     matched billing 1.99 (refund)" in step
        assert tree.marks["billing"] is Mark.CHOSEN and tree.marks["plans"] is Mark.REJECTED
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert ("finished (not cancelled) · visits used 3/15 · navigator calls 3 · characters shipped 2,100"
                in results_summary(app))
        assert meter_text(app).splitlines()[0] == "Visits ██████░░░░░░░░░░░░░░░░░░░░░░░░ 3/15 used · 12 left"
        assert landed_rows(app)[0][1:3] == ["Refund delivery", "leaf"]
        assert "Refunds go back to the payment method used for the original charge" in landed_content(app)
        assert tree.marks["refund-delivery"] is Mark.LANDED
        assert tree.node_for("refund-delivery") is not None  # revealed on the tree


@pytest.mark.parametrize("key", ["n", "c", "p"])
async def test_n_c_and_p_with_no_walk_running_start_one_on_the_current_query(key):
    app = make_app(example_query=EXAMPLE)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # leave the query box
        assert isinstance(app.focused, WalkTree)
        await pilot.press(key)
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None and len(app.walk_screen.view.history.events) >= 1)
        assert app.walk_screen.view.history.settings.query == EXAMPLE
        if key == "c":
            await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        if key == "p":
            assert app.walk_screen.view.playing
            await pilot.press("p")
            assert not app.walk_screen.view.playing


async def test_one_walk_stepped_to_its_end_then_read_back_through_its_history():
    """One app, one walk of "How are refunds issued?":

    - choice events carry the rationale to the screen: how long the navigator took, beside its first choice;
    - b, B, f, n and F step back and forward through the history without calling the navigator;
    - continue while viewing history goes to the latest step without a new walk;
    - the timeline lists every event, and choosing one shows that step.
    """
    navigator = Counting()
    app = make_app("How are refunds issued?", navigator=navigator, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: any(isinstance(e, NavigatorChose) for e in app.walk_screen.view.history.events))
        assert "0.00 s" in step_text(app)  # how long the navigator took, beside its choice

        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        calls, total = navigator.calls, len(app.walk_screen.view.history.events)
        assert (calls, total) == (3, 12)
        await pilot.press("b", "b", "b")
        assert app.walk_screen.view.history.cursor == total - 3
        assert status_text(app).startswith(f"viewing step {total - 3} of {total} · f forward · F latest")
        assert step_text(app).startswith(f"Step {total - 3}/{total}")
        assert "(as of step 9)" in results_summary(app)
        await pilot.press("B")
        assert app.walk_screen.view.history.cursor == 1
        assert step_text(app).startswith("Step 1/12  walk started")
        await pilot.press("f", "f")
        assert app.walk_screen.view.history.cursor == 3 and step_text(app).startswith("Step 3/12  navigator chose billing")
        assert app.query_one(WalkTree).marks["billing"] is Mark.CHOSEN
        await pilot.press("n")  # n walks forward through history while behind
        assert app.walk_screen.view.history.cursor == 4
        await pilot.press("F")
        assert app.walk_screen.view.history.cursor == total
        assert navigator.calls == calls and len(app.walk_screen.view.history.events) == total

        session = app.walk_screen.view.session
        await pilot.press("b", "b", "c")
        assert app.walk_screen.view.session is session
        assert app.walk_screen.view.history.cursor == total == len(app.walk_screen.view.history.events)

        timeline = app.query_one("#timeline")
        assert timeline.option_count == len(app.walk_screen.view.history.events) + 1 == 13  # every event, then how it ended
        assert str(timeline.get_option_at_index(12).prompt).strip() == "end  walk finished after step 12"
        await pilot.click("#tabs Tab#--content-tab-tab-timeline")
        timeline.focus()
        timeline.highlighted = 1
        await pilot.press("enter")
        assert app.walk_screen.view.history.cursor == 2
        assert step_text(app).startswith("Step 2/12  offered 9 roots")


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_play_advances_by_itself_and_the_pace_changes():
    navigator = Blocking()  # holds the walk at its first decision: it cannot be over before its status is read
    app = make_app("How are refunds issued?", navigator=navigator, start_walk=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("minus")  # slower, then faster twice: 1.0 -> 1.5 -> 1.0 -> 0.5
            await pilot.press("plus", "plus")
            assert app.walk_screen.pace == 0.5
            await pilot.press(*["minus"] * 5)
            assert app.walk_screen.pace == 5.0  # the slowest: the meter can be read while the walk plays
            await pilot.press("p")
            meter = app.walk_screen.query_one(BudgetMeter)
            assert str(meter.content).splitlines()[-1] == "playing · 5 s per step · p pauses"
            await pilot.press("plus")
            assert str(meter.content).splitlines()[-1] == "playing · 3 s per step · p pauses"  # faster while it plays
            await pilot.press(*["plus"] * 6)
            assert app.walk_screen.pace == 0.1
            await wait_for(pilot, lambda: navigator.inside.is_set())  # it played on by itself to the first decision
            assert str(meter.content).splitlines()[-1] == "playing · 0.1 s per step · p pauses"
            navigator.release.set()
            await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
            await wait_for(pilot, lambda: not app.walk_screen.view.playing)
            assert app.walk_screen.view.history.cursor == len(app.walk_screen.view.history.events) == 12
    finally:
        navigator.release.set()


async def test_messages_from_a_replaced_walk_are_ignored():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 1)
        old = app.walk_screen.view.session.id
        await pilot.press("r")
        await wait_for(pilot, lambda: app.walk_screen.view.session.id != old and len(app.walk_screen.view.history.events) == 1)
        stale = CandidatesOffered(None, EMPTY_PATH, (), 15, 0, 0)
        app.walk_screen.post_message(WalkEventArrived(SessionEvent(old, 2, stale)))  # where the walks' workers post theirs
        await pilot.press("n")  # the new walk's own next event comes after it
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 2)
        offered = app.walk_screen.view.history.events[1]
        assert offered is not stale and isinstance(offered, CandidatesOffered) and len(offered.candidates) == 9


async def test_restart_with_a_smaller_budget():
    app = make_app("How are refunds issued?", model=script("wide-walk-out-of-visits.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("v")
        await pilot.press("4", "enter")  # the current value is selected: typing replaces it
        assert app.walk_screen.next_walk.settings.max_nodes_visited == 4
        assert next_settings(app).startswith("next walk: ") and "budget 4 · depth limit 6" in next_settings(app)
        await pilot.press("r", "c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert meter_text(app).splitlines()[0].endswith(" 4/4 used · 0 left")
        stops = [(s.reason.value, s.branch) for s in app.walk_screen.view.history.state().stops]
        assert stops[-2:] == [("visit_budget_exhausted", "billing"), ("visit_budget_exhausted", "accounts")]


async def test_depth_limit_and_follow_toggle():
    app = make_app("q", model=script("depth-limit.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("d", "2", "enter", "r", "c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert [(s.reason.value, s.landed) for s in app.walk_screen.view.history.state().stops] == [("max_depth", "refund-exceptions")]
        assert [row[1] for row in stop_rows(app)] == ["max_depth"]  # the results say why it stopped
        await pilot.press("t")
        assert not app.query_one(WalkTree).follow


async def test_autoplay_plays_the_walk_by_itself_for_a_demo():
    app = make_app("How are refunds issued?", start_walk=True, autoplay=0.1)
    async with app.run_test(size=SIZE) as pilot:
        assert app.walk_screen.view.playing
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        await wait_for(pilot, lambda: not app.walk_screen.view.playing)
        assert app.walk_screen.view.history.cursor == len(app.walk_screen.view.history.events) == 12
        assert results_summary(app).startswith("finished (not cancelled)")
