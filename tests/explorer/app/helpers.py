"""Driving the explorer as a person would, and reading what the screen shows."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from pathlib import Path

from rich.console import Console

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.app import ExplorerApp
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.session import WalkSettings

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK_PATH = ROOT / "sample_corpora" / "handbook.yaml"
HANDBOOK = load_corpus(HANDBOOK_PATH)
SCRIPTS = ROOT / "sample_corpora" / "scripts"
SIZE = (170, 56)


def screen_text(app: ExplorerApp) -> str:
    """Everything on the screen, as plain text (the same render an SVG screenshot is made from)."""
    width, height = app.size
    console = Console(width=width, height=height, file=io.StringIO(), force_terminal=True, record=True,
                      legacy_windows=False, safe_box=False)
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return console.export_text()


async def wait_for(pilot, predicate: Callable[[], bool], timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting on the app")
        await pilot.pause(0.02)
    await pilot.pause()


def make_app(query: str = "", model: str = "lexical:default", corpus=HANDBOOK, navigator: TreeNavigator | None = None,
             **kwargs) -> ExplorerApp:
    options = {k: kwargs.pop(k) for k in ("max_nodes_visited", "max_depth", "on_failure") if k in kwargs}
    settings = WalkSettings(query, model, **options)
    return ExplorerApp(corpus, settings, navigator=navigator or resolve_navigator(model), **kwargs)


def script(name: str) -> str:
    return f"script:{SCRIPTS / name}"


class Counting(TreeNavigator):
    """A navigator for tests: the lexical navigator's answers, counted."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.calls = 0

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        self.calls += 1
        return self.inner.choose(request)  # type: ignore[return-value]
