"""Continue live from here (`C`): the walk on screen walked again from the step on screen — its decisions kept up to
that step, the live navigator asked after, with the budget, depth, prompt, temperature or navigator typed in one
prompt prefilled with the walk's own — at 80×24 and at 120×40, by keys only.

The model is an OpenAI-compatible server on 127.0.0.1 that answers by the system message it is sent (the first
candidate, or with a prompt that speaks of money the closest in words), so each live answer is exact."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace

import pytest
from textual.widgets import Label

from core import NavigatorChose, NodeEntered, PathStopped, Policy, StopReason, TreeNavigator
from explorer.navigators.answered import Answered, answered_by
from explorer.navigators.folders import Folders
from explorer.trace import FinishedWalk, read_trace, write_trace
from explorer.tui.screens.prompt import PromptScreen
from explorer.walks.decisions import how_answered

from ..http_stub import StubServer
from .helpers import HANDBOOK, make_app, resize, wait_for
from .llm_stub import MODEL, QUERY, step_to_answer
from .reading import prompt_error, step_text


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
            "after): budget=N depth=N policy=depth-first|best-first[@alpha=A] prompt=NAME|FILE temperature=T "
            "navigator=MODEL")

        # A word that does not read: one line naming it and the accepted forms; the prompt stays.
        await pilot.press(*"budget=lots", "enter")
        assert str(prompt.query_one("#prompt-error", Label).render()) == (
            "'budget=lots': budget is a whole number from 1 to 100,000; write budget=N depth=N "
            "policy=depth-first|best-first[@alpha=A] prompt=NAME|FILE temperature=T navigator=MODEL")
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
        assert continued.end == "finished", (continued.error, continued.events[-4:])
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
            "policy=depth-first|best-first[@alpha=A] prompt=NAME|FILE temperature=T navigator=MODEL")
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


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_c_with_policy_best_first_continues_the_walk_best_first_from_the_step_on_screen(tmp_path) -> None:
    """Issue 37, point 3: the walk's order is one of C's settings. A depth-first lexical:default walk's prompt reads as
    it always did; a policy that does not read is refused in one line at 80×24 (and still said after a resize to
    120×40); ``policy=best-first`` continues it best-first from the step on screen: its settings, its name and header,
    the frontier line on the step panel, the order it enters nodes, and its trace's header say so."""
    app = make_app("How long do refunds take to arrive?", max_nodes_visited=6, start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        walk = app.walk_screen
        await pilot.press("n", "n")  # the roots offered, then answered: lexical chose Billing
        await wait_for(pilot, lambda: "Chose   billing" in step_text(app))
        original = walk.view.history
        step = original.cursor
        assert original.settings.policy is Policy.DEPTH_FIRST and "Next    " not in step_text(app)

        await pilot.press("C")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        assert prompt.initial == "budget=6 depth=6 navigator=lexical:default"  # depth-first: no policy= word
        assert prompt.prompt_title.endswith(
            "after): budget=N depth=N policy=depth-first|best-first[@alpha=A] prompt=NAME|FILE temperature=T "
            "navigator=MODEL")
        await pilot.press("end", *" policy=sideways", "enter")
        await wait_for(pilot, lambda: prompt_error(app) != "")
        assert prompt_error(app) == ("'policy=sideways': 'sideways' is no walk policy; write depth-first or "
                                     "best-first (best-first@alpha=0.7)")
        assert app.screen is prompt and len(walk.walks) == 1
        await resize(pilot, (120, 40))
        assert app.screen is prompt and prompt_error(app).startswith("'policy=sideways': 'sideways' is no walk policy")

        await pilot.press("home", "ctrl+k", *"policy=best-first", "enter")
        await wait_for(pilot, lambda: len(walk.walks) == 2 and walk.view.history is not original)
        continued = walk.view.history
        assert (continued.settings.policy, continued.settings.alpha) == (Policy.BEST_FIRST, 0.5)
        assert continued.settings.max_nodes_visited == 6 and continued.settings.model == "lexical:default"
        assert continued.name == f"walk 2 · live from step {step} of walk 1 · budget 6 · best-first"
        assert walk.sub_title == f"{HANDBOOK.title} · {continued.name}"  # the name says the order: once
        assert continued.cursor == step  # it waits where the kept part ends, Billing first in the frontier
        await wait_for(pilot, lambda: "Next    Billing 1.00" in step_text(app).splitlines())

        await pilot.press("c")
        await wait_for(pilot, lambda: continued.end is not None)
        assert continued.end == "finished"
        assert [(e.record.node, e.record.reason) for e in continued.events if isinstance(e, PathStopped)] == [
            ("refund-delivery", StopReason.LEAF), ("requesting-a-refund", StopReason.LEAF),
            ("annual-plan-refunds", StopReason.VISIT_BUDGET_EXHAUSTED), ("refunds", StopReason.VISIT_BUDGET_EXHAUSTED)]
        # best-first: the siblings lexical scored entered by path score, not each branch to its end first
        assert [e.node.id for e in continued.events if isinstance(e, NodeEntered)] == [
            "billing", "refunds", "refund-delivery", "requesting-a-refund", "refund-exceptions", "annual-plan-refunds"]
        assert [d.id for d in continued.state().result.documents] == ["refund-delivery", "requesting-a-refund"]
        assert original.settings.policy is Policy.DEPTH_FIRST  # the original is untouched
        await pilot.press("C")  # the best-first walk's own prompt says its order
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        assert app.screen.initial == "budget=6 depth=6 policy=best-first navigator=lexical:default"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk and len(walk.walks) == 2)
    header = json.loads(write_trace(tmp_path / "continued.jsonl", continued.finished(HANDBOOK)).read_text()
                        .splitlines()[0])
    assert (header["policy"], header["alpha"]) == ("best_first", 0.5)
