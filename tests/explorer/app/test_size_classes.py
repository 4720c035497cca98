"""The walk screen's size classes (``narrow``, ``compact`` or ``wide``; ``short`` or ``tall``), which its styles
follow, are set as it opens at the terminal's size, before its panes mount (so that the first resize changes no
class and the screen is not styled a second time), and follow each resize as Textual's breakpoints set them."""

from __future__ import annotations

import pytest

from explorer.tui.walk_screen.screen import WalkScreen, size_classes

from .helpers import make_app, resize

SIZE_CLASSES = {"narrow", "compact", "wide", "short", "tall"}


@pytest.mark.parametrize(("size", "expected"), [
    (79, ["narrow"]), (80, ["compact"]), (99, ["compact"]), (100, ["wide"]), (400, ["wide"]),
])
def test_a_width_is_at_the_highest_breakpoint_at_or_under_it(size: int, expected: list[str]) -> None:
    assert size_classes(size, WalkScreen.HORIZONTAL_BREAKPOINTS) == expected


def test_a_height_is_short_under_24_rows_and_no_breakpoint_gives_no_class() -> None:
    assert [size_classes(h, WalkScreen.VERTICAL_BREAKPOINTS) for h in (10, 23, 24, 60)] == [
        ["short"], ["short"], ["tall"], ["tall"]]
    assert size_classes(5, [(10, "ten"), (20, "twenty")]) == []


async def test_the_screen_opens_with_its_size_classes_and_a_resize_changes_them() -> None:
    app = make_app()
    async with app.run_test(size=(90, 23)) as pilot:
        assert set(app.walk_screen.classes) & SIZE_CLASSES == {"compact", "short"}
        await resize(pilot, (150, 40))
        assert set(app.walk_screen.classes) & SIZE_CLASSES == {"wide", "tall"}
        await resize(pilot, (60, 30))
        assert set(app.walk_screen.classes) & SIZE_CLASSES == {"narrow", "tall"}
