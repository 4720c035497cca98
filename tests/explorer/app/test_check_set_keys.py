"""``E`` offers the check set first (issue 36, point 1): on a walk made with a prompt variant, the picker opens on
the check set of the corpus — the cases kept with K, the misses and flips of the last kept run, the walk's own
question — saying how many and from where; Enter walks the original (A) against the variant (B) on it, and the
corpus's full set is one key away (Down). At 80×24, then resized to 120×40, by keys; the model is the stub server
that answers by the system message it is sent; the folder's sets and runs are real files (check_set_helpers)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from textual.widgets import OptionList

from core import TreeNavigator
from explorer.corpora import load_corpus
from explorer.navigators.folders import Folders
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.walks.evaluation import Side
from explorer.walks.evaluation.check_set import check_set, write_check_set

from ..check_set_helpers import CHECK_IDS, TRIAL, check_set_folder
from ..http_stub import StubServer
from .helpers import make_app, resize, wait_for
from .llm_stub import MODEL, MONEY, what_if_at_first_answer


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_e_walks_the_original_against_the_variant_on_the_check_set_and_the_full_set_is_one_key_away(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    corpus_path = check_set_folder(tmp_path)
    app = make_app(TRIAL, MODEL, navigator=resolved(MODEL), folders=folders, corpus=load_corpus(corpus_path))
    variant = (f"{MODEL}@system={tmp_path / 'prompts' / 'v2.system.txt'},"
               f"prompt={tmp_path / 'prompts' / 'v2.prompt.txt'}")
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        await pilot.press("n")
        await what_if_at_first_answer(pilot)
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+g")  # kept as v2, walk 1 re-walked with it
        await wait_for(pilot, lambda: len(walk.walks) == 2)
        assert walk.view.history is not None and walk.view.history.settings.model == variant

        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        picker = app.screen
        assert isinstance(picker, PromptScreen)
        check = tmp_path / "handbook.check.questions.yaml"
        own = tmp_path / "handbook.questions.yaml"
        assert picker.prompt_title == (
            f"Evaluate {MODEL} with prompt v2 against {MODEL} on the check set, 5 questions: 2 kept with K, 2 missed or flipped in "
            "small-candidate.run.json, 1 this walk's query (↓ the corpus's full set, or type a path)")
        assert (picker.initial, picker.suggestions) == (str(check), [str(own)])
        await resize(pilot, (120, 40))
        await pilot.press("down")  # the full set, one key away
        options = picker.query_one(OptionList)
        assert options.has_focus and str(options.get_option_at_index(options.highlighted).prompt) == str(own)
        await pilot.press("up", "enter")  # back to the field, which holds the check set: Enter walks it
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        assert isinstance(evaluation, EvaluationScreen)
        assert evaluation.question_set.path == check
        assert [q.id for q in evaluation.question_set.questions] == [*CHECK_IDS, "trial-ends"]
        assert (evaluation.sides[Side.A].model, evaluation.sides[Side.B].model) == (MODEL, variant)
        await wait_for(pilot, lambda: all(side.over for side in evaluation.sides.values()), timeout=120)
        assert [len([o for o in evaluation.sides[side].outcomes if o is not None]) for side in Side] == [5, 5]


async def test_plain_e_offers_the_check_set_and_down_reaches_the_corpuss_own_set_not_the_check_set_again(
        tmp_path: Path) -> None:
    """Once a check set has been written beside the corpus, it sorts before the corpus's own set: it was offered
    again as 'the full set'. Its title's file names are shown literally."""
    corpus_path = check_set_folder(tmp_path)
    corpus = load_corpus(corpus_path)
    write_check_set(check_set(corpus), corpus)  # an earlier E wrote it
    app = make_app("", "lexical:default", corpus=corpus)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        picker = app.screen
        assert isinstance(picker, PromptScreen)
        check, own = tmp_path / "handbook.check.questions.yaml", tmp_path / "handbook.questions.yaml"
        assert picker.initial == str(check)
        assert picker.suggestions == [str(own), str(tmp_path / "cases.questions.yaml"),
                                      str(tmp_path / "small.questions.yaml")]
        await resize(pilot, (120, 40))
        await pilot.press("down")
        options = picker.query_one(OptionList)
        assert str(options.get_option_at_index(options.highlighted).prompt) == str(own)
