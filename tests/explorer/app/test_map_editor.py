"""``M``'s editor on bad input, by keys: an empty summary and a damaged map variant are each one line in the dialog,
which stays open with what was typed (nothing lost, nothing written); a title holding markup is shown literally; M
with no node at hand says what to do. The corpus file is never written."""

from __future__ import annotations

import hashlib
from pathlib import Path

from textual.widgets import Label

from explorer.corpora import load_corpus
from explorer.tui.screens.map_editor import MapEditorScreen
from tests.samples import SAMPLES

from .helpers import cursor_to, make_app, wait_for
from .reading import shown, text_at


async def test_bad_edits_are_one_line_in_the_dialog_and_nothing_is_lost(tmp_path: Path) -> None:
    text = (SAMPLES / "handbook.yaml").read_text(encoding="utf-8")
    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_text(text.replace("title: Billing\n", "title: '[bold]Billing[/bold]'\n", 1), encoding="utf-8")
    before = hashlib.sha256(corpus_path.read_bytes()).digest()
    variant = tmp_path / "maps" / "handbook.map.yaml"
    app = make_app("", "lexical:default", corpus=load_corpus(corpus_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        walk = app.walk_screen
        # No node under the tree's cursor yet (its root is the corpus's title): M says what to do.
        await pilot.press("M")
        await wait_for(pilot, lambda: any(n.message.startswith("M edits a node's title") for n in app.notes))
        assert app.screen is walk

        await cursor_to(pilot, "billing", "[bold]Billing")
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, MapEditorScreen))
        editor = app.screen
        assert isinstance(editor, MapEditorScreen)
        assert "Map: [bold]Billing[/bold] (billing)" in shown(editor.query_one("#map-heading", Label))
        assert editor.title_text == "[bold]Billing[/bold]"
        # A navigator that is no LLM's: only the extractive suggestion, no model asked.
        assert not editor.query("#map-written") and editor.model is None
        assert text_at(editor, "#map-hint") == ("Enter or ctrl+s keeps it in the map variant · ctrl+u takes the "
                                                "suggestion · Escape closes, nothing kept")

        # An empty summary: one line, the dialog stays, nothing written.
        await pilot.press("ctrl+home", "ctrl+shift+end", "backspace")  # the summary field holds the cursor
        await wait_for(pilot, lambda: editor.summary_text == "")
        await pilot.press("enter")
        await wait_for(pilot, lambda: editor.problem is not None)
        assert text_at(editor, "#map-problem") == (f"{variant}: an empty summary for node 'billing'; write what it "
                                                   "should say (nothing was kept)")
        assert app.screen is editor and not variant.exists()

        # A damaged map variant there: never written over; said in one line; what was typed stays in the field.
        variant.parent.mkdir()
        variant.write_text("nodes:\n  billing: [\n", encoding="utf-8")
        await pilot.press(*"Invoices and refunds.")
        await wait_for(pilot, lambda: editor.summary_text == "Invoices and refunds.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "malformed YAML" in text_at(editor, "#map-problem"))
        assert text_at(editor, "#map-problem").startswith(f"{variant}:3: malformed YAML")
        assert variant.read_text(encoding="utf-8") == "nodes:\n  billing: [\n"
        assert app.screen is editor and editor.summary_text == "Invoices and refunds."

        # Escape closes with nothing kept; the tree and the corpus read as before.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)
        assert walk.corpus.map is None and walk.corpus.summary_of("billing").startswith("Invoices, payment methods")
    assert hashlib.sha256(corpus_path.read_bytes()).digest() == before


async def test_the_map_variant_is_an_input_no_save_may_replace(tmp_path: Path) -> None:
    """The map variant the screen walks with (given with --map, or made with M) is read like the corpus: ctrl+s
    refuses to save a trace over it, in one line under the field; nothing is written."""
    from explorer.corpora.map_variant import with_map

    from .helpers import typed_into_prompt
    from .reading import prompt_error

    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_bytes((SAMPLES / "handbook.yaml").read_bytes())
    variant = tmp_path / "maps" / "handbook.map.yaml"
    variant.parent.mkdir()
    variant.write_text("nodes:\n  billing:\n    summary: Invoices and refunds.\n", encoding="utf-8")
    before = variant.read_bytes()
    app = make_app("refund", corpus=with_map(load_corpus(corpus_path), variant), start_walk=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        await typed_into_prompt(pilot, app, "ctrl+s", variant)
        line = (f"the trace {variant} is the map variant ({variant}); an output must not overwrite an input: choose "
                "another file")
        await wait_for(pilot, lambda: prompt_error(app) == line)
    assert variant.read_bytes() == before


async def test_a_map_variant_made_with_m_is_an_input_no_save_may_replace(tmp_path: Path) -> None:
    from .helpers import typed_into_prompt
    from .reading import prompt_error

    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_bytes((SAMPLES / "handbook.yaml").read_bytes())
    variant = tmp_path / "maps" / "handbook.map.yaml"
    app = make_app("refund", corpus=load_corpus(corpus_path), start_walk=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        await cursor_to(pilot, "billing", "Billing")
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, MapEditorScreen))
        await pilot.press("ctrl+u", "enter")
        await wait_for(pilot, lambda: app.screen is app.walk_screen and variant.is_file())
        before = variant.read_bytes()
        await typed_into_prompt(pilot, app, "ctrl+s", variant)
        line = (f"the trace {variant} is the map variant ({variant}); an output must not overwrite an input: choose "
                "another file")
        await wait_for(pilot, lambda: prompt_error(app) == line)
    assert variant.read_bytes() == before


async def test_m_keeps_edits_in_the_map_given_and_again_in_the_one_it_made(tmp_path: Path) -> None:
    """The map variant is an input no other output may replace, yet M's own edits of it are kept: in the map given
    with --map, and a second edit in the map M made."""
    import yaml

    from explorer.corpora.map_variant import with_map

    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_bytes((SAMPLES / "handbook.yaml").read_bytes())
    given = tmp_path / "given.map.yaml"
    given.write_text("nodes:\n  plans:\n    title: Plans\n", encoding="utf-8")
    app = make_app("", corpus=with_map(load_corpus(corpus_path), given))
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.press("escape")
        for node, find in (("billing", "Billing"), ("support", "Support and")):
            await cursor_to(pilot, node, find)
            await pilot.press("M")
            await wait_for(pilot, lambda: isinstance(app.screen, MapEditorScreen))
            editor = app.screen
            await pilot.press("ctrl+end", *f" {node}")
            await pilot.press("enter")
            await wait_for(pilot, lambda editor=editor: app.screen is app.walk_screen or editor.problem is not None)
            assert app.screen is app.walk_screen, editor.problem
    kept = yaml.safe_load(given.read_text(encoding="utf-8"))["nodes"]
    assert set(kept) == {"plans", "billing", "support"}
    assert kept["billing"]["summary"].endswith(" billing") and kept["support"]["summary"].endswith(" support")
