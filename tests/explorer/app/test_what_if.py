"""The prompt what-if on screen: W at an LLM decision opens its request, ctrl+r asks the edited request once,
the two answers show side by side, and ctrl+f forks the walk from the new answer (the original untouched).

The exact figures come from an OpenAI-compatible server on 127.0.0.1 that answers what the test queues; the last
test asks the real local model."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

import pytest
from rich.console import Console
from textual.widgets import Input, Label, Static, TextArea

from core import CandidatesOffered, NavigatorChose, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.navigators.answered import Answered, answered_by
from explorer.navigators.openai_compat import OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV
from explorer.tui.screens.what_if import WhatIfScreen
from explorer.walks.decisions import how_answered
from explorer.walks.history import Origin

from ..http_stub import Reply, StubServer
from ..navigators.conftest import model_missing
from .helpers import SIZE, make_app, resize, wait_for
from .llm_stub import MODEL, QUERY, chose, completion
from .reading import step_text, transcript_text


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[StubServer]:
    with StubServer() as stub:
        monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-test-what-if")
        monkeypatch.setenv(OPENAI_BASE_URL_ENV, stub.url)
        yield stub


def drawn(widget: Static) -> str:
    """The widget's content as the screen draws it, at its width."""
    console = Console(width=widget.size.width, record=True, color_system=None, legacy_windows=False)
    console.print(widget.content)
    return console.export_text()


def rows(table_text: str) -> dict[str, tuple[str, str]]:
    """The side-by-side table's header and the first line of each row, by label: (recorded, asked again)."""
    found: dict[str, tuple[str, str]] = {}
    for line in table_text.splitlines():
        cells = [cell.strip() for cell in line.replace("┃", "│").split("│")]
        if len(cells) == 3 and cells[0] not in found:  # a row's next lines have no label: the header's is ""
            found[cells[0]] = (cells[1], cells[2])
    return found


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_w_opens_the_decision_asks_the_edited_request_and_forks_from_the_new_answer(
        server: StubServer, resolved: Callable[[str], TreeNavigator]) -> None:
    server.add(completion(["billing"], "Refunds are money: billing."))
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "n", "n", "n")  # leave the query box; the walk starts, the roots are offered, answered
        walk = app.walk_screen
        await wait_for(pilot, lambda: chose(walk) is not None)
        recorded = chose(walk)
        assert recorded is not None
        assert recorded.selected == ("billing",)
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        dialog = app.screen
        assert isinstance(dialog, WhatIfScreen)
        assert str(dialog.query_one("#what-if-title", Label).render()) == (
            "What if — walk 1 · the decision at the roots (chosen, step 3)")
        offer = next(e for e in walk.view.history.events if isinstance(e, CandidatesOffered))
        assert str(dialog.query_one("#what-if-offered", Label).render()) == "Offered: " + " · ".join(
            f"{n} {view.id} {view.title}" for n, view in enumerate(offer.candidates, start=1)) + "   (15 visits left)"
        assert [view.id for view in offer.candidates][2] == "billing"
        sent = dict(recorded.transcript or ())
        assert dialog.query_one("#what-if-system", TextArea).text == sent["system"]
        assert dialog.query_one("#what-if-user", TextArea).text == sent["user"]
        assert dialog.query_one("#what-if-model", Input).value == MODEL
        assert dialog.query_one("#what-if-temperature", Input).value == ""

        # A setting that cannot be read is refused in the model id's own words, and nothing is sent.
        await pilot.click("#what-if-temperature")
        await pilot.press("3", "ctrl+r")
        status = dialog.query_one("#what-if-status", Label)
        assert str(status.render()) == "temperature=3: temperature must be a number from 0 to 2, e.g. temperature=0.7"
        assert len(server.requests) == 1

        # Edited as a person would: a temperature, a seed, and a line typed before the system prompt.
        await pilot.press("backspace", "0", ".", "5")
        await pilot.click("#what-if-seed")
        await pilot.press("4", "2")
        await pilot.click("#what-if-system")
        await pilot.press("home", *"Think of money.", "enter")
        server.add(completion(["people-policies", "invented-id", "people-policies"], "People first, then a guess.", 130))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: dialog.answer is not None)
        asked = server.requests[1].json()
        assert (asked["temperature"], asked["seed"]) == (0.5, 42)
        assert asked["messages"][0]["content"] == "Think of money.\n" + sent["system"]
        assert asked["messages"][1]["content"] == sent["user"]
        answer = dialog.answer
        assert answer is not None and answer.live and answered_by(answer.transcript) is Answered.LIVE
        assert str(status.render()).startswith("Answered in ")
        table = rows(drawn(dialog.query_one("#what-if-answers", Static)))
        assert table[""] == ("recorded", "asked again")
        assert table["chosen"] == ("billing", "people-policies")
        assert table["not offered"] == ("", "invented-id")
        assert table["rationale"] == ("Refunds are money: billing.", "People first, then a guess.")
        assert table["failure"] == ("", "")
        assert table["tokens"] == ("100 prompt + 20 completion", "130 prompt + 20 completion")

        # ctrl+f: a fork of walk 1 forced with the new answer; walk 1 keeps its events.
        before = len(walk.view.history.events)
        server.add(*[completion([], "stop")] * 6)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: not isinstance(app.screen, WhatIfScreen) and len(walk.walks) == 2)
        original, fork = list(walk.walks)
        assert len(original.history.events) == before and fork.history.origin is Origin.FORK
        assert walk.view.walk is fork
        await wait_for(pilot, lambda: any(isinstance(e, NavigatorChose) for e in fork.history.events))
        forced = next(e for e in fork.history.events if isinstance(e, NavigatorChose))
        # each id once (a small model can name one twice), an unoffered one kept: core stops that path
        assert forced.selected == ("people-policies", "invented-id") and forced.hallucinated == ("invented-id",)
        # Taken from the what-if, not forced by a person: marked so, with the request that produced it.
        assert fork.history.forced == set()
        assert fork.history.name == (
            "walk 2 · fork of walk 1: a what-if at the start chose people-policies, invented-id")
        assert answered_by(forced.transcript) is Answered.WHAT_IF
        assert forced.transcript is not None and forced.transcript[0] == (
            "answered", "what-if: at the start chose people-policies, invented-id (invented-id not offered)")
        assert forced.transcript[1:] == answer.transcript
        assert forced.rationale == (
            "taken from a what-if: at the start chose people-policies, invented-id (invented-id not offered)")
        first = next(d for d in fork.history.decisions() if d.answer is not None)
        assert first.answer is not None and how_answered(first.answer, first.forced) is Answered.WHAT_IF


async def test_w_on_a_walk_that_no_llm_made_says_so_and_opens_nothing() -> None:
    app = make_app(QUERY, "lexical:default")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "n", "n", "n")
        await wait_for(pilot, lambda: chose(app.walk_screen) is not None)
        await pilot.press("W")
        await wait_for(pilot, lambda: bool(app.notes))
        assert not isinstance(app.screen, WhatIfScreen)
        assert app.notes[-1].message == (
            "No what-if here: navigator 'lexical:default' is no LLM's: a prompt what-if asks an LLM (openai:, "
            "ollama:, vllm:, local:) again")


async def test_escape_closes_the_what_if_while_it_asks_and_the_walk_is_untouched(
        server: StubServer, resolved: Callable[[str], TreeNavigator]) -> None:
    server.add(completion(["billing"], "money"), Reply(200, {"never": "read"}, delay=60))
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "n", "n", "n")
        walk = app.walk_screen
        await wait_for(pilot, lambda: chose(walk) is not None)
        events = list(walk.view.history.events)
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(server.requests) == 2)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, WhatIfScreen))
        await wait_for(pilot, lambda: server.disconnects >= 1)  # the request in flight was abandoned
        assert list(walk.view.history.events) == events and len(walk.walks) == 1


@pytest.mark.model
async def test_the_screen_says_the_local_model_loads_and_the_what_if_asks_it_again(
        resolved: Callable[[str], TreeNavigator]) -> None:
    if model_missing() is not None:
        pytest.skip(model_missing() or "")
    model = "local:smollm2@ctx=3072"  # a server of its own, so that this test sees it load
    app = make_app(QUERY, model, navigator=resolved(model))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "n", "n", "n")
        walk = app.walk_screen
        await wait_for(pilot, lambda: chose(walk) is not None, timeout=240)
        offer = next(e for e in walk.view.history.events if isinstance(e, CandidatesOffered))
        said = [note.message for note in app.notes if note.title == "Local model"]
        assert said[0].startswith("loading local model SmolLM2-135M-Instruct.Q4_1.gguf (") and said[0].endswith(
            " of 3,072 tokens) …"), said
        assert re.fullmatch(r"local model SmolLM2-135M-Instruct\.Q4_1\.gguf ready in \d+\.\d\d s \(llama\.cpp at "
                            r"http://127\.0\.0\.1:\d+, .* of 3,072 tokens\)", said[1]), said
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        dialog = app.screen
        assert isinstance(dialog, WhatIfScreen)
        assert dialog.query_one("#what-if-model", Input).value == model
        await pilot.click("#what-if-temperature")
        await pilot.press("0", ".", "9")
        await pilot.click("#what-if-seed")
        await pilot.press("7", "ctrl+r")
        await wait_for(pilot, lambda: dialog.answer is not None, timeout=240)
        answer = dialog.answer
        assert answer is not None and answer.error is None, answer
        assert set(answer.offered) <= {view.id for view in offer.candidates} and answer.hallucinated == ()
        parameters = json.loads(dict(answer.transcript)["parameters"])
        assert (parameters["temperature"], parameters["seed"]) == (0.9, 7)
        assert answer.prompt_tokens is not None and answer.prompt_tokens > 0


async def test_a_navigator_that_breaks_while_asking_is_said_in_the_dialog_and_the_app_goes_on() -> None:
    from explorer.navigators.what_if import EditedRequest, WhatIfAnswer

    def broken(model_id: str) -> TreeNavigator:
        raise RuntimeError(f"no navigator for {model_id} today")

    request = EditedRequest(model=MODEL, system="sys", user="user", query=QUERY, current=None, candidates=(),
                            remaining_visits=3)
    recorded = WhatIfAnswer((), (), (), "", "", None, 0.0, (), live=False)
    app = make_app(QUERY)
    async with app.run_test(size=SIZE) as pilot:
        dialog = WhatIfScreen(request, recorded, broken, where="a made-up decision")
        await app.push_screen(dialog)
        await pilot.press("ctrl+r")
        status = dialog.query_one("#what-if-status", Label)
        await wait_for(pilot, lambda: str(status.render()).startswith("the request failed"))
        assert str(status.render()) == (
            "the request failed: RuntimeError: no navigator for openai:test-model today")
        assert app.is_running and app.screen is dialog and dialog.answer is None
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.walk_screen)


async def test_the_dialog_shows_a_hostile_node_id_in_its_title_literally() -> None:
    from explorer.navigators.what_if import EditedRequest, WhatIfAnswer

    request = EditedRequest(model=MODEL, system="sys", user="user", query=QUERY, current=None, candidates=(),
                            remaining_visits=3)
    recorded = WhatIfAnswer((), (), (), "", "", None, 0.0, (), live=False)
    app = make_app(QUERY)
    async with app.run_test(size=SIZE) as pilot:
        dialog = WhatIfScreen(request, recorded, lambda model_id: resolve_navigator("lexical:default"),
                              where="the decision at [b]x[/b]\x1b[2J")
        await app.push_screen(dialog)
        await wait_for(pilot, lambda: app.screen is dialog)
        assert str(dialog.query_one("#what-if-title", Label).render()) == (
            "What if — the decision at [b]x[/b]\\x1b[2J")


async def test_one_numbering_of_steps_in_the_step_panel_the_transcript_and_the_w_title(
        server: StubServer, resolved: Callable[[str], TreeNavigator]) -> None:
    """Read at 80×24; then the terminal is resized to 120×40 with the W dialog open, its title read again, and once
    it is closed the step panel and the transcript."""
    server.add(completion(["billing"], "Refunds are money: billing."))
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "n", "n", "n")  # the walk starts, the roots are offered, answered
        walk = app.walk_screen
        await wait_for(pilot, lambda: chose(walk) is not None and walk.view.history.cursor == 3)
        assert step_text(app).startswith("Step 3/3")
        await pilot.press("right_square_bracket")  # the Transcript tab
        await wait_for(pilot, lambda: transcript_text(app) != "")
        assert transcript_text(app).startswith("Decision at the roots  (step 3, offered at step 2)")
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        title = "What if — walk 1 · the decision at the roots (chosen, step 3)"
        assert str(app.screen.query_one("#what-if-title", Label).render()) == title
        await resize(pilot, (120, 40))  # the dialog open
        assert str(app.screen.query_one("#what-if-title", Label).render()) == title
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)
        assert step_text(app).startswith("Step 3/3")
        assert transcript_text(app).startswith("Decision at the roots  (step 3, offered at step 2)")
