"""``H`` on a walk walked with a map variant: the page names the map (its file's name and short hash) under the
settings, as ``export`` does from the walk's trace; a walk walked before ``M`` kept a map names none, and is drawn on
the map it was walked on."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
import shutil
from pathlib import Path

from textual.widgets import Input

from explorer.corpora import load_corpus
from explorer.corpora.map_variant import with_map
from explorer.navigators import resolve_navigator
from explorer.tui.screens.map_editor import MapEditorScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.walk_settings import WalkSettings
from tests.samples import SAMPLES

from .helpers import Explorer, cursor_to, wait_for


def frames_of(page: str) -> list[str]:
    """The SVG of every step the page replays (its data: base64 of gzip)."""
    found = re.search(r'<script id="walk-data" type="application/json">(.*?)</script>', page, re.DOTALL)
    assert found is not None
    return [gzip.decompress(base64.b64decode(frame)).decode("utf-8") for frame in json.loads(found[1])["frames"]]


async def export(pilot, out: Path) -> str:  # type: ignore[no-untyped-def]
    """``H``, ``out`` given, the page once written."""
    app = pilot.app
    written = len([n for n in app.notes if "Walk exported to" in n.message])
    await pilot.press("H")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
    app.screen.query_one(Input).value = str(out)
    await pilot.press("enter")
    await wait_for(pilot, lambda: len([n for n in app.notes if "Walk exported to" in n.message]) > written,
                   timeout=300)
    return out.read_text(encoding="utf-8")


async def test_h_names_the_map_the_walk_was_walked_with(tmp_path: Path) -> None:
    corpus_path = tmp_path / "handbook.yaml"
    shutil.copy(SAMPLES / "handbook.yaml", corpus_path)
    variant = tmp_path / "maps" / "handbook.map.yaml"
    variant.parent.mkdir()
    variant.write_text("nodes:\n  billing:\n    summary: Refunds, invoices and payments.\n", encoding="utf-8")
    sha = hashlib.sha256(variant.read_bytes()).hexdigest()
    out = tmp_path / "refunds.html"
    settings = WalkSettings("How are refunds issued?", "lexical:default")
    app = Explorer(with_map(load_corpus(corpus_path), variant), settings, navigator=resolve_navigator("lexical:default"),
                   start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        page = await export(pilot, out)
    assert f'<p class="meta" id="map">Walked with the map variant handbook.map.yaml (sha256 {sha[:12]}…)</p>' in page


async def test_a_walk_walked_before_m_kept_a_map_names_none_and_is_drawn_on_its_own_map(tmp_path: Path) -> None:
    corpus_path = tmp_path / "handbook.yaml"
    shutil.copy(SAMPLES / "handbook.yaml", corpus_path)
    settings = WalkSettings("How are refunds issued?", "lexical:default")
    app = Explorer(load_corpus(corpus_path), settings, navigator=resolve_navigator("lexical:default"),
                   start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        walk = app.walk_screen
        await pilot.press("c")
        await wait_for(pilot, lambda: walk.view.history.end == "finished")
        # M: Billing retitled Moneyback, kept in the map variant; the walk on screen was walked before it.
        await cursor_to(pilot, "billing", "Billing")
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, MapEditorScreen))
        editor = app.screen
        await pilot.press("shift+tab", "end", "ctrl+shift+home", *"Moneyback")
        await wait_for(pilot, lambda: editor.title_text == "Moneyback")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is walk and walk.corpus.map is not None)
        assert walk.corpus.title_of("billing") == "Moneyback"
        page = await export(pilot, tmp_path / "before-the-map.html")
    assert 'id="map"' not in page
    frames = frames_of(page)
    assert any("Billing" in frame for frame in frames)
    assert not any("Moneyback" in frame for frame in frames)
