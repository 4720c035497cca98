"""On a screen too narrow for every key, the footer keeps the keys a walk cannot do without, close together, so none is cut; the
others stay in the help and the palette, and come back when the screen widens."""

from __future__ import annotations

from explorer.tui.widgets.walk_footer import WalkFooter

from .helpers import SIZE, make_app, script, wait_for

ESSENTIAL = ["n", "c", "p", "b", "x", "e", "question_mark", "q", "ctrl+p"]
EVERY = ["n", "c", "p", "b", "f", "x", "r", "e", "D", "w", "slash", "question_mark", "q", "P", "ctrl+p"]


def footer_keys(app) -> list[str]:
    # Textual's key widget is private (textual.widgets._footer): found by its CSS type name, read by its public fields.
    return [key.key for key in app.walk_screen.query_one(WalkFooter).query("FooterKey")]


def footer_fits(app) -> bool:
    """Every key ends before the palette's, docked at the right, begins (a longer row is drawn under it, cut)."""
    keys = list(app.walk_screen.query_one(WalkFooter).query("FooterKey"))
    palette = next(key for key in keys if key.key == "ctrl+p")
    return all(key.region.right <= palette.region.x for key in keys if key is not palette)


async def test_at_80_columns_the_footer_shows_the_essential_keys_whole_and_all_of_them_when_wider():
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: footer_keys(app) == ESSENTIAL)
        assert app.walk_screen.query_one(WalkFooter).compact
        assert footer_fits(app)
        await pilot.press("P")  # presenting has its own few keys, narrow or not
        await wait_for(pilot, lambda: footer_keys(app) == ["n", "p", "b", "question_mark", "q", "P", "ctrl+p"])
        await pilot.press("P")
        await wait_for(pilot, lambda: footer_keys(app) == ESSENTIAL)
        await pilot.resize_terminal(130, 30)  # wider, but not wide enough for all of them: still the essentials
        await wait_for(pilot, lambda: app.size.width == 130)
        assert footer_keys(app) == ESSENTIAL and footer_fits(app)
        await pilot.resize_terminal(150, 30)
        await wait_for(pilot, lambda: footer_keys(app) == EVERY)
        assert not app.walk_screen.query_one(WalkFooter).compact
        assert footer_fits(app)


async def test_at_80_columns_an_open_pick_shows_its_own_keys_whole():
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.view.history.decision_at() is not None
                       and app.walk_screen.view.history.decision_at().answer is not None)
        await pilot.press("e")  # the fork picker
        picking = ["x", "question_mark", "q", "a", "s", "i", "escape", "ctrl+p"]
        await wait_for(pilot, lambda: footer_keys(app) == picking)
        assert footer_fits(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: footer_keys(app) == ESSENTIAL)


async def test_a_live_walks_events_leave_the_footer_as_it_is_and_a_pick_redraws_it():
    """Textual's footer rebuilds every key whenever the screen's bindings may have changed; each event of a walk
    did so (32 rebuilds in a walk of 13 events). The footer's keys are now the same widgets from the walk's first
    event to its last, and are drawn anew only when what they show changes: here, when a pick opens."""
    app = make_app("How are refunds issued?", model=script("wide-walk-out-of-visits.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: footer_keys(app) == EVERY)
        drawn = list(app.walk_screen.query_one(WalkFooter).query("FooterKey"))
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        assert len(app.walk_screen.view.history.events) > 10
        await pilot.pause()
        assert [id(key) for key in app.walk_screen.query_one(WalkFooter).query("FooterKey")] == [id(key) for key in drawn]
        await pilot.press("home", "n", "n", "n")
        await wait_for(pilot, lambda: (decision := app.walk_screen.view.history.decision_at()) is not None
                       and decision.answer is not None)
        await pilot.press("e")  # the fork picker: its keys join the footer
        await wait_for(pilot, lambda: {"a", "s", "i"} <= set(footer_keys(app)))
