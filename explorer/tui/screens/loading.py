"""The screen the explorer opens on while a slow corpus loads (a PDF above all): how far it has got, keys live.

The load runs on a thread of this screen's own, a daemon: a load cannot be stopped mid-page, and Textual's thread
workers run in the loop's executor, which the process waits for as it leaves, so a quit during a long load would
wait for the load. Here ``q`` quits at once; the thread is told to stop, leaves at the load's next progress report,
and never keeps the process alive. It posts small messages (:mod:`..messages`): how far, then the corpus loaded
(the app opens the walk screen on it) or the loader's one line on what is wrong (shown here, and the app's exit
code says it failed).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar, Static

from ...corpora import Corpus, CorpusError, load_corpus
from ...corpora.progress import Stage
from ...safe_text import one_line, safe
from ..messages import CorpusLoaded, CorpusLoadFailed, CorpusLoadProgressed


@dataclass(frozen=True)
class CorpusLoad:
    """A corpus the explorer loads on its loading screen, after it has opened: ``path``, and ``pdf``, the PDF whose
    pages give a PageIndex tree its text (as ``load_corpus`` takes them). ``loader`` reads it, on the load's thread:
    :func:`~explorer.corpora.load_corpus`, or one that wraps it (an application's, a test's that holds the load)."""

    path: Path
    pdf: str | None = None
    loader: Callable[..., Corpus] = load_corpus
    check: Callable[[Corpus], str | None] | None = None
    """Once loaded, on the load's thread: the one line on why the corpus does not fit what opens on it (a question
    set naming nodes it lacks, walks made on another version of it), said as a load that failed; ``None``: it fits."""


class LoadStopped(Exception):
    """Raised in the load's thread, at its next progress report, once the screen has gone (the explorer quit)."""


def how_far(stage: str, done: int, total: int | None) -> str:
    """What the load is doing, in words: ``reading pages: page 312 of 1,000``, ``building: 4,200 nodes of 9,000``."""
    if stage == Stage.PAGES:
        return f"{stage}: page {done:,} of {total:,}" if total else f"{stage}: page {done:,}"
    if stage == Stage.READING:
        return f"{stage}: {done * 100 // total}%" if total else f"{stage}: {done:,}"
    if stage in (Stage.PARSING, Stage.INDEXING):
        return f"{stage}…"
    return f"{stage}: {done:,} of {total:,}" if total else f"{stage}: {done:,}"


class LoadingScreen(Screen[None]):
    """Opening the corpus: its name, a progress bar and what is being read; ``q`` quits."""

    CSS_PATH = Path(__file__).with_name("loading.tcss")
    BINDINGS = [Binding("q", "app.quit", "Quit", id="loading.quit")]

    def __init__(self, load: CorpusLoad) -> None:
        super().__init__()
        self.load = load
        self._stop = threading.Event()
        self.failed: str | None = None
        """The loader's line on what is wrong, once it failed (``None``: not failed)."""

    def compose(self) -> ComposeResult:
        with Vertical(id="loading-box"):
            yield Static(safe(f"Opening {self.load.path.name}"), id="loading-what")
            yield ProgressBar(total=None, show_eta=False, id="loading-bar")
            yield Static(safe("starting…"), id="loading-stage")
        yield Footer()

    def on_mount(self) -> None:
        threading.Thread(target=self._run, name="corpus-load", daemon=True).start()

    def on_unmount(self) -> None:
        self._stop.set()

    def _run(self) -> None:
        """On the load's thread: load, posting how far; then the corpus, or the one line on what is wrong."""
        def progress(stage: str, done: int, total: int | None) -> None:
            if self._stop.is_set():
                raise LoadStopped
            self.post_message(CorpusLoadProgressed(stage, done, total))

        try:
            corpus = self.load.loader(self.load.path, progress=progress, pdf=self.load.pdf)
        except LoadStopped:
            return
        except CorpusError as exc:
            self.post_message(CorpusLoadFailed(one_line(str(exc))))
            return
        except Exception as exc:  # a loader's own bug: still one line, never a traceback over the screen
            self.post_message(CorpusLoadFailed(one_line(f"{self.load.path}: cannot be loaded ({exc!r})")))
            return
        problem = self.load.check(corpus) if self.load.check is not None else None
        if problem is not None:
            self.post_message(CorpusLoadFailed(one_line(problem)))
        elif not self._stop.is_set():
            self.post_message(CorpusLoaded(corpus))

    def on_corpus_load_progressed(self, message: CorpusLoadProgressed) -> None:
        message.stop()
        bar = self.query_one("#loading-bar", ProgressBar)
        bar.update(total=message.total if message.total else None, progress=message.done)
        self.query_one("#loading-stage", Static).update(safe(how_far(message.stage, message.done, message.total)))

    def on_corpus_load_failed(self, message: CorpusLoadFailed) -> None:
        # Not stopped: the app hears it too, and quits with the command line's exit code for it.
        self.failed = message.problem
        self.query_one("#loading-bar", ProgressBar).display = False
        self.query_one("#loading-what", Static).update(safe(f"Cannot open {self.load.path.name}", "bold"))
        self.query_one("#loading-stage", Static).update(safe(f"{message.problem} (q quits)"))
        self.query_one("#loading-stage", Static).add_class("failed")
