"""The main screens, checked against reviewed SVG snapshots (pytest-textual-snapshot).

Review a changed snapshot as you would code: `pytest tests/explorer/app/test_snapshots.py --snapshot-update`
rewrites them, and `git diff` shows what moved. The states are chosen so nothing on screen depends on the
clock or the machine (no navigator timings, no absolute paths, no toasts, no blinking cursor).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.app import ExplorerApp
from explorer.tui.screens.help import HelpScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walk_settings import WalkSettings

from .helpers import wait_for

ROOT = Path(__file__).resolve().parents[3]
SIZE = (120, 36)


@pytest.fixture(autouse=True)
def _from_the_repository(monkeypatch):
    monkeypatch.chdir(ROOT)  # relative corpus paths: the snapshots are the same in any checkout


def app(query: str = "", model: str = "lexical:default", **options) -> ExplorerApp:
    corpus = load_corpus(Path("sample_corpora") / "handbook.yaml")
    walk_options = {k: options.pop(k) for k in ("max_nodes_visited", "max_depth") if k in options}
    explorer = ExplorerApp(corpus, WalkSettings(query, model, **walk_options), navigator=resolve_navigator(model),
                           **options)
    return explorer


async def no_blink(pilot) -> None:
    """Every text field's cursor shown, steadily: on every screen of the stack (a prompt's field included, which
    ``app.query`` does not reach). On a busy machine a blink already due when blinking stops still hides the
    cursor after it (Textual's timer catches up), so this waits, with a bound, until every cursor is shown and
    stays shown over a pause, stopping the blink again each time a late one hid it. The fields are read each time
    round: the walk screen's query box may not be mounted yet when this starts (it always has one)."""
    for _ in range(50):
        fields = [widget for screen in pilot.app.screen_stack for widget in screen.query("Input")]
        for field in fields:
            if field.cursor_blink or not field._cursor_visible:
                field.cursor_blink = True
                field.cursor_blink = False  # the timer paused, and the cursor shown
        await pilot.pause()
        if fields and all(field._cursor_visible for field in fields):
            return
    raise AssertionError("a text field's cursor kept blinking off")


def test_the_first_screen(snap_compare):
    explorer = app(example_query="How long until I get my money back?")
    assert snap_compare(explorer, terminal_size=SIZE, run_before=no_blink)


def test_mid_walk_after_entering_a_node(snap_compare):
    explorer = app("How are refunds issued?", start_walk=True)

    async def walk_in(pilot) -> None:
        await pilot.press(*"nnn")  # the roots offered, billing chosen, billing entered
        await wait_for(pilot, lambda: len(explorer.walk_screen.view.history.events) == 4)
        tree = explorer.walk_screen.query_one(WalkTree)
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "billing")
        await no_blink(pilot)

    assert snap_compare(explorer, terminal_size=SIZE, run_before=walk_in)


def test_the_end_of_a_budget_exhaustion_walk(snap_compare):
    script = os.path.join("sample_corpora", "scripts", "wide-walk-out-of-visits.yaml")
    explorer = app("What does it cost?", f"script:{script}", start_walk=True, max_nodes_visited=6)

    async def to_the_end(pilot) -> None:
        await pilot.press("c")
        await wait_for(pilot, lambda: explorer.walk_screen.view.history.end is not None)
        await no_blink(pilot)

    assert snap_compare(explorer, terminal_size=SIZE, run_before=to_the_end)


def test_the_help_screen(snap_compare):
    async def open_help(pilot) -> None:
        await pilot.press("escape", "question_mark")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, HelpScreen))
        await no_blink(pilot)

    assert snap_compare(app(), terminal_size=SIZE, run_before=open_help)


def test_a_prompt(snap_compare):
    async def open_prompt(pilot) -> None:
        await pilot.press("escape", "v")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromptScreen) and pilot.app.screen.ready)
        await no_blink(pilot)

    assert snap_compare(app(), terminal_size=SIZE, run_before=open_prompt)


def test_the_transcript_on_the_whole_screen(snap_compare):
    explorer = app("How are refunds issued?", start_walk=True)

    async def full_screen(pilot) -> None:
        await pilot.press("n", "n", "right_square_bracket")  # the first answer, the Transcript tab
        await wait_for(pilot, lambda: explorer.walk_screen.view.history.cursor == 3)
        for _ in range(12):  # Tab to the transcript: the tree, the step panel, the tab strip, the transcript
            if explorer.focused is not None and explorer.focused.id == "transcript-scroll":
                break
            await pilot.press("tab")
        await pilot.press("z")
        await wait_for(pilot, lambda: explorer.walk_screen.maximized is not None)
        explorer.clear_notifications()  # no toast in a snapshot
        await no_blink(pilot)

    assert snap_compare(explorer, terminal_size=SIZE, run_before=full_screen)
