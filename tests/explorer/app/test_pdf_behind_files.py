"""A PDF named by what the explorer opens (a question set, a trace, a resumed session) loads as a PDF opened
directly does: the explorer is up at once on the loading screen, which says the pages read, ``q`` quits mid-load, a
problem is one line on it (exit 2), and the screen the file opens (the evaluation, the walk) follows the load."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, Static

from explorer.cli.main import main
from explorer.corpora import Corpus, load_corpus
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.loading import LoadingScreen
from tests.explorer.corpora.pdf_maker import Bookmark, make_pdf
from tests.explorer.corpora.test_pdf import BILLING, REFUNDS, SHIPPING

from .helpers import SIZE, Explorer, explorer_made_here, wait_for
from .reading import table_rows, tree_text

QUERY = "how long does a refund take"
NAVIGATOR = "lexical:default"


def guide(folder: Path) -> Path:
    return make_pdf(folder / "guide.pdf", [BILLING, REFUNDS, SHIPPING] * 20, page_numbers=True,
                    outline=(Bookmark("1 Billing", 0, (Bookmark("1.1 Refunds", 1),)), Bookmark("2 Shipping", 2)))


def question_set(folder: Path, expect: str = "1-1-refunds") -> Path:
    path = folder / "guide.questions.yaml"
    path.write_text(f"corpus: guide.pdf\nquestions:\n  - id: refund-time\n    query: {QUERY}\n"
                    f"    expect: [{expect}]\n", encoding="utf-8")
    return path


def text(app: Explorer, selector: str) -> str:
    return str(app.screen.query_one(selector, Static).render())


class Pages:
    """The loading screen's stage line each time the app takes a message while it is on top."""

    def __init__(self, app: Explorer) -> None:
        self.app = app
        self.lines: list[str] = []
        self.opening: set[str] = set()
        """What the loading screen said it opens (read here: the load may end before a test's first look)."""

    def __call__(self, message: Any) -> None:
        screen = self.app.screen if self.app.screen_stack else None
        if isinstance(screen, LoadingScreen) and screen.is_mounted:
            self.lines.append(text(self.app, "#loading-stage"))
            self.opening.add(text(self.app, "#loading-what"))


async def test_a_question_set_on_a_pdf_loads_it_on_the_loading_screen_then_evaluates(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    guide(tmp_path)
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(question_set(tmp_path)), "--navigator", NAVIGATOR, "--sessions", "off"]) == 0
    (app,) = made
    assert not app.loaded  # handed over unread
    pages = Pages(app)
    async with app.run_test(size=SIZE, message_hook=pages) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        assert pages.opening == {"Opening guide.pdf"}
        assert "reading pages: page 60 of 60" in pages.lines
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.sides) and all(side.over for side in screen.sides.values()))
        rows = table_rows(screen.query_one(DataTable))
        assert len(rows) == 1 and rows[0][:3] == ["1", "refund-time", "✓ hit"]  # landed what it expects
        assert app.corpus.title_of("1-1-refunds") == "1.1 Refunds" and app.corpus.format == "pdf"


async def test_a_question_set_naming_a_node_the_pdf_lacks_is_one_line_on_the_loading_screen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    guide(tmp_path)
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(question_set(tmp_path, expect="3-returns")), "--navigator", NAVIGATOR,
                 "--sessions", "off"]) == 0
    (app,) = made
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.load_failed is not None)
        assert isinstance(app.screen, LoadingScreen) and not app.loaded
        assert text(app, "#loading-what") == "Cannot open guide.pdf"
        line = text(app, "#loading-stage")
        assert "\n" not in line and "3-returns" in line and "refund-time" in line and line.endswith(" (q quits)")
        await pilot.press("q")
    assert app.return_code == 2


@pytest.fixture
def walked(tmp_path: Path) -> Path:
    """A trace of a walk on the PDF, made by the command line."""
    pdf = guide(tmp_path)
    trace = tmp_path / "walk.jsonl"
    assert main(["walk", str(pdf), QUERY, "--navigator", NAVIGATOR, "--trace", str(trace)]) == 0
    return trace


async def test_a_trace_on_a_pdf_loads_it_on_the_loading_screen_then_shows_the_walk(
        walked: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(walked), "--sessions", "off"]) == 0
    (app,) = made
    assert not app.loaded
    pages = Pages(app)
    async with app.run_test(size=SIZE, message_hook=pages) as pilot:
        await wait_for(pilot, lambda: app.loaded and app.screen is app.walk_screen)
        assert pages.opening == {"Opening guide.pdf"}
        assert "reading pages: page 60 of 60" in pages.lines
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.walk is not None)
        assert screen.view.walk.history.settings.query == QUERY
        assert tree_text(app).splitlines()[:2] == ["▼ guide.pdf", "├─   ▶ 1 Billing  1-billing"]


async def test_a_trace_whose_pdf_changed_is_one_line_on_the_loading_screen(
        walked: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_pdf(walked.parent / "guide.pdf", [BILLING, SHIPPING])  # another version of the PDF
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(walked), "--sessions", "off"]) == 0
    (app,) = made
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.load_failed is not None)
        line = text(app, "#loading-stage")
        # a PDF's hash covers a model's summaries too (--summaries): opened without, the line names both causes
        assert line.startswith(f"{walked}: the trace was made on a different version of {walked.parent / 'guide.pdf'}, "
                               "or on summaries a model wrote (sha256 ")
        assert line.endswith("; replay it on the corpus it was made on, or open it with the --summaries it was walked "
                             "with (reasoning-explorer TRACE --summaries MODEL) (q quits)")
        await pilot.press("q")
    assert app.return_code == 2 and not app.loaded


async def test_resume_on_a_pdf_loads_it_on_the_loading_screen_and_q_quits_mid_load(
        walked: Path, own_data_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session = own_data_folder / "reasoning-explorer" / "sessions" / "2026-12-04T09-00-00"
    session.mkdir(parents=True)
    shutil.copyfile(walked, session / "walk-20261204T090000.123456Z-4242-1.jsonl")
    made, _ = explorer_made_here(monkeypatch)
    assert main(["--resume"]) == 0
    first = made[-1]
    async with first.run_test(size=SIZE) as pilot:
        assert isinstance(first.screen, LoadingScreen)
        await wait_for(pilot, lambda: first.loaded and first.screen is first.walk_screen)
        screen = first.walk_screen
        await wait_for(pilot, lambda: screen.view.walk is not None)
        assert screen.view.walk.history.settings.query == QUERY
        assert first.corpus.format == "pdf"

    # Again, held mid-load: q quits at once, the walk screen never made.
    reading, release = threading.Event(), threading.Event()
    assert main(["--resume"]) == 0
    again = made[-1]
    load = again._loading.load  # type: ignore[union-attr]

    def held(path: Path, progress: Any, pdf: str | None) -> Corpus:
        def told(stage: str, done: int, total: int | None) -> None:
            progress(stage, done, total)
            if stage == "reading pages" and not reading.is_set():
                reading.set()
                release.wait(60)
        return load_corpus(path, progress=told, pdf=pdf)

    object.__setattr__(load, "loader", held)
    async with again.run_test(size=SIZE) as pilot:
        await wait_for(pilot, reading.is_set)
        assert isinstance(again.screen, LoadingScreen)
        await pilot.press("q")
    release.set()
    assert again.return_code == 0 and not again.loaded
