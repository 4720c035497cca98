"""Fix the map, and verify it as a prompt fix is verified (issue 46 point 5, "Done when"), by keys alone, at 80×24
and then 120×40: a walk over a copy of the sample handbook misses because Billing's summary hides what lies beneath
it; the step panel's verdict names Billing; ``M`` opens Billing's title and summary with a summary suggested from its
content; the suggestion taken and kept, the tree shows it and the map variant is written beside the corpus; ``E``
walks the original map against the variant on the check set; ``ctrl+s`` keeps both runs, ``o`` compares them: was →
now says it is fixed. The corpus file is byte for byte what it was."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest
import yaml

from explorer.corpora import load_corpus
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.map_editor import MapEditorScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.walk_screen import WalkScreen
from explorer.walks.evaluation import Side, read_run
from tests.samples import SAMPLES

from .helpers import make_app, resize, wait_for
from .reading import text_at

QUERY = "How long until I get my money back?"
MODEL = "semantic:hybrid"
HIDDEN = "General information and related matters."
SUMMARY = "    summary: Invoices, payment methods, failed payments, taxes, refunds and account credits.\n"


def landed(history) -> list[str]:  # type: ignore[no-untyped-def]
    result = history.state().result
    return [d.id for d in result.documents] if result is not None else []


@pytest.fixture
def planted(tmp_path: Path) -> Path:
    """A copy of the handbook whose Billing summary hides what lies beneath it, its question set beside it."""
    text = (SAMPLES / "handbook.yaml").read_text(encoding="utf-8")
    assert text.count(SUMMARY) == 1
    corpus = tmp_path / "handbook.yaml"
    corpus.write_text(text.replace(SUMMARY, f"    summary: {HIDDEN}\n"), encoding="utf-8")
    shutil.copy(SAMPLES / "handbook.questions.yaml", tmp_path / "handbook.questions.yaml")
    return corpus


async def step_to(pilot, walk: WalkScreen, step: int) -> None:  # type: ignore[no-untyped-def]
    """B, then n until the walk on screen shows ``step`` (bounded), as a person steps to it."""
    await pilot.press("B")
    await wait_for(pilot, lambda: walk.view.history.cursor <= 1)
    for _ in range(60):
        if walk.view.history.cursor >= step:
            return
        at = walk.view.history.cursor
        await pilot.press("n")
        await wait_for(pilot, lambda at=at: walk.view.history.cursor > at)
    raise AssertionError("never reached that step")


@pytest.mark.slow  # a whole story: make test, not make test-fast
async def test_a_map_fix_goes_from_the_verdict_to_was_now_by_keys(planted: Path, tmp_path: Path) -> None:
    before = hashlib.sha256(planted.read_bytes()).digest()
    app = make_app(QUERY, MODEL, corpus=load_corpus(planted))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        # The miss: the roots turned away from Billing, whose summary says nothing of refunds.
        await pilot.press("c")
        await wait_for(pilot, lambda: walk.view.history is not None and walk.view.history.end is not None)
        first = walk.view.history
        assert "refund-delivery" not in landed(first)
        shown = walk.view.walk
        await wait_for(pilot, lambda: shown.judged is not None, timeout=120)
        at, lines = shown.judged
        assert shown.blamed == "billing"
        assert lines[0].startswith("the map hid it: at the roots, what lies beneath 'Billing' ranks it 1st of 9")
        await step_to(pilot, walk, at)
        assert "Fault the map hid it: at the roots, what lies beneath 'Billing'" in " ".join(
            text_at(walk, "#step").split())

        # M: Billing's title and summary, and a summary suggested from its content; ctrl+u takes it, Enter keeps it.
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, MapEditorScreen))
        editor = app.screen
        assert isinstance(editor, MapEditorScreen)
        assert (editor.node.node_id, editor.title_text, editor.summary_text) == ("billing", "Billing", HIDDEN)
        assert editor.node.why == lines[0]
        suggestion = editor.node.suggestion
        assert suggestion.startswith("Billing is run by the Billing Operations team in Finance")  # from its content
        await resize(pilot, (120, 40))
        await pilot.press("ctrl+u")
        await wait_for(pilot, lambda: editor.summary_text == suggestion)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is walk)
        variant = tmp_path / "maps" / "handbook.map.yaml"
        kept = yaml.safe_load(variant.read_text(encoding="utf-8"))
        assert kept["nodes"] == {"billing": {"summary": " ".join(suggestion.split())}}
        assert walk.corpus.map is not None and walk.corpus.map.path == str(variant)
        assert walk.corpus.summary_of("billing") == " ".join(suggestion.split())
        assert app.walk_screen.query_one("#tree").corpus is walk.corpus
        assert walk.sub_title.startswith("Northwind Cloud handbook (map handbook.map.yaml) · walk 1")

        # The walk goes on with the map: r walks the query again, on the variant; it lands the refund now.
        await pilot.press("r")
        await wait_for(pilot, lambda: walk.view.history is not first and walk.view.history is not None)
        await pilot.press("c")
        await wait_for(pilot, lambda: walk.view.history.end is not None)
        assert "refund-delivery" in landed(walk.view.history)

        # E: the original map (A) against the variant (B) on the check set (this walk's query, a question beside it).
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        check = tmp_path / "handbook.check.questions.yaml"
        assert app.screen.initial == str(check)
        assert app.screen.prompt_title.startswith(
            f"Evaluate {MODEL} with map handbook.map.yaml against {MODEL} with the original map on the check set, "
            "1 question: 1 this walk's query")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        assert isinstance(evaluation, EvaluationScreen)
        await wait_for(pilot, lambda: len(evaluation.sides) == 2 and all(s.over for s in evaluation.sides.values()),
                       timeout=120)
        a, b = (evaluation.sides[side].outcomes for side in (Side.A, Side.B))
        assert [(o.question.id, o.hit) for o in a] == [("money-back", False)]
        assert [(o.question.id, o.hit) for o in b] == [("money-back", True)]
        assert evaluation.sides[Side.B].label == f"{MODEL} with map handbook.map.yaml"

        # Both runs kept (the original map the baseline, the variant the candidate), then compared was → now.
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press("enter")
        baseline = tmp_path / "handbook.check-baseline.run.json"
        candidate = tmp_path / "handbook.check-candidate.run.json"
        await wait_for(pilot, lambda: candidate.is_file() and app.screen is evaluation)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press("home", "ctrl+k", *str(baseline), "enter")
        await wait_for(pilot, lambda: app.screen is evaluation and bool(text_at(evaluation, "#eval-kept-text")))
        said = text_at(evaluation, "#eval-kept-text").splitlines()
        assert said[0] == "Fixed 1 of 1 kept case, broke none"
        assert said[1] == (f"Against handbook.check-baseline.run.json: was {MODEL} · now {MODEL} with map "
                           "handbook.map.yaml")
    assert read_run(baseline).map is None
    assert read_run(candidate).map is not None and read_run(candidate).map.path == str(variant)
    assert [q.hit for q in read_run(candidate).results] == [True]
    assert hashlib.sha256(planted.read_bytes()).digest() == before  # the corpus file: never written


async def test_each_side_of_a_map_check_is_judged_on_its_own_map(planted: Path, tmp_path: Path) -> None:
    """``E`` walks the original map (A) against the variant (B); A's miss is judged on the map A walked, where
    Billing's summary hid the refund (as the walk screen said before the fix), not on the variant B walked."""
    from explorer.corpora.map_variant import with_map
    from explorer.walks.evaluation.blame import BlameKind

    variant = tmp_path / "maps" / "handbook.map.yaml"
    variant.parent.mkdir()
    variant.write_text("format: reasoning-explorer-map\nversion: 1\nnodes:\n  billing:\n    summary: Invoices, "
                       "payment methods, failed payments, taxes, refunds and account credits.\n", encoding="utf-8")
    app = make_app(QUERY, MODEL, corpus=with_map(load_corpus(planted), variant))
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape", "c")
        walk = app.walk_screen
        await wait_for(pilot, lambda: walk.view.history is not None and walk.view.history.end is not None)
        await pilot.press("E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        assert isinstance(evaluation, EvaluationScreen)
        await wait_for(pilot, lambda: len(evaluation.sides) == 2 and all(s.over for s in evaluation.sides.values())
                       and evaluation.sides[Side.A].outcomes[0].blame is not None, timeout=120)
        (missed,) = evaluation.sides[Side.A].outcomes
        assert not missed.hit and missed.blame is not None
        assert missed.blame.kind is BlameKind.MAP_HID
        assert missed.blame.says.startswith("the map hid it: at the roots, what lies beneath 'Billing' ranks it 1st")

        # b: each side swept on its own map too (A with the original map misses at every budget, B lands it).
        from explorer.tui.screens.evaluation_sweep import SweepScreen

        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press("enter")  # both
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready
                       and app.screen.prompt_title.startswith("Budget sweep with A "))
        await pilot.press(*"8,15", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.over, timeout=120)
        sweep = app.screen
        assert isinstance(sweep, SweepScreen) and sweep.found is not None
        assert (sweep.found["A"].lands_from(0), sweep.found["B"].lands_from(0)) == (None, 8)
