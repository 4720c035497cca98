"""A PDF opened in the explorer loads on the loading screen: the app is up at once, the bar says which page of how
many, ``q`` quits mid-load, the walk screen follows the load, and a damaged PDF is one line on the screen."""

from __future__ import annotations

import asyncio
import re
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from textual.message import Message
from textual.widgets import ProgressBar, Static

from explorer.cli.main import main
from explorer.corpora import Corpus, CorpusError, load_corpus
from explorer.sessions import KeptSession
from explorer.tui.screens.loading import CorpusLoad, LoadingScreen
from explorer.walk_settings import WalkSettings
from tests.explorer.corpora.pdf_maker import Line, make_pdf

from .helpers import SIZE, Explorer, explorer_made_here, wait_for


def many_pages(path: Path, count: int) -> Path:
    """A PDF of ``count`` pages, each a heading and a few lines of text (a layout-only PDF: no outline)."""
    return make_pdf(path, [[Line(f"Part {n}", 16, True),
                            *(Line(f"Line {k} of part {n} is about refunds, invoices and shipping.") for k in range(12))]
                           for n in range(1, count + 1)])


def stage_line(app: Explorer) -> str:
    return str(app.screen.query_one("#loading-stage", Static).render())


def load_threads() -> list[threading.Thread]:
    return [thread for thread in threading.enumerate() if thread.name == "corpus-load"]


class Shown:
    """What the loading screen showed each time the app took a message while it was on top: the stage line and the
    bar's total (read before each message is handled, so every progress report's line is seen, however fast)."""

    def __init__(self, app: Explorer) -> None:
        self.app = app
        self.lines: list[tuple[str, float | None]] = []
        self.opening: set[str] = set()
        """What it said it opens (read here: a fast load may end before a test's first look)."""

    def __call__(self, message: Message) -> None:
        screen = self.app.screen if self.app.screen_stack else None
        if isinstance(screen, LoadingScreen) and screen.is_mounted:
            self.lines.append((stage_line(self.app), screen.query_one(ProgressBar).total))
            self.opening.add(str(screen.query_one("#loading-what", Static).render()))


async def test_the_explorer_opens_at_once_shows_the_pages_read_then_the_walk_screen(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = many_pages(tmp_path / "report.pdf", 150)
    made, _ = explorer_made_here(monkeypatch)
    sessions = tmp_path / "sessions"
    assert main([str(pdf), "--navigator", "lexical:default", "--sessions", str(sessions)]) == 0
    (app,) = made
    assert not app.loaded  # the command line handed the PDF over unread
    shown = Shown(app)
    async with app.run_test(size=SIZE, message_hook=shown) as pilot:
        await wait_for(pilot, lambda: app.loaded and app.screen is app.walk_screen)
        assert shown.opening == {"Opening report.pdf"}
        read_here = load_corpus(pdf)  # the same tree as the PDF read without a screen
        assert [app.corpus.title_of(i) for i in app.corpus.index.ids()] == [
            read_here.title_of(i) for i in read_here.index.ids()]
        assert app.screen.corpus is app.corpus
        keeper = app.wiring.keeper  # the session is kept, made once the corpus was in
        assert isinstance(keeper, KeptSession) and keeper.folder.parent == sessions
        pages = [(line, total) for line, total in shown.lines if line.startswith("reading pages: ")]
        assert pages, shown.lines
        assert all(re.fullmatch(r"reading pages: page \d{1,3} of 150", line) for line, _ in pages)
        assert {total for _, total in pages} == {150}
        assert ("reading pages: page 150 of 150", 150) in pages
        # As when it opens on a corpus read before: the question box takes the keys.
        await wait_for(pilot, lambda: app.focused is app.walk_screen.query_one("#query"))


async def test_q_quits_during_the_load_and_its_thread_leaves(tmp_path: Path) -> None:
    pdf = many_pages(tmp_path / "long.pdf", 1000)
    reading, release = threading.Event(), threading.Event()

    def held(path: Path, progress: Any, pdf: str | None) -> Corpus:
        """The real load, held at its first page read until the test lets it go: mid-load, whatever the machine's
        pace (on a busy machine the load ended before the keys were pressed)."""
        def told(stage: str, done: int, total: int | None) -> None:
            progress(stage, done, total)
            if stage == "reading pages" and not reading.is_set():
                reading.set()
                release.wait(60)
        return load_corpus(path, progress=told, pdf=pdf)

    app = Explorer(CorpusLoad(pdf, loader=held), WalkSettings("", "lexical:default"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, reading.is_set)
        (thread,) = load_threads()
        assert thread.daemon  # whatever happens, it never keeps the process alive
        await pilot.press("ctrl+p")  # nothing to command yet: no palette over the load
        await pilot.pause()
        assert isinstance(app.screen, LoadingScreen) and len(app.screen_stack) == 1
        await pilot.press("q")
    release.set()
    assert app.return_code == 0
    assert not app.loaded  # quit mid-load: the walk screen was never made
    deadline = time.monotonic() + 60  # the thread stops at the load's next progress report (a hundredth of the pages)
    while thread.is_alive() and time.monotonic() < deadline:
        thread.join(0.05)
    assert not thread.is_alive()


async def test_a_damaged_pdf_is_one_line_on_the_screen_and_q_leaves_with_exit_2(tmp_path: Path) -> None:
    whole = many_pages(tmp_path / "whole.pdf", 2).read_bytes()
    damaged = tmp_path / "damaged.pdf"
    damaged.write_bytes(whole[:40] + b"\x00garbage" * 20)
    with pytest.raises(CorpusError) as caught:
        load_corpus(damaged)
    app = Explorer(CorpusLoad(damaged), WalkSettings("", "lexical:default"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.load_failed is not None)
        assert app.load_failed == str(caught.value)
        assert isinstance(app.screen, LoadingScreen)
        assert stage_line(app) == f"{caught.value} (q quits)"
        assert str(app.screen.query_one("#loading-what", Static).render()) == "Cannot open damaged.pdf"
        assert not app.screen.query_one(ProgressBar).display
        await pilot.press("q")
    assert app.return_code == 2
    assert not app.loaded


def test_a_pdf_that_is_not_there_fails_before_any_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(tmp_path / "gone.pdf"), "--navigator", "lexical:default"]) == 2
    assert made == []
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "gone.pdf" in err


def test_the_command_line_says_the_line_again_after_the_screen_and_exits_2(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    damaged = tmp_path / "notes.pdf"
    damaged.write_bytes(b"these are notes, not a PDF\n")
    with pytest.raises(CorpusError) as caught:
        load_corpus(damaged)
    made, _ = explorer_made_here(monkeypatch)
    ran: list[Explorer] = []

    def run_here(app: Explorer) -> None:  # the app run as in a terminal, a person pressing q once the line shows
        async def run() -> None:
            async with app.run_test(size=SIZE) as pilot:
                await wait_for(pilot, lambda: app.load_failed is not None)
                await pilot.press("q")
        asyncio.run(run())
        ran.append(app)

    monkeypatch.setattr("explorer.cli.explore.run_quitting_on_signals", run_here)
    assert main([str(damaged), "--navigator", "lexical:default", "--sessions", "off"]) == 2
    assert made == [] and len(ran) == 1 and ran[0].return_code == 2
    assert capsys.readouterr().err == f"reasoning-explorer: error: {caught.value}\n"


async def test_a_big_corpus_file_loads_on_the_screen_too_and_a_small_one_before_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from explorer.cli import explore

    from .helpers import HANDBOOK_PATH

    made, _ = explorer_made_here(monkeypatch)
    assert main([str(HANDBOOK_PATH), "--navigator", "lexical:default", "--sessions", "off"]) == 0
    assert made[-1].loaded  # read before the app, as always
    monkeypatch.setattr(explore, "LOADS_ON_SCREEN_BYTES", HANDBOOK_PATH.stat().st_size - 1)
    assert main([str(HANDBOOK_PATH), "--navigator", "lexical:default", "--sessions", "off"]) == 0
    app = made[-1]
    assert not app.loaded
    shown = Shown(app)
    async with app.run_test(size=SIZE, message_hook=shown) as pilot:
        await wait_for(pilot, lambda: app.loaded and app.screen is app.walk_screen)
        assert app.corpus.path == HANDBOOK_PATH
        assert list(app.corpus.index.ids()) == list(load_corpus(HANDBOOK_PATH).index.ids())
    assert any(line.startswith("building: ") for line, _ in shown.lines), shown.lines


async def test_a_session_that_cannot_be_kept_is_said_on_the_walk_screen_once_the_pdf_is_in(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pdf = many_pages(tmp_path / "report.pdf", 3)
    not_a_folder = tmp_path / "sessions"
    not_a_folder.write_text("a file where the sessions would go\n", encoding="utf-8")
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(pdf), "--navigator", "lexical:default", "--sessions", str(not_a_folder)]) == 0
    (app,) = made
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.loaded and any("walks are not kept" in str(n.message) for n in app.notes))
        (note,) = [n for n in app.notes if "walks are not kept" in str(n.message)]
        assert note.severity == "warning"
        assert str(note.message).startswith(f"this session's walks are not kept: {not_a_folder} is a file, not a "
                                            "folder; give --sessions DIR")
        assert app.wiring.keeper is None
