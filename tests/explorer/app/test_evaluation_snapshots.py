"""The evaluation screen's budget sweep against a reviewed SVG snapshot (pytest-textual-snapshot): the chart of the
hit rate by budget over the questions by the budget they need, at 80×24. Review a change as code:
`pytest tests/explorer/app/test_evaluation_snapshots.py --snapshot-update` rewrites it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import DataTable

from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.app import ExplorerApp
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.evaluation_sweep import SweepScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.walk_settings import WalkSettings

from .helpers import wait_for

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch):
    monkeypatch.chdir(ROOT)  # relative corpus paths: the snapshot is the same in any checkout


def test_the_budget_sweep_chart(snap_compare):
    corpus = load_corpus(Path("sample_corpora") / "handbook.yaml")
    explorer = ExplorerApp(corpus, WalkSettings("", "lexical:default"), navigator=resolve_navigator("lexical:default"))

    async def swept(pilot) -> None:
        await pilot.press("escape", "E")
        await wait_for(pilot, lambda: isinstance(explorer.screen, PromptScreen))
        await pilot.press("enter")  # the question set beside the corpus
        await wait_for(pilot, lambda: isinstance(explorer.screen, EvaluationScreen))
        evaluation = explorer.screen
        await wait_for(pilot, lambda: bool(evaluation.sides) and all(s.over for s in evaluation.sides.values()))
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(explorer.screen, PromptScreen) and explorer.screen.ready)
        for field in explorer.screen.query("Input"):
            field.cursor_blink = False
        await pilot.press("enter")  # the budgets offered: 3,5,8,15
        # over, and its table focused (the cursor row drawn: a frame later on a busy machine, which failed this)
        await wait_for(pilot, lambda: isinstance(explorer.screen, SweepScreen) and explorer.screen.over
                       and explorer.screen.query_one(DataTable).has_focus)

    assert snap_compare(explorer, terminal_size=(80, 24), run_before=swept)
