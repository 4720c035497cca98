"""One behaviour for every picker (issue 36, point 6): Down enters the list, Enter accepts, in ``m``, ``w``, ``g``, ``u``
and ``K``; ``u`` and ``K`` are prefilled with what fits this walk and this corpus; ``[`` and ``]`` hand the focus to
the tab they open. Each story is told at 80×24, then the terminal is resized to 120×40 and it is told again."""

from __future__ import annotations

import shutil
from pathlib import Path

from textual.widgets import Input, Label, OptionList

from explorer.corpora import load_corpus
from explorer.tui.screens.choose_walk import WalksScreen
from explorer.tui.screens.find import FindScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.transcript import TranscriptView
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import HANDBOOK_PATH, make_app, wait_for

SIZES = ((80, 24), (120, 40))
QUESTION = "How long until I get my money back?"
"""A question of sample_corpora/handbook.questions.yaml, which expects refund-delivery."""


async def opened(pilot, app, key: str, kind: type) -> object:  # type: ignore[no-untyped-def]
    """``key`` pressed on the walk screen (the query box handed its focus to the tree first), and the picker it opens,
    ready."""
    if isinstance(app.focused, Input):
        await pilot.press("escape")
    await pilot.press(key)
    await wait_for(pilot, lambda: isinstance(app.screen, kind) and getattr(app.screen, "ready", True))
    return app.screen


def highlighted(app) -> str:  # type: ignore[no-untyped-def]
    options = app.screen.query_one(OptionList)
    assert options.has_focus
    return str(options.get_option_at_index(options.highlighted).prompt)


async def test_m_down_enters_the_list_and_enter_takes_the_model_highlighted():
    app = make_app("how are refunds issued")
    async with app.run_test(size=SIZES[0]) as pilot:
        for size, steps in zip(SIZES, (("down",), ("down", "down")), strict=True):
            await pilot.resize_terminal(*size)
            before = app.walk_screen.next_walk.settings.model
            prompt = await opened(pilot, app, "m", PromptScreen)
            assert "↓ the list" in str(prompt.query_one("#prompt-hint", Label).render())
            await pilot.press("down")  # at the model the field holds
            assert highlighted(app) == before
            await pilot.press(*steps)
            chosen = highlighted(app)
            assert chosen != before
            await pilot.press("enter")  # accepted, not only copied into the field
            await wait_for(pilot, lambda: app.screen is app.walk_screen)
            assert app.walk_screen.next_walk.settings.model == chosen
        assert chosen == "semantic:default"  # lexical:strict (one down), then two rows down from it


async def test_m_up_from_the_first_row_and_a_character_go_back_to_the_field():
    app = make_app("how are refunds issued")
    async with app.run_test(size=SIZES[0]) as pilot:
        prompt = await opened(pilot, app, "m", PromptScreen)
        field = prompt.query_one("#prompt-input", Input)
        await pilot.press("end", "down")
        await pilot.press("home")  # the list's first row
        await pilot.press("up")
        assert field.has_focus
        await pilot.press("down", "x")
        assert field.has_focus and field.value.endswith("x")
        await pilot.resize_terminal(*SIZES[1])
        await pilot.press("down", "down", "up", "up")
        assert field.has_focus


async def test_w_enter_after_filtering_switches_to_the_walk_filtered():
    app = make_app("how are refunds issued", start_walk=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        app.walk_screen.start_walk("vacation days")
        await wait_for(pilot, lambda: len(app.walks) == 2 and app.walk_screen.view.walk.number == 2)
        for size, (typed, number) in zip(SIZES, (("refunds", 1), ("vacation", 2)), strict=True):
            await pilot.resize_terminal(*size)
            await opened(pilot, app, "w", WalksScreen)
            await pilot.press(*typed, "enter")
            await wait_for(pilot, lambda: app.screen is app.walk_screen)
            assert app.walk_screen.view.walk.number == number
            await opened(pilot, app, "w", WalksScreen)
            await pilot.press(*typed[:3], "down", "enter")  # the filter, then down into the list, Enter
            await wait_for(pilot, lambda: app.screen is app.walk_screen)
            assert app.walk_screen.view.walk.number == number


async def test_g_opens_empty_and_down_then_enter_goes_to_a_match():
    app = make_app("how are refunds issued")
    async with app.run_test(size=SIZES[0]) as pilot:
        for size, typed in zip(SIZES, ("refund deliv", "lockout"), strict=True):
            await pilot.resize_terminal(*size)
            find = await opened(pilot, app, "g", FindScreen)
            assert find.query_one(Input).value == ""  # not the search before
            await pilot.press(*typed)
            await wait_for(pilot, lambda f=find: bool(f.found))
            first = find.found[0]
            await pilot.press("down")
            assert find.query_one(OptionList).has_focus
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is app.walk_screen)
            assert app.walk_screen.query_one(WalkTree).cursor_id == first
        assert first == "account-lockout"


async def test_u_on_a_question_of_the_corpus_offers_its_wrong_turn_first():
    app = make_app(QUESTION, start_walk=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        prompt = await opened(pilot, app, "u", PromptScreen)
        assert prompt.query_one("#prompt-input", Input).value == "wrong-turn:refund-delivery"
        assert prompt.suggestions == ["wrong-turn:refund-delivery", "never-offered", "failure", "forced"]
        await pilot.press("escape")
        await pilot.resize_terminal(*SIZES[1])
        prompt = await opened(pilot, app, "u", PromptScreen)
        await pilot.press("down", "down", "enter")  # never-offered, from the list
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
        assert app.walk_screen.running_to.last == "never-offered"


async def test_u_on_a_query_that_is_no_question_offers_the_last_condition_typed():
    app = make_app("how are refunds issued", start_walk=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        prompt = await opened(pilot, app, "u", PromptScreen)
        assert prompt.query_one("#prompt-input", Input).value == ""  # no half-typed "entered:"
        assert prompt.suggestions == ["never-offered", "failure", "forced"]
        await pilot.press(*"entered:billing", "enter")
        await wait_for(pilot, lambda: app.screen is app.walk_screen)
        await pilot.resize_terminal(*SIZES[1])
        prompt = await opened(pilot, app, "u", PromptScreen)
        assert prompt.query_one("#prompt-input", Input).value == "entered:billing"
        assert prompt.suggestions == ["entered:billing", "never-offered", "failure", "forced"]


async def test_k_offers_this_corpus_sets_only(tmp_path: Path):
    corpus_path = tmp_path / "handbook.yaml"
    shutil.copy(HANDBOOK_PATH, corpus_path)
    shutil.copy(HANDBOOK_PATH.with_name("handbook.questions.yaml"), tmp_path / "handbook.questions.yaml")
    (tmp_path / "extra.questions.yaml").write_text(
        "corpus: handbook.yaml\nquestions:\n  - id: a\n    query: where are refunds\n    expect: [refunds]\n",
        encoding="utf-8")
    (tmp_path / "other.questions.yaml").write_text(  # another corpus's set, beside this one
        "corpus: contract.yaml\nquestions:\n  - id: b\n    query: what is a term\n    expect: [term]\n",
        encoding="utf-8")
    app = make_app("how are refunds issued", corpus=load_corpus(corpus_path), start_walk=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        app.walk_screen.query_one(WalkTree).reveal("refunds")
        for size in SIZES:
            await pilot.resize_terminal(*size)
            prompt = await opened(pilot, app, "K", PromptScreen)
            assert prompt.suggestions == [str(tmp_path / "handbook.questions.yaml"),
                                          str(tmp_path / "extra.questions.yaml")]
            await pilot.press("down", "down")
            assert highlighted(app) == str(tmp_path / "extra.questions.yaml")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.walk_screen)


async def test_the_tab_keys_hand_the_focus_to_the_tab_they_open():
    app = make_app("how are refunds issued", start_walk=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        app.walk_screen.query_one(WalkTree).focus()
        await pilot.press("]")  # Results to Transcript
        await wait_for(pilot, lambda: app.focused is not None and app.focused.id == "transcript-scroll")
        await pilot.press("z")
        assert app.walk_screen.maximized is not None and app.walk_screen.maximized.id == "transcript-scroll"
        assert app.walk_screen.maximized.query(TranscriptView)
        await pilot.press("z")
        await pilot.resize_terminal(*SIZES[1])
        await pilot.press("[")  # back to Results
        await wait_for(pilot, lambda: (pane := app.walk_screen.reading.pane()) is not None and pane.id == "results")
        assert app.focused is not None and app.focused.id != "tree"
