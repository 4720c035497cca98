"""What is typed in a prompt is checked: refused with the reason shown whole (odd digits, unknown navigators,
markup, bad paths), never a crash."""

from __future__ import annotations

from explorer.tui.screens.prompt import PromptScreen

from .helpers import SIZE, make_app, wait_for
from .reading import next_settings, prompt_error, text_at


async def closed(pilot) -> None:
    """Escape on the prompt on screen, and the walk screen back."""
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(pilot.app.screen, PromptScreen))


async def test_what_is_typed_in_each_prompt_is_checked(tmp_path):
    """One app, its prompts opened one after another (each refusal leaves the settings as they were):

    - a Unicode digit is refused with a reason, not a crash (v, then d);
    - the navigator prompt's suggestions are all usable, and its errors are shown whole;
    - markup and bad paths typed in prompts never crash the app (m, then ctrl+e);
    - switching navigator from the prompt checks it, then takes a good one;
    - a number prompt hands back the number it checked (a depth of 0, a budget of +0042).
    """
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "v", "²", "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert isinstance(app.screen, PromptScreen)
        assert "'²' is not a whole number." in prompt_error(app)
        await pilot.press("escape", "d", "٣", "enter")
        assert isinstance(app.screen, PromptScreen) and app.walk_screen.next_walk.settings.max_depth == 6
        await closed(pilot)

        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        prompt = app.screen
        assert not any("<" in s for s in prompt.suggestions)
        assert any(s.startswith("script:") and s.endswith("depth-limit.yaml") for s in prompt.suggestions)
        field = prompt.query_one("#prompt-input")
        field.value = "bogus:x"
        await pilot.press("enter")
        error = text_at(prompt, "#prompt-error")
        assert "bogus:x" in error and prompt.query_one("#prompt-error").size.height >= 1
        await closed(pilot)

        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("#prompt-input").value = "script:/tmp/[/x].yaml"
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)  # refused, with the reason shown literally
        assert "[/x].yaml: no such navigator script" in prompt_error(app)
        await pilot.press("escape", "ctrl+e")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        notes = len(app.notes)
        target = tmp_path / "missing" / "[b]x[/b].svg"
        app.screen.query_one("#prompt-input").value = str(target)
        await pilot.press("enter")  # refused under the field, shown literally: the gate's one line
        await wait_for(pilot, lambda: prompt_error(app) == (f"cannot save the screenshot to {target}: no folder "
                                                            f"{target.parent}"))
        assert app.is_running and len(app.notes) == notes
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))

        await pilot.press("m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"nobody:x", "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert isinstance(app.screen, PromptScreen)
        assert "no navigator supports 'nobody:x'" in prompt_error(app)
        app.screen.query_one("#prompt-input").value = "lexical:strict"
        await pilot.press("enter")
        assert app.walk_screen.next_walk.settings.model == "lexical:strict"
        assert "next walk: lexical:strict · budget 15" in next_settings(app)

        await pilot.press("d")
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
