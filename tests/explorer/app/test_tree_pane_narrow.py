"""The tree pane made narrower than its rows by a resize (issue 45, user point 5): the "stray glyph" at its foot was
its horizontal scroll bar, the theme's navy thumb on a black track, of which only the thumb's end (``▍``) showed.
Rows wider than the pane stay reachable sideways (Textual's Tree never scrolls sideways with its cursor, so hiding
that overflow would put a deep branch out of reach), and the bar is one a person can see."""

from __future__ import annotations

from textual.color import Color
from textual.widgets import Tree

from .helpers import make_app, resize, wait_for

QUERY = "How long do refunds take to arrive?"


def luminance(color: Color) -> float:
    """WCAG's relative luminance."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
    return 0.2126 * channel(color.r) + 0.7152 * channel(color.g) + 0.0722 * channel(color.b)


def contrast(a: Color, b: Color) -> float:
    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


async def test_a_tree_pane_narrower_than_its_rows_shows_a_scroll_bar_you_can_see_and_scrolls_sideways() -> None:
    app = make_app(QUERY)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.press("escape", "c")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None
                       and app.walk_screen.view.history.end is not None)
        await resize(pilot, (60, 20))
        tree = app.screen.query_one("#tree", Tree)
        await wait_for(pilot, lambda: tree.size.width < tree.virtual_size.width)  # rows wider than the pane
        assert tree.show_horizontal_scrollbar and tree.horizontal_scrollbar.display
        track = tree.styles.scrollbar_background
        thumb = track + tree.styles.scrollbar_color  # as the scroll bar draws its thumb over its track
        # WCAG's least contrast for a part of the interface a person must see: the theme's navy on black was 1.6.
        assert contrast(thumb, track) >= 3, (thumb.hex, track.hex)
        tree.focus()
        await pilot.press("right", "right")  # sideways: what the pane cuts is reachable by keys
        await wait_for(pilot, lambda: tree.scroll_x > 0)
        await pilot.press("left", "left")
        await wait_for(pilot, lambda: tree.scroll_x == 0)
