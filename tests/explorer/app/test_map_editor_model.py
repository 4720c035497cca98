"""``M`` with an LLM navigator: beside the extractive suggestion, the walk's model writes one from the node's subtree
(the request ``--summaries`` sends), asked over real HTTP of a local OpenAI-compatible server while the dialog stays
live; its request and raw answer one key away, shown literally; a second open read from the response cache; a
failure one line, the extractive suggestion kept; Escape closes the dialog while the model is still asked."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from core import TreeNavigator
from explorer.navigators.folders import Folders
from explorer.navigators.openai_compat import OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV
from explorer.tui.screens.map_editor import MapEditorScreen

from ..http_stub import Recorded, Reply, StubServer
from .helpers import cursor_to, make_app, wait_for
from .llm_stub import MODEL
from .reading import text_at

SLOW = "Lost two-factor device"
"""The section the server answers only after a long while (the dialog is closed before)."""
FAILING = "Grace period"
"""The section the server fails on."""


def summarising(request: Recorded) -> Reply:
    user = request.json()["messages"][1]["content"]
    title = re.match(r"Section: (.*)", user)
    assert title is not None, user
    if title[1] == FAILING:
        return Reply(500, {"error": {"message": "the model is overloaded"}})
    content = f"  What [bold]{title[1]}[/bold] covers,\n in a word.  "
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]},
                 delay=60.0 if title[1] == SLOW else 0.0)


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with StubServer(respond=summarising) as stub:
        monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-map")
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, stub.url)
        monkeypatch.setenv("REASONING_EXPLORER_MAX_RETRIES", "0")
        yield stub


async def open_editor(pilot, node_id: str, find: str) -> MapEditorScreen:  # type: ignore[no-untyped-def]
    await cursor_to(pilot, node_id, find)
    await pilot.press("M")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, MapEditorScreen))
    editor = pilot.app.screen
    assert isinstance(editor, MapEditorScreen)
    return editor


async def test_the_walks_model_suggests_a_summary_cached_and_shown_with_its_request(
        server: StubServer, tmp_path: Path, resolved: Callable[[str], TreeNavigator]) -> None:
    app = make_app("", MODEL, navigator=resolved(MODEL), folders=Folders(tmp_path / "cache", tmp_path / "prompts"))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        editor = await open_editor(pilot, "billing", "Billing")
        await wait_for(pilot, lambda: editor.written is not None)
        assert text_at(editor, "#map-written") == "What [bold]Billing[/bold] covers, in a word."
        assert text_at(editor, "#map-written-label") == ("By openai:test-model (asked now) · ctrl+l takes it · ctrl+r "
                                                         "shows its request")
        assert text_at(editor, "#map-suggestion").startswith("Billing is run by the Billing Operations team")
        (request,) = server.requests
        system, user = request.json()["messages"]
        assert system["role"] == "system" and system["content"].startswith("You summarise one section of a document")
        assert user["content"].startswith("Section: Billing\n\nSections under it:\n- Invoices\n- Payment methods\n"
                                          "- Failed payments\n- Taxes\n- Refunds\n- Account credits\n\nIts text:\n"
                                          "Billing is run by the Billing Operations team")
        assert user["content"].endswith("\n\nWrite its summary.")

        # ctrl+r: the request and the raw answer, literally, in place of the suggestions; again: back.
        assert text_at(editor, "#map-request") == ""
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: text_at(editor, "#map-request") != "")
        assert text_at(editor, "#map-written") == "" and text_at(editor, "#map-suggestion") == ""
        assert text_at(editor, "#map-written-label") == "" and text_at(editor, "#map-suggestion-label") == ""
        assert text_at(editor, "#map-request") == (
            f"The request to openai:test-model:\nsystem:\n{system['content']}\n\nuser:\n{user['content']}\n\n"
            "Its answer, as the model gave it:\nWhat [bold]Billing[/bold] covers,\n in a word.")  # its ends trimmed
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: text_at(editor, "#map-request") == "")
        assert text_at(editor, "#map-written") == "What [bold]Billing[/bold] covers, in a word."

        # ctrl+l takes the model's suggestion into the summary field; Escape closes with nothing kept.
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: editor.summary_text == "What [bold]Billing[/bold] covers, in a word.")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)

        # Opened again: the same request is read from the response cache; the server is not asked again.
        again = await open_editor(pilot, "billing", "Billing")
        await wait_for(pilot, lambda: again.written is not None)
        assert text_at(again, "#map-written") == "What [bold]Billing[/bold] covers, in a word."
        assert "(from the response cache)" in text_at(again, "#map-written-label")
        assert len(server.requests) == 1
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)

        # The server fails: one line, the extractive suggestion stays and ctrl+u still takes it.
        failing = await open_editor(pilot, "grace-period", FAILING)
        await wait_for(pilot, lambda: failing.model_error is not None)
        assert text_at(failing, "#map-written") == (
            f"openai:test-model wrote no suggestion: HTTP 500 from {server.url}/chat/completions: the server failed "
            '(server said: "the model is overloaded"); try again later. The extractive one stays.')
        await pilot.press("ctrl+r")  # its request, and no answer
        await wait_for(pilot, lambda: text_at(failing, "#map-request") != "")
        assert text_at(failing, "#map-request").startswith("The request to openai:test-model:\nsystem:\nYou summarise")
        assert "\nuser:\nSection: Grace period\n" in text_at(failing, "#map-request")
        assert text_at(failing, "#map-request").endswith(
            f"Its answer, as the model gave it:\n(none: HTTP 500 from {server.url}/chat/completions: the server failed "
            '(server said: "the model is overloaded"); try again later)')
        await pilot.press("ctrl+r")
        extractive = text_at(failing, "#map-suggestion")
        assert extractive.startswith("A workspace keeps full access for 21 days")
        await pilot.press("ctrl+l")  # nothing to take from the model
        await pilot.press("ctrl+u")
        await wait_for(pilot, lambda: failing.summary_text == extractive)
        assert failing.written is None
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)

        # Escape while the model is still asked: the dialog closes at once, and its request is abandoned.
        slow = await open_editor(pilot, "lost-two-factor-device", SLOW)
        await wait_for(pilot, lambda: len(server.requests) == 3)
        assert text_at(slow, "#map-written") == "asking openai:test-model…"
        await pilot.press("ctrl+r")  # its request is shown while it is asked
        await wait_for(pilot, lambda: text_at(slow, "#map-request") != "")
        assert "\nuser:\nSection: Lost two-factor device\n" in text_at(slow, "#map-request")
        assert text_at(slow, "#map-request").endswith("Its answer, as the model gave it:\n(not yet)")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)
        await wait_for(pilot, lambda: server.disconnects == 1)
        assert slow.written is None and slow.model_error is None
