"""A file written whole or not at all: the one way the explorer replaces a file it writes (a trace, an exported
page, a question set, a kept run)."""

from __future__ import annotations

import errno
import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, text: str, prefix: str | None = None, *, mode: int | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder, flushed to disk and then
    renamed into place, and return the path: a reader sees the old file or the new one, never half of either,
    and a crash or a kill leaves the old one whole.

    The temporary file is ``PREFIX.XXXXXXXX.tmp`` (``prefix`` defaults to ``.NAME.PID``), unique to this call, so
    two threads or processes writing the same path never share one; it is removed when the write fails or is
    interrupted (``BaseException``), and the error goes on to the caller (``OSError`` when it cannot be written).
    ``mode``: the permission bits the file gets (a file replaced keeps its own this way); by default, those of the
    temporary file (0600).
    """
    path = Path(path)
    folder = path.parent if str(path.parent) else Path(".")
    descriptor, temporary = tempfile.mkstemp(prefix=(prefix or f".{path.name}.{os.getpid()}") + ".", suffix=".tmp",
                                             dir=folder)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        if mode is not None:
            os.chmod(temporary, mode)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def unwritable(path: str | Path, doing: str, example: str) -> str | None:
    """Why ``path`` cannot be written, in one line (``None``: it can), checked before anything costly is made: no
    folder, a name too long, a folder, something that is not a regular file (a FIFO would block the open for ever,
    a device would take the bytes), a folder not writable. ``doing`` says what the file is for (``cannot save the
    trace to …``, ``cannot write the HTML to …``); ``example`` names a file to suggest inside a folder."""
    target = Path(path).expanduser()
    folder = target.parent
    try:
        if not folder.is_dir():
            return f"cannot {doing} to {path}: no folder {folder}"
        longest = os.pathconf(folder, "PC_NAME_MAX") if hasattr(os, "pathconf") else 255
        if len(os.fsencode(target.name)) > longest:
            return (f"cannot {doing} to {path}: the file name is longer than the file system allows ({longest} "
                    "bytes); choose a shorter name")
        if target.is_dir():
            return f"cannot {doing} to {path}: it is a folder; name a file in it, e.g. {target / example}"
        if target.exists() and not target.is_file():
            return (f"cannot {doing} to {path}: it is not a regular file (a pipe or a device); name a new file "
                    "or a file to overwrite")
    except OSError as exc:
        problem = ("the path is longer than the file system allows; give a shorter path"
                   if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc))
        return f"cannot {doing} to {path}: {problem}"
    if not os.access(folder, os.W_OK):
        return f"cannot {doing} to {path}: the folder {folder} is not writable"
    return None
