"""How a file is written whole or not at all: the primitives under the one gate for every file the explorer writes
(:mod:`explorer.outputs`, which decides *whether* a file may be written; nothing else calls these).

A write lands on a regular file: a path that is a symlink is written *through* (its final target is replaced, the
link stays a link), and anything that is not a regular file (a FIFO, a device, a folder, a link loop) is refused with
``OSError`` before a byte is written: renaming over ``/dev/stdout`` (as root) would replace the device itself."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import TextIO


def landing(path: str | Path) -> Path:
    """Where a write to ``path`` lands: ``path`` itself, or, when it is a symlink (or a chain of them), its final
    target. ``OSError`` when that is not a regular file and not missing (a FIFO, a device, a folder) or the links
    loop."""
    path = Path(path)
    target = Path(os.path.realpath(path)) if path.is_symlink() else path
    try:
        info = os.lstat(target)
    except FileNotFoundError:
        return target
    if stat.S_ISLNK(info.st_mode):  # realpath gave up: the links loop
        raise OSError(errno.ELOOP, "its symlinks loop; name a regular file", str(path))
    if stat.S_ISDIR(info.st_mode):
        raise OSError(errno.EISDIR, "it is a folder; name a file in it", str(path))
    if not stat.S_ISREG(info.st_mode):
        raise OSError(errno.EEXIST, "it is not a regular file (a pipe or a device); name a new file or a file to "
                      "overwrite", str(path))
    return target


def _read_umask() -> int:
    """The process's umask. It is only read by setting it, so it is set straight back: done once, as this module is
    imported (before any thread of ours writes a file), never while another thread may be making one."""
    umask = os.umask(0o022)
    os.umask(umask)
    return umask


_NEW_FILE_MODE = 0o666 & ~_read_umask()
"""The permission bits ``open()`` gives a new file here: 0666 less the umask."""


def _new_file_mode() -> int:
    return _NEW_FILE_MODE


def _kept_mode(target: Path, mode: int | None) -> int:
    """``mode``, or (none given) the permission bits of the file replaced, so that a file keeps its own, or, for a
    new file, those ``open()`` would give it (the temporary file is made 0600, which no one asked of a corpus or a
    page: a person's umask decides, as for any file they make)."""
    if mode is not None:
        return mode
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except OSError:
        return _new_file_mode()


def write_atomically(path: str | Path, text: str, prefix: str | None = None, *, mode: int | None = None) -> Path:
    """Write ``text`` (UTF-8) where a write to ``path`` lands (:func:`landing`) through a temporary file in the same
    folder, flushed to disk and then renamed into place, and return ``path``: a reader sees the old file or the new
    one, never half of either, and a crash or a kill leaves the old one whole.

    The temporary file is ``PREFIX.XXXXXXXX.tmp`` (``prefix`` defaults to ``.NAME.PID``), unique to this call, so
    two threads or processes writing the same path never share one; it is removed when the write fails or is
    interrupted (``BaseException``), and the error goes on to the caller (``OSError`` when it cannot be written).
    ``mode``: the permission bits the file gets; by default, those of the file replaced, else what ``open()`` gives
    a new file (0666 less the umask).
    """
    path = Path(path)
    target = landing(path)
    folder = target.parent if str(target.parent) else Path(".")
    keep = _kept_mode(target, mode)
    descriptor, temporary = tempfile.mkstemp(prefix=(prefix or f".{target.name}.{os.getpid()}") + ".",
                                             suffix=".tmp", dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, keep)
        landing(path)  # still a regular file (or none) at the moment it is replaced
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def open_stream(path: str | Path) -> TextIO:
    """A file of lines to be appended to as a program runs (spans, one line a walk), made new where a write to
    ``path`` lands (:func:`landing`): an empty temporary file beside it renamed into place, so that the file is
    never half replaced, then held open for appending (each line is written whole and flushed by its writer)."""
    target = landing(path)
    folder = target.parent if str(target.parent) else Path(".")
    keep = _kept_mode(target, None)
    descriptor, temporary = tempfile.mkstemp(prefix=f".{target.name}.{os.getpid()}.", suffix=".tmp", dir=folder)
    try:
        handle = os.fdopen(descriptor, "a", encoding="utf-8")
        try:
            os.chmod(temporary, keep)
            landing(path)
            os.replace(temporary, target)  # the handle now holds the file at the target's name
        except BaseException:
            handle.close()
            raise
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return handle


@contextlib.contextmanager
def scratch(text: str, beside: Path, suffix: str) -> Iterator[Path]:
    """A file of ``text`` made new beside ``beside`` (a name of its own: two writers never share it, and a link
    placed there is never followed), removed when the block ends: a text read back before it replaces a file."""
    descriptor, temporary = tempfile.mkstemp(prefix=f".{beside.name}.", suffix=suffix,
                                             dir=beside.parent if str(beside.parent) else Path("."))
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
        yield Path(temporary)
    finally:
        Path(temporary).unlink(missing_ok=True)


def lock_descriptor(lock: Path) -> int:
    """A descriptor of the lock file ``lock`` (made if missing, empty, 0600; never truncated, never followed if it
    is a link), to ``flock``."""
    return os.open(lock, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o600)


def unwritable(path: str | Path, doing: str, example: str) -> str | None:
    """Why ``path`` cannot be written, in one line (``None``: it can), checked before anything costly is made: no
    folder, a name too long, a folder, something that is not a regular file (a FIFO would block the open for ever,
    a device would take the bytes; a symlink is judged by what it points to), a folder not writable. ``doing``
    says what the file is for (``cannot save the trace to …``, ``cannot write the HTML to …``); ``example`` names
    a file to suggest inside a folder."""
    given = Path(path).expanduser()
    folder = given.parent
    try:
        if not folder.is_dir():
            return f"cannot {doing} to {path}: no folder {folder}"
        longest = os.pathconf(folder, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
        if len(os.fsencode(given.name)) > longest:
            return (f"cannot {doing} to {path}: the file name is longer than the file system allows ({longest} "
                    "bytes); choose a shorter name")
        if given.is_dir():
            return f"cannot {doing} to {path}: it is a folder; name a file in it, e.g. {given / example}"
        target = landing(given)  # a symlink: judged by what it points to
        folder = target.parent
        if not folder.is_dir():
            return f"cannot {doing} to {path}: no folder {folder}"
    except OSError as exc:
        problem = ("the path is longer than the file system allows; give a shorter path"
                   if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc))
        return f"cannot {doing} to {path}: {problem}"
    if not os.access(folder, os.W_OK):
        return f"cannot {doing} to {path}: the folder {folder} is not writable"
    return None
