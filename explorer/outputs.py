"""The one gate for every file the explorer writes, on the command line and on the screen: whether a file may be
written, and then writing it whole or not at all (:mod:`explorer.atomic_file` holds the primitives; no other module
opens a file for writing, renames one into place, or copies one: ``tests/explorer/test_one_gate.py`` finds every
writer in the code and checks it).

A program (a command, or one explorer session) keeps one :class:`Ledger` of the files it read and wrote, held by
its wiring (:attr:`explorer.walks.wiring.Wiring.ledger`): the corpus (or a Markdown file inside a corpus folder,
which the corpus reads), a question set (and the sets and kept runs a check set is built from), a trace or span
file opened, a kept run opened or resumed, a navigator's own file (a ``script:`` or ``replay:`` file, a ``py:``
navigator's source, a local model, a prompt file named by ``system=`` or ``prompt=``). Every writer asks the gate
(:func:`write`, :func:`open_stream`), and the gate:

- refuses, in one line that names the output, what it would have replaced and what to do, an output over any input
  ("the same" is the same file once symlinks are resolved, or the same file through a hard link) or over another
  output of the same command; ``K`` appending to a question set is the one edit of an input, asked as such
  (``edits=True``);
- refuses an output over an existing file unless ``replace`` says a person asked for it (the screen asks first;
  the command line wants ``--overwrite``);
- writes through a symlink to its regular-file target (the link stays a link), and never writes to what is not
  a regular file (a FIFO, a device);
- writes atomically: a temporary file beside the target, renamed into place.
"""

from __future__ import annotations

import errno
import os
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from . import atomic_file
from .atomic_file import lock_descriptor as lock_descriptor
from .atomic_file import scratch as scratch
from .atomic_file import unwritable

MARKDOWN_SUFFIXES = (".md", ".markdown")
"""A corpus folder reads the files with these suffixes under it (``explorer.corpora.loading`` says the same)."""


@dataclass(frozen=True, slots=True)
class Read:
    """A file (or a corpus folder) that is read: what it is, for the message (``"the corpus"``), and its path."""

    what: str
    path: Path

    @classmethod
    def of(cls, what: str, path: str | Path | None) -> Read | None:
        """A :class:`Read`, or ``None`` when nothing is read (``path`` is ``None`` or empty)."""
        return cls(what, Path(path).expanduser()) if path else None


@dataclass(frozen=True, slots=True)
class Output:
    """A file to be written: what names it (``"--trace"``, ``"the trace"``), and its path."""

    name: str
    path: Path


def same_file(a: Path, b: Path) -> bool:
    """One file, once symlinks are resolved (``a`` need not exist yet), or one file through a hard link."""
    try:
        return os.path.realpath(a) == os.path.realpath(b) or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, ValueError):
        return False


def _among_markdown_of(path: Path, folder: Path) -> bool:
    """``path`` is a Markdown file under the corpus ``folder``: one of the files it reads, or one it would read."""
    try:
        if not folder.is_dir():
            return False
        inside = os.path.realpath(path).startswith(os.path.join(os.path.realpath(folder), ""))
    except (OSError, ValueError):
        return False
    return inside and path.suffix.lower() in MARKDOWN_SUFFIXES


def overwrites(output: Output, reads: Iterable[Read | None], others: Iterable[Output] = (), *,
               edits: bool = False) -> str | None:
    """Why writing ``output`` would destroy what is read or another output, in one line (``None``: it would not).
    ``edits``: the output edits the input it is named as (``K`` appends to the question set it read)."""
    path = output.path
    for other in others:
        if same_file(path, other.path):
            return (f"{other.name} {other.path} and {output.name} {path} are one file; give each output its own "
                    "file")
    for read in reads:
        if read is None or (edits and read.what == output.name):
            continue
        if same_file(path, read.path):
            return (f"{output.name} {path} is {read.what} ({read.path}); an output must not overwrite an input: "
                    "choose another file")
        if _among_markdown_of(path, read.path):
            return (f"{output.name} {path} is a Markdown file inside {read.what} ({read.path}), which reads it; "
                    "choose a file outside it")
    return None


def refused(output: Output, reads: Iterable[Read | None], *, doing: str, example: str,
            others: Iterable[Output] = (), edits: bool = False) -> str | None:
    """Why ``output`` must not be written, in one line, or ``None``: it would replace what is read or another output
    (:func:`overwrites`), or it cannot be written at all (:func:`explorer.atomic_file.unwritable`: no folder, a
    folder, a pipe...). ``doing`` says what the file is for (``save the trace``), ``example`` a name to suggest."""
    return overwrites(output, reads, others, edits=edits) or unwritable(output.path, doing, example)


class Ledger:
    """The files one program read (:class:`Read`, what each is and its path) and wrote (:class:`Output`), in the
    order it met them; iterating gives what it read, so a ledger is what :func:`refused` and :func:`write` are given.
    Safe to use from several threads (workers read and write files)."""

    def __init__(self, *reads: Read | None) -> None:
        self._lock = threading.Lock()
        self._reads: list[Read] = []
        self._written: list[Output] = []
        self._followed: list[Callable[[], Iterable[Read]]] = []
        for read in reads:
            if read is not None:
                self.read(read.what, read.path)

    def read(self, what: str, path: str | Path | None) -> None:
        """``path`` was read as ``what`` (``"the corpus"``); ``None`` or empty: nothing was read."""
        if not path:
            return
        entry = Read(what, Path(path).expanduser())
        with self._lock:
            if entry not in self._reads:
                self._reads.append(entry)

    def follow(self, reads: Callable[[], Iterable[Read]]) -> None:
        """What ``reads`` returns is read too, asked each time: the files a changing list was read from (each walk
        of an explorer's walk list: its trace, its navigator's files)."""
        with self._lock:
            self._followed.append(reads)

    def wrote(self, output: Output) -> None:
        """``output`` was written."""
        with self._lock:
            if output not in self._written:
                self._written.append(output)

    def __iter__(self) -> Iterator[Read]:
        with self._lock:
            reads, followed = list(self._reads), list(self._followed)
        for source in followed:
            reads.extend(read for read in source() if read not in reads)
        return iter(reads)

    @property
    def written(self) -> tuple[Output, ...]:
        """What was written, first first."""
        with self._lock:
            return tuple(self._written)

    def reads(self, *more: Read | None) -> list[Read]:
        """What was read, and ``more`` (read for this one output: a walk's navigator's files)."""
        return [*self, *(read for read in more if read is not None)]


class Refused(OSError):
    """The gate refused an output: ``line`` says why in one line (the output, what it would replace, what to do);
    ``exists``: only because the file exists and replacing it was not asked for."""

    def __init__(self, line: str, *, exists: bool = False) -> None:
        super().__init__(errno.EEXIST if exists else errno.EPERM, line)
        self.line = line
        self.exists = exists

    def __str__(self) -> str:
        return self.line


def is_there(path: Path) -> bool:
    """``path`` names something a write would replace (a file, or what a link points to; a link that points nowhere
    replaces nothing); a name the file system refuses (too long, a NUL) names nothing."""
    try:
        return os.path.exists(path)
    except (OSError, ValueError):
        return False


def existing(output: Output, *, then: str = "choose another name") -> str | None:
    """``None``, or the one line that says ``output`` would replace a file that is there (``then``: what to do)."""
    if not is_there(output.path):
        return None
    return f"{output.name} {output.path} exists and would be replaced; {then}"


def free_name(path: Path) -> Path:
    """``path``, or when something is there, the first free name beside it (``walk-2.trace.jsonl``,
    ``walk-3.trace.jsonl``…): what a save dialog offers first."""
    if not is_there(path):
        return path
    stem, dot, rest = path.name.partition(".")
    number = 2
    while is_there(candidate := path.with_name(f"{stem}-{number}{dot}{rest}")):
        number += 1
    return candidate


def judge(output: Output, reads: Iterable[Read | None], *, doing: str, example: str, replace: bool = False,
          others: Iterable[Output] = (), edits: bool = False) -> Refused | None:
    """The gate's verdict on ``output``, before anything is written or made: ``None`` (it may be written), or the
    :class:`Refused` to raise or say (its ``exists`` is true when asking a person could let it through)."""
    problem = refused(output, reads, doing=doing, example=example, others=others, edits=edits)
    if problem is not None:
        return Refused(problem)
    if not replace and not edits:
        there = existing(output)
        if there is not None:
            return Refused(there, exists=True)
    return None


def write(output: Output, text: str, reads: Iterable[Read | None] = (), *, doing: str, example: str = "",
          replace: bool = False, edits: bool = False, mode: int | None = None, prefix: str | None = None,
          ledger: Ledger | None = None) -> Path:
    """Write ``text`` to ``output`` through the gate (the module docstring says its rules): :class:`Refused` (an
    ``OSError``) when it may not be, ``OSError`` when it cannot be; else the file is whole, through a symlink to its
    target, and recorded in ``ledger`` (by default ``reads`` when that is a :class:`Ledger`)."""
    verdict = judge(output, reads, doing=doing, example=example, replace=replace, edits=edits)
    if verdict is not None:
        raise verdict
    written = atomic_file.write_atomically(output.path, text, prefix, mode=mode)
    _note(output, reads, ledger)
    return written


def open_stream(output: Output, reads: Iterable[Read | None] = (), *, doing: str, example: str = "",
                replace: bool = False, ledger: Ledger | None = None) -> TextIO:
    """A file of lines appended to as the program runs (spans), opened through the gate as :func:`write` writes:
    made new atomically (empty), then held open; each line is written whole by its writer."""
    verdict = judge(output, reads, doing=doing, example=example, replace=replace)
    if verdict is not None:
        raise verdict
    handle = atomic_file.open_stream(output.path)
    _note(output, reads, ledger)
    return handle


def _note(output: Output, reads: Iterable[Read | None], ledger: Ledger | None) -> None:
    keeper = ledger if ledger is not None else reads if isinstance(reads, Ledger) else None
    if keeper is not None:
        keeper.wrote(output)
