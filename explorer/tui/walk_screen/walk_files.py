"""The walk screen's files: traces saved and opened, screenshots, and ``--trace FILE`` saving each walk as it ends.

Reading and writing happen on thread workers, never on the UI thread; a session shared on a network
(``allow_files`` off) refuses every one of them in one line. Every file goes through the one gate
(:mod:`explorer.outputs`) with the program's ledger (the wiring's): never over the corpus, a trace a walk was read
from, a question set or kept run read, or a navigator's file (refused under the field); over an existing file only
when Enter is pressed again on it (the prompt says it exists, and offers a free name first); whole or not at all,
and through a symlink to its regular target.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...navigators import files_read_by
from ...outputs import Ledger, Output, Read, free_name, refused, same_file, write
from ...trace import FinishedWalk, Trace, TraceError, read_trace, write_trace
from ...walks.history import suggested_file_name
from ...walks.walk_list import WalkList
from ...walks.wiring import UNWIRED, Wiring
from ..say import FILES_OFF
from ..screens.prompt import PromptScreen
from ..screens.save_prompt import model_reads, save_prompt
from .shown import Grounds, Part

if TYPE_CHECKING:
    from ...corpora import Corpus

SCREENSHOTS = Path("screenshots")
"""Where ``ctrl+e`` offers to save, under the folder the explorer runs in."""


def walks_read(walks: WalkList) -> list[Read]:
    """What the walks of an explorer's walk list read, which its ledger follows: the file each walk was read from,
    and the files its navigator reads (a script, a trace, a ``py:`` source, prompt files)."""
    reads: list[Read] = []
    models: dict[str, None] = {}
    for walk in walks:
        source = walk.saved.path if walk.saved is not None else None
        if source is None and walk.history is not None and walk.history.trace is not None:
            source = walk.history.trace.path
        if source is not None:
            reads.append(Read(f"the file walk {walk.number} was read from", Path(source)))
        models.setdefault(walk.settings.model)  # a saved walk's from its header: no trace is read here
    return reads + [Read(f"the file {model} reads", path) for model in models for path in files_read_by(model)]


def ledgered(wiring: Wiring, corpus: Corpus, walks: WalkList) -> Wiring:
    """``wiring`` (or, for the shared unwired default, one of the screen's own), its ledger holding the corpus and
    following what each walk of ``walks`` reads (:func:`walks_read`)."""
    if wiring is UNWIRED:
        wiring = Wiring()
    wiring.ledger.read("the corpus", corpus.path)
    wiring.ledger.read("the map variant", corpus.map.path if corpus.map is not None else None)
    wiring.ledger.follow(partial(walks_read, walks))
    return wiring


class WalkFiles(Part):
    """Traces and screenshots of the walk on screen; ``trace_path`` is ``--trace FILE`` (or ``None``);
    ``walks`` are the session's walks, whose files (and the corpus) no trace may be saved over."""

    def __init__(self, grounds: Grounds, trace_path: str | None) -> None:
        super().__init__(grounds)
        self.trace_path = trace_path
        self.saved: list[str] = []
        """The traces saved in this session, oldest first (offered first when opening one)."""

    def _allowed(self) -> bool:
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
        return self.allow_files

    def walk_ended(self, finished: FinishedWalk) -> None:
        """A sink of every walk of the screen, on a worker: ``--trace FILE`` keeps a walk's one record,
        ``finished``: the first walk in FILE and each later one beside it (``FILE.walk2.jsonl``); a walk that took no
        step keeps none. Written on the thread it is told on: a worker's, or the screen's as the app quits (a walk
        quit half-way is kept, as a cancelled one), since no worker outlives the app."""
        if not self.trace_path or not finished.events:
            return
        number = finished.place.number if finished.place is not None else 1
        path = Path(self.trace_path)
        if number != 1:
            path = path.with_name(f"{path.stem}.walk{number}{path.suffix or '.jsonl'}")
            if not any(same_file(path, written.path) for written in self.ledger.written):
                path = free_name(path)  # a file there before this session is someone's: never replaced unasked
        self._save(finished, path, suggested_file_name(finished.header.settings.query, number), quiet=number == 1,
                   here=True)

    @property
    def ledger(self) -> Ledger:
        """The program's ledger of the files it read and wrote (the wiring's)."""
        return self.wiring.ledger

    def recent(self) -> list[str]:
        """Traces saved in this session, then those in this folder and the corpus's, newest first."""
        found: dict[str, float] = {}
        for folder in {Path("."), Path(self.corpus.path).parent}:
            try:
                for path in folder.glob("*.jsonl"):
                    found[str(path)] = path.stat().st_mtime
            except OSError:
                continue
        recent = sorted(found, key=lambda p: -found[p])
        return list(dict.fromkeys([*reversed(self.saved), *recent]))[:10]

    # -- traces ----------------------------------------------------------------------------------------------------

    def ask_save(self) -> None:
        if not self._allowed():
            return
        walk = self.view.walk
        history = walk.history if walk is not None else None
        if walk is None or history is None or not history.events:
            self.say("No walk to save yet.", severity="warning")
            return

        def save(value: str | None) -> None:
            if value:  # its one record (a walk still going: what it holds now, as cancelled)
                self._save(walk.finished(self.corpus), Path(value).expanduser(), history.suggested_file_name())

        model = history.settings.model
        self.stage.app.push_screen(save_prompt("Save the trace to", Path(history.suggested_file_name()), "the trace",
                                               lambda: model_reads(self.ledger, model), doing="save the trace",
                                               example=history.suggested_file_name()), save)

    def _save(self, walk: FinishedWalk, path: Path, example: str, quiet: bool = False, here: bool = False) -> None:
        """Write ``walk`` to ``path`` (asked for, or ``--trace``'s): the gate checks again as it writes; on a worker,
        or ``here``, on the thread this is called on (what it says goes to the screen's thread)."""
        reads = model_reads(self.ledger, walk.header.settings.model)
        problem = refused(Output("the trace", path), reads, doing="save the trace", example=example)
        if problem is not None:
            self._tell(f"Not saved: {problem}", severity="error", timeout=8)
            return

        def write() -> None:
            tell = self._tell
            try:
                saved = write_trace(path, walk, reads)
            except OSError as exc:
                tell(f"Cannot save {path}: {exc.strerror or exc}", severity="error")
                return
            self.ledger.wrote(Output("the trace", saved))
            self.saved.append(str(saved))
            if not quiet:
                tell(f"Trace saved to {saved.resolve()}", timeout=4)

        if here:
            write()
        else:
            self.stage.run_worker(write, thread=True, group="files", exit_on_error=False)

    def _tell(self, message: str, **how: Any) -> None:
        """Say ``message`` from any thread: on the screen's own, at once; from a worker, through the screen's."""
        try:
            self.stage.app.call_from_thread(self.say, message, **how)
        except RuntimeError:  # this is the screen's thread (a walk told at once, as the app quits)
            self.say(message, **how)

    def ask_open(self, load: Callable[[Trace], None]) -> None:
        """Ask for a trace, read it on a worker, and hand it to ``load`` (on the screen's thread)."""
        if not self._allowed():
            return

        def open_(value: str | None) -> None:
            if value:
                self.say(f"Opening {value}…", timeout=2)
                self._read(Path(value).expanduser(), load)

        recent = self.recent()
        self.stage.app.push_screen(PromptScreen("Open a trace (made on this corpus)", recent[0] if recent else "",
                                               placeholder="walk.trace.jsonl", suggestions=recent,
                                               check=lambda v: None if v else "Type the path of a trace file."),
                                  open_)

    def _read(self, path: Path, load: Callable[[Trace], None]) -> None:
        app, corpus = self.stage.app, self.corpus

        def read() -> None:
            try:
                trace = read_trace(path, corpus_sha256=corpus.sha256, corpus_label=str(corpus.path))
                self.ledger.read("a trace opened", path)
            except TraceError as exc:
                app.call_from_thread(self.say, str(exc), title="Cannot open the trace", severity="error",
                                     timeout=8)
                return
            app.call_from_thread(load, trace)

        self.stage.run_worker(read, thread=True, group="files", exit_on_error=False)

    # -- screenshots -----------------------------------------------------------------------------------------------

    def ask_screenshot(self) -> None:
        if not self._allowed():
            return
        app = self.stage.app

        def save(value: str | None) -> None:
            if not value:
                return
            target = Path(value).expanduser()
            try:
                if target.parent == SCREENSHOTS:
                    SCREENSHOTS.mkdir(exist_ok=True)  # the folder offered; any other must exist
                write(Output("the screenshot", target), app.export_screenshot(), self.ledger,
                      doing="save the screenshot", example="screen.svg", replace=True)  # asked first
            except OSError as exc:
                self.say(f"Cannot save {target}: {exc.strerror or exc}", severity="error", timeout=6)
                return
            self.say(f"Screenshot saved to {target.resolve()}", timeout=4)

        stamp = time.strftime("%Y%m%d-%H%M%S")
        default = SCREENSHOTS / f"reasoning-explorer-{stamp}.svg"
        app.push_screen(save_prompt(f"Save an SVG screenshot to (under {Path.cwd()})", default, "the screenshot",
                                    lambda: self.ledger.reads(), doing="save the screenshot",
                                    example="screen.svg", made=SCREENSHOTS), save)
