"""`H` (and the palette's "Export"): the walk on screen as one HTML file, written by the real `export` command; with
files off it is refused in one line, like every key that writes a file."""

from __future__ import annotations

from textual.widgets import Input

from explorer.tui.screens.prompt import PromptScreen

from .helpers import make_app, wait_for

QUERY = "How are refunds issued?"


async def walked_to_the_end(pilot) -> None:
    screen = pilot.app.walk_screen
    await wait_for(pilot, lambda: screen.history is not None and len(screen.history.events) == 1)
    await pilot.press("c")
    await wait_for(pilot, lambda: screen.history.ended)


async def test_files_off_refuses_the_export_in_one_line():
    app = make_app(QUERY, start_walk=True, allow_files=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await pilot.press("H")
        await wait_for(pilot, lambda: bool(app.notes))
        assert [n.message for n in app.notes] == ["Opening and saving files is off in this shared session."]
        assert not isinstance(app.screen, PromptScreen)


async def test_h_writes_the_walk_as_one_html_file(tmp_path):
    out = tmp_path / "refunds.html"
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        field = app.screen.query_one(Input)
        assert field.value == "how-are-refunds-issued.walk1.html"
        field.value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
        assert [n.message for n in app.notes if "export" in n.message] == [f"Walk exported to {out}"]
    text = out.read_text()
    assert "<title>How are refunds issued?</title>" in text and 'id="walk-data"' in text
