"""Focus you can see, and panes you can read by keys (issue 27): Tab shows which pane has the focus, z gives the
focused pane the whole screen and back, PageUp/PageDown/Home/End scroll it, / searches in it, y and Y copy the
decision's request and raw answer byte for byte, and JSON in a transcript is shown pretty-printed.

Why PageDown "worked once, then nothing" at 120x40: Tab from the tree lands on the step panel's scroll, not the
transcript, and nothing showed it; the step panel had one page more, so PageDown scrolled it once; the next Tab lands
on the tab strip, where PageDown and End do nothing. The transcript's own scroll is the third Tab from the tree.
"""

from __future__ import annotations

import json

import pytest
from textual.widget import Widget
from textual.widgets import Static, Tabs

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.walk_screen.pane_reading import PANE, lines_of

from .helpers import make_app, sizes, wait_for
from .reading import transcript_text

SIZES = sizes((80, 24), (120, 40))

SYSTEM = "You walk a tree of documents. Answer with JSON."
USER = "\n".join(f"line {n:03}: candidate c{n} — a summary that fills the line" for n in range(1, 121)) + \
    "\nneedle in the middle\n" + "\n".join(f"tail {n:03}" for n in range(1, 61)) + "\nthe needle again at the end"


def raw_json(ids: list[str]) -> str:
    return json.dumps({"selected": ids, "rationale": "the first of them"}, separators=(",", ":"))


class LongTranscript(TreeNavigator):
    """The first candidate, with the long transcript an LLM's decision has: the messages sent, then the raw answer
    as one compact line of JSON."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        ids = [request.candidates[0].id]
        return NavigatorChoice(tuple(ids), "the first of them",
                               transcript=(("system", SYSTEM), ("user", USER), ("answer", raw_json(ids)),
                                           ("http", "200 after 1 attempt")))


def long_app():
    return make_app("How are refunds issued?", model="test:long", navigator=LongTranscript(), start_walk=True)


def looks(widget: Widget) -> tuple[object, ...]:
    styles = widget.styles
    return styles.border, styles.background_tint, styles.scrollbar_color


async def focus_on(pilot, wanted: str) -> Widget:
    """Tab until the widget ``#wanted`` has the focus (at most a round of the screen's focusable widgets)."""
    app = pilot.app
    for _ in range(12):
        if app.focused is not None and app.focused.id == wanted:
            return app.focused
        await pilot.press("tab")
    raise AssertionError(f"Tab never reached #{wanted}")


async def first_answer(pilot) -> None:
    """The first offer and its answer, then the Transcript tab."""
    app = pilot.app
    await pilot.press("n", "n")
    await wait_for(pilot, lambda: app.walk_screen.view.history.cursor == 3)
    await pilot.press("right_square_bracket")
    await wait_for(pilot, lambda: transcript_text(app) != "")


@pytest.mark.parametrize("size", SIZES)
async def test_every_pane_tab_reaches_shows_that_it_has_the_focus(size):
    app = long_app()
    async with app.run_test(size=size) as pilot:
        await first_answer(pilot)
        screen = app.walk_screen
        for wanted in ("tree", "step-scroll", "transcript-scroll"):
            pane = screen.query_one(f"#{wanted}")
            assert pane.has_class(PANE)
            pane.blur()
            await pilot.pause()
            unfocused = looks(pane)
            await focus_on(pilot, wanted)
            assert app.focused is pane and looks(pane) != unfocused, wanted
        strip = screen.query_one("#tabs").query_one(Tabs)
        await pilot.press("shift+tab")
        assert app.focused is strip  # the tab strip, between the step panel and the tab's content


@pytest.mark.parametrize("size", SIZES)
async def test_z_gives_the_transcript_the_whole_screen_and_page_keys_read_it_to_the_raw_answer(size):
    app = long_app()
    async with app.run_test(size=size) as pilot:
        await first_answer(pilot)
        screen = app.walk_screen
        pane = await focus_on(pilot, "transcript-scroll")
        await pilot.press("z")
        await wait_for(pilot, lambda: screen.maximized is pane)
        assert "Full screen: PageUp PageDown Home End scroll" in app.notes[-1].message
        assert pane.size.height >= size[1] - 4 and pane.size.width >= size[0] - 4  # the whole screen, its border
        assert pane.max_scroll_y > 2 * pane.size.height  # pages to read
        seen = [pane.scroll_y]
        for _ in range(3):  # each PageDown goes one page on, not once and then nothing
            await pilot.press("pagedown")
            await wait_for(pilot, lambda: pane.scroll_y > seen[-1])
            seen.append(pane.scroll_y)
        await pilot.press("end")
        await wait_for(pilot, lambda: pane.scroll_y == pane.max_scroll_y)
        bottom = pane.scroll_y
        await pilot.press("pageup")
        await wait_for(pilot, lambda: pane.scroll_y < bottom)
        await pilot.press("home")
        await wait_for(pilot, lambda: pane.scroll_y == 0)
        await pilot.press("z")
        await wait_for(pilot, lambda: screen.maximized is None)
        assert app.notes[-1].message == "The whole screen again."


@pytest.mark.parametrize("size", SIZES)
async def test_slash_searches_in_the_pane_on_the_whole_screen_and_enter_again_goes_to_the_next_match(size):
    app = long_app()
    async with app.run_test(size=size) as pilot:
        await first_answer(pilot)
        screen = app.walk_screen
        pane = await focus_on(pilot, "transcript-scroll")
        await pilot.press("z")
        await wait_for(pilot, lambda: screen.maximized is pane)
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*"NEEDLE", "enter")
        await wait_for(pilot, lambda: app.screen is screen and pane.scroll_y > 0)
        assert app.notes[-1].message == "'NEEDLE': match 1 of 2 (/ then Enter: the next)."
        first = pane.scroll_y
        transcript = pane.query_one("#transcript", Static)
        assert "needle in the middle" in lines_of(transcript)[int(first) - transcript.virtual_region.y]  # at the top
        await pilot.press("slash")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press("enter")  # the last search, offered again: the next match
        await wait_for(pilot, lambda: app.screen is screen and pane.scroll_y != first)
        assert app.notes[-1].message == "'NEEDLE': match 2 of 2 (/ then Enter: the next)."
        assert pane.scroll_y > first
        assert app.query_one("#query").value == "How are refunds issued?"  # the query box was not touched


@pytest.mark.parametrize("size", SIZES)
async def test_slash_without_a_pane_on_the_whole_screen_is_still_the_query_box(size):
    app = long_app()
    async with app.run_test(size=size) as pilot:
        await first_answer(pilot)
        await pilot.press("slash")
        assert app.focused is app.query_one("#query")


@pytest.mark.parametrize("size", SIZES)
async def test_json_is_shown_pretty_printed_and_y_and_Y_copy_it_byte_exact(size):
    app = long_app()
    async with app.run_test(size=size) as pilot:
        await first_answer(pilot)
        transcript = transcript_text(app)
        assert "answer  JSON, pretty-printed\n{\n  \"selected\": [\n    \"accounts\"\n  ]," in transcript
        assert raw_json(["accounts"]) not in transcript
        await pilot.press("Y")
        await wait_for(pilot, lambda: app.clipboard != "")
        assert app.clipboard == raw_json(["accounts"])  # as the model sent it, not as it is shown
        assert app.notes[-1].message == "Copied the raw answer of the decision at step 3: 57 characters."
        await pilot.press("y")
        await wait_for(pilot, lambda: app.clipboard != raw_json(["accounts"]))
        assert app.clipboard == f"system\n{SYSTEM}\n\nuser\n{USER}"
        await pilot.press("B")  # the walk's start: no decision there
        await pilot.press("Y")
        assert app.notes[-1].message == "No decision at this step: step to an offer's answer (n), then y or Y."


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize(("focus", "pane"), [("step-scroll", "step-scroll"), ("landed-table", "results"),
                                             ("tree", "tree")])
async def test_z_gives_the_step_panel_the_results_and_the_tree_the_whole_screen_too(focus, pane, size):
    app = long_app()
    async with app.run_test(size=size) as pilot:
        await pilot.press("c")  # the whole walk: the Results tab holds what landed
        await wait_for(pilot, lambda: app.walk_screen.view.history.ended)
        screen = app.walk_screen
        await focus_on(pilot, focus)
        await pilot.press("z")
        await wait_for(pilot, lambda: screen.maximized is screen.query_one(f"#{pane}"))
        assert screen.maximized.size.height >= size[1] - 4
        await pilot.press("z")
        await wait_for(pilot, lambda: screen.maximized is None)
        assert app.focused is not None and app.focused.id == focus  # the focus stays where it was
