"""From a wrong turn to a fix, in one session with keys only (issue 26, "Done when"):

1. find a wrong turn (the walk lands the wrong node: its first decision took the wrong branch);
2. edit the prompt in `W`;
3. re-walk from that decision with the variant (`ctrl+g`);
4. evaluate the variant against the original over a small question set (`E` on the variant's walk, the path typed
   in the picker), the questions that flipped first: fixed, then broken;
5. keep the case as a question (`K`, the right node marked with `g`);
6. keep both runs (`ctrl+s` on the evaluation screen): the original as the baseline, the variant as the candidate,
   read back as `eval --against` reads them.

The navigator is an OpenAI-compatible server on 127.0.0.1 that answers by the system message it is sent: with the
original prompt the first candidate (a wrong branch), with the edited one ("Think of money.") the candidate closest in
words to the query (the right one), so every figure below is exact. Also: `W` on an answer taken from a what-if says
so, and with which variant."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml
from textual.widgets import DataTable, Label

from core import NavigatorChose, TreeNavigator
from explorer.corpora import load_corpus
from explorer.corpora.questions import today
from explorer.navigators.folders import Folders
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.screens.what_if import WhatIfScreen
from explorer.walks.evaluation import Side, read_run
from explorer.walks.evaluation.kept_run import file_sha256

from ..http_stub import StubServer
from .helpers import HANDBOOK_PATH, cursor_to, make_app, resize, wait_for
from .llm_stub import MODEL, MONEY, QUERY, SMALL, step_to_answer, what_if_at_first_answer
from .reading import text_at


def landed(history) -> list[str]:  # type: ignore[no-untyped-def]
    result = history.state().result
    return [d.id for d in result.documents] if result is not None else []


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_from_a_wrong_turn_to_a_kept_run_by_keys_only(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    small = tmp_path / "small.questions.yaml"
    small.write_text(SMALL.format(corpus=HANDBOOK_PATH), encoding="utf-8")
    cases = tmp_path / "cases.questions.yaml"
    variant = (f"{MODEL}@system={tmp_path / 'prompts' / 'v2.system.txt'},"
               f"prompt={tmp_path / 'prompts' / 'v2.prompt.txt'}")
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen

        # 1. The wrong turn: the roots answered with accounts (the first candidate); it lands no refund.
        await pilot.press("c")
        await wait_for(pilot, lambda: walk.view.history is not None and walk.view.history.end is not None)
        original = walk.view.history
        assert landed(original) == ["password-sign-in"]
        first = next(d for d in original.decisions() if d.answer is not None)
        assert isinstance(first.answer, NavigatorChose) and first.answer.selected == ("accounts",)
        await pilot.press("B")
        await step_to_answer(pilot, walk, 1)

        # 2. W on that decision; the system message edited.
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        dialog = app.screen
        assert str(dialog.query_one("#what-if-title", Label).render()) == (
            f"What if — walk 1 · the decision at the roots (chosen, step {first.step})")
        await pilot.press("ctrl+home", *MONEY, "enter")

        # 3. ctrl+g: kept as v2, walk 1 re-walked from its first decision with it; it lands the refund.
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: len(walk.walks) == 2 and walk.view.history is not original)
        fixed = walk.view.history
        assert fixed.name == "walk 2 · walk 1 with prompt v2 from decision 1"
        assert fixed.settings.model == variant
        await pilot.press("c")
        await wait_for(pilot, lambda: fixed.end is not None)
        assert landed(fixed) == ["refund-delivery"]

        # 4. E on the variant's walk: the picker offers the corpus's own set; the small one is typed.
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        picker = app.screen
        own = str(HANDBOOK_PATH.with_name("handbook.questions.yaml"))
        assert picker.prompt_title == (f"Evaluate {MODEL} with prompt v2 against {MODEL} over a question set (the open one, the "
                                       "corpus's own, or type a path)")
        assert (picker.initial, picker.suggestions) == (own, [own])
        await pilot.press("home", "ctrl+k", *str(small), "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        assert isinstance(evaluation, EvaluationScreen)
        assert (evaluation.sides[Side.A].model, evaluation.sides[Side.B].model) == (MODEL, variant)
        await wait_for(pilot, lambda: all(side.over for side in evaluation.sides.values()), timeout=120)
        a, b = (evaluation.sides[side].outcomes for side in (Side.A, Side.B))
        assert [o.hit for o in a if o is not None] == [False, False, True, True]
        assert [o.hit for o in b if o is not None] == [True, False, False, False]
        rows = [int(str(row.key.value)) for row in evaluation.query_one(DataTable).ordered_rows]
        assert rows == [0, 2, 3, 1]  # fixed, then broken, then the rest

        # 5. K on walk 2: its query, answered by the node marked on the tree, kept in a new question set.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)
        assert walk.view.history is fixed
        await cursor_to(pilot, "refund-delivery", "Refund delivery")
        await pilot.press("K")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("home", "ctrl+k", *str(cases), "enter")
        await wait_for(pilot, lambda: any(n.message.startswith("Kept question") for n in app.notes))
        assert yaml.safe_load(cases.read_text(encoding="utf-8"))["questions"] == [
            {"id": "how-long-do-refunds-take-to-arrive", "query": QUERY, "expect": ["refund-delivery"],
             "kept": today()}]

        # 6. Back to the evaluation, ctrl+s: both runs kept beside the set, as eval --save-run keeps each: the
        # original as the baseline, the variant as the candidate.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is evaluation)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.initial == str(tmp_path / "small")
        await pilot.press("enter")
        baseline, saved = tmp_path / "small-baseline.run.json", tmp_path / "small-v2.run.json"
        await wait_for(pilot, lambda: saved.is_file())
        await wait_for(pilot, lambda: any(n.message.startswith("Kept both runs") for n in app.notes))
        assert [n.message for n in app.notes if n.message.startswith("Kept both")] == [
            "Kept both runs: A in small-baseline.run.json, B in small-v2.run.json."]
        assert str(evaluation.query_one("#eval-hint").render()).startswith(
            f"Kept both runs: A {MODEL} as the baseline in {baseline}, B {MODEL} with prompt v2 as the candidate in "
            f"{saved}. o on a later evaluation, or eval --against, compares a run with either (was → now).\n")
    kept = read_run(saved)
    assert kept.navigator == variant and kept.path == str(saved) and kept.questions_sha256 == file_sha256(small)
    assert [(q.id, q.hit) for q in kept.results] == [
        ("refunds-arrive", True), ("money-back", False), ("password-billing", False), ("sign-in", False)]
    original_run = read_run(baseline)
    assert original_run.navigator == MODEL and not original_run.partial
    assert [q.hit for q in original_run.results] == [False, False, True, True]


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_w_on_an_answer_taken_from_a_what_if_says_so_and_names_the_variant(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders) -> None:
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        await what_if_at_first_answer(pilot)
        dialog = app.screen
        assert isinstance(dialog, WhatIfScreen)
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+s", "ctrl+r")
        await wait_for(pilot, lambda: dialog.answer is not None)
        await pilot.press("ctrl+f")
        await wait_for(pilot, lambda: len(walk.walks) == 2 and not isinstance(app.screen, WhatIfScreen))
        fork = walk.view.history
        await wait_for(pilot, lambda: any(isinstance(e, NavigatorChose) for e in fork.events))
        decision = next(d for d in fork.decisions() if d.answer is not None)
        assert fork.cursor == decision.step
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen) and app.screen is not dialog)
        assert str(app.screen.query_one("#what-if-title", Label).render()) == (
            f"What if — walk 2 · the decision at the roots (taken from a what-if with prompt v2, step "
            f"{decision.step})")


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_from_a_wrong_turn_to_a_verified_fix_on_the_check_set_by_keys_only(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    """Issue 36's loop, as README's "From a wrong turn to a fix" tells it, at 80×24 and then resized to 120×40:
    the wrong turn, the variant (W, ctrl+g), the case kept (K), the variant checked against the original on the
    check set (E: the case kept, no set typed), both runs kept (ctrl+s) and compared was → now (o)."""
    corpus_path = tmp_path / "handbook.yaml"
    shutil.copy(HANDBOOK_PATH, corpus_path)
    variant = (f"{MODEL}@system={tmp_path / 'prompts' / 'v2.system.txt'},"
               f"prompt={tmp_path / 'prompts' / 'v2.prompt.txt'}")
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders, corpus=load_corpus(corpus_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        # The wrong turn: the roots answered with accounts; it lands no refund.
        await pilot.press("c")
        await wait_for(pilot, lambda: walk.view.history is not None and walk.view.history.end is not None)
        assert landed(walk.view.history) == ["password-sign-in"]
        await pilot.press("B")
        await step_to_answer(pilot, walk, 1)
        # The variant: W, the system message edited, ctrl+g re-walks from that decision with it.
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+g")
        await wait_for(pilot, lambda: len(walk.walks) == 2)
        fixed = walk.view.history
        assert fixed.settings.model == variant
        await pilot.press("c")
        await wait_for(pilot, lambda: fixed.end is not None)
        assert landed(fixed) == ["refund-delivery"]
        # The case kept: the right node found with g, K keeps it in the corpus's own set (made, beside it).
        await cursor_to(pilot, "refund-delivery", "Refund delivery")
        await pilot.press("K")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.initial == str(tmp_path / "handbook.questions.yaml")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.message.startswith("Kept question") for n in app.notes))

        # Checked: E offers the check set (the case kept), Enter walks the original (A) against v2 (B) on it.
        await resize(pilot, (120, 40))
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        check = tmp_path / "handbook.check.questions.yaml"
        assert app.screen.initial == str(check)
        assert app.screen.prompt_title.startswith(f"Evaluate {MODEL} with prompt v2 against {MODEL} on the check set, 1 question: "
                                                  "1 kept with K")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        await wait_for(pilot, lambda: all(side.over for side in evaluation.sides.values()), timeout=120)
        a, b = (evaluation.sides[side].outcomes for side in (Side.A, Side.B))
        assert [(o.question.id, o.hit) for o in a] == [("how-long-do-refunds-take-to-arrive", False)]
        assert [(o.question.id, o.hit) for o in b] == [("how-long-do-refunds-take-to-arrive", True)]

        # Both runs kept, the original as the baseline and v2 as the candidate.
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        assert app.screen.initial == str(tmp_path / "handbook.check")  # not the full set's name: its runs are apart
        await pilot.press("enter")
        baseline, candidate = tmp_path / "handbook.check-baseline.run.json", tmp_path / "handbook.check-v2.run.json"
        await wait_for(pilot, lambda: candidate.is_file() and app.screen is evaluation)
        # Compared was → now: the baseline kept is the was side, v2 the run now; the case is fixed.
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press("home", "ctrl+k", *str(baseline), "enter")
        await wait_for(pilot, lambda: app.screen is evaluation and bool(text_at(evaluation, "#eval-kept-text")))
        lines = text_at(evaluation, "#eval-kept-text").splitlines()
        assert lines[0] == "Fixed 1 of 1 kept case, broke none"  # did it work: said first, in words
        assert lines[1:4] == [f"Against handbook.check-baseline.run.json: was {MODEL} · now {MODEL} with prompt v2",
                             "  compared on 1 of 1 question both runs hold", "  hit        1/1 (was 0/1, +1)"]
        assert "Fixed (1): missed then, hit now" in lines and "Broken (0): hit then, missed now" in lines
    assert [q.hit for q in read_run(baseline).results] == [False]
    assert [q.hit for q in read_run(candidate).results] == [True]
