"""Presenting mode's answer card, checked against reviewed SVG snapshots at 80×24 and 200×60 (see test_snapshots.py
for how to review a changed one). The walk is lexical:default's, whose every step is known; nothing on screen
depends on the clock."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.app import ExplorerApp
from explorer.walk_settings import WalkSettings

from .helpers import wait_for

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch):
    monkeypatch.chdir(ROOT)


def presented(query: str, model: str = "lexical:default", **options) -> ExplorerApp:
    corpus = load_corpus(Path("sample_corpora") / "handbook.yaml")
    return ExplorerApp(corpus, WalkSettings(query, model, **options), navigator=resolve_navigator(model),
                       start_walk=True, present=True)


async def to_the_answer(pilot) -> None:
    screen = pilot.app.walk_screen
    await wait_for(pilot, lambda: screen.view.history is not None and bool(screen.view.history.events))
    for _ in range(30):  # a decision a press: lexical:wide's walk of the handbook has a handful
        if screen.view.history.ended and screen.view.history.at_latest and not screen.presenter.advancing:
            break
        await pilot.press("n")
        await wait_for(pilot, lambda: not screen.presenter.advancing)
    else:
        raise AssertionError("30 presses of n never reached the answer")
    for widget in pilot.app.query("Input"):
        widget.cursor_blink = False
    await pilot.pause()


@pytest.mark.parametrize("size", [(80, 24), (200, 60)], ids=["80x24", "200x60"])
def test_the_answer_card(snap_compare, size):
    assert snap_compare(presented("How are refunds issued?", "lexical:wide"), terminal_size=size,
                        run_before=to_the_answer)


@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
def test_the_answer_card_ranks_and_sets_stand_ins_apart(snap_compare, size):
    """Five leaves in the navigator's order, the first starred, and Plans and pricing last, as a stand-in."""
    model = "script:sample_corpora/scripts/wide-walk-out-of-visits.yaml"
    assert snap_compare(presented("everything about money", model, max_nodes_visited=6), terminal_size=size,
                        run_before=to_the_answer)
