"""``--cache DIR`` and ``--prompts DIR`` travel in the command's wiring: the command line's entry, run in this
process, hands them to the navigator (its answers cached in DIR, from a real HTTP server) and to the explorer's
``W`` dialog (its variant kept in DIR), and the process's environment is the same after the command as before."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.tui.screens.what_if import WhatIfScreen

from ..http_stub import StubServer
from .helpers import HANDBOOK_PATH, explorer_made_here, wait_for
from .llm_stub import MODEL, MONEY, QUERY, step_to_answer, what_if_at_first_answer


def test_walk_caches_in_the_folder_given_and_sets_no_environment(
        variant_server: StubServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    cache = tmp_path / "answers"
    argv = ["walk", str(HANDBOOK_PATH), QUERY, "--navigator", MODEL, "--cache", str(cache), "--max-visits", "4"]
    before = dict(os.environ)
    assert main(argv) == 0, capsys.readouterr().err
    assert dict(os.environ) == before
    asked = len(variant_server.requests)
    assert asked > 0 and len(list(cache.rglob("*.json"))) == asked  # each answer kept in DIR
    assert main(argv) == 0, capsys.readouterr().err
    assert len(variant_server.requests) == asked  # the same walk again: every answer read from DIR
    assert dict(os.environ) == before


async def test_the_explorer_hands_both_folders_to_its_navigator_and_to_w_and_sets_no_environment(
        variant_server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cache, prompts = tmp_path / "answers", tmp_path / "variants"
    made, resolved = explorer_made_here(monkeypatch)
    before = dict(os.environ)
    assert main([str(HANDBOOK_PATH), "--navigator", MODEL, "--query", QUERY, "--cache", str(cache),
                 "--prompts", str(prompts)]) == 0
    assert dict(os.environ) == before
    (app,) = made
    assert app.wiring.folders is not None
    assert (app.wiring.folders.cache, app.wiring.folders.prompts) == (cache.resolve(), prompts.resolve())
    async with app.run_test(size=(120, 40)) as pilot:
        walk = app.walk_screen
        await step_to_answer(pilot, walk, 2)
        assert len(list(cache.rglob("*.json"))) == len(variant_server.requests) == 2  # the navigator caches in DIR
        await pilot.press("W")
        await wait_for(pilot, lambda: isinstance(app.screen, WhatIfScreen))
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+s")  # kept as v2
        await wait_for(pilot, lambda: (prompts / "v2.system.txt").is_file())
        assert (prompts / "v2.system.txt").read_text(encoding="utf-8").startswith(MONEY + "\n")
    for navigator in resolved:  # its client's thread ends with it (the app closes no navigator it was handed)
        getattr(navigator, "close", lambda: None)()
    assert dict(os.environ) == before


async def test_variants_are_kept_beside_the_corpus_and_clearing_the_cache_loses_none(
        variant_server: StubServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No ``--prompts``: ``W`` keeps its variant in ``prompts`` beside the corpus, not in the cache's folder, so the
    cache cleared (its folder gone) loses no variant, and ``C`` still walks on with ``prompt=v2``."""
    corpus = tmp_path / "work" / "handbook.yaml"
    corpus.parent.mkdir()
    corpus.write_bytes(HANDBOOK_PATH.read_bytes())
    cache = tmp_path / "cache" / "llm"
    made, resolved = explorer_made_here(monkeypatch)
    assert main([str(corpus), "--navigator", MODEL, "--query", QUERY, "--cache", str(cache)]) == 0
    (app,) = made
    prompts = corpus.parent / "prompts"
    async with app.run_test(size=(120, 40)) as pilot:
        walk = app.walk_screen
        await what_if_at_first_answer(pilot)
        await pilot.press("ctrl+home", *MONEY, "enter", "ctrl+s")  # kept as v2
        await wait_for(pilot, lambda: (prompts / "v2.system.txt").is_file())
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is walk)
        assert cache.is_dir() and not list(cache.parent.rglob("v2.*"))  # nothing of the variant in the cache's folder
        shutil.rmtree(cache.parent)  # the cache cleared
        assert sorted(p.name for p in prompts.iterdir()) == ["v2.prompt.txt", "v2.system.txt"]
        await pilot.press("C")
        await wait_for(pilot, lambda: getattr(app.screen, "ready", False))
        await pilot.press(*"prompt=v2", "enter")
        await wait_for(pilot, lambda: len(app.walks) == 2)
        continued = app.walk_screen.view.history
        assert continued.settings.model.endswith(f"@system={prompts / 'v2.system.txt'},"
                                                 f"prompt={prompts / 'v2.prompt.txt'}")
    for navigator in resolved:
        getattr(navigator, "close", lambda: None)()
