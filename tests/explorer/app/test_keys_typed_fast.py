"""Keys typed faster than the screen draws: every key after one that opens a prompt belongs to the prompt, a
prompt key that opens nothing lets the next keys through, and quick steps all count, in order."""

from __future__ import annotations

import asyncio

from textual import events

from explorer.tui.screens.prompt import PromptClosed, PromptReady, PromptScreen
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import SIZE, evaluation_open, make_app, wait_for


def burst(app, *keys: str) -> None:
    """Keys as a terminal delivers fast typing: all queued at once, before any is handled."""
    characters = {"enter": "\r", "escape": "\x1b"}
    for key in keys:
        app.post_message(events.Key(key, characters.get(key, key if len(key) == 1 else None)))


async def test_every_key_typed_after_opening_a_prompt_belongs_to_it_however_fast():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        burst(app, "v", "7", "enter")
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited == 7 and not isinstance(app.screen, PromptScreen))
        burst(app, "d", "2", "enter", "v", "3", "enter")
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited == 3)
        assert app.walk_screen.next_walk.settings.max_depth == 2 and not isinstance(app.screen, PromptScreen)
        assert isinstance(app.focused, WalkTree)


async def test_a_prompt_key_that_opens_nothing_lets_the_next_keys_through():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "i", "n")  # i types an id only while picking: here it opens nothing, and n must still step
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 2)
        assert not isinstance(app.screen, PromptScreen)


async def test_quick_next_presses_are_all_honoured_in_order():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 1)
        await pilot.press("n", "n", "n", "n", "n")
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 6)
        assert app.walk_screen.view.history.cursor == 6


async def test_keys_typed_after_the_prompt_took_the_held_ones_go_straight_to_it():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        burst(app, "v", "7")  # the 7 is held while the prompt opens, then handed to it
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen)
                       and app.screen.query_one("#prompt-input").value == "7")
        burst(app, "5", "enter")  # typed once the prompt has the focus (a terminal's second chunk): straight to it
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))
        assert app.walk_screen.next_walk.settings.max_nodes_visited == 75


def typed_when(app, kind, *keys: str):
    """A message hook that, the first time the app is handed a ``kind`` message, types ``keys`` (as a burst): they
    reach the app's queue ahead of whatever it posts while handling that message, as a terminal's next chunk can."""
    typed: list[bool] = []

    def hook(message) -> None:
        if isinstance(message, kind) and not typed:
            typed.append(True)
            burst(app, *keys)

    return hook


async def test_keys_that_come_while_the_held_ones_are_handed_to_the_prompt_follow_them():
    app = make_app("refund")
    async with app.run_test(size=SIZE, message_hook=typed_when(app, PromptReady, "5", "enter")) as pilot:
        await pilot.press("escape")
        burst(app, "v", "7")  # the 7 is held while the prompt opens; the 5 and Enter come as it is handed over
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited != 15)
        assert app.walk_screen.next_walk.settings.max_nodes_visited == 75
        assert not isinstance(app.screen, PromptScreen)


async def test_keys_that_come_as_a_prompt_closes_follow_the_keys_held_behind_it():
    app = make_app("refund")
    async with app.run_test(size=SIZE, message_hook=typed_when(app, PromptClosed, "2", "enter")) as pilot:
        await pilot.press("escape")
        burst(app, "v", "7", "enter", "d")  # d waits for the budget prompt to close; the 2 and Enter come as it does
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_depth != 6)
        assert app.walk_screen.next_walk.settings.max_depth == 2
        assert app.walk_screen.next_walk.settings.max_nodes_visited == 7 and not isinstance(app.screen, PromptScreen)


async def test_escape_ctrl_p_enter_ctrl_p_enter_typed_fast_closes_the_palette_once_and_the_explorer_goes_on():
    """Typed in a blink, the second Enter was still queued to a palette that had closed: it dismissed again and
    popped the walk screen itself (ScreenStackError, the app and its walks gone). A plain Textual app does the
    same under load; the explorer's screens close once."""
    app = make_app("")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        for key in ("escape", "ctrl+p", "enter", "ctrl+p", "enter"):  # each as soon as the app has looked up
            burst(app, key)
            await asyncio.sleep(0)
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
        await pilot.press("n")  # the explorer still takes keys
        assert app.is_running and app.screen_stack == [app.walk_screen]


async def test_enter_typed_twice_in_a_prompt_closes_only_the_prompt():
    app = make_app("")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        for key in ("v", "7", "enter", "enter"):  # the second Enter reaches the prompt before it has closed
            burst(app, key)
            await asyncio.sleep(0)
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited == 7)
        await pilot.press("n")  # the explorer still takes keys
        assert app.is_running and app.screen_stack == [app.walk_screen]


async def test_enter_twice_on_an_evaluation_row_opens_the_walk_once_and_the_explorer_goes_on():
    """The evaluation's row, compare and back actions popped the screen on top themselves: a second Enter queued
    as the first closed it popped the walk screen (ScreenStackError)."""
    app = make_app("")
    async with app.run_test(size=SIZE) as pilot:
        await evaluation_open(pilot, app)
        walks = len(app.walks)
        for key in ("enter", "enter"):
            burst(app, key)
            await asyncio.sleep(0)
        await wait_for(pilot, lambda: app.screen is app.walk_screen and len(app.walks) == walks + 1)
        await pilot.press("n")  # the explorer still takes keys
        assert app.is_running and app.screen_stack == [app.walk_screen] and len(app.walks) == walks + 1
