"""``ctrl+l`` in the ``W`` dialog lists the prompt variants kept in this corpus's prompts folder, and the one
highlighted (or chosen) shows its unified diff against the built-in prompt, literally (issue 36, point 5). By keys,
at 80×24, then resized to 120×40; the model is the stub server that answers by the system message it is sent."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from textual.widgets import OptionList, Static

from core import TreeNavigator
from explorer.navigators.folders import Folders
from explorer.navigators.llm.prompt import SYSTEM_PROMPT
from explorer.tui.screens.variants import VariantsScreen

from ..http_stub import StubServer
from .helpers import make_app, resize, wait_for
from .llm_stub import MODEL, MONEY, QUERY, what_if_at_first_answer
from .reading import text_at


def diff_shown(app) -> str:  # type: ignore[no-untyped-def]
    return str(app.screen.query_one("#variants-diff", Static).render())


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_ctrl_l_lists_the_variants_kept_each_with_its_diff_against_the_built_in_prompt(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders) -> None:
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        await what_if_at_first_answer(pilot)
        dialog = app.screen
        await pilot.press("ctrl+l")  # none kept yet
        await wait_for(pilot, lambda: isinstance(app.screen, VariantsScreen))
        assert text_at(app.screen, "#variants-title") == (
            f"No prompt variant kept in {folders.prompts} yet: ctrl+s keeps the edited request as one")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is dialog)
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+s")  # kept as v2
        await wait_for(pilot, lambda: text_at(dialog, "#what-if-status").startswith("Kept as v2"))
        await pilot.press("ctrl+home", *"Be brief.", "enter", "shift+tab", *"v3", "ctrl+s")  # then v3, named
        await wait_for(pilot, lambda: text_at(dialog, "#what-if-status").startswith("Kept as v3"))

        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, VariantsScreen))
        variants = app.screen
        assert isinstance(variants, VariantsScreen)
        assert text_at(variants, "#variants-title") == (
            f"2 prompt variants kept in {folders.prompts}, each against the built-in prompt · Escape closes")
        options = variants.query_one(OptionList)
        assert [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)] == ["v2", "v3"]
        assert variants.shown == "v2"
        assert diff_shown(app).startswith(
            f"--- the built-in system prompt\n+++ v2.system.txt\n@@ -1 +1,2 @@\n+{MONEY}\n {SYSTEM_PROMPT[:20]}")
        assert diff_shown(app).endswith("\nv2.prompt.txt: the built-in user template, unchanged\n")
        await resize(pilot, (120, 40))
        await pilot.press("down", "enter")
        assert variants.shown == "v3"
        assert diff_shown(app).startswith("--- the built-in system prompt\n+++ v3.system.txt\n@@ -1 +1,3 @@\n"
                                          f"+Be brief.\n+{MONEY}\n {SYSTEM_PROMPT[:20]}")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is dialog)
