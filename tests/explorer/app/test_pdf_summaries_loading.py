"""The explorer opening a PDF with ``--summaries openai:MODEL``: the loading screen says the nodes summarised, the
model's summaries are the corpus's (asked of a real HTTP server on 127.0.0.1), and the walk screen says how many
requests that took, cached and new, and which node kept its extractive summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.cli.main import main
from tests.command_line import run_cli
from tests.explorer.corpora.test_pdf import outline_pdf
from tests.explorer.http_stub import StubServer
from tests.explorer.test_pdf_summaries import ENV, MODEL, summarising

from .helpers import SIZE, explorer_made_here, wait_for
from .test_pdf_behind_files import Pages, text


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


async def test_a_trace_walked_on_the_models_summaries_opens_with_them_and_one_walked_without_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PDF's hash covers a model's summaries: a trace made on them opens with the same --summaries (its offers are
    what the walk saw), and a trace made on the extractive ones, opened with a model's, is one line on the loading
    screen that says which."""
    pdf = outline_pdf(tmp_path)
    summarised, plain = tmp_path / "summarised.jsonl", tmp_path / "plain.jsonl"
    with StubServer(respond=summarising()) as server:
        env = {**ENV, "OPENAI_BASE_URL": server.url}
        query = "how long does a refund take"
        walked = run_cli("walk", pdf, query, "--navigator", "lexical:default", "--summaries", MODEL, "--cache",
                         tmp_path / "cache", "--trace", summarised, env=env)
        assert walked.returncode == 0, walked.stderr
        assert run_cli("walk", pdf, query, "--navigator", "lexical:default", "--trace", plain).returncode == 0
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        made, _ = explorer_made_here(monkeypatch)
        for trace in (summarised, plain):
            assert main([str(trace), "--summaries", MODEL, "--cache", str(tmp_path / "cache"), "--sessions",
                         "off"]) == 0
        opened, refused = made
        async with opened.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: opened.loaded and opened.screen is opened.walk_screen)
            assert opened.load_failed is None
            assert opened.corpus.summary_of("1-1-refunds") == "What 1.1 Refunds says, in a word."
            assert opened.walk_screen.view.history.settings.query == query
            await pilot.press("q")
        async with refused.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: refused.load_failed is not None)
            assert text(refused, "#loading-stage") == (
                f"{plain}: the trace was made on {pdf} with its extractive summaries, and it is opened with a model's "
                "(--summaries); leave --summaries out (q quits)")
            await pilot.press("q")
        assert len(server.requests) == 3  # the walk's; each explorer read them from the cache


async def test_span_walks_made_on_the_models_summaries_are_rebuilt_on_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """Walks from a span file are rebuilt on their corpus before the explorer opens: with --summaries, on the
    model's summaries they were walked on; without, one line says why they cannot be."""
    pdf = outline_pdf(tmp_path)
    spans, cache = tmp_path / "spans.jsonl", tmp_path / "cache"
    with StubServer(respond=summarising()) as server:
        env = {**ENV, "OPENAI_BASE_URL": server.url}
        walked = run_cli("walk", pdf, "how long does a refund take", "--navigator", "lexical:default", "--summaries",
                         MODEL, "--cache", cache, "--otlp-file", spans, env=env)
        assert walked.returncode == 0, walked.stderr
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        made, _ = explorer_made_here(monkeypatch)
        assert main([str(spans), "--summaries", MODEL, "--cache", str(cache), "--sessions", "off"]) == 0
        (app,) = made
        assert app.corpus.summary_of("1-1-refunds") == "What 1.1 Refunds says, in a word."
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: app.loaded and app.screen is app.walk_screen)
            assert app.walk_screen.view.history.settings.query == "how long does a refund take"
            await pilot.press("q")
        assert len(server.requests) == 3  # the walk's; the explorer read them from the cache
    capsys.readouterr()
    assert main([str(spans), "--sessions", "off"]) == 2
    assert capsys.readouterr().err.startswith(f"reasoning-explorer: error: {spans}: the trace was made on a different "
                                              f"version of {pdf}, or on summaries a model wrote (sha256 ")
