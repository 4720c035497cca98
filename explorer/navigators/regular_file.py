"""Reading a file a model id or the response cache names, only when it is a regular file, and only so much of it.

The file is opened without blocking and checked before a byte is read, so a FIFO with no writer is refused at
once rather than waited on for ever, and at most ``limit`` bytes are read, so ``/dev/zero`` is refused rather than
read until memory runs out.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path


class NotARegularFile(OSError):
    """The path is there, and is a FIFO, a device or a socket: :attr:`kind` says which (``"a FIFO (named pipe)"``)."""

    def __init__(self, path: Path, mode: int) -> None:
        self.kind = kind(mode)
        super().__init__(errno.EINVAL, f"{self.kind}, not a regular file", str(path))


def kind(mode: int) -> str:
    """What a file of ``mode`` is, in words, for one that is no regular file."""
    return ("a folder" if stat.S_ISDIR(mode)
            else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode)
            else "not a file")  # fmt: skip


def read_regular(path: Path, limit: int, *, follow_symlinks: bool = True) -> bytes:
    """At most ``limit`` bytes of the regular file at ``path``.

    Raises :class:`IsADirectoryError` for a folder, :class:`NotARegularFile` for anything else that is no
    regular file, and the :class:`OSError` ``open`` raises (``FileNotFoundError``...; with ``follow_symlinks``
    false, a symlink is ``ELOOP``); :class:`ValueError` for a path holding a NUL.
    """
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(mode):
            raise NotARegularFile(path, mode)
        chunks: list[bytes] = []
        left = limit
        while left > 0 and (chunk := os.read(fd, min(left, 1 << 20))):
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)
