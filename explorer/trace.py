"""Trace files: one walk, saved as JSON Lines, to step through again or replay.

Line 1, the header::

    {"format": "reasoning-explorer-trace", "version": 2,
     "corpus": {"path": ..., "sha256": ..., "source": ..., "format": ...},
     "query": ..., "navigator": "lexical:default", "max_nodes_visited": 15, "max_depth": 6,
     "on_failure": "throw", "sources": null, "created": "2026-11-30T12:00:00Z",
     "walk": {"version": 1, "number": 2, "label": "fork of walk 1: …", "origin": "fork", "parent": 1,
              "fork_seq": 7, "cursor": 12}}

``walk`` (optional; its own format version) is the walk's place in the explorer session that kept it: its number,
its name after the number, where it came from (``walk``, ``restart``, ``fork``, ``re-walk``; ``parent`` and
``fork_seq``: the walk and the step it came from) and the step it was shown at. ``--resume`` brings each walk back
with them; a reader that does not know the block ignores it. ``map`` (optional): the map variant the corpus was
walked with, ``{"path": ..., "sha256": ...}`` (``explorer.corpora.map_variant``); a trace without it was walked on
the corpus as its file holds it.

Then one line per walk event, ``{"seq": N, "event": KIND, ...fields}``, with
KIND one of ``walk_started``, ``candidates_offered``, ``navigator_chose``,
``navigator_failed``, ``node_entered``, ``path_stopped``, ``walk_finished``
(the fields of the ``core.events`` type of that name; a ``navigator_chose``
or ``navigator_failed`` carries the provider's ``transcript`` as a list of
``[label, text]`` pairs or null, and ``"forced": true`` when a person forced
that decision; a best-first walk's offer, answer and entry carry what changed
in its frontier, ``"joined"`` and ``"left"``, :mod:`explorer.event_json`). The
last line is the
end: ``{"end": "finished" | "cancelled" | "failed", "error": ...}``; a file
without it was cut short. Files are written to a temporary name and renamed
into place, so an interrupted save never leaves a broken trace; the
temporary name (``.NAME.PID.XXXXXXXX.tmp``) says which process wrote it, and
the next save beside it removes the ones a killed save left. Terminal
controls, bidi characters and lone surrogates in strings are written as
``\\uXXXX`` escapes, so ``cat`` on a trace is safe and any text encodes. No API key
is ever written: any value of a known secret variable is masked on the way out.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

from core import (
    NavigatorChose,
    NavigatorFailed,
    OnFailure,
    WalkEvent,
    WalkFinished,
    WalkResult,
)

from .ending import WalkEnd
from .event_json import (
    EventReader,
    _field,
    _ids,
    _policy_from,
    _text,
    _whole,
)
from .event_json import (
    event_from_json as event_from_json,
)
from .event_json import (
    event_to_json as event_to_json,
)
from .masking import Secrets
from .outputs import Output, Read, write
from .reading import NotARegularFile, TooLarge, open_regular, problem, read_file
from .safe_text import json_text, one_line
from .walk_settings import MapRef, WalkSettings, policy_fields

FORMAT = "reasoning-explorer-trace"
VERSION = 2
"""The trace format written. Version 2 (issue 47) writes a best-first event's change to the frontier where version 1
wrote the whole frontier; both read (:data:`READ_VERSIONS`)."""
READ_VERSIONS: Final = (1, 2)
ENDS = tuple(end.value for end in WalkEnd)


class TraceError(ValueError):
    """A trace that cannot be read: one line naming the file, the line and what to do.

    The message quotes untrusted text (the file's name, the corpus path its
    header records), so it is made one line with every terminal control,
    C1, bidi character and lone surrogate escaped (:func:`safe_text.one_line`).
    """

    def __init__(self, message: str) -> None:
        super().__init__(one_line(message))


WALK_PLACE_VERSION: Final = 1
"""The version of a header's ``walk`` block (:class:`WalkPlace`)."""


@dataclass(frozen=True)
class WalkPlace:
    """A walk's place in the explorer session that kept it (a trace header's ``walk`` block): what ``--resume``
    brings back as it was. ``origin`` is the value of ``explorer.walks.history.Origin``; ``parent`` the number of the
    walk it came from, ``fork_seq`` the step there; ``cursor`` the step it was shown at (0: none yet)."""

    number: int
    label: str
    origin: str
    parent: int | None = None
    fork_seq: int | None = None
    cursor: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"version": WALK_PLACE_VERSION, "number": self.number, "label": self.label, "origin": self.origin,
                "parent": self.parent, "fork_seq": self.fork_seq, "cursor": self.cursor}

    @classmethod
    def from_json(cls, data: Any) -> WalkPlace | None:
        """The block read back; ``None`` for one of another version (a later explorer's: the walk opens as a trace
        does); ``ValueError`` for a damaged one."""
        if not isinstance(data, dict):
            raise ValueError("'walk' must be an object")
        if data.get("version") != WALK_PLACE_VERSION:
            return None

        def whole(name: str, least: int) -> int | None:
            value = data.get(name)
            if value is None:
                return None
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ValueError(f"'walk.{name}' must be a whole number of at least {least}")
            return value

        number = whole("number", 1)
        if number is None:
            raise ValueError("'walk.number' is missing")
        label, origin = data.get("label"), data.get("origin")
        if not isinstance(label, str) or not isinstance(origin, str):
            raise ValueError("'walk.label' and 'walk.origin' must be text")
        return cls(number, label, origin, whole("parent", 1), whole("fork_seq", 1), whole("cursor", 0) or 0)


@dataclass(frozen=True)
class TraceHeader:
    """A trace's first line: the corpus walked, the walk's settings, and when it was saved.

    The settings are the walk's own record (:class:`~explorer.walk_settings.WalkSettings`); in the file they
    are the header's top-level fields, with the model id under ``navigator``, as they always were.
    """

    corpus_path: str
    corpus_sha256: str
    corpus_source: str
    corpus_format: str
    settings: WalkSettings
    sources: tuple[str, ...] | None = None
    created: str = ""
    version: int = VERSION
    """The format the trace was read in (:data:`READ_VERSIONS`); one written now is :data:`VERSION`."""
    walk: WalkPlace | None = None
    """The walk's place in the session that kept it (``None``: not kept by an explorer session, or before this)."""
    map: MapRef | None = None
    """The map variant the corpus was walked with (``--map FILE``, ``M``): its path and hash (``None``: none)."""


@dataclass(frozen=True)
class FinishedWalk:
    """One walk that ended, as everything that keeps it takes it: the trace file (:func:`write_trace`), the
    telemetry's spans (``explorer.walks.telemetry``) and an application's recorder (``explorer.recording``).

    It is made once, when the walk ends, from the walk's history (``explorer.walks.history.finished_walk``: the one
    place a walk's header is built), and handed to each observer of the walk through one hook
    (``explorer.walks.wiring.WalkObserver``), so that the trace and the spans of a walk come from the same events
    under the same header. ``forced`` and ``replayed`` number (1-based) the decisions a person forced and those
    replayed from another walk; ``times`` stamps each event when it was pulled (ns since the epoch; empty when
    nobody stamped them); ``name`` is the walk's (``walk 2 · fork of walk 1: ...``; empty for an application's).
    ``end`` is read as a :class:`~explorer.ending.WalkEnd` (``ValueError`` for anything else).
    """

    header: TraceHeader
    events: tuple[WalkEvent, ...]
    end: WalkEnd
    error: str | None = None
    forced: frozenset[int] = frozenset()
    replayed: frozenset[int] = frozenset()
    times: tuple[int, ...] = ()
    name: str = ""
    place: WalkPlace | None = None
    """Its place in the explorer session that walked it; a session folder keeps it in the header (``walk``)."""

    def __post_init__(self) -> None:
        if self.end not in ENDS:
            raise ValueError(f"end must be one of {ENDS}, not {self.end!r}")
        object.__setattr__(self, "end", WalkEnd(self.end))
        object.__setattr__(self, "events", tuple(self.events))
        object.__setattr__(self, "forced", frozenset(self.forced))
        object.__setattr__(self, "replayed", frozenset(self.replayed))
        object.__setattr__(self, "times", tuple(self.times))

    @property
    def result(self) -> WalkResult | None:
        """The walk's result: its last event's, when it finished (``None``: cancelled, failed or cut short)."""
        last = self.events[-1] if self.events else None
        return last.result if isinstance(last, WalkFinished) else None


@dataclass(frozen=True)
class Trace(FinishedWalk):
    """A finished walk read back from its file: the same record, and where it was read from.

    One idea, one type: what a walk kept when it ended (:class:`FinishedWalk`) is what reading its trace gives
    back, with ``path`` beside it; ``replayed``, ``times`` and ``name`` are not in the file and stay empty.
    """

    path: Path = field(kw_only=True)

    def read(self) -> Trace:
        """A trace is a saved walk read already (:class:`~explorer.walks.saved.SavedWalk`): itself."""
        return self


# -- writing -----------------------------------------------------------------------------------------


def header_to_json(header: TraceHeader) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "version": VERSION,
        "corpus": {"path": header.corpus_path, "sha256": header.corpus_sha256, "source": header.corpus_source,
                   "format": header.corpus_format},
        "query": header.settings.query,
        "navigator": header.settings.model,
        "max_nodes_visited": header.settings.max_nodes_visited,
        "max_depth": header.settings.max_depth,
        "on_failure": header.settings.on_failure.value,
        **policy_fields(header.settings),
        "sources": None if header.sources is None else list(header.sources),
        "created": header.created or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        **({"walk": header.walk.to_json()} if header.walk is not None else {}),
        **({"map": header.map.to_json()} if header.map is not None else {}),
    }


def trace_lines(walk: FinishedWalk) -> list[str]:
    """``walk`` as its trace's JSON lines (without newlines), secrets masked; a forced decision says so."""
    secrets = Secrets.from_environment()
    lines = [json_text(header_to_json(walk.header))]
    for seq, event in enumerate(walk.events, start=1):
        data = {"seq": seq, **event_to_json(event)}
        if seq in walk.forced and isinstance(event, NavigatorChose | NavigatorFailed):
            data["forced"] = True
        lines.append(json_text(data))
    lines.append(json_text({"end": walk.end.value, "error": walk.error}))
    return [secrets.mask(line) for line in lines]


STALE_SECONDS = 60.0
"""A temporary trace file this old (or whose writer is gone) was left by a save that was killed."""


def _stem(path: Path) -> str:
    # The temporary name adds ~20 characters to the file's: keep it within a file system's 255 for a long name.
    return path.name[:200]


def _writer_gone(pid: int) -> bool:
    if os.name != "posix" or not 0 < pid < 2**31:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # alive, as another user
    return False


def remove_stale_temporaries(path: str | Path, *, older_than: float = STALE_SECONDS) -> list[Path]:
    """Remove the temporary files killed saves of ``path`` left beside it: those whose writer (the pid in the
    name) is gone, and any older than ``older_than`` seconds. Returns what was removed; never raises."""
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    pattern = re.compile(rf"\.{re.escape(_stem(path))}\.(?:(\d+)\.)?[a-z0-9_]+\.tmp")
    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match is None:
            continue
        try:
            info = entry.stat(follow_symlinks=False)
            if not stat.S_ISREG(info.st_mode):
                continue
            pid = match.group(1)
            if (pid is not None and _writer_gone(int(pid))) or now - info.st_mtime > older_than:
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except (OSError, ValueError):
            continue
    return removed


def write_trace(path: str | Path, walk: FinishedWalk, reads: Iterable[Read | None] = (), *, replace: bool = True,
                name: str = "the trace") -> Path:
    """Write ``walk`` as a trace through the one gate (:func:`explorer.outputs.write`): never over what is in
    ``reads`` (a :class:`~explorer.outputs.Ledger`, or the files read), over an existing file unless ``replace``,
    through a symlink to its regular target, atomically (a temporary file beside it renamed into place).

    The temporary file is ``.NAME.PID.XXXXXXXX.tmp``; those a killed save left are removed first
    (:func:`remove_stale_temporaries`). ``OSError`` (:class:`~explorer.outputs.Refused` when the gate refuses).
    """
    path = Path(path)
    text = "\n".join(trace_lines(walk)) + "\n"
    if path.exists() and not path.is_file():
        # Renaming over a pipe or a device would replace it (as root, /dev/null itself).
        raise FileExistsError(errno.EEXIST, "it is not a regular file (a folder, a pipe or a device); name a new "
                              "file or a trace to overwrite", str(path))
    remove_stale_temporaries(path)
    return write(Output(name, path), text, reads, doing="save the trace", example="walk.jsonl", replace=replace,
                 prefix=f".{_stem(path)}.{os.getpid()}")


# -- reading -----------------------------------------------------------------------------------------


MAX_TRACE_BYTES: Final = 256 * 1024 * 1024
"""The largest trace read: a walk of 1,000,000 visits writes under 100 MB, and reading one costs about five
times its size in memory (a 1 GB file needed 4.9 GB)."""
MAX_HEADER_BYTES: Final = 1024 * 1024
"""The longest first line read as a trace's header (listing a folder reads only headers)."""


def _too_large(path: Path, size: int) -> TraceError:
    return TraceError(f"{path}: {size:,} bytes, larger than the {MAX_TRACE_BYTES:,} a trace may be; it cannot be "
                      "opened here (a saved walk is far smaller: walk it again, or keep fewer steps)")


def _read_text(path: Path) -> str:
    """The file's text; a folder, a pipe or a device (which could be read forever) is refused before reading, and
    so is a file past :data:`MAX_TRACE_BYTES` (:mod:`.reading`)."""
    try:
        return read_file(path, MAX_TRACE_BYTES).decode("utf-8")
    except FileNotFoundError:
        raise TraceError(f"{path}: no such trace file") from None
    except IsADirectoryError:
        raise TraceError(f"{path}: a folder, not a trace file; give a trace (.jsonl) saved by a walk") from None
    except NotARegularFile as exc:
        raise TraceError(f"{path}: {exc.kind}, not a regular file; give a trace (.jsonl) saved by a walk") from None
    except TooLarge as exc:
        raise _too_large(path, exc.size) from None
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise TraceError(f"{path}: the path is longer than the file system allows; give a shorter path") from None
        if "\0" in str(path):
            raise TraceError(f"{path}: a file name cannot hold a NUL character") from None
        raise TraceError(f"{path}: cannot read the trace: {problem(exc)}") from None
    except UnicodeDecodeError as exc:
        raise TraceError(f"{path}: cannot read the trace: not UTF-8 text (byte {exc.start}); give a trace saved "
                         "by a walk") from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a number a trace holds")


def _json_line(line: str) -> Any:
    """One line's JSON; ``ValueError`` (naming what) for NaN or Infinity, a number with thousands of digits,
    and nesting too deep to read, as well as the ``JSONDecodeError`` of text that is not JSON."""
    try:
        return json.loads(line, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError("JSON nested too deeply to read") from None
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        if "integer string conversion" in str(exc):
            raise ValueError(f"a number with more than {sys.get_int_max_str_digits()} digits") from None
        raise


def _header_from(path: Path, data: Any) -> TraceHeader:
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise TraceError(f"{path}:1: not a reasoning-explorer trace (no \"format\": \"{FORMAT}\" header)")
    version = data.get("version")
    if type(version) is not int or version not in READ_VERSIONS:
        raise TraceError(f"{path}:1: trace format version {version!r} is not supported (this reads versions "
                         f"{', '.join(map(str, READ_VERSIONS))}); save the walk again with this version")
    try:
        corpus = _field(data, "corpus")
        if not isinstance(corpus, dict):
            raise ValueError("'corpus' must be an object")
        sources = data.get("sources")
        return TraceHeader(
            corpus_path=_text(corpus, "path"), corpus_sha256=_text(corpus, "sha256"),
            corpus_source=str(corpus.get("source", "")), corpus_format=str(corpus.get("format", "")),
            settings=WalkSettings(query=_text(data, "query"), model=_text(data, "navigator"),
                                  max_nodes_visited=_whole(data, "max_nodes_visited", 1),
                                  max_depth=_whole(data, "max_depth"), on_failure=OnFailure(_text(data, "on_failure")),
                                  **_policy_from(data)),
            sources=None if sources is None else _ids(sources, "sources"), created=str(data.get("created", "")),
            version=version,
            walk=WalkPlace.from_json(data["walk"]) if data.get("walk") is not None else None,
            map=MapRef.from_json(data.get("map")),
        )
    except ValueError as exc:
        raise TraceError(f"{path}:1: the trace header is damaged ({exc}); save the walk again") from None


def read_trace_header(path: str | Path) -> TraceHeader:
    """A trace's header, from its first line alone (a folder of 10,000 traces is listed from their headers); the
    :class:`TraceError` :func:`read_trace` would raise for a file that is not a trace. The events are not read."""
    path = Path(path)
    first: str | None = None
    try:
        with open_regular(path, MAX_TRACE_BYTES) as handle:
            line = handle.readline(MAX_HEADER_BYTES + 1)
        if len(line) > MAX_HEADER_BYTES:
            raise TraceError(f"{path}:1: not a reasoning-explorer trace (its first line is longer than "
                             f"{MAX_HEADER_BYTES:,} bytes, far past any header)")
        first = line.decode("utf-8")
    except TraceError:
        raise
    except TooLarge as exc:
        raise _too_large(path, exc.size) from None
    except (OSError, UnicodeDecodeError):
        first = None
    if first is None:  # a folder, a pipe, no such file, not UTF-8...: reading it says what is wrong
        return _header_line(path, _read_text(path).splitlines())
    return _header_line(path, first.splitlines())


def _header_line(path: Path, lines: list[str]) -> TraceHeader:
    """The header on the first of ``lines``, a trace's."""
    if not lines:
        raise TraceError(f"{path}: the trace is empty")
    try:
        first = _json_line(lines[0])
    except json.JSONDecodeError:
        raise TraceError(f"{path}:1: not a reasoning-explorer trace (the first line is not JSON)") from None
    except ValueError as exc:
        raise TraceError(f"{path}:1: not a reasoning-explorer trace ({exc})") from None
    return _header_from(path, first)


def read_trace(path: str | Path, corpus_sha256: str | None = None, corpus_label: str | None = None) -> Trace:
    """Read a trace; with ``corpus_sha256``, refuse one that was made on another corpus.

    Raises :class:`TraceError` (one line, with the line number) for a file
    that is not a trace, an unknown version, a damaged or truncated file, or
    a corpus mismatch.
    """
    path = Path(path)
    return parse_trace(path, _read_text(path), corpus_sha256, corpus_label)


def parse_trace(path: Path, text: str, corpus_sha256: str | None = None, corpus_label: str | None = None) -> Trace:
    """:func:`read_trace` of ``text``, the lines of a trace (:func:`trace_lines`) named ``path``: what the file
    would give back, without the file (the explorer's HTML export draws a walk as its trace records it)."""
    lines = text.splitlines()
    header = _header_line(path, lines)
    if corpus_sha256 is not None and corpus_sha256 != header.corpus_sha256:
        label = corpus_label or "the corpus given"
        raise TraceError(
            f"{path}: the trace was made on a different corpus ({header.corpus_path}, sha256 "
            f"{header.corpus_sha256[:12]}…) than {label} (sha256 {corpus_sha256[:12]}…); open it with the corpus "
            "it was made on"
        )
    events: list[WalkEvent] = []
    reader = EventReader(header.version)
    forced: set[int] = set()
    end: WalkEnd | None = None
    error: str | None = None
    for number, line in enumerate(lines[1:], start=2):
        if end is not None:
            raise TraceError(f"{path}:{number}: lines after the end of the trace; the file is damaged")
        try:
            data = _json_line(line)
        except json.JSONDecodeError:
            if number == len(lines):
                raise TraceError(f"{path}:{number}: the trace is truncated (its last line is cut short); "
                                 "save the walk again") from None
            raise TraceError(f"{path}:{number}: not JSON; the file is damaged") from None
        except ValueError as exc:
            raise TraceError(f"{path}:{number}: {exc}; the file is damaged") from None
        if isinstance(data, dict) and "end" in data:
            if data["end"] not in ENDS:
                raise TraceError(f"{path}:{number}: unknown end {data['end']!r}; the file is damaged")
            end, error = WalkEnd(data["end"]), data.get("error")
            continue
        try:
            events.append(reader.read(data))
            if data.get("forced") is True:
                forced.add(len(events))
        except ValueError as exc:
            raise TraceError(f"{path}:{number}: a malformed event ({exc}); the file is damaged") from None
    if end is None:
        raise TraceError(f"{path}: the trace is truncated (no end line after line {len(lines)}); save the walk again")
    return Trace(header, tuple(events), end, error, frozenset(forced), path=path)
