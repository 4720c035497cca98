"""The explorer opening a PDF with ``--summaries openai:MODEL``: the loading screen says the nodes summarised, the
model's summaries are the corpus's (asked of a real HTTP server on 127.0.0.1), and the walk screen says how many
requests that took, cached and new, and which node kept its extractive summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.cli.main import main
from tests.explorer.corpora.test_pdf import outline_pdf
from tests.explorer.http_stub import StubServer
from tests.explorer.test_pdf_summaries import ENV, MODEL, summarising

from .helpers import SIZE, explorer_made_here, wait_for
from .test_pdf_behind_files import Pages


async def test_the_explorer_opens_a_pdf_with_the_models_summaries(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = outline_pdf(tmp_path)
    with StubServer(respond=summarising(fail="2 Shipping")) as server:
        for name, value in {**ENV, "OPENAI_BASE_URL": server.url}.items():
            monkeypatch.setenv(name, value)
        made, _ = explorer_made_here(monkeypatch)
        assert main([str(pdf), "--navigator", "lexical:default", "--summaries", MODEL, "--no-cache",
                     "--sessions", "off"]) == 0
        (app,) = made
        assert server.requests == []  # nothing asked before the explorer is up
        pages = Pages(app)
        async with app.run_test(size=SIZE, message_hook=pages) as pilot:
            await wait_for(pilot, lambda: app.loaded and app.screen is app.walk_screen)
            assert pages.opening == {f"Opening {pdf.name}"}
            assert "summarising: 3 of 3" in pages.lines
            assert app.corpus.summary_of("1-1-refunds") == "What 1.1 Refunds says, in a word."
            assert app.corpus.summary_of("2-shipping").startswith("Parcels leave the warehouse")  # its own kept
            await wait_for(pilot, lambda: len(app.notes) >= 2)
            said = [str(note.message) for note in app.notes]
            assert said[0] == ("summaries by openai:summary-model: 3 requests, 0 cached, 2 new, 1 failed (its "
                               "extractive summary kept)")
            assert said[1].startswith("the summary of node '2-shipping' was not written by openai:summary-model (")
            await pilot.press("q")
        assert len(server.requests) == 3
