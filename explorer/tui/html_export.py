"""A walk as one HTML file: the explorer itself, run headless on the walk, draws every step, and the page
(:mod:`.export_page`) replays those drawings. :func:`export_walk` is the whole of it, for the command line's
``export`` and the walk screen's ``H`` alike: a trace in (read from a file, or made in memory from the walk on
screen), the page out.

Nothing here draws a walk a second time: the walk screen, in presenting mode, is put at each step of the
history and Textual's own SVG export takes what it shows (the tree, the offer and the choice, the narration,
the budget meter, the stops, the answer card; not the footer: its keys do nothing on the page, which has its own
controls); the transcript of the decision at each step is Rich's HTML
export of what the Transcript tab holds. Both escape every piece of text, so a corpus title of ``<script>`` is
text in the file. The SVGs are made small before the page holds them: one id for every frame (only one is on
the page at a time), no web font (the page has none: it works offline), each frame gzip-compressed.

The drawing is done in the process that asks for it, by a second, headless Textual app (:class:`_Drawing`)
that holds nothing but a walk screen showing the recorded walk: Textual draws a screen only inside a running
app, and ``export_screenshot`` is its public way to take what it drew. That app runs on its own event loop
(``asyncio.run``) in the calling thread: the command line's main thread, or the explorer's thread worker, so
the explorer's own loop never waits for a frame. It shares nothing with the explorer that asks: its screen is
made with no navigator and no wiring, so it hears nothing (the manual navigator's desk and the local models stay the
explorer's), and Textual's active app is a context variable, set for each app in its own loop. One thing is
process-wide: while an app runs, Textual points ``sys.stdout`` and ``sys.stderr`` at it and puts back what it
found when it ends. So drawings run one at a time (:data:`_ONE_DRAWING`): the redirections of apps that end in
the order they began nest, and each puts back what the one before it set. The cyclic collector is process-wide
too, and the explorer freezes whatever survives a full collection (``cli/explore.py``): a full collection in
the middle of a drawing would freeze the drawing's app (about 11 MB, kept for good, measured on the sample
walk). So the collector is off while a drawing runs, and the drawing's garbage is collected (the youngest
generation, where all of it is) before it is turned back on.
"""

from __future__ import annotations

import asyncio
import base64
import gc
import gzip
import io
import re
import threading
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console
from textual.app import App
from textual.pilot import Pilot
from textual.screen import Screen
from textual.widgets import Footer

from ..navigators.answer_size import cut_answers
from ..outputs import Output, Read, write
from ..walks.decision_steps import decision_steps
from ..walks.evaluation.walk_verdict import verdict_lines
from ..walks.fork_line import fork_line
from ..walks.history import WalkHistory
from ..walks.walk_list import WalkList
from .export_page import page
from .widgets.transcript import TranscriptView

if TYPE_CHECKING:
    from ..corpora import Corpus
    from ..navigators.judge import Judge
    from ..trace import Trace
    from ..walk_settings import WalkSettings

SIZE = (120, 40)
"""The terminal the walk is drawn in (cells): the page scales it to the window."""
TRANSCRIPT_WIDTH = 100


class RecordedScreen(Protocol):
    """The walk screen's class, as the export makes one that shows a recorded walk (the screen sits above this
    module in the layers: its callers hand it in)."""

    def __call__(self, corpus: Corpus, walks: WalkList, settings: WalkSettings, *, present: bool,
                 allow_files: bool) -> Screen[Any]: ...


class WalkView(Protocol):
    """What the export needs of the walk screen it draws with."""

    CSS_PATH: Any

    def open_history(self, history: WalkHistory, *, step: int | None = ...,
                     expected: frozenset[str] = ...) -> object: ...


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


class DrawingCancelled(Exception):
    """The drawing was called off before its last step (the explorer that asked for it is going)."""


Cancelled = Callable[[], bool]
"""Asked before each step: whether to stop drawing (a worker's ``is_cancelled``)."""

_ONE_DRAWING = threading.Lock()
"""Held while a drawing's app runs: one at a time in a process (see the module's docstring)."""
_WAIT = 0.1
"""Seconds between two looks at ``cancelled`` while another drawing holds :data:`_ONE_DRAWING`."""


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
               title: str = "", cancelled: Cancelled = lambda: False) -> DrawnWalk:
    """Draw every step of ``history`` with ``screen`` (a walk screen in presenting mode, not yet mounted); raise
    :class:`DrawingCancelled` when ``cancelled()`` says so before a step."""
    app = _Drawing(screen)
    frames: list[Frame] = []
    transcripts: dict[str, int] = {}
    called_off: list[bool] = []

    async def drive(pilot: Pilot[object]) -> None:
        try:
            await pilot.pause()
            view: WalkView = app.screen  # type: ignore[assignment]
            view.open_history(history, step=1)
            for footer in app.screen.query(Footer):  # the page has its own controls: the terminal's keys do nothing
                footer.display = False
            for step in range(1, len(history.events) + 1):
                if cancelled():
                    called_off.append(True)
                    return
                history.go(step)  # the screen shows it: it watches the walk it opened
                await pilot.pause()  # the redraw's layout, then the tree's move to the walk's node
                await pilot.pause()
                html = transcript_html(app.screen.query_one(TranscriptView).content)
                index = transcripts.setdefault(html, len(transcripts)) if history.decision_at() else -1
                frames.append(Frame(step, small_svg(app.export_screenshot(title=title or None)), index))
        finally:
            app.exit()

    await app.run_async(headless=True, size=size, auto_pilot=drive)
    if called_off:
        raise DrawingCancelled(f"called off after {len(frames)} of the walk's {len(history.events)} steps")
    if len(frames) != len(history.events):
        raise RuntimeError(f"the explorer drew {len(frames)} of the walk's {len(history.events)} steps")
    stops = tuple(step.shown - 1 for step in decision_steps(history.events))
    return DrawnWalk(tuple(frames), tuple(transcripts), stops)


def packed(text: str) -> str:
    """``text`` gzip-compressed, in base64 (what the page inflates with the browser's DecompressionStream)."""
    return base64.b64encode(gzip.compress(text.encode("utf-8"), compresslevel=9, mtime=0)).decode("ascii")


def draw_walk(make_screen: Callable[[], Screen[Any]], history: WalkHistory, *, size: tuple[int, int] = SIZE,
              title: str = "", cancelled: Cancelled = lambda: False) -> DrawnWalk:
    """:func:`draw`, from a plain thread (the command line's, or a thread worker's): on an event loop of its own,
    once no other drawing runs in the process."""
    while not _ONE_DRAWING.acquire(timeout=_WAIT):
        if cancelled():
            raise DrawingCancelled("called off while another drawing ran")
    collecting = gc.isenabled()
    gc.disable()  # see the module's docstring
    try:
        return asyncio.run(draw(make_screen(), history, size=size, title=title, cancelled=cancelled))
    finally:
        gc.collect(0)
        if collecting:
            gc.enable()
        _ONE_DRAWING.release()


@dataclass(frozen=True)
class ExportedWalk:
    """A walk's page, and what the command line says of it."""

    text: str
    steps: int
    decisions: int


def export_walk(screen_class: RecordedScreen, trace: Trace, corpus: Corpus, *, credit: str,
                cancelled: Cancelled = lambda: False, fork_of: int | None = None,
                expected: Collection[str] = (), judged: Sequence[str] | None = None,
                judge: Judge | None = None, judge_failed: Callable[[Exception], None] | None = None) -> ExportedWalk:
    """The page of the walk ``trace`` records, on ``corpus``, drawn by a ``screen_class`` that shows it (no
    navigator: nothing is asked, every step is read from the record); ``credit`` names who exported it;
    ``fork_of`` the walk it was forked from, when known (its header says so, and what was forced). A walk that
    missed the node its question expects (``expected``, else the question asking its query in a set beside the
    corpus) says under its title whose fault it was and where a flat search ranks that node: ``judged``, when the
    explorer judged it already, else judged here by ``judge`` (default: the bundled embeddings; ``export --judge``:
    :func:`~explorer.walks.evaluation.walk_verdict.verdict_lines`); a judge that fails (an LLM's server down) is
    told to ``judge_failed``, and the page says no verdict (without ``judge_failed``, the failure is raised).
    A walk walked with a map variant (its header's ``map``) says it under the settings: its file's name and short
    hash."""
    events, cuts = cut_answers(trace.events)  # an answer of 100,000 ids is drawn as a live one is cut
    history = WalkHistory.from_trace(replace(trace, events=events))

    def screen() -> Screen[Any]:
        # No wiring: a screen drawn in the background hears no desk and no local model (the person's screen does).
        return screen_class(corpus, WalkList(), history.settings, present=True, allow_files=False)

    drawn = draw_walk(screen, history, title=credit, cancelled=cancelled)
    try:
        verdict = tuple(judged) if judged is not None else verdict_lines(corpus, history, expected, judge)
    except Exception as exc:
        if judge_failed is None:
            raise
        judge_failed(exc)
        verdict = ()
    walked = trace.header.settings
    text = page(title=walked.query, subtitle=f"{corpus.title} · {walked.model} · budget {walked.max_nodes_visited} "
                                              f"· depth limit {walked.max_depth} · {trace.end.value} · exported by "
                                              f"{credit}",
                frames=[packed(f.svg) for f in drawn.frames], steps=[f.step for f in drawn.frames],
                transcripts=[packed(t) for t in drawn.transcripts], transcript_of=[f.transcript for f in drawn.frames],
                decisions=drawn.decisions, total=len(history.events),
                fork=fork_line(list(history.decisions()), fork_of) or "", cut="; ".join(cut.said() for cut in cuts),
                verdict=verdict, map_variant=trace.header.map.said if trace.header.map is not None else "")
    return ExportedWalk(text, len(drawn.frames), len(drawn.decisions))


def write_page(path: Path, text: str, reads: Iterable[Read | None] = (), *, replace: bool = True) -> None:
    """``text`` to ``path`` through the one gate (:func:`explorer.outputs.write`: never over ``reads``, over an
    existing file only with ``replace``, whole or not at all); ``OSError`` when it may not or cannot be written."""
    write(Output("the HTML", path), text, reads, doing="write the HTML", example="walk.html", replace=replace)
