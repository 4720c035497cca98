"""The manual navigator: a person picks, stops or types an id (even one not offered), the picker's keys show in
the footer, each walk's request waits for that walk, and the desk is let go when the app ends."""

from __future__ import annotations

import pytest

from core import CancellationToken, NavigatorChose, NavigatorRequest, NodeView
from explorer.tui.screens.prompt import PromptScreen

from .helpers import SIZE, make_app, wait_for
from .reading import footer_keys, status_text, step_text


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_manual_picking_choosing_stopping_and_typing_an_id_that_was_not_offered():
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None)
        step = step_text(app)
        assert "Your choice: 1-9 toggle · i type an id or a number (even one not offered) · a answer" in step
        assert " 3 [ ] Billing  billing" in step
        assert status_text(app).startswith("your turn: 1-9 pick · a answer")
        await pilot.press("3", "5", "5")  # billing on, support on then off
        assert app.walk_screen.view.picker.picked == ("billing",)
        assert " 3 [x] Billing  billing" in step_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.walk_screen.view.history.events[-1], NavigatorChose))
        assert app.walk_screen.view.history.events[-1].selected == ("billing",)
        assert app.walk_screen.view.history.events[-1].rationale == "picked by hand"
        await pilot.press("n", "n", "n")  # entered billing, offered its children, then the picker again
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"ghost", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.picker.picked == ("ghost",))
        assert "Typed   ghost" in step_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: app.walk_screen.view.history.events[-1].__class__ is NavigatorChose)
        assert app.walk_screen.view.history.events[-1].hallucinated == ("ghost",)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert [(s.reason.value, s.landed) for s in app.walk_screen.view.history.state().stops] == [("invalid_choice", "billing")]


async def test_manual_stop_here_lands_the_current_node():
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None)
        await pilot.press("s")
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert [(s.reason.value, s.landed) for s in app.walk_screen.view.history.state().stops] == [("navigator_stopped", None)]


async def test_manual_cancel_while_the_picker_waits():
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None)
        session = app.walk_screen.view.session
        await pilot.press("x")
        assert app.walk_screen.view.history.end == "cancelled" and app.walk_screen.view.picker is None
        assert app.walk_screen.view.session is None  # a cancelled walk keeps no live session
        await wait_for(pilot, lambda: session.over)


async def test_the_picker_keys_show_in_the_footer_when_the_navigator_asks_and_numbers_pick_beyond_nine():
    app = make_app("q", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None)
        await wait_for(pilot, lambda: "a Answer" in footer_keys(app.screen))  # the footer follows the bindings
        footer = footer_keys(app.screen)
        assert "a Answer" in footer and "s Stop here" in footer and "i Type id" in footer
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("9", "enter")  # a candidate's number works in the prompt too
        assert app.walk_screen.view.picker.picked == ("offboarding",)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.walk_screen.view.history.events[-1], NavigatorChose))
        assert app.walk_screen.view.history.events[-1].selected == ("offboarding",)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_the_manual_navigators_request_waits_for_its_own_walk_and_is_never_answered_for_you():
    app = make_app("How are refunds issued?", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # walk 1: the roots are offered, the person is asked
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None)
        first = app.walk_screen.view.history
        await pilot.press("3", "a")  # billing
        await pilot.press("n", "n", "n")  # entered billing, its children offered, the person asked again
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None and len(app.walk_screen.view.picker.candidates) == 6)
        await pilot.press("r", "n", "n")  # walk 2 waits at the roots
        await wait_for(pilot, lambda: app.walk_screen.view.history is not first and app.walk_screen.view.picker is not None
                       and len(app.walk_screen.view.picker.candidates) == 9)
        second = app.walk_screen.view.history
        await pilot.press("w", "up", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is first)
        assert app.walk_screen.view.picker is not None and len(app.walk_screen.view.picker.candidates) == 6  # walk 1's own request: billing's
        await pilot.press("5", "a")  # refunds, in walk 1
        await wait_for(pilot, lambda: any(getattr(e, "selected", None) == ("refunds",) for e in first.events))
        assert not any(getattr(e, "selected", None) for e in second.events)  # walk 2 still waits, unanswered
        await pilot.press("w", "down", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is second)
        assert app.walk_screen.view.picker is not None and len(app.walk_screen.view.picker.candidates) == 9


async def test_the_manual_desk_is_released_when_the_app_ends():
    from explorer.navigators.manual import NoOneToDecide

    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: "Your choice:" in step_text(app))  # the desk handed the request to the app
    request = NavigatorRequest("q", "manual:", None, (NodeView("a", "A", ""),), 5, CancellationToken())
    with pytest.raises(NoOneToDecide, match="needs the explorer to supply decisions"):
        app.wiring.desk.submit(request)  # nobody is listening any more: a later manual walk fails at once, it never hangs
