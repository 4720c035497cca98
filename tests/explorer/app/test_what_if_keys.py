"""The `W` dialog by keyboard alone: it opens on the system message, Tab goes down every field and round, each
showing focus, each taking typing, ctrl+home / ctrl+end and undo; the request ctrl+r sends is the one typed.

The model is an OpenAI-compatible server on 127.0.0.1 that answers by the system message it is sent."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from textual.widget import Widget
from textual.widgets import Input, TextArea

from core import TreeNavigator
from explorer.navigators.openai_compat import OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV
from explorer.tui.screens.what_if import WhatIfScreen

from ..http_stub import Recorded, Reply, StubServer
from .helpers import make_app, resize, wait_for
from .llm_stub import MODEL, QUERY, chose, completion

TAB_ORDER = ["what-if-system", "what-if-user", "what-if-answers-scroll", "what-if-model", "what-if-temperature",
             "what-if-seed", "what-if-top_p", "what-if-max_tokens", "what-if-schema", "what-if-variant",
             "what-if-system"]
"""The fields Tab goes through from the one the dialog opens on: down the dialog, then round from the top."""


def by_system(request: Recorded) -> Reply:
    """Billing when the system message speaks of money, accounts otherwise."""
    system = request.json()["messages"][0]["content"]
    return completion(["billing"] if "money" in system else ["accounts"], "by the system message")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with StubServer(respond=by_system) as stub:
        monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-what-if")
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, stub.url)
        yield stub


def border(widget: Widget) -> str:
    """The colour of the widget's top border, as the screen draws it."""
    return str(widget.styles.border_top[1])


async def tab_goes_round(pilot, dialog: WhatIfScreen) -> None:
    """From the system message, Tab goes down the dialog and round; the focused field's border is the accent, every
    other one not."""
    seen: list[str] = []
    for number, _ in enumerate(TAB_ORDER):
        if number:
            await pilot.press("tab")
        focused = pilot.app.focused
        assert focused is not None and focused.id is not None
        seen.append(focused.id)
        others = [w for w in dialog.query("Input, TextArea, #what-if-answers-scroll") if w is not focused]
        assert border(focused) not in {border(w) for w in others}, focused.id
    assert seen == TAB_ORDER


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_the_what_if_is_edited_and_asked_by_keys_alone(
        server: StubServer, resolved: Callable[[str], TreeNavigator]) -> None:
    """The dialog opened, gone round by Tab and its system message edited at 80×24; the terminal resized to 120×40
    with it open, where Tab goes round again and the rest is typed and asked."""
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "n", "n", "n")
        walk = app.walk_screen
        await wait_for(pilot, lambda: chose(walk) is not None)
        recorded = chose(walk)
        assert recorded is not None and recorded.selected == ("accounts",)
        sent = dict(recorded.transcript or ())
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        dialog = app.screen
        assert isinstance(dialog, WhatIfScreen)

        await tab_goes_round(pilot, dialog)

        # The system message (focused again): a line typed at its very start and one at its very end, a slip undone.
        system = dialog.query_one("#what-if-system", TextArea)
        assert app.focused is system
        await pilot.press("ctrl+end", *" Be brief.", "ctrl+home", *"Think of money.", "enter")
        await pilot.press("ctrl+end", "space", "x")
        assert system.text == "Think of money.\n" + sent["system"] + " Be brief. x"
        await pilot.press("ctrl+z")
        assert system.text == "Think of money.\n" + sent["system"] + " Be brief."
        await pilot.press("ctrl+y", "ctrl+z")
        assert system.text == "Think of money.\n" + sent["system"] + " Be brief."

        await resize(pilot, (120, 40))  # the dialog open
        assert app.screen is dialog and app.focused is system
        await tab_goes_round(pilot, dialog)
        assert app.focused is system

        # The user message: a line added at its end.
        await pilot.press("tab", "ctrl+end", "enter", *"Refunds only.")
        assert dialog.query_one("#what-if-user", TextArea).text == sent["user"] + "\nRefunds only."

        # A setting: typed, a slip undone and redone, the cursor sent home and back.
        await pilot.press("tab", "tab", "tab")  # past the answers and the model
        temperature = dialog.query_one("#what-if-temperature", Input)
        assert app.focused is temperature
        await pilot.press(*"0.59", "ctrl+z")
        assert temperature.value == "0.5"
        await pilot.press("ctrl+y", "ctrl+z", "ctrl+home")
        assert (temperature.value, temperature.cursor_position) == ("0.5", 0)
        await pilot.press("ctrl+end", "tab", *"42")
        assert dialog.query_one("#what-if-seed", Input).value == "42"

        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: dialog.answer is not None)
        asked = server.requests[-1].json()
        assert len(server.requests) == 2
        assert asked["messages"] == [
            {"role": "system", "content": "Think of money.\n" + sent["system"] + " Be brief."},
            {"role": "user", "content": sent["user"] + "\nRefunds only."}]
        assert (asked["temperature"], asked["seed"]) == (0.5, 42)
        assert dialog.answer is not None and dialog.answer.selected == ("billing",)
        assert json.loads(dict(dialog.answer.transcript)["parameters"])["temperature"] == 0.5
