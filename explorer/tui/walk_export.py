"""The walk screen's HTML export (``H`` and the palette): the walk on screen as one file that replays it.

The file is made by the command line's ``export`` in a process of its own (``python -m explorer export TRACE
--html OUT``), from a trace of the walk written to a temporary folder: the export runs the explorer headless,
and a second explorer inside this one would share its globals (the manual navigator's desk, the terminal).
It runs on a thread worker, so the screen stays live; a session with files off refuses it in one line.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from ..safe_text import one_line
from ..walks.history import WalkHistory
from ..walks.session import save_history
from .say import Severity
from .screens.prompt import PromptScreen

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    from ..corpora import Corpus

EXPORT_TIMEOUT = 600.0
"""Seconds an export may take before it is given up (a hang guard: a 40-step walk takes seconds)."""


class Host(Protocol):
    """What the export needs of the screen it belongs to."""

    corpus: Corpus
    allow_files: bool

    @property
    def app(self) -> App[int]: ...

    @property
    def history(self) -> WalkHistory | None: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...

    def run_worker(self, work: Callable[[], None], *, thread: bool, group: str,
                   exit_on_error: bool) -> Worker[Any]: ...


def export_command(trace: Path, out: Path, corpus: Path) -> list[str]:
    """The command that writes ``out`` from ``trace`` (this interpreter, the explorer's own ``export``)."""
    return [sys.executable, "-m", "explorer", "export", str(trace), "--html", str(out), "--corpus", str(corpus)]


class WalkExport:
    """``H``: ask where, then write the walk on screen of ``host`` as one HTML file."""

    def __init__(self, host: Host) -> None:
        self.host = host

    def ask(self) -> None:
        host = self.host
        if not host.allow_files:
            host.say("Opening and saving files is off in this shared session.", severity="warning", timeout=4)
            return
        history = host.history
        if history is None or not history.events:
            host.say("No walk to export yet.", severity="warning")
            return

        def export(value: str | None) -> None:
            if value:
                self.write(history, Path(value).expanduser())

        default = history.suggested_file_name().removesuffix(".trace.jsonl") + ".html"
        host.app.push_screen(PromptScreen("Export the walk as one HTML file to", default), export)

    def write(self, history: WalkHistory, out: Path) -> None:
        """Write ``history`` to ``out`` on a worker; say where it went, or the one line that says why not."""
        host, app, corpus = self.host, self.host.app, self.host.corpus
        snapshot = WalkHistory(history.settings, history.origin, number=history.number, label=history.label,
                               trace=history.trace)
        for event in list(history.events):  # what the history holds now, copied on this thread
            snapshot.append(event, forced=len(snapshot.events) + 1 in history.forced)
        if history.end is not None:
            snapshot.finish(history.end, history.error)
        unfinished = history.end is None

        def work() -> None:
            with tempfile.TemporaryDirectory(prefix="reasoning-explorer-export-") as folder:
                trace = save_history(snapshot, corpus, Path(folder) / "walk.trace.jsonl")
                try:
                    done = subprocess.run(export_command(trace, out, Path(corpus.path)), capture_output=True,
                                          text=True, timeout=EXPORT_TIMEOUT, stdin=subprocess.DEVNULL,
                                          errors="backslashreplace")
                except subprocess.TimeoutExpired:
                    app.call_from_thread(host.say, f"The export to {out} took over {EXPORT_TIMEOUT:.0f} s; "
                                                   "given up.", severity="error", timeout=8)
                    return
            if done.returncode != 0:
                why = (done.stderr.strip().splitlines() or [f"exit code {done.returncode}"])[-1]
                app.call_from_thread(host.say, one_line(why.removeprefix("reasoning-explorer: error: ")),
                                     title="Cannot export the walk", severity="error", timeout=8)
                return
            note = " (the walk is not over: the file shows it as far as it went)" if unfinished else ""
            app.call_from_thread(host.say, f"Walk exported to {out.resolve()}{note}", timeout=6)

        host.run_worker(work, thread=True, group="files", exit_on_error=False)
