"""While a local model loads for a decision, the status line (the meter's last line) says so, then that it is
ready and how long it took, as the command line does on stderr; once the decision is answered, the usual line.

The navigator is a local-model navigator that tells the explorer's listeners what the real one's server tells
them (``LocalModelStatus``, through the same ``StatusListeners`` the explorer wires into it) and holds each phase
until the test lets it go: a real model's load is too slow for a test."""

from __future__ import annotations

import re
import threading
from pathlib import Path

import pytest

from core import NavigatorChoice, NavigatorRequest
from explorer.navigators import resolve_navigator
from explorer.navigators.llm.llama_server import LoadPhase, LocalModelStatus, ServerConfig
from explorer.navigators.local_model import LocalModelNavigator
from explorer.tui.widgets.narration_line import NarrationLine

from .helpers import make_app, resize, wait_for
from .reading import meter_text, status_text

CONFIG = ServerConfig(Path("/models/SmolLM2-135M-Instruct.Q4_1.gguf"), threads=1, ctx=4096, slots=2)


class Loading(LocalModelNavigator):
    """Its first call loads a model: it tells ``loading``, waits for ``loaded``, tells ``ready`` (1.2 s), waits for
    ``answer``; then, and on every later call, it answers as the lexical navigator does. A minute without the test
    also goes on, so a broken app fails its test instead of hanging it."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.inner = resolve_navigator("lexical:default")
        self.loaded = threading.Event()
        self.answer = threading.Event()
        self.told = threading.Event()
        self.first = True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:  # type: ignore[override]
        if self.first and self.hearing is not None:
            self.first = False
            self.hearing.tell(LocalModelStatus(CONFIG, LoadPhase.LOADING))
            self.loaded.wait(60)
            self.hearing.tell(LocalModelStatus(CONFIG, LoadPhase.READY, seconds=1.2, address="http://127.0.0.1:1"))
            self.told.set()
            self.answer.wait(60)
        return self.inner.choose(request)  # type: ignore[return-value]

    def close(self) -> None:  # the test's navigator opens nothing to close
        pass


@pytest.mark.model
async def test_the_status_line_says_the_local_model_loads_then_is_ready():
    """The model loads at 80×24; the terminal is resized to 120×40 while it loads (the status line says so at the new
    size too), and it is ready there."""
    navigator = Loading()
    app = make_app("How are refunds issued?", "local:smollm2", navigator=navigator, start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            await pilot.press("n", "n")  # the roots offered, then the navigator asked: its model loads
            await wait_for(pilot, lambda: status_text(app).startswith("loading"))
            for size in ((80, 24), (120, 40)):
                await resize(pilot, size)
                line = status_text(app)
                seconds = line.removeprefix("loading local model smollm2… ").removesuffix(" s · x cancels")
                assert line == f"loading local model smollm2… {seconds} s · x cancels"
                assert float(seconds) >= 0
                assert meter_text(app).splitlines()[-1] == line  # the status line is the meter's last line
            navigator.loaded.set()
            await wait_for(pilot, lambda: status_text(app).startswith("local model smollm2 ready"))
            line = status_text(app)
            seconds = line.removeprefix("local model smollm2 ready (1.2 s) · working… ").removesuffix(
                " s · x cancels")
            assert line == f"local model smollm2 ready (1.2 s) · working… {seconds} s · x cancels"
        finally:
            navigator.loaded.set()
            navigator.answer.set()
        await wait_for(pilot, lambda: app.walk_screen.view.history.cursor >= 3 and not app.walk_screen.view.session.busy)
        assert "local model" not in status_text(app)  # answered: the usual line
        assert status_text(app) == "paused · n next · c continue · p play · e fork"


@pytest.mark.model
async def test_presenting_the_load_is_no_toast_and_the_narration_counts_the_seconds():
    """For a room: the model's loading and its readiness (a server address, threads) are not toasted while
    presenting; the narration counts the seconds the decision takes instead, at 80×24 and resized to 120×40."""
    navigator = Loading()
    app = make_app("How are refunds issued?", "local:smollm2", navigator=navigator, start_walk=True, present=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        line = screen.query_one(NarrationLine)
        try:
            await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
            await pilot.press("n")  # the roots offered, then the navigator asked: its model loads
            await wait_for(pilot, lambda: re.search(r"\nthinking… [1-9]\d* s$", line.words) is not None)
            await resize(pilot, (120, 40))
            navigator.loaded.set()
            assert navigator.told.wait(30)
            await wait_for(pilot, lambda: re.search(r"\nthinking… [1-9]\d* s$", line.words) is not None)
        finally:
            navigator.loaded.set()
            navigator.answer.set()
        await wait_for(pilot, lambda: screen.view.history.cursor >= 3 and not screen.view.session.busy)
        assert "thinking" not in line.words
        assert [note.message for note in app.notes if "local model" in note.message] == []
