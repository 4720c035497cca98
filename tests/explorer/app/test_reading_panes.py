"""Focus you can see, and panes you can read by keys (issue 27): Tab shows which pane has the focus, z gives the
focused pane the whole screen and back, PageUp/PageDown/Home/End scroll it, / searches in it, y and Y copy the
decision's request and raw answer byte for byte, and JSON in a transcript is shown pretty-printed.

Why PageDown "worked once, then nothing" at 120x40: Tab from the tree lands on the step panel's scroll, not the
transcript, and nothing showed it; the step panel had one page more, so PageDown scrolled it once; the next Tab lands
on the tab strip, where PageDown and End do nothing. The transcript's own scroll is the third Tab from the tree.
"""

from __future__ import annotations

import json

from textual.widget import Widget
from textual.widgets import Static, Tabs

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.walk_screen.pane_reading import PANE, lines_of

from .helpers import make_app, resize, wait_for
from .reading import transcript_text

SIZES = ((80, 24), (120, 40))
"""Each story is told at 80×24, then again in the same app after the terminal is resized to 120×40."""

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


async def tab_shows_the_focus(pilot) -> None:
    """Tab reaches the tree, the step panel and the transcript, each showing the focus; Shift+Tab from the
    transcript is the tab strip."""
    app = pilot.app
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


async def page_keys_read_the_transcript(pilot, size: tuple[int, int]) -> None:
    """z gives the transcript the whole screen; PageDown goes a page on each time, End to the raw answer, PageUp
    back, Home to the top; z gives the screen back."""
    app = pilot.app
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


async def slash_searches_the_transcript(pilot) -> None:
    """With the transcript on the whole screen (from its top), / NEEDLE goes to the first match, / Enter to the
    second; the query box is not touched; z gives the screen back. A second time round (after a resize, its lines
    drawn at the new width), the search goes on from its last match, the second: the first comes round again."""
    app = pilot.app
    screen = app.walk_screen
    pane = await focus_on(pilot, "transcript-scroll")
    await pilot.press("z")
    await wait_for(pilot, lambda: screen.maximized is pane)
    await pilot.press("home")
    await wait_for(pilot, lambda: pane.scroll_y == 0)
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
    await pilot.press("z")
    await wait_for(pilot, lambda: screen.maximized is None)


async def slash_is_the_query_box(pilot) -> None:
    """/ with no pane on the whole screen goes to the query box (and Escape leaves it again)."""
    app = pilot.app
    assert app.focused is not app.query_one("#query")
    await pilot.press("slash")
    assert app.focused is app.query_one("#query")
    await pilot.press("escape")  # out of the query box


async def json_is_pretty_and_y_copies_it(pilot) -> None:
    """At the first answer (on the Transcript tab), the raw answer's JSON is shown pretty-printed; Y copies the raw
    answer byte for byte, y the request; at the walk's start (B) there is no decision to copy."""
    app = pilot.app
    transcript = transcript_text(app)
    assert "answer  JSON, pretty-printed\n{\n  \"selected\": [\n    \"accounts\"\n  ]," in transcript
    assert raw_json(["accounts"]) not in transcript
    before = app.clipboard  # empty at first; after a first time round, the request it copied
    await pilot.press("Y")
    await wait_for(pilot, lambda: app.clipboard != before)
    assert app.clipboard == raw_json(["accounts"])  # as the model sent it, not as it is shown
    assert app.notes[-1].message == "Copied the raw answer of the decision at step 3: 57 characters."
    await pilot.press("y")
    await wait_for(pilot, lambda: app.clipboard != raw_json(["accounts"]))
    assert app.clipboard == f"system\n{SYSTEM}\n\nuser\n{USER}"
    await pilot.press("B")  # the walk's start: no decision there
    await pilot.press("Y")
    assert app.notes[-1].message == "No decision at this step: step to an offer's answer (n), then y or Y."


async def test_the_first_answer_read_by_keys_at_two_sizes():
    """One app, its first answer on the Transcript tab, read at 80×24, then again after the terminal is resized to
    120×40 (j back from the walk's start to the answer). Each time round:

    - every pane Tab reaches shows that it has the focus (``tab_shows_the_focus``);
    - z gives the transcript the whole screen and the page keys read it to the raw answer
      (``page_keys_read_the_transcript``);
    - / searches in the pane on the whole screen and Enter again goes to the next match
      (``slash_searches_the_transcript``);
    - / without a pane on the whole screen is still the query box (``slash_is_the_query_box``);
    - JSON is shown pretty-printed, and y and Y copy the request and the raw answer byte for byte; at the walk's
      start there is nothing to copy (``json_is_pretty_and_y_copies_it``).
    """
    app = long_app()
    async with app.run_test(size=SIZES[0]) as pilot:
        await first_answer(pilot)
        for size in SIZES:
            if size != SIZES[0]:
                await resize(pilot, size)
                await pilot.press("j")  # from the walk's start (B) to the first answer again, on the Transcript tab
                await wait_for(pilot, lambda: app.walk_screen.view.history.cursor == 3 and transcript_text(app) != "")
            await tab_shows_the_focus(pilot)
            await page_keys_read_the_transcript(pilot, size)
            await slash_searches_the_transcript(pilot)
            await slash_is_the_query_box(pilot)
            await json_is_pretty_and_y_copies_it(pilot)


async def z_gives_a_pane_the_whole_screen(pilot, size: tuple[int, int], focus: str, pane: str) -> None:
    """z with the focus on ``#focus`` gives ``#pane`` the whole screen, and gives it back, the focus kept."""
    app = pilot.app
    screen = app.walk_screen
    await focus_on(pilot, focus)
    await pilot.press("z")
    await wait_for(pilot, lambda: screen.maximized is screen.query_one(f"#{pane}"))
    assert screen.maximized.size.height >= size[1] - 4
    await pilot.press("z")
    await wait_for(pilot, lambda: screen.maximized is None)
    assert app.focused is not None and app.focused.id == focus  # the focus stays where it was


async def test_z_gives_the_step_panel_the_results_and_the_tree_the_whole_screen_too():
    """One app at the walk's end: z on the step panel, the Results and the tree, at 80×24, then again after the
    terminal is resized to 120×40."""
    app = long_app()
    async with app.run_test(size=SIZES[0]) as pilot:
        await pilot.press("c")  # the whole walk: the Results tab holds what landed
        await wait_for(pilot, lambda: app.walk_screen.view.history.ended)
        for size in SIZES:
            await resize(pilot, size)
            for focus, pane in (("step-scroll", "step-scroll"), ("landed-table", "results"), ("tree", "tree")):
                await z_gives_a_pane_the_whole_screen(pilot, size, focus, pane)
