"""A walk as one HTML file: the explorer itself, run headless on the walk, draws every step, and the page
(:mod:`.export_page`) replays those drawings.

Nothing here draws a walk a second time: the walk screen, in presenting mode, is put at each step of the
history and Textual's own SVG export takes what it shows (the tree, the offer and the choice, the narration,
the budget meter, the stops, the answer card); the transcript of the decision at each step is Rich's HTML
export of what the Transcript tab holds. Both escape every piece of text, so a corpus title of ``<script>`` is
text in the file. The SVGs are made small before the page holds them: one id for every frame (only one is on
the page at a time), no web font (the page has none: it works offline), each frame gzip-compressed.
"""

from __future__ import annotations

import base64
import gzip
import io
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen

from ..walks.decision_steps import decision_steps
from ..walks.history import WalkHistory
from .widgets.transcript import TranscriptView

SIZE = (120, 40)
"""The terminal the walk is drawn in (cells): the page scales it to the window."""
TRANSCRIPT_WIDTH = 100


class WalkView(Protocol):
    """What the export needs of the walk screen it draws with."""

    CSS_PATH: Any

    def open_history(self, history: WalkHistory, *, step: int | None = ...,
                     expected: frozenset[str] = ...) -> object: ...

    def walk_changed(self, *, burst: bool = ...) -> None: ...


@dataclass(frozen=True)
class Frame:
    """The screen at event ``step`` of the walk (1-based), and the transcript shown there (an index, -1: none)."""

    step: int
    svg: str
    transcript: int


@dataclass(frozen=True)
class DrawnWalk:
    """Every step of a walk as the explorer drew it."""

    frames: tuple[Frame, ...]
    transcripts: tuple[str, ...]
    """HTML fragments (Rich's export: every character escaped), each once."""
    decisions: tuple[int, ...]
    """The frames (0-based) that presenting mode stops at: the start, each answer, the end."""


class _Drawing(App[None]):
    """A bare app around the walk screen: no keys held, no palette, no second copy of the explorer's globals."""

    def __init__(self, screen: Screen[Any]) -> None:
        super().__init__(css_path=type(screen).CSS_PATH)
        self._walk_screen = screen

    def get_default_screen(self) -> Screen[Any]:
        return self._walk_screen


_UNIQUE_ID = re.compile(r"terminal-\d+")
_FONT_FACES = re.compile(r"\s*@font-face\s*\{[^}]*\}")


def small_svg(svg: str) -> str:
    """A frame as the page holds it: one id prefix for all (``t``), and no web font linked."""
    return _FONT_FACES.sub("", _UNIQUE_ID.sub("t", svg))


def transcript_html(content: Any) -> str:
    """What the Transcript tab holds, as HTML with inline styles (Rich escapes every character)."""
    console = Console(width=TRANSCRIPT_WIDTH, record=True, file=io.StringIO(), color_system="truecolor",
                      force_terminal=True)
    console.print(content)
    return console.export_html(inline_styles=True, code_format="{code}")


async def draw(screen: Screen[Any], history: WalkHistory, *, size: tuple[int, int] = SIZE,
               title: str = "") -> DrawnWalk:
    """Draw every step of ``history`` with ``screen`` (a walk screen in presenting mode, not yet mounted)."""
    app = _Drawing(screen)
    frames: list[Frame] = []
    transcripts: dict[str, int] = {}

    async def drive(pilot: Pilot[object]) -> None:
        try:
            await pilot.pause()
            view: WalkView = app.screen  # type: ignore[assignment]
            view.open_history(history, step=1)
            for step in range(1, len(history.events) + 1):
                history.go(step)
                view.walk_changed()
                await pilot.pause()  # the redraw's layout, then the tree's move to the walk's node
                await pilot.pause()
                html = transcript_html(app.screen.query_one(TranscriptView).content)
                index = transcripts.setdefault(html, len(transcripts)) if history.decision_at() else -1
                frames.append(Frame(step, small_svg(app.export_screenshot(title=title or None)), index))
        finally:
            app.exit()

    await app.run_async(headless=True, size=size, auto_pilot=drive)
    if len(frames) != len(history.events):
        raise RuntimeError(f"the explorer drew {len(frames)} of the walk's {len(history.events)} steps")
    stops = tuple(step.shown - 1 for step in decision_steps(history.events))
    return DrawnWalk(tuple(frames), tuple(transcripts), stops)


def packed(text: str) -> str:
    """``text`` gzip-compressed, in base64 (what the page inflates with the browser's DecompressionStream)."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def draw_walk(make_screen: Callable[[], Screen[Any]], history: WalkHistory, *, size: tuple[int, int] = SIZE,
              title: str = "") -> DrawnWalk:
    """:func:`draw`, from a plain thread (the command line)."""
    import asyncio

    return asyncio.run(draw(make_screen(), history, size=size, title=title))
