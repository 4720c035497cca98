"""Continue live from here (`C`): the walk on screen walked again from the step on screen — its decisions kept up to
that step, the live navigator asked after, with the budget, depth, prompt, temperature or navigator typed in one
prompt prefilled with the walk's own — at 80×24 and at 120×40, by keys only.

The model is an OpenAI-compatible server on 127.0.0.1 that answers by the system message it is sent (the first
candidate, or with a prompt that speaks of money the closest in words), so each live answer is exact."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.widgets import Label

from core import NavigatorChose, TreeNavigator
from explorer.navigators.answered import Answered, answered_by
from explorer.navigators.folders import Folders
from explorer.trace import FinishedWalk, read_trace, write_trace
from explorer.tui.screens.prompt import PromptScreen
from explorer.walks.decisions import how_answered

from ..http_stub import StubServer
from .helpers import HANDBOOK, make_app, resize, wait_for
from .llm_stub import MODEL, QUERY, step_to_answer
from .reading import prompt_error


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_c_continues_live_from_the_step_on_screen_with_the_settings_typed(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders) -> None:
    """The prompt opened and refused a word at 80×24; the terminal resized to 120×40 with the prompt open (its error
    still said), where the settings are typed and the continued walk runs to its end."""
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders, max_nodes_visited=8)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        await step_to_answer(pilot, walk, 2)
        original = walk.view.history
        assert original is not None
        step = original.cursor
        kept = [e for e in original.events[:step] if isinstance(e, NavigatorChose)]
        assert len(kept) == 2
        asked_before = len(variant_server.requests)

        await pilot.press("C")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        assert prompt.initial == f"budget=8 depth={original.settings.max_depth} navigator={MODEL}"
        assert prompt.prompt_title == (
            f"Continue {original.name} live from step {step} (its decisions up to it kept, the navigator asked "
            "after): budget=N depth=N prompt=NAME|FILE temperature=T navigator=MODEL")

        # A word that does not read: one line naming it and the accepted forms; the prompt stays.
        await pilot.press(*"budget=lots", "enter")
        assert str(prompt.query_one("#prompt-error", Label).render()) == (
            "'budget=lots': budget is a whole number from 1 to 100,000; write budget=N depth=N prompt=NAME|FILE "
            "temperature=T navigator=MODEL")
        assert app.screen is prompt and len(walk.walks) == 1
        await resize(pilot, (120, 40))
        assert app.screen is prompt and prompt_error(app).startswith("'budget=lots': budget is a whole number")

        await pilot.press("home", "ctrl+k", *"budget=20 temperature=0.3", "enter")
        await wait_for(pilot, lambda: len(walk.walks) == 2 and walk.view.history is not original)
        continued = walk.view.history
        assert continued is not None
        assert continued.name == f"walk 2 · live from step {step} of walk 1 · budget 20 · temperature 0.3"
        assert continued.settings.model == f"{MODEL}@temperature=0.3" and continued.settings.max_nodes_visited == 20
        assert continued.finished(HANDBOOK).header.settings.model == f"{MODEL}@temperature=0.3"
        assert continued.cursor == step  # it waits where the kept part ends
        assert len(variant_server.requests) == asked_before  # keeping asks nothing

        await pilot.press("c")
        await wait_for(pilot, lambda: continued.end is not None)
        assert continued.end == "finished"
        chose = [e for e in continued.events if isinstance(e, NavigatorChose)]
        for answer, before in zip(chose[:2], kept, strict=True):
            assert answered_by(answer.transcript) is Answered.REPLAYED and answer.selected == before.selected
            assert dict(answer.transcript or ())["answered"] == "replayed: walk 1's answer, kept up to step " \
                                                                 f"{step}"
        assert len(chose) > 2
        for answer in chose[2:]:
            assert answered_by(answer.transcript) is Answered.LIVE and answer.rationale == "the first"
            assert answer.transcript is not None and answer.transcript[-1] == (
                "asked", f"live from step {step} of walk 1")
        asked = variant_server.requests[asked_before:]
        assert len(asked) == len(chose) - 2 and {r.json()["temperature"] for r in asked} == {0.3}
        assert [how_answered(d.answer).value for d in continued.decisions() if d.answer is not None] == (
            ["replayed"] * 2 + ["live"] * (len(chose) - 2))
        assert original.end is None or original.settings.max_nodes_visited == 8  # the original is untouched


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_c_on_a_trace_whose_model_cannot_be_had_says_so_and_asks_for_a_navigator(tmp_path) -> None:
    app = make_app("how are refunds issued", start_walk=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        walked = app.walk_screen.view.history
        header = walked.finished(app.corpus).header
    header = replace(header, settings=replace(header.settings, model="no-such-provider:model-7"))
    opened = read_trace(write_trace(tmp_path / "t.jsonl", FinishedWalk(header, walked.events, "finished")))
    app = make_app("", opened=[opened])
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.walk is not None)
        walk = app.walk_screen
        original = walk.view.history
        await pilot.press("B", "n", "n")
        step = original.cursor
        said = len(app.notes)
        await pilot.press("C")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.notes[said].message == ("No live navigator for no-such-provider:model-7 here: name one with "
                                           "navigator=MODEL (e.g. navigator=lexical:default).")
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        assert prompt.initial == f"budget={original.settings.max_nodes_visited} depth={original.settings.max_depth} " \
                                 "navigator="
        await pilot.press("enter")
        assert str(prompt.query_one("#prompt-error", Label).render()) == (
            "'navigator=': name the model to ask, e.g. navigator=lexical:default; write budget=N depth=N "
            "prompt=NAME|FILE temperature=T navigator=MODEL")
        await pilot.press("end", *"lexical:default", "enter")
        await wait_for(pilot, lambda: walk.view.history is not original)
        continued = walk.view.history
        assert continued.name == (f"walk 2 · live from step {step} of walk 1 · budget {original.settings.max_nodes_visited} · "
                                  "navigator lexical:default")
        await pilot.press("c")
        await wait_for(pilot, lambda: continued.end is not None)
        hows = [how_answered(d.answer) for d in continued.decisions() if d.answer is not None]
        kept = sum(1 for d in original.decisions() if d.answer_seq is not None and d.answer_seq <= step)
        assert hows[:kept] == [Answered.REPLAYED] * kept and set(hows[kept:]) <= {Answered.LIVE}
        result = continued.state().result
        assert result is not None and opened.result is not None
        assert [d.id for d in result.documents] == [d.id for d in opened.result.documents] == ["refund-delivery"]


async def test_with_files_off_a_prompt_typed_in_c_is_refused_without_looking_at_any_file(tmp_path) -> None:
    """A served session's `C` with prompt=PATH said whether a server path existed, and showed the server's cache
    folder (issue 38, point 12): refused the same whatever is typed, in one line."""
    app = make_app("how are refunds issued", start_walk=True, allow_files=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        refused = []
        for typed in ("/etc/passwd", str(tmp_path / "no-such-file.txt"), "v2"):
            await pilot.press("C")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
            app.screen.query_one("#prompt-input").value = f"budget=15 prompt={typed} navigator=lexical:default"
            await pilot.press("enter")
            await wait_for(pilot, lambda: prompt_error(app) != "")
            refused.append(prompt_error(app))
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.walk_screen)
        assert refused == [f"prompt={typed}: Opening and saving files is off in this shared session. Continue with "
                           "the walk's own prompt" for typed in ("/etc/passwd", str(tmp_path / "no-such-file.txt"),
                                                                 "v2")]
        assert len(app.walks) == 1
