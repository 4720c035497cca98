"""The map audited on the walk screen (``I``): the nodes whose title and summary describe their subtree worst
(:mod:`explorer.walks.audit`), marked on the tree and listed one key away.

The audit runs once per screen, on a worker, with the screen's judge (the bundled embeddings, made once per screen:
a miss judged before shares its tables); the screen stays live while it runs, a second ``I`` starts no second
audit, and a quit does not wait for it: the audit itself runs on a daemon thread that the worker waits on in short
slices, looking at its cancellation between them (a worker's thread cannot be stopped, and a process waits for the
workers' threads as it exits); cancelled, the worker tells the audit to stop, which it does at its next slice (some
thousand rows), so it takes no core from what comes after. When it ends, its :data:`LISTED` weakest nodes are
marked ``△ weak N`` on the tree, and the list opens when the walk screen is the one on top (else ``I`` opens it);
Enter on one opens it on the tree.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import threading
from collections.abc import Callable
from dataclasses import dataclass

from textual.worker import Worker, get_current_worker

from ...navigators import NavigatorConfigError
from ...navigators.judge import DEFAULT_JUDGE, Check, EmbeddingJudge, Judge, judge_for
from ...numbers import counted
from ...safe_text import one_line
from ...walks.audit import MapFit, audit, basis
from ..screens.audit_list import AuditScreen
from ..widgets.walk_tree import WalkTree
from .shown import Grounds, Part

LISTED = 20
"""The weakest nodes marked and listed."""
SLICE_SECONDS = 0.1
"""How often the worker looks at its cancellation while the audit runs."""


class _Stopped(Exception):
    """The audit was told to stop (its screen or the app closed)."""


@dataclass(frozen=True)
class Audited:
    """An audit's outcome: its weakest nodes, the judge's name and what it compared (in words)."""

    fits: tuple[MapFit, ...]
    judge: str
    compared: str


def mark(rank: int) -> str:
    """The mark of the ``rank``-th weakest node on the tree."""
    return f"△ weak {rank}"


class Auditing(Part):
    """``I``: audit the map once on a worker, mark its weakest nodes on ``tree``, list them; Enter on one opens it
    there. ``judge``: the screen's judge, made on first use."""

    def __init__(self, grounds: Grounds, *, judge: Callable[[], Judge | None], tree: WalkTree) -> None:
        super().__init__(grounds)
        self._judge = judge
        self._tree = tree
        self.audited: Audited | None = None
        """The audit's outcome once it ended (``None``: not yet)."""
        self.running = False
        self._generation = 0
        """Bumped when the map changes (``M``): an audit started before it ends unheard."""
        self._worker: Worker[None] | None = None

    def forget(self) -> None:
        """The map changed (``M``): the audit judged the map as it read, so its marks leave the tree, an audit
        running stops (its outcome is dropped), and the next ``I`` audits the map as it reads now."""
        self._generation += 1
        self.audited = None
        self.running = False
        if self._worker is not None:
            self._worker.cancel()  # its audit stops at its next slice
        self._tree.set_weak({})

    def ask(self) -> None:
        """``I``: the list when the audit has run, else the audit started (once)."""
        nodes = len(self.corpus.index)
        if self.audited is not None:
            self._list()
        elif self.running:
            self.say(f"Still auditing {counted(nodes, 'node', grouped=True)}: the list opens when it ends.", timeout=3)
        else:
            self.running = True
            said = counted(nodes, "node", grouped=True)
            self.say(f"Auditing {said}: each title and summary against what lies beneath it…", timeout=4)
            self._start()

    def _start(self) -> None:
        # Said back on the screen's loop, in its context, without waiting: a screen gone by then hears nothing.
        loop, context = asyncio.get_running_loop(), contextvars.copy_context()
        generation = self._generation
        ended, stop = threading.Event(), threading.Event()
        outcome: list[Audited | Exception] = []

        def check() -> None:
            if stop.is_set():
                raise _Stopped

        def run() -> None:
            try:
                outcome.append(self._audit(check))
            except _Stopped:  # the screen or the app closed: nobody to tell
                pass
            except Exception as exc:  # said in one line on the screen; the screen goes on
                outcome.append(exc)
            finally:
                ended.set()

        def work() -> None:
            threading.Thread(target=run, name="map audit", daemon=True).start()
            worker = get_current_worker()
            while not ended.wait(SLICE_SECONDS):
                if worker.is_cancelled:  # the screen or the app closed: the audit stops at its next slice
                    stop.set()
                    return
            if outcome:
                with contextlib.suppress(RuntimeError):  # the app closed as the audit ended: nothing to say
                    loop.call_soon_threadsafe(self._ended, outcome[0], generation, context=context)

        self._worker = self.stage.run_worker(work, thread=True, group="audit", exit_on_error=False,
                                             name="audit the map")

    def _audit(self, check: Check) -> Audited:
        judge = self._judge()
        if not isinstance(judge, EmbeddingJudge):  # the screen's judge fell back to BM25 or is off (--judge none)
            judge = judge_for(DEFAULT_JUDGE, self.corpus)
            if not isinstance(judge, EmbeddingJudge):
                raise NavigatorConfigError(f"the audit needs the judge {DEFAULT_JUDGE}")
        fits = audit(judge, LISTED, check)
        return Audited(tuple(fits), judge.name, basis(judge)[2])

    def _ended(self, outcome: Audited | Exception, generation: int) -> None:
        if generation != self._generation:  # the map changed while it ran: it judged a map no longer shown
            return
        self.running = False
        if isinstance(outcome, Exception):
            self.say(f"The map audit failed: {one_line(str(outcome))}", severity="error", timeout=8)
            return
        self.audited = outcome
        self._tree.set_weak({fit.id: mark(rank) for rank, fit in enumerate(outcome.fits, 1)})
        if not outcome.fits:
            self.say("Nothing to audit: no node has anything beneath it to compare its title and summary with.",
                     timeout=5)
        elif self._tree.is_attached and self._tree.screen is self.stage.app.screen:
            self._list()
        else:
            self.say(f"Map audit done: its {len(outcome.fits)} weakest nodes are marked △ on the tree; I lists them.",
                     timeout=5)

    def _list(self) -> None:
        audited = self.audited
        assert audited is not None
        if not audited.fits:
            self.say("Nothing to audit: no node has anything beneath it to compare its title and summary with.",
                     timeout=5)
            return
        titles = [self.corpus.title_of(fit.id) for fit in audited.fits]
        self.stage.app.push_screen(AuditScreen(audited.fits, titles, nodes=len(self.corpus.index),
                                               judge=audited.judge, compared=audited.compared), self._open)

    def _open(self, node_id: str | None) -> None:
        """The node chosen in the list, opened on the tree: its branch revealed, the cursor on it."""
        if node_id is None or node_id not in self.corpus.index:
            return
        tree = self._tree
        tree.reveal(node_id)
        tree.focus()
        self.say(f"Map audit: {self.corpus.title_of(node_id)} ({node_id}), {mark(self._rank(node_id))}", timeout=3)

    def _rank(self, node_id: str) -> int:
        assert self.audited is not None
        return next(rank for rank, fit in enumerate(self.audited.fits, 1) if fit.id == node_id)
