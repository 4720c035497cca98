"""Finding the keys: the help lists every key, the footer the main ones, the palette every action once; Escape
leaves the query box and / comes back to it."""

from __future__ import annotations

from textual.widgets.input import Selection

from explorer.tui.screens.help import HelpScreen
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import SIZE, make_app, wait_for
from .reading import all_text, footer_keys


async def test_the_keys_are_found_in_the_palette_the_query_box_the_footer_and_the_help():
    """One app from its start, its query box holding an example:

    - the palette has every action, one screenshot and one help;
    - Escape leaves the query box and / returns to it, its text selected: what is typed next replaces the query;
    - the footer shows the main keys once the focus is out of the query box;
    - the help lists every key and closes with Escape.
    """
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("Settings: switch navigator…", "Settings: set the visit budget…",
                       "Settings: set the depth limit…", "Trace: save the walk as a trace file…",
                       "Trace: open a trace and step through it…", "Screenshot: save an SVG of the screen…",
                       "Walk: cancel (trip the cancellation token)", "Settings: on failure partial"):
            assert any(t.startswith(wanted) for t in titles), wanted
        assert sum("Screenshot" in t for t in titles) == 1
        assert sum(t.startswith("Help") or t == "Keys" for t in titles) == 1
        assert any(t.startswith("Tree: find a node") for t in titles)

        assert app.focused.id == "query"
        await pilot.press("escape")
        assert isinstance(app.focused, WalkTree)
        await pilot.press("slash")
        query = app.query_one("#query")
        assert app.focused is query
        # The box selects its text as it takes the focus (Input.select_on_focus), so what is typed next replaces the
        # query; that happens when the box handles its Focus event, which a key pressed at once used to race.
        await wait_for(pilot, lambda: query.selection == Selection(0, len(query.value)))
        await pilot.press("n")  # typed into the box, not a step
        assert query.value == "n"
        assert app.walk_screen.view.session is None

        await pilot.press("escape")  # out of the query box, whose own keys the footer shows while it has focus
        await wait_for(pilot, lambda: "n Next" in footer_keys(app.screen))  # the footer follows the focus
        footer = footer_keys(app.screen)
        for key in ("n Next", "c Continue", "p Play", "b Back", "f Fwd", "x Cancel", "r Restart", "/ Query",
                    "? Help", "q Quit"):
            assert key in footer

        await pilot.press("question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen = all_text(app.screen)
        for text in ("Next step", "Continue to the end", "Step back through what already happened",
                     "Cancel the walk: trips its cancellation token", "toggle candidate 1-9",
                     "Go to the step where the visit budget ran out"):
            assert text in screen, text
        from rich.console import Console

        from explorer.tui.keymap import ALL_KEYS

        console = Console(width=200, record=True, file=__import__("io").StringIO())
        for table in app.screen.query("Static"):
            console.print(table.content)
        listed = " ".join(console.export_text().split())
        for key in ALL_KEYS:  # every key is in the help, scrolled to or not
            assert " ".join(key.help.split()) in listed, key.help
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)
