"""Prompt variants from the `W` dialog, by keys only: an edited request kept as `v2` (two files and a model id),
and the walk re-walked from that decision with it — the decisions before replayed, that one and every later one
asked live with the variant — named `prompt v2 from decision 2` in its name, trace header and transcripts.

The model is an OpenAI-compatible server on 127.0.0.1 that answers by the system message it is sent: the first
candidate by default, the last when the system message speaks of money, so the variant's walk differs exactly."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from openinference.semconv.trace import SpanAttributes
from textual.widgets import DataTable, Label

from core import NavigatorChose, TreeNavigator
from explorer.corpora import load_corpus
from explorer.navigators.answered import Answered, answered_by
from explorer.navigators.folders import Folders
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.screens.what_if import FILES_OFF, WhatIfScreen
from explorer.walks.evaluation import Side
from explorer.walks.telemetry.attributes import A
from explorer.walks.telemetry.walk_spans import WalkTracer

from ..http_stub import StubServer
from .helpers import HANDBOOK, HANDBOOK_PATH, make_app, wait_for
from .llm_stub import MODEL, MONEY, QUERY, step_to_answer, what_if_at_first_answer

HANDBOOK_QUESTIONS = HANDBOOK_PATH.with_name("handbook.questions.yaml")


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_variant_kept_in_w_re_walks_from_that_decision_by_keys_only(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        await step_to_answer(pilot, walk, 2)
        original = walk.view.history
        assert original is not None
        first_two = [e for e in original.events if isinstance(e, NavigatorChose)][:2]
        asked_before = len(variant_server.requests)
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        dialog = app.screen
        assert isinstance(dialog, WhatIfScreen)
        system = dict(first_two[1].transcript or ())["system"]
        await pilot.press("ctrl+home", *MONEY, "enter")  # the dialog opens on the system message

        # ctrl+s keeps it as v2 (no name typed): the two files and the model id that reads them.
        await pilot.press("ctrl+s")
        folder = tmp_path / "prompts"
        variant = dialog.variant
        assert variant is not None and variant.name == "v2"
        assert (folder / "v2.system.txt").read_text(encoding="utf-8") == MONEY + "\n" + system
        template = (folder / "v2.prompt.txt").read_text(encoding="utf-8")
        assert "{{candidates}}" in template and "{{query}}" in template and "{{position}}" in template
        assert "Remaining visits: {{remaining_visits}}." in template
        model_id = f"{MODEL}@system={folder / 'v2.system.txt'},prompt={folder / 'v2.prompt.txt'}"
        assert variant.model_id == model_id
        assert str(dialog.query_one("#what-if-status", Label).render()) == (
            f"Kept as v2: {model_id} · ctrl+g re-walks from here with it")
        assert len(variant_server.requests) == asked_before  # keeping asks nothing

        # ctrl+g: walk 1 re-walked from its second decision with v2.
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: not isinstance(app.screen, WhatIfScreen) and len(walk.walks) == 2)
        fork = list(walk.walks)[1]
        assert walk.view.walk is fork
        # It re-walks, as it said, to the end: no c to press after the first decision (issue 45, users' point 2).
        await wait_for(pilot, lambda: fork.history.end is not None)
        history = fork.history
        assert history.name == "walk 2 · walk 1 with prompt v2 from decision 2"
        assert history.settings.model == model_id
        assert history.finished(HANDBOOK).header.settings.model == model_id
        chose = [e for e in history.events if isinstance(e, NavigatorChose)]
        # The first decision replayed from walk 1; the second and every later one asked live with v2.
        assert answered_by(chose[0].transcript) is Answered.REPLAYED
        assert chose[0].selected == first_two[0].selected
        assert [first_two[1].rationale, chose[0].rationale] == ["the first", "the first"]
        for answer in chose[1:]:
            assert answered_by(answer.transcript) is Answered.LIVE and answer.rationale == "the closest in words"
            assert answer.transcript is not None and answer.transcript[-1] == (
                "variant", "prompt v2 from decision 2")
            assert dict(answer.transcript)["system"] == MONEY + "\n" + system
        assert "forced by a person" not in str([e for e in history.events])
        asked = [r.json()["messages"][0]["content"] for r in variant_server.requests[asked_before:]]
        assert asked and set(asked) == {MONEY + "\n" + system} and len(asked) == len(chose) - 1
        assert history.forced == set()

        # Its spans say so too: the walk's metadata names it, each live decision's transcript has the variant.
        spans = WalkTracer("variants").spans_for(history.finished(HANDBOOK))
        metadata = json.loads(str(spans[-1].attributes[SpanAttributes.METADATA]))  # the walk's span ends last
        assert metadata["walk"] == "walk 2 · walk 1 with prompt v2 from decision 2"
        said = [json.loads(str(span.attributes[A + "transcript"])) for span in spans[:-1]
                if span.attributes and (A + "transcript") in span.attributes]
        assert [rest[-1] for rest in said].count(["variant", "prompt v2 from decision 2"]) == len(chose) - 1


async def test_keeping_a_variant_with_files_off_is_refused_in_one_line(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders, allow_files=False)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        await what_if_at_first_answer(pilot)
        dialog = app.screen
        assert isinstance(dialog, WhatIfScreen)
        await pilot.press("ctrl+s")
        assert str(dialog.query_one("#what-if-status", Label).render()) == FILES_OFF
        await pilot.press("ctrl+g")
        assert app.screen is dialog and dialog.variant is None and len(walk.walks) == 1
        assert not (tmp_path / "prompts").exists()


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_ctrl_t_evaluates_the_variant_against_the_original_with_the_flipped_questions_first(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await what_if_at_first_answer(pilot)
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+t")
        # A short picker: the corpus's own question set first (no evaluation is open), or a path typed.
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert app.screen.initial == str(HANDBOOK_QUESTIONS) and app.screen.suggestions == [str(HANDBOOK_QUESTIONS)]
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        assert isinstance(screen, EvaluationScreen)
        model_id = f"{MODEL}@system={tmp_path / 'prompts' / 'v2.system.txt'},prompt={tmp_path / 'prompts' / 'v2.prompt.txt'}"
        assert (screen.sides[Side.A].model, screen.sides[Side.B].model) == (MODEL, model_id)
        assert screen.question_set.path == HANDBOOK_QUESTIONS
        await wait_for(pilot, lambda: all(side.over for side in screen.sides.values()), timeout=120)
        a, b = screen.sides[Side.A].outcomes, screen.sides[Side.B].outcomes
        fixed = [n for n in range(len(a)) if b[n].hit and not a[n].hit]
        broken = [n for n in range(len(a)) if a[n].hit and not b[n].hit]
        assert fixed or broken
        rows = [int(str(row.key.value)) for row in screen.query_one(DataTable).ordered_rows]
        rest = [n for n in range(len(a)) if n not in fixed and n not in broken]
        assert rows == fixed + broken + rest


async def test_ctrl_t_on_a_corpus_with_no_question_set_beside_it_says_so_in_one_line(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders, tmp_path: Path) -> None:
    copy = tmp_path / "handbook.yaml"
    copy.write_bytes(HANDBOOK_PATH.read_bytes())
    app = make_app(QUERY, MODEL, corpus=load_corpus(copy), navigator=resolved(MODEL), folders=folders)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        await step_to_answer(pilot, app.walk_screen, 1)
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        said = len(app.notes)
        await pilot.press("ctrl+t")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("enter")  # the corpus's own, which is not there
        await wait_for(pilot, lambda: len(app.notes) > said)
        model_id = f"{MODEL}@system={tmp_path / 'prompts' / 'v2.system.txt'},prompt={tmp_path / 'prompts' / 'v2.prompt.txt'}"
        assert app.notes[-1].message == (
            f"{tmp_path / 'handbook.questions.yaml'}: no question set beside the corpus; evaluate with --compare "
            f"'{model_id}'")
        assert app.screen is app.walk_screen
