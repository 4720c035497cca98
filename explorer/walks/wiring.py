"""What a program hands the walks it starts (:class:`Wiring`), and the one hook a walk that ended goes through
(:class:`EndHook`: its sinks, each a :data:`WalkObserver` that runs inline or on a worker)."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Final, Protocol, runtime_checkable

from core import TreeNavigator

from ..outputs import Ledger
from ..trace import FinishedWalk, WalkPlace

if TYPE_CHECKING:
    from ..corpora import Corpus
    from ..navigators.folders import Folders
    from ..navigators.judge import Judge
    from ..navigators.llm.llama_server import StatusListeners
    from ..navigators.manual import DecisionDesk

__all__ = ["NO_SINKS", "UNWIRED", "EndHook", "Sink", "WalkKeeper", "WalkObserver", "Wiring", "Worker"]

WalkObserver = Callable[[FinishedWalk], None]
"""What a sink does with a walk that ended: told once, with its one record (:class:`~explorer.trace.FinishedWalk`,
made from its history by :meth:`.session.WalkSession.finish`). Whatever keeps a walk is one: the telemetry
(``WalkTelemetry.export_walk``), an application's recorder (``WalkRecorder.keep``), the session keeper, the
``--trace`` writer. It must not raise."""

Worker = Callable[[Callable[[], None]], object]
"""How a program runs a job off the thread that owns a walk's history (the screen: a thread worker of its own)."""


@dataclass(frozen=True)
class Sink:
    """One place a walk's one record goes as the walk ends: ``tell``, inline (on the thread that owns the walk's
    history, before any other sink: something that only queues, as the session keeper) or ``on_worker`` (what
    writes or sends, so that it never holds a screen: each such sink on a worker of its own)."""

    tell: WalkObserver
    on_worker: bool = False


@dataclass(frozen=True)
class EndHook:
    """The one hook a walk's end goes through, handed to its session when the session is made
    (:class:`~.session.WalkSession`): every ``sink`` of the walk, and the program's ``worker`` for those that run on
    one (``None``: a program with no thread to spare, as the command line's and an evaluation's, whose walks end off
    any screen: they run inline, in turn, after the inline ones)."""

    sinks: tuple[Sink, ...] = ()
    worker: Worker | None = None

    def tell(self, finished: FinishedWalk, *, at_once: bool = False) -> None:
        """Hand ``finished`` to every sink, once: the inline ones here, in turn, then each of the others on a worker
        of its own — here too when ``at_once`` (the program is quitting: no worker outlives it) or it has none."""
        later = [sink.tell for sink in self.sinks if sink.on_worker]
        for sink in self.sinks:
            if not sink.on_worker:
                sink.tell(finished)
        worker = None if at_once else self.worker
        for tell in later:
            if worker is None:
                tell(finished)
            else:
                worker(partial(tell, finished))


NO_SINKS: Final = EndHook()
"""The hook of a walk that nothing keeps."""


class WalkKeeper(Protocol):
    """Where the walks of a program's walk list are kept as they end (the explorer's session folder, a
    :class:`~explorer.recording.WalkRecorder`): :meth:`keep` is told of each, as an observer is, and :meth:`close`
    writes what is waiting as the program ends."""

    def keep(self, walk: FinishedWalk) -> None: ...

    def left(self, places: Iterable[WalkPlace]) -> None:
        """Where each walk of the list was left as the program ends (its cursor): kept too, as :meth:`close`
        writes."""
        ...

    def close(self, timeout: float | None = ...) -> None: ...


@runtime_checkable
class Wirable(Protocol):
    """A navigator that takes something of the program that runs it: it says what it becomes, wired."""

    def wired_with(self, desk: DecisionDesk | None, hearing: StatusListeners | None,
                   folders: Folders | None) -> TreeNavigator | None:
        """This navigator with the program's ``desk``, ``hearing`` or ``folders`` (``None``: it needs none)."""
        ...


@dataclass(frozen=True)
class Wiring:
    """What a program that runs walks hands the walks it starts: the ``desk`` where a person answers the manual
    navigator (none: it fails at once), ``hearing``, told how a local model loads (none: nobody), the ``observers``
    told of each walk as it ends, the ``folders`` its navigators keep what they write in (the response cache; the
    prompt variants of the screen's ``W``), and the ``keeper`` of the walks of its walk list (the explorer's session
    folder; none: none kept; only those walks, never an evaluation's). ``folders`` are read once, where the program
    starts (the command line's ``--cache``, ``--no-cache`` and ``--prompts``, else the user's own,
    :func:`~explorer.navigators.folders.user_folders`); ``None``: this program names none, and each navigator caches
    where the user's environment says.

    A navigator is resolved from its model id alone (``resolve_navigator``, the same for every program), so the
    registry makes it with nothing; :meth:`wire` gives it what this program has. Each explorer makes its own
    (``ExplorerApp.wiring``) and a command its own, and no module (and no environment variable) keeps any of it for
    another layer to find: two explorers in one process never answer, hear or observe each other's walks, nor cache
    in each other's folders.
    """

    desk: DecisionDesk | None = None
    hearing: StatusListeners | None = None
    observers: tuple[WalkObserver, ...] = ()
    folders: Folders | None = None
    keeper: WalkKeeper | None = None
    ledger: Ledger = field(default_factory=Ledger, compare=False)
    """The files this program read and wrote, which every file it writes asks about (:mod:`explorer.outputs`)."""
    judge: str | None = None
    """The judge of the misses this program was asked for (``--judge``, checked where it starts): ``None``, the
    default (:func:`~explorer.navigators.judge.default_judge`); ``none``, no verdicts (:meth:`judge_of`)."""
    _wired: weakref.WeakKeyDictionary[TreeNavigator, weakref.ref[TreeNavigator]] = field(
        default_factory=weakref.WeakKeyDictionary, init=False, repr=False, compare=False)
    """Each navigator wired once: the same one asked again (the next walk's, walk after walk) is the same wired one,
    while anything holds it. Held weakly both ways, so that wiring never keeps a navigator (and its connections)
    alive: a wired copy holds the navigator it was made from, and would otherwise keep it as long as the program."""

    def wire(self, navigator: TreeNavigator) -> TreeNavigator:
        """``navigator`` with this program's desk, listeners or cache folder when it needs them (else ``navigator``
        itself): a navigator that takes any says so with a method of its own, ``wired_with(desk, hearing,
        folders)`` (:class:`Wirable`) — the manual navigator answers at the desk, a local model tells the listeners
        how it loads, and an LLM navigator caches in ``folders.cache`` — and no class is switched on here."""
        held = self._wired.get(navigator)
        wired = held() if held is not None else None
        if wired is not None:
            return wired
        wired = navigator.wired_with(self.desk, self.hearing, self.folders) if isinstance(
            navigator, Wirable) else None
        if wired is None:
            return navigator
        self._wired[navigator] = weakref.ref(wired)
        return wired

    def prompts_for(self, corpus_path: str | Path) -> Path:
        """Where the screen's ``W`` keeps the prompt variants made on the corpus at ``corpus_path``: this program's
        prompts folder, else ``prompts`` beside the corpus (``Folders.prompts_for``)."""
        from ..navigators.folders import Folders

        return (self.folders or Folders(None)).prompts_for(corpus_path)

    def judge_of(self, corpus: Corpus, told: Callable[[str], None] | None = None) -> Judge | None:
        """The judge of the misses on ``corpus`` this program was asked for, its navigator (an LLM's) wired by
        :meth:`wire`; ``None`` when verdicts are off (``none``). The default one's fallback to BM25 is said to
        ``told``. Reads the whole corpus the first time: call it on a worker."""
        from ..navigators.navigator_judge import judge_named, judge_off

        return None if judge_off(self.judge) else judge_named(self.judge, corpus, wire=self.wire, told=told)

    @property
    def judging(self) -> bool:
        """Whether this program judges misses (``--judge none`` turns it off)."""
        from ..navigators.navigator_judge import judge_off

        return not judge_off(self.judge)

    def hook(self, *own: Sink, kept: bool = False, worker: Worker | None = None) -> EndHook:
        """The hook of a walk this program makes, every program alike: its ``own`` sinks (the ``--trace`` file), then
        the ``keeper`` when the walk is ``kept`` (one of its walk list: inline, since it only queues, and a quit
        right after must not lose it), then each of the ``observers`` (the telemetry's) on a ``worker``."""
        keeper = [Sink(self.keeper.keep)] if kept and self.keeper is not None else []
        return EndHook((*own, *keeper, *(Sink(observer, on_worker=True) for observer in self.observers)), worker)



UNWIRED: Final = Wiring()
"""A program with no desk, no listeners and no observers (a headless one)."""
