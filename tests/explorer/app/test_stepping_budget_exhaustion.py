"""Stepping through budget exhaustion in the explorer: V goes to where the visits ran out, R walks the walk again with
another budget from its recorded decisions (no navigator call), and the step panel says when the navigator's pick
was capped by the visits left (issue 19, point 10)."""

from __future__ import annotations

from core import PathStopped, StopReason
from explorer.tui.screens.prompt import PromptScreen
from explorer.walks.history import Origin

from .helpers import SIZE, Counting, make_app, script, wait_for
from .reading import step_text

WIDE = script("wide-walk-out-of-visits.yaml")


async def walk_to_the_end(pilot, app) -> None:
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")


async def test_v_goes_to_the_step_where_the_budget_ran_out():
    app = make_app("what does it cost", model=WIDE, max_nodes_visited=6, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        history = app.walk_screen.history
        await pilot.press("B", "V")
        event = history.events[history.cursor - 1]
        assert isinstance(event, PathStopped) and event.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED
        assert history.cursor == history.budget_ran_out_at()
        assert app.notes[-1].message == (f"Step {history.cursor}: the 6-visit budget ran out here (b steps back to "
                                         "what spent it).")


async def test_v_on_a_walk_that_never_ran_out_says_so():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        cursor = app.walk_screen.history.cursor
        await pilot.press("V")
        assert app.walk_screen.history.cursor == cursor
        assert app.notes[-1].message.startswith("The visit budget did not run out in walk 1 · ")


async def test_r_re_walks_with_another_budget_from_the_record_without_calling_the_navigator():
    counting = Counting()
    app = make_app("how are refunds issued", navigator=counting, max_nodes_visited=2, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        original, calls = app.walk_screen.history, counting.calls
        assert original.budget_ran_out_at() is not None
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("end", "backspace", "8", "enter")
        await wait_for(pilot, lambda: app.walk_screen.history is not original)
        rewalked = app.walk_screen.history
        assert rewalked.origin is Origin.REWALK and rewalked.settings.max_nodes_visited == 8
        assert rewalked.name == "walk 2 · walk 1 re-walked with budget 8"
        await walk_to_the_end(pilot, app)
        assert counting.calls == calls  # every decision came from walk 1's record
        state = rewalked.state()
        judged = [d.node for d in original.decisions()]
        unjudged = [d for d in rewalked.decisions() if d.node not in judged]  # reached now, with more visits
        assert [d.answer.rationale for d in unjudged] == [f"walk 1 never judged {d.node!r}; stopping here"
                                                          for d in unjudged] and len(unjudged) == 1
        assert state.live_calls == 0 and state.replayed_answers == len(judged) + 1  # none needed a call
        assert original.settings.max_nodes_visited == 2 and len(app.walks) == 2  # the original is untouched


async def test_a_pick_capped_by_the_visits_left_is_said_in_the_step_panel():
    app = make_app("what does it cost", model=WIDE, max_nodes_visited=6, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walk_to_the_end(pilot, app)
        history = app.walk_screen.history
        capped = next(d for d in history.decisions() if d.capped_by_visits)
        history.go(capped.answer_seq)
        app.walk_screen.walk_changed()
        await wait_for(pilot, lambda: "capped by the visits left: " in step_text(app))
