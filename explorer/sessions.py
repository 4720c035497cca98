"""The explorer's sessions kept on disk: every walk of a session, kept as it ends, in a folder of its own.

Each explorer keeps its session's walks (those of its walk list: walked, forked, re-walked, continued) in a session
folder, one trace each, written by a :class:`~explorer.recording.WalkRecorder`: the same files ``reasoning-explorer
FOLDER`` opens. The session folders live under one root (:func:`sessions_root`): ``--sessions DIR``, else
``$XDG_DATA_HOME/reasoning-explorer/sessions`` (``~/.local/share/reasoning-explorer/sessions``), each named for when
its session started (``2026-12-05T10-31-07``, local time), and known as one by the marker file the explorer writes in
it (:data:`MARKER`), never by its name: a folder of a person's own under the root (``zzz-my-walks``, or one named
like a session) is never resumed, kept in, nor removed. A folder kept before the marker existed is resumed (and
marked) when it looks exactly like one the explorer made then (:func:`is_legacy_session`), and never removed.
``--resume`` reopens the newest session that holds walks (:func:`last_session`) and goes on keeping the session
there. ``--sessions off`` keeps none.

The user's ``XDG_DATA_HOME`` is only read, once, where the explorer starts.
"""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Final

from .corpora import Corpus
from .outputs import Output, write
from .process import environment
from .reading import read_file
from .recording import PATTERN, WalkRecorder
from .safe_text import json_text
from .trace import MAX_TRACE_BYTES, FinishedWalk, TraceError, WalkPlace, read_trace_header

__all__ = ["KEPT_SESSIONS", "MARKER", "SESSIONS_OFF", "KeptSession", "is_legacy_session", "is_session", "last_session",
           "prune_sessions", "session_label", "sessions_root", "start_session"]

SESSIONS_OFF: Final = "off"
"""``--sessions off``: this explorer keeps no walk."""
_NAME_FORMAT: Final = "%Y-%m-%dT%H-%M-%S"
"""A session folder's name: when it started, local time, to the second (names sort by time)."""
_STAMP: Final = len("2026-12-05T10-31-07")
MARKER: Final = ".reasoning-explorer-session"
"""The file that makes a folder a session folder: written in it as the session starts."""
_MARKER_TEXT: Final = ("A session of reasoning-explorer: its walks, kept as they end (reasoning-explorer --resume "
                       "reopens the newest). Without this file, the folder is no session.\n")
_TEMPORARY: Final = ".walk-*.tmp"
"""What the recorder writes a walk to before renaming it into place (a recorder killed mid-write leaves one)."""
_LEGACY_NAME: Final = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}-[0-9]{2}-[0-9]{2}"
                                 r"(?:-(?:[2-9]|[1-9][0-9]{1,2}))?")
"""A session folder's name as the explorer wrote it before the marker: when it started, then ``-2`` … ``-999``."""
_KEPT_WALK: Final = r"walk-[0-9]{8}T[0-9]{6}\.[0-9]{6}Z-[0-9]+-[0-9]+\.jsonl"
_LEGACY_TRACE: Final = re.compile(_KEPT_WALK)
"""A kept walk's name as the recorder writes it (``walk-20261201T120000.123456Z-4242-7.jsonl``)."""
_LEGACY_TEMPORARY: Final = re.compile(rf"\.{_KEPT_WALK}\.[0-9]+\.[a-z0-9_]+\.tmp")
"""The temporary file of one of those, left by a recorder killed mid-write."""
KEPT_SESSIONS: Final = 50
"""Session folders kept under a root: a new session removes the oldest beyond these (each holds at most the
recorder's 100 MB), so that a year of sessions does not fill the disk unseen."""


def sessions_root(given: str | None = None, environ: Mapping[str, str] | None = None) -> Path | None:
    """Where the session folders are: ``given`` (``--sessions DIR``; ``off``: ``None``, none kept), else
    ``$XDG_DATA_HOME/reasoning-explorer/sessions`` (an absolute ``XDG_DATA_HOME``: the spec says to ignore a relative
    one), else ``~/.local/share/reasoning-explorer/sessions``."""
    if given is not None:
        return None if given.strip().lower() == SESSIONS_OFF else Path(given).expanduser()
    environ = environment().variables if environ is None else environ
    base = environ.get("XDG_DATA_HOME", "").strip()
    data = Path(base).expanduser() if base and Path(base).is_absolute() else Path.home() / ".local" / "share"
    return data / "reasoning-explorer" / "sessions"


def start_session(root: Path, started: datetime | None = None, keep: int = KEPT_SESSIONS) -> Path:
    """A new session folder under ``root``, named for ``started`` (default: now); a second session started in the
    same second gets ``-2``, ``-3``… The oldest sessions beyond ``keep`` are removed (:func:`prune_sessions`).
    ``OSError`` when it cannot be made (the caller says so in one line)."""
    name = (started or datetime.now()).strftime(_NAME_FORMAT)
    root.mkdir(parents=True, exist_ok=True)
    for count in range(1, 1000):
        folder = root / (name if count == 1 else f"{name}-{count}")
        try:
            folder.mkdir()
        except FileExistsError:
            continue
        try:
            write(Output("the session's marker", folder / MARKER), _MARKER_TEXT, doing="mark the session folder")
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            raise
        prune_sessions(root, keep)
        return folder
    raise FileExistsError(f"{root}: a thousand sessions started at {name}; remove some")


def _started(folder: Path) -> tuple[str, int]:
    """What orders session folders: when each started, then its count in that second (``-10`` after ``-9``)."""
    stamp, count = folder.name[:_STAMP], folder.name[_STAMP + 1:]
    return stamp, int(count) if count.isascii() and count.isdigit() and len(count) <= 9 else 1  # not '²'


def is_session(folder: Path) -> bool:
    """Whether ``folder`` is a session folder: it holds the marker the explorer writes (a regular file, not a link)."""
    try:
        return folder.is_dir() and not folder.is_symlink() and (folder / MARKER).is_file() \
            and not (folder / MARKER).is_symlink()
    except OSError:
        return False


def is_legacy_session(folder: Path) -> bool:
    """Whether ``folder`` is a session folder an explorer kept before the marker existed (a person upgrading keeps
    their walks): it looks exactly like one the explorer made then, or it is none. Its name is one
    :func:`start_session` gave (``2026-12-05T10-31-07``, ``…-2``: ASCII digits, a real date); it holds regular files
    alone, each a kept walk as the recorder names them (or the temporary file of one), at least one; and every kept
    walk's header reads as a reasoning-explorer trace's. A person's own folder (``zzz-my-walks``, a name ending in
    ``²``, a note beside the walks, a file that is no trace) is none. Never true of a marked folder
    (:func:`is_session`); ``--resume`` marks a legacy folder it reopens (:class:`KeptSession`)."""
    if not _LEGACY_NAME.fullmatch(folder.name):
        return False
    try:
        datetime.strptime(folder.name[:_STAMP], _NAME_FORMAT)
    except ValueError:
        return False
    try:
        if not folder.is_dir() or folder.is_symlink() or (folder / MARKER).exists():
            return False
        traces = []
        for path in folder.iterdir():
            if path.is_symlink() or not path.is_file():
                return False
            if _LEGACY_TRACE.fullmatch(path.name):
                traces.append(path)
            elif not _LEGACY_TEMPORARY.fullmatch(path.name):
                return False
        for trace in traces:
            read_trace_header(trace)
    except (OSError, TraceError):
        return False
    return bool(traces)


def prune_sessions(root: Path, keep: int = KEPT_SESSIONS) -> list[Path]:
    """Remove the oldest session folders under ``root`` beyond the newest ``keep``, and return them. Only a session
    folder (:func:`is_session`) holding nothing but its marker and kept walks (``walk-*.jsonl`` and the recorder's
    temporary files) is ever removed: anything else under ``root`` is left as it is."""
    try:
        sessions = sorted((p for p in root.iterdir() if is_session(p)), key=_started)
    except OSError:
        return []
    removed = []
    for folder in sessions[:max(0, len(sessions) - keep)]:
        try:
            ours = all(path.is_file() and not path.is_symlink()
                       and (path.match(PATTERN) or path.match(_TEMPORARY) or path.name == MARKER)
                       for path in folder.iterdir())
        except OSError:
            continue
        if ours:
            with contextlib.suppress(OSError):
                shutil.rmtree(folder)
                removed.append(folder)
    return removed


def holds_walks(folder: Path) -> bool:
    """Whether ``folder`` holds a kept walk (a trace named as the recorder names them)."""
    try:
        return any(path.is_file() for path in folder.glob(PATTERN))
    except OSError:
        return False


def last_session(root: Path) -> Path | None:
    """The newest session folder under ``root`` that holds walks (``None``: none does, or there is no ``root``): a
    marked one (:func:`is_session`), or one kept before the marker existed (:func:`is_legacy_session`)."""
    try:
        folders = sorted((path for path in root.iterdir() if _LEGACY_NAME.fullmatch(path.name) or is_session(path)),
                         key=_started, reverse=True)
    except OSError:
        return None
    return next((folder for folder in folders
                 if (holds_walks(folder) if is_session(folder) else is_legacy_session(folder))), None)


def session_label(folder: Path) -> str:
    """When the session kept in ``folder`` started, as a person reads it (``2026-12-05 10:31``); a folder not named
    by :func:`start_session` is named as it is."""
    try:
        started = datetime.strptime(folder.name[:len("2026-12-05T10-31-07")], _NAME_FORMAT)
    except ValueError:
        return folder.name
    return started.strftime("%Y-%m-%d %H:%M")


class KeptSession:
    """A session's walks kept in ``folder`` as they end (a :class:`~explorer.walks.wiring.WalkKeeper`): each a
    trace, written by a :class:`~explorer.recording.WalkRecorder` on its own thread, never holding the screen. A new
    session's folder that kept no walk is removed as it closes (a session that walked nothing leaves nothing)."""

    def __init__(self, folder: Path, corpus: Corpus, *, resumed: bool = False) -> None:
        """``OSError`` when ``folder`` cannot be made or read, or a resumed one kept before the marker existed cannot
        be marked (it is marked here, so that it is known as a session from now on)."""
        self.folder = folder
        self.resumed = resumed
        if resumed and not is_session(folder):
            write(Output("the session's marker", folder / MARKER), _MARKER_TEXT, doing="mark the session folder")
        self.recorder = WalkRecorder(folder, corpus)
        self._left: dict[tuple[int, str], WalkPlace] = {}
        self.uncursored = 0
        """Kept walks whose cursor could not be kept as the session closed (their trace unreadable or unwritable)."""

    def keep(self, walk: FinishedWalk) -> None:
        """Keep ``walk``, its corpus named by its absolute path: the session folder is no place a path given
        relative to where the explorer was started (``c/handbook.yaml``) reads from (``--resume`` runs anywhere)."""
        corpus = Path(walk.header.corpus_path)
        if walk.header.corpus_path and not corpus.is_absolute():
            walk = replace(walk, header=replace(walk.header, corpus_path=str(corpus.resolve())))
        if walk.place is not None:  # its number, name, lineage and cursor: --resume brings it back as it was
            walk = replace(walk, header=replace(walk.header, walk=walk.place))
        self.recorder.keep(walk)

    def left(self, places: Iterable[WalkPlace]) -> None:
        """Where each walk of the list was left as the explorer closes (its cursor): :meth:`close` keeps it in the
        walk's kept trace, so that ``--resume`` opens it there, not where it was when it ended."""
        self._left = {(place.number, place.label): place for place in places}

    def close(self, timeout: float | None = 30.0) -> None:
        self.recorder.close(timeout)
        self._keep_cursors()
        if not self.resumed:
            with contextlib.suppress(OSError):  # it kept walks, or is gone: either way, left as it is
                if [path.name for path in self.folder.iterdir()] == [MARKER]:
                    (self.folder / MARKER).unlink()
                self.folder.rmdir()

    def _keep_cursors(self) -> None:
        """Each kept walk (this session's: a trace whose ``walk`` block has a number and name of the list) left at
        another step than its trace says gets that step in its header; the rest of its trace is left byte for
        byte. A trace that cannot be read or written keeps the step it had."""
        if not self._left:
            return
        for path in sorted(self.folder.glob(PATTERN)):
            try:
                kept = read_trace_header(path).walk
                place = None if kept is None else self._left.get((kept.number, kept.label))
                if kept is None or place is None or place.cursor == kept.cursor:
                    continue
                first, newline, rest = read_file(path, MAX_TRACE_BYTES).decode("utf-8").partition("\n")
                header = json.loads(first)
                header["walk"] = replace(kept, cursor=place.cursor).to_json()
                write(Output("the kept walk", path), json_text(header) + newline + rest,
                      doing="keep where the walk was left", replace=True)
            except (OSError, TraceError, ValueError):
                self.uncursored += 1

    @property
    def unkept(self) -> int:
        """Walks that could not be written (the folder removed, the disk full) or were dropped."""
        return self.recorder.failed + self.recorder.dropped
