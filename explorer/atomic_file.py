"""A file written whole or not at all: the one way the explorer replaces a file it writes (a trace, an exported
page, a question set, a kept run)."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def write_atomically(path: str | Path, text: str, prefix: str | None = None) -> Path:
    """Write ``text`` (UTF-8) to ``path`` through a temporary file in the same folder, flushed to disk and then
    renamed into place, and return the path: a reader sees the old file or the new one, never half of either,
    and a crash or a kill leaves the old one whole.

    The temporary file is ``PREFIX.XXXXXXXX.tmp`` (``prefix`` defaults to ``.NAME.PID``), unique to this call, so
    two threads or processes writing the same path never share one; it is removed when the write fails or is
    interrupted (``BaseException``), and the error goes on to the caller (``OSError`` when it cannot be written).
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
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path
