"""Two explorers in one process: each has its own decision desk, its own local-model listeners and its own
observers, handed to the walks it starts (no module keeps them, so neither answers or hears the other's)."""

from __future__ import annotations

import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.ending import WalkEnd
from explorer.navigators.local_model import LocalModelNavigator
from explorer.navigators.manual import ManualNavigator, NoOneToDecide
from explorer.trace import FinishedWalk

from ..navigators.conftest import MODEL, model_missing
from .helpers import SIZE, make_app, wait_for
from .reading import step_text


async def test_two_explorers_have_their_own_decision_desks():
    first = make_app("refunds", model="manual:", start_walk=True)
    second = make_app("refunds", model="manual:")
    assert first.wiring.desk is not None and second.wiring.desk is not None
    assert first.wiring.desk is not second.wiring.desk
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: "Your choice:" in step_text(first))  # the first's desk reached its screen
        shown = first.walk_screen.view.walk
        assert shown is not None and isinstance(shown.navigator, ManualNavigator)
        assert shown.navigator.desk is first.wiring.desk
        waiting = second.walk_screen.next_walk.navigator
        assert isinstance(waiting, ManualNavigator) and waiting.desk is second.wiring.desk
        request = NavigatorRequest("q", "manual:", None, (NodeView("a", "A", ""),), 5, CancellationToken())
        with pytest.raises(NoOneToDecide, match="needs the explorer to supply decisions"):
            waiting.choose(request)  # the first explorer listens at its own desk, not at the second's


async def test_two_explorers_tell_their_own_observers():
    told: dict[str, list[WalkEnd]] = {"first": [], "second": []}

    def observer(name: str):
        def observe(walk: FinishedWalk) -> None:
            told[name].append(walk.end)

        return observe

    first = make_app("How are refunds issued?", start_walk=True, observers=[observer("first")])
    second = make_app("How are refunds issued?", start_walk=True, observers=[observer("second")])
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: told["first"] == [WalkEnd.FINISHED])
        await pilot.press("R")  # a re-walk is observed too (it is launched like every walk of the screen)
        await pilot.press("enter")
        await pilot.press("c")
        await wait_for(pilot, lambda: len(told["first"]) == 2)
    assert told == {"first": [WalkEnd.FINISHED, WalkEnd.FINISHED], "second": []}
    async with second.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: told["second"] == [WalkEnd.FINISHED])
    assert told == {"first": [WalkEnd.FINISHED, WalkEnd.FINISHED], "second": [WalkEnd.FINISHED]}


@pytest.mark.skipif(model_missing() is not None, reason=model_missing() or "")
def test_two_explorers_hear_their_own_local_models():
    first, second = make_app("q", model=MODEL), make_app("q", model=MODEL)
    assert first.wiring.hearing is not None and second.wiring.hearing is not None
    assert first.wiring.hearing is not second.wiring.hearing
    for app in (first, second):
        navigator = app.walk_screen.next_walk.navigator
        assert isinstance(navigator, LocalModelNavigator) and navigator.hearing is app.wiring.hearing
