"""What is typed in a prompt is checked: refused with the reason shown whole (odd digits, unknown navigators,
markup, bad paths), never a crash."""

from __future__ import annotations

from explorer.tui.screens.prompt import PromptScreen

from .helpers import SIZE, make_app, wait_for
from .reading import next_settings, prompt_error, text_at


async def test_a_unicode_digit_is_refused_with_a_reason_not_a_crash():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "v", "²", "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert isinstance(app.screen, PromptScreen)
        assert "'²' is not a whole number." in prompt_error(app)
        await pilot.press("escape", "d", "٣", "enter")
        assert isinstance(app.screen, PromptScreen) and app.walk_screen.next_walk.settings.max_depth == 6


async def test_switching_navigator_from_the_prompt_checks_it(tmp_path):
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"nobody:x", "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert isinstance(app.screen, PromptScreen)
        assert "no navigator supports 'nobody:x'" in prompt_error(app)
        app.screen.query_one("#prompt-input").value = "lexical:strict"
        await pilot.press("enter")
        assert app.walk_screen.next_walk.settings.model == "lexical:strict"
        assert "next walk: lexical:strict · budget 15" in next_settings(app)


async def test_navigator_suggestions_are_all_usable_and_errors_are_shown_whole():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        assert not any("<" in s for s in prompt.suggestions)
        assert any(s.startswith("script:") and s.endswith("depth-limit.yaml") for s in prompt.suggestions)
        field = prompt.query_one("#prompt-input")
        field.value = "bogus:x"
        await pilot.press("enter")
        error = text_at(prompt, "#prompt-error")
        assert "bogus:x" in error and prompt.query_one("#prompt-error").size.height >= 1


async def test_markup_and_bad_paths_typed_in_prompts_never_crash_the_app(tmp_path):
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("#prompt-input").value = "script:/tmp/[/x].yaml"
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)  # refused, with the reason shown literally
        assert "[/x].yaml: no such navigator script" in prompt_error(app)
        await pilot.press("escape", "ctrl+e")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("#prompt-input").value = str(tmp_path / "missing" / "[b]x[/b].svg")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.notes) > 0)
        assert app.is_running
        assert "Cannot save" in app.notes[-1].message


async def test_a_number_prompt_hands_back_the_number_it_checked():
    """The prompt reads the number once (``numbers.whole``) and dismisses with it: a depth of 0 is a number, not
    an empty answer, and a sign or leading zeros are read as the number they are."""
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "d")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        app.screen.query_one("#prompt-input").value = "0"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))
        assert app.walk_screen.next_walk.settings.max_depth == 0
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        app.screen.query_one("#prompt-input").value = "+0042"
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))
        assert app.walk_screen.next_walk.settings.max_nodes_visited == 42
        assert "budget 42" in next_settings(app)
