"""Whatever the keys and their pace, the keyboard answers and `q` quits (issue 45, serious point 2).

A prompt key, then ctrl+p, then Enter typed in a blink left the explorer deaf: the keys after the prompt key were
handed to the prompt, ctrl+p opened the command palette over it, the Enter went to the palette, and every key after
waited for the prompt to answer an Enter it never had. Escape then `q` typed in a blink into an open prompt lost the
`q` to the closing prompt. The keys here are posted as a terminal delivers fast typing (all queued before any is
handled), or one as soon as the app has looked up."""

from __future__ import annotations

import asyncio

import pytest
from textual import events

from explorer.tui.key_holding import escape_and_key
from explorer.tui.screens.closing_once import Palette
from explorer.tui.screens.prompt import PromptScreen

from .helpers import SIZE, make_app, wait_for
from .test_keys_typed_fast import burst

PROMPT_KEYS = ("u", "v", "A", "m")


async def quits(pilot, app) -> None:  # type: ignore[no-untyped-def]
    await wait_for(pilot, lambda: not app.is_running)
    assert app.return_code == 0


@pytest.mark.parametrize("key", PROMPT_KEYS)
async def test_a_prompt_key_ctrl_p_enter_escape_q_in_one_burst_quits(key: str) -> None:
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) >= 1)
        burst(app, key, "ctrl+p", "enter", "escape", "q")
        await quits(pilot, app)


async def test_keys_typed_one_as_the_app_looks_up_still_let_escape_and_q_through() -> None:
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) >= 1)
        for key in ("u", "ctrl+p", "enter"):
            burst(app, key)
            await asyncio.sleep(0)
        await wait_for(pilot, lambda: not isinstance(app.screen, Palette))
        for _ in range(3):  # Escape closes what is open (the prompt under the palette), one screen a press
            if app.screen is app.walk_screen:
                break
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, (Palette, PromptScreen)) or app.screen.ready)
        assert app.screen is app.walk_screen
        await pilot.press("q")
        await quits(pilot, app)


async def test_the_prompt_under_a_closed_palette_takes_the_keys_held_behind_the_palette() -> None:
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        burst(app, "v", "ctrl+p", "escape", "7", "enter")  # the palette opens over the prompt and closes again
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited == 7)
        assert app.screen is app.walk_screen
        burst(app, "q")
        await quits(pilot, app)


async def test_escape_then_q_typed_in_a_blink_into_an_open_prompt_quits() -> None:
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "v")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        burst(app, "escape", "q")
        await quits(pilot, app)


async def test_enter_on_the_suggestions_with_no_row_highlighted_answers_and_q_then_quits() -> None:
    """Tab puts the focus on the navigator prompt's list with no row highlighted: Enter there gives the field's
    value (the keys typed after Enter wait until the prompt answers, so it must answer)."""
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        burst(app, "tab", "enter", "q")
        await quits(pilot, app)


def test_an_alt_key_is_the_escape_and_the_key_a_terminal_sent_within_its_escape_delay() -> None:
    def keys(event: events.Key) -> list[tuple[str, str | None]] | None:
        parts = escape_and_key(event)
        return None if parts is None else [(part.key, part.character) for part in parts]

    assert keys(events.Key("alt+q", "q")) == [("escape", "\x1b"), ("q", "q")]
    assert keys(events.Key("alt+shift+q", "Q")) == [("escape", "\x1b"), ("Q", "Q")]
    assert keys(events.Key("alt+slash", "/")) == [("escape", "\x1b"), ("slash", "/")]
    assert keys(events.Key("q", "q")) is None
    assert keys(events.Key("alt+up", None)) is None
    assert keys(events.Key("alt+backspace", "\x7f")) is None  # Input's own binding: not a typed key
    assert keys(events.Key("escape", "\x1b")) is None


@pytest.mark.parametrize("key", PROMPT_KEYS)
async def test_escape_and_q_that_come_as_one_alt_q_close_the_prompt_and_quit(key: str) -> None:
    """Escape then q typed within the terminal's escape delay reach the app as one key, alt+q."""
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) >= 1)
        await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        app.post_message(events.Key("alt+q", "q"))
        await quits(pilot, app)


async def test_alt_q_on_the_walk_screen_quits() -> None:
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        app.post_message(events.Key("alt+q", "q"))
        await quits(pilot, app)
