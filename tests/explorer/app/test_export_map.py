"""``H`` on a walk walked with a map variant: the page names the map (its file's name and short hash) under the
settings, as ``export`` does from the walk's trace."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

from textual.widgets import Input

from explorer.corpora import load_corpus
from explorer.corpora.map_variant import with_map
from explorer.navigators import resolve_navigator
from explorer.tui.screens.prompt import PromptScreen
from explorer.walk_settings import WalkSettings
from tests.samples import SAMPLES

from .helpers import Explorer, wait_for


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
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one(Input).value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
    assert (f'<p class="meta" id="map">Walked with the map variant handbook.map.yaml (sha256 {sha[:12]}…)</p>'
            in out.read_text(encoding="utf-8"))
