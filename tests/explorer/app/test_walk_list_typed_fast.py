"""The walk list (`w`) under fast keys (issue 45, medium and low): Enter on a row, then a letter typed at once,
filtered the list before the row chosen was read, and the row's place named no walk any more (IndexError at
screens/choose_walk.py:97, the explorer gone). A row chosen is the walk it showed, however the list changed since;
and the 320 keys of the fuzzing pass's storm leave the explorer answering."""

from __future__ import annotations

import asyncio
import shutil
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.navigators.folders import Folders
from explorer.tui.screens.choose_walk import WalksScreen
from tests.samples import SAMPLES

from .helpers import SIZE, make_app, wait_for
from .test_keys_typed_fast import burst

ROOT = Path(__file__).resolve().parents[3]
STORM = ROOT.parent / "shared" / "fixtures" / "keys" / "walk_list_storm.tsv"
TMUX = {"Enter": "enter", "Escape": "escape", "Up": "up", "Down": "down", "Left": "left", "Right": "right",
        "PageDown": "pagedown", "PageUp": "pageup", "Tab": "tab", "BSpace": "backspace", "Space": "space",
        "Home": "home", "End": "end", "BTab": "shift+tab", "DC": "delete"}


async def three_walks(pilot, app) -> None:  # type: ignore[no-untyped-def]
    for count in (1, 2, 3):
        if count > 1:
            await pilot.press("r")
        await pilot.press("c")
        await wait_for(pilot, lambda n=count: len(app.walk_screen.walks) == n
                       and app.walk_screen.view.history.end is not None)


async def test_enter_on_a_row_then_a_letter_at_once_switches_to_the_walk_of_that_row() -> None:
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await three_walks(pilot, app)
        shown = app.walk_screen.view.history
        for _ in range(5):  # the letter's filter leaves no row: Enter's row is gone by the time it is read, if ever
            await pilot.press("w")
            await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
            await pilot.press("up")  # walk 2
            burst(app, "enter", "q")
            await wait_for(pilot, lambda: app.screen is app.walk_screen or not app.is_running)
            assert app.is_running
            if app.walk_screen.view.history is not shown:
                break
        assert app.walk_screen.view.history is not shown  # the row's walk, walk 2
        assert app.walk_screen.view.history.name.startswith("walk 2 ·")


def storm_keys() -> list[tuple[str, str | None]]:
    keys = []
    for line in STORM.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        name = line.split("\t")[0]
        if name.startswith("lit:"):
            keys.extend((ch, ch) for ch in name[4:])
        elif name in TMUX:
            keys.append((TMUX[name], None))
        elif name.startswith("C-"):
            keys.append((f"ctrl+{name[2:].lower()}", None))
        elif len(name) == 1:
            keys.append((name, name))
    return keys


@pytest.mark.skipif(not STORM.is_file(), reason="the shared key fixtures are not here")
async def test_the_walk_list_storm_leaves_the_explorer_answering_and_q_quits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, own_data_folder: Path) -> None:
    """As the fuzzing pass started it: a copy of the contract corpus (K keeps cases in its set, ctrl+s writes where
    typed, ``../../etc/x`` included: all under tmp_path), no response cache, and an OpenAI-compatible server that is
    not there (nothing in the storm names a model)."""
    where = tmp_path / "a" / "b" / "c"
    where.mkdir(parents=True)
    for name in ("contract.yaml", "contract.questions.yaml"):
        shutil.copy(SAMPLES / name, where / name)
    monkeypatch.chdir(where)
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-x")
    app = make_app("termination notice", start_walk=True, corpus=load_corpus(where / "contract.yaml"),
                   folders=Folders(None, tmp_path / "prompts"))
    async with app.run_test(size=(200, 60)) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) >= 1)
        for key, _ in storm_keys():  # each as soon as the app has looked up
            burst(app, key)
            await asyncio.sleep(0)
            assert app.is_running
        # Keys of the storm may still be queued (a prompt a late key opens, the query field a key focuses): each
        # round, Escape twice closes what is open and leaves a field, then q. A deaf keyboard never quits.
        for _ in range(20):
            await pilot.press("escape", "escape", "q")
            if app.return_code is not None:
                break
        assert app.return_code == 0
