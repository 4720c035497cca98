"""Nothing a person reads is cut mid-word at 80x24 or 120x40: a prompt's question wraps at word boundaries (a long
query shortens at a space), the walk chooser keeps its title whole, and the Results tables' headings fit at 80, 120
and 140 columns. Each check is made at 80x24, then the terminal is resized in the same app (one app start) and
it is made again at the larger size: what is drawn follows the resize."""

from __future__ import annotations

from textual.widgets import DataTable, OptionList

from explorer.tui.screens.choose_walk import WalksScreen

from .helpers import make_app, resize, script, wait_for
from .reading import drawn_lines, option_prompts, table_rows

LONG = "How are refunds issued when a customer on an annual plan cancels their subscription in the middle?"


def lines(widget) -> list[str]:  # type: ignore[no-untyped-def]
    return [line.rstrip() for line in drawn_lines(widget)]


STABILITY_PROMPT = {
    (80, 24): ["Stability: walk 'How are refunds issued when a customer on an annual",
               "plan cancels their…' how many times? (2-1000)"],
    (120, 40): ["Stability: walk 'How are refunds issued when a customer on an annual plan",
                "cancels their…' how many times? (2-1000)"],
}


async def test_the_stability_prompt_wraps_its_question_and_shortens_the_query_at_a_space():
    app = make_app(LONG)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "S")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PromptScreen")
        for size, drawn in STABILITY_PROMPT.items():
            await resize(pilot, size)  # the prompt open
            assert lines(app.screen.query_one("#prompt-title")) == drawn, size


REWALK_PROMPT = {
    (80, 24): ["Re-walk walk 1 · “refunds” · script:wide-walk-out-of-visits.yaml ·",
               "budget 15 with a visit budget of (its decisions replayed; nodes it",
               "never judged are asked of script:wide-walk-out-of-visits.yaml, live)"],
    (120, 40): ["Re-walk walk 1 · “refunds” · script:wide-walk-out-of-visits.yaml · budget",
                "15 with a visit budget of (its decisions replayed; nodes it never judged",
                "are asked of script:wide-walk-out-of-visits.yaml, live)"],
}


async def two_walks(pilot, app):  # type: ignore[no-untyped-def]
    """Walk 1 to its end, then walk 2: a fork of it at billing (invoices instead of refunds), to its end."""
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
    original = app.walk_screen.view.history
    await pilot.press("B", "f", "f", "f", "f", "e", "5", "1", "a")
    await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)


CHOOSER_TITLE = {
    (80, 24): ["Walks of this session — Enter switches, type to filter, Escape",
               "closes"],
    (120, 40): ["Walks of this session — Enter switches, type to filter, Escape closes"],
}


async def test_the_walk_chooser_and_the_compare_chooser_keep_their_titles_whole():
    """One app, two walks (walk 2 a fork of walk 1), each chooser read while open at 80×24 and at 120×40 (the
    terminal resized with it open):

    - the walk chooser (w) keeps its title whole and highlights the walk on screen;
    - the compare chooser (D) opens on its first row, its title whole.
    """
    app = make_app("annual refund formula", model=script("depth-limit.yaml"), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await two_walks(pilot, app)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
        for size, title in CHOOSER_TITLE.items():
            await resize(pilot, size)  # the chooser open
            assert lines(app.screen.query_one("#walks-title")) == title, size
            options = app.screen.query_one(OptionList)
            assert options.has_focus and options.highlighted == 1  # the walk on screen: walk 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, WalksScreen))
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
        for size in ((120, 40), (80, 24)):
            await resize(pilot, size)  # the chooser open
            assert lines(app.screen.query_one("#walks-title")) == [
                "Compare walk 2 · fork of walk 1: at billing chose invoices with…"]
            options = app.screen.query_one(OptionList)
            assert options.has_focus and options.highlighted == 0
            assert option_prompts(options) == ["  walk 1 · “annual refund formula” · script:depth-limit.yaml · "
                                               "budget 15"]


HEADINGS = {
    (80, 24): ("#    landed node  stop reason  why", "stop  reason  at  branch  landed"),
    (120, 40): ("#    landed node                stop reason  why     depth  path",
                "stop  reason                  at       branch    landed    detail"),
    (140, 45): ("#    landed node                stop reason   why           depth  path",
                "stop  reason                  at           branch    landed        detail"),
}


async def test_the_results_tables_and_the_rewalk_prompt_are_never_cut_at_the_edge():
    """One app, a walk of wide-walk-out-of-visits to its end:

    - the Results tables' headings are never cut at the edge: too narrow for every cell, the columns shorten (the
      title last) and then the last ones go; every heading drawn is whole (before, the stops table's `detail` was
      cut to `det` at 140 columns). Drawn at 80x24, then at 120x40 and 140x45 as the terminal is resized: the
      columns are fitted again each time;
    - the re-walk prompt (R) wraps its question at word boundaries, at 80x24 and, resized with it open, at 120x40.
    """
    app = make_app("refunds", model=script("wide-walk-out-of-visits.yaml"), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        await pilot.pause()
        await headings_whole(pilot, (80, 24))
        await pilot.press("R")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PromptScreen")
        for size, drawn in REWALK_PROMPT.items():
            await resize(pilot, size)  # the prompt open
            assert lines(app.screen.query_one("#prompt-title")) == drawn, size
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
        for size in ((120, 40), (140, 45)):
            await resize(pilot, size)
            await headings_whole(pilot, size)


async def headings_whole(pilot, size: tuple[int, int]) -> None:
    """The Results tables at ``size``: their headings as ``HEADINGS`` has them, none past the table's edge, and the
    stops table's first row whole in the columns kept."""
    landed, stops = HEADINGS[size]
    landed_table = pilot.app.walk_screen.query_one("#landed-table", DataTable)
    stops_table = pilot.app.walk_screen.query_one("#stops-table", DataTable)
    await wait_for(pilot, lambda: lines(stops_table)[0].strip() == stops)  # fitted again after a resize
    assert lines(landed_table)[0].strip() == landed
    for widget in (landed_table, stops_table):
        assert len(lines(widget)[0]) <= widget.content_region.width  # nothing runs past the edge
    first = table_rows(stops_table)[0]
    # A shortened cell is whole in its row (a column that went is not in it: z gives the table the whole width).
    assert first == ["1", "leaf", "plans › free-plan", "-", "free-plan", ""][:len(stops.split())]
