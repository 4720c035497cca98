"""The walk screen's HTML export (``H`` and the palette): the walk on screen as one file that replays it.

The file is what ``reasoning-explorer export`` writes from the walk's trace, made by the same code
(:func:`.html_export.export_walk`) in this process: the trace is the walk's one record itself, or, when a secret is
set in the environment, the lines a saved trace holds, secrets masked as there, read back (no file); the walk is
drawn from it on a thread worker, so the screen stays live. No navigator is resolved, no process started. When the
explorer quits (:meth:`WalkExport.stop`), a drawing under way stops at its next step and the quit waits for its app
to end: while it runs, that app holds ``sys.stdout`` and ``sys.stderr`` (Textual redirects them), and it must hand
them back before the explorer's own app does, or the explorer's would be left in them. A session with files off
refuses the export in one line; what goes wrong is one line too. A miss says its verdict under the page's title: as
the step panel judged it, else judged on the worker against the nodes marked expected (or a question beside the
corpus). A walk walked with no map variant is drawn on the corpus's own map, even when ``M`` has kept one since
(the page says the map a walk was walked with: :func:`.html_export.export_walk`).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Collection, Iterable
from pathlib import Path

from textual.worker import get_current_worker

from ...masking import Secrets
from ...outputs import Output, Read, refused
from ...safe_text import one_line
from ...trace import FinishedWalk, Trace, parse_trace, trace_lines
from ...walks.history import Origin, WalkHistory
from ..html_export import DrawingCancelled, RecordedScreen, export_walk, write_page
from ..say import FILES_OFF
from ..screens.save_prompt import model_reads, save_prompt
from .shown import Grounds, Part

TRACE_NAME = "walk.trace.jsonl"
"""The name the walk's trace has in the export (the screen names a trace's walk after its file)."""
STOP_WAIT = 10.0
"""Seconds a quit waits for a drawing to stop (one step takes well under one)."""


def recorded(walk: FinishedWalk) -> Trace:
    """A walk's one record as its saved trace would read back, without a file: the record's own header and events
    (a trace keeps them whole) when no secret is set in the environment; else its trace's lines, masked as the trace
    file's are (on their JSON text, the one masker's way), read back, so the page hides exactly what the file
    does."""
    if not Secrets.from_environment():
        return Trace(walk.header, walk.events, walk.end, walk.error, walk.forced, path=Path(TRACE_NAME))
    return parse_trace(Path(TRACE_NAME), "\n".join(trace_lines(walk)))


def refusal(out: Path, reads: Iterable[Read]) -> str | None:
    """Why ``out`` cannot take the export, checked before anything is drawn (``None``: it can): the one gate for
    every file written (:mod:`explorer.outputs`), with what the program read (its ledger: the corpus, the trace of
    every walk of its list, question sets and kept runs, navigators' files) and what this walk's navigator reads."""
    return refused(Output("the HTML", out), reads, doing="write the HTML", example="walk.html")


class WalkExport(Part):
    """``H``: ask where, then write the walk on screen as one HTML file, drawn by ``screen_class``
    (the walk screen's class, handed in: it sits above this module)."""

    def __init__(self, grounds: Grounds, screen_class: RecordedScreen,
                 verdict: Callable[[WalkHistory, Collection[str]], tuple[str, ...]]) -> None:
        super().__init__(grounds)
        self.screen_class = screen_class
        self.verdict = verdict
        """What the screen's judge says of a walk's miss (none when verdicts are off): a walk the step panel has
        not judged yet is judged so on the drawing's worker."""
        self._quitting = False
        self._drawings: set[threading.Event] = set()
        """One event per drawing under way, set when its app has ended."""
        self._lock = threading.Lock()
        """Held to start a drawing, and to quit: a drawing either starts before the quit, which waits for it, or
        sees the quit and does not start."""

    def stop(self) -> None:
        """The explorer quits: each drawing under way stops at its next step; wait (at most :data:`STOP_WAIT`) until
        their apps have ended."""
        with self._lock:
            self._quitting = True
            drawings = list(self._drawings)
        deadline = time.monotonic() + STOP_WAIT
        for ended in drawings:
            ended.wait(max(0.0, deadline - time.monotonic()))

    def ask(self) -> None:
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        history = self.view.history
        if history is None or not history.events:
            self.say("No walk to export yet.", severity="warning")
            return

        def export(value: str | None) -> None:
            if value:
                self.write(history, Path(value).expanduser())

        default = Path(history.suggested_file_name().removesuffix(".trace.jsonl") + ".html")
        model = history.settings.model
        self.stage.app.push_screen(save_prompt("Export the walk as one HTML file to", default, "the HTML",
                                               lambda: model_reads(self.wiring.ledger, model),
                                               doing="write the HTML", example="walk.html"), export)

    def write(self, history: WalkHistory, out: Path) -> None:
        """Write ``history`` to ``out`` on a worker; say where it went, or the one line that says why not."""
        app, corpus, say = self.stage.app, self.corpus, self.say
        held = self.walks.holding(history)  # its one record; a walk still going: what it holds now, as cancelled
        record = held.finished(corpus) if held is not None else history.finished(corpus)
        if record.header.map is None:  # walked before M kept a map variant: drawn on the map it was walked on
            corpus = corpus.original
        # Its miss as the step panel judged it, else judged on the worker (against the nodes marked expected)
        judged = held.judged[1] if held is not None and held.judged is not None else None
        expected = self.view.expected if history is self.view.history else frozenset()
        unfinished = history.end is None
        fork_of = history.parent.number if history.origin is Origin.FORK and history.parent is not None else None
        credit = app.title
        reads = model_reads(self.wiring.ledger, history.settings.model)  # here: the walk list is this thread's

        def work() -> None:
            worker = get_current_worker()

            def cancelled() -> bool:
                return worker.is_cancelled or self._quitting

            def fails(why: str) -> None:
                if not cancelled():
                    app.call_from_thread(say, one_line(why), title="Cannot export the walk", severity="error",
                                         timeout=8)

            problem = refusal(out, reads)
            if problem is not None:
                fails(problem)
                return
            ended = threading.Event()
            with self._lock:
                if cancelled():
                    return
                self._drawings.add(ended)
            try:
                try:
                    said = judged if judged is not None else self.verdict(history, expected)
                    exported = export_walk(self.screen_class, recorded(record), corpus, credit=credit,
                                           cancelled=cancelled, fork_of=fork_of, expected=expected, judged=said)
                finally:
                    ended.set()
                    self._drawings.discard(ended)
                write_page(out, exported.text, reads)  # asked first when it exists
                self.wiring.ledger.wrote(Output("the HTML", out))
            except DrawingCancelled:
                return
            except OSError as exc:
                fails(f"cannot write the HTML to {out}: {exc.strerror or exc}")
                return
            except Exception as exc:  # a fault in the drawing: one line, as for any other reason
                fails(f"the drawing failed: {type(exc).__name__}: {exc}")
                return
            if cancelled():
                return
            note = " (the walk is not over: the file shows it as far as it went)" if unfinished else ""
            app.call_from_thread(say, f"Walk exported to {out.resolve()}{note}", timeout=6)

        self.stage.run_worker(work, thread=True, group="files", exit_on_error=False)
