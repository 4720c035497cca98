"""The one way the explorer reads a file: only a regular file, never waited on, never past a size cap.

Every file the explorer reads (a corpus, a question set, a trace, a kept run, a span file, a prompt, a cache entry, a
model's first bytes) is opened here without blocking and checked before a byte is read: a FIFO with no writer, a
device (a link to ``/dev/zero``), a socket or a folder is refused at once, and so is a file larger than the cap its
reader gives. A symlink loop, a path too long or holding a NUL is refused too. Every refusal is an :class:`OSError`
that :func:`problem` words in one line, for the reader to put after the file's name with what to do.

A test (``tests/explorer/test_reading.py``) finds every read in the code and checks that it goes through here.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotARegularFile", "TooLarge", "kind", "open_regular", "problem", "read_file", "read_head"]

_CHUNK = 1 << 20


class NotARegularFile(OSError):
    """The path is there, and is a FIFO, a device or a socket: :attr:`kind` says which (``"a FIFO (named pipe)"``)."""

    def __init__(self, path: str | Path, mode: int) -> None:
        self.kind = kind(mode)
        super().__init__(errno.EINVAL, f"{self.kind}, not a regular file", str(path))


class TooLarge(OSError):
    """The file holds more than the cap its reader gave: :attr:`size` bytes (at least), :attr:`limit` allowed."""

    def __init__(self, path: str | Path, size: int, limit: int) -> None:
        self.size, self.limit = size, limit
        super().__init__(errno.EFBIG, f"{size:,} bytes, more than the {limit:,} read", str(path))


def kind(mode: int) -> str:
    """What a file of ``mode`` is, in words, for one that is no regular file."""
    return ("a folder" if stat.S_ISDIR(mode)
            else "a FIFO (named pipe)" if stat.S_ISFIFO(mode)
            else "a character device" if stat.S_ISCHR(mode)
            else "a block device" if stat.S_ISBLK(mode)
            else "a socket" if stat.S_ISSOCK(mode)
            else "not a file")  # fmt: skip


def problem(exc: OSError) -> str:
    """What a refusal of this module (or the ``OSError`` it passes on) means, in words: ``no such file``,
    ``a FIFO (named pipe), not a regular file``, ``the path goes round a loop of symlinks``..."""
    if isinstance(exc, (NotARegularFile, TooLarge)):
        return str(exc.strerror)
    code = exc.errno
    if code == errno.ENOENT:
        return "no such file"
    if code == errno.EISDIR:
        return "a folder, not a file"
    if code == errno.ENOTDIR:
        return "a part of the path is not a folder"
    if code == errno.ELOOP:
        return "the path goes round a loop of symlinks (or is a symlink where none is followed)"
    if code == errno.ENAMETOOLONG:
        return "the path is longer than the file system allows"
    if code == errno.EACCES or code == errno.EPERM:
        return "permission denied"
    return exc.strerror or str(exc)


@contextmanager
def open_regular(path: str | Path, limit: int, *, follow_symlinks: bool = True) -> Iterator[BinaryIO]:
    """The regular file at ``path``, open for reading in binary, when it holds at most ``limit`` bytes.

    Raises ``FileNotFoundError``, ``IsADirectoryError``, :class:`NotARegularFile`, :class:`TooLarge`, or the
    ``OSError`` the open raises (``ELOOP`` for a loop of symlinks; with ``follow_symlinks`` false, for a symlink);
    a path holding a NUL is an ``OSError`` (``EINVAL``) too. A reader that reads the file in pieces (a span file of
    10,000 walks) stops at ``limit`` itself; :func:`read_file` does."""
    if "\0" in str(path):
        raise OSError(errno.EINVAL, "the path holds a NUL character; give the file's real name", str(path))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_symlinks:
        flags |= getattr(os, "O_NOFOLLOW", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), str(path))
        if not stat.S_ISREG(info.st_mode):
            raise NotARegularFile(path, info.st_mode)
        if info.st_size > limit:
            raise TooLarge(path, info.st_size, limit)
        stream = os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
    with stream:
        yield stream


def read_file(path: str | Path, limit: int, *, follow_symlinks: bool = True,
              progress: Callable[[int, int], None] | None = None) -> bytes:
    """The bytes of the regular file at ``path``, refused (:class:`TooLarge`) past ``limit``, even when it grows
    while read. ``progress(done, size)`` is told after each megabyte. Raises what :func:`open_regular` raises."""
    with open_regular(path, limit, follow_symlinks=follow_symlinks) as stream:
        size = os.fstat(stream.fileno()).st_size
        chunks: list[bytes] = []
        done = 0
        while chunk := stream.read(min(_CHUNK, limit + 1 - done)):
            chunks.append(chunk)
            done += len(chunk)
            if done > limit:
                raise TooLarge(path, done, limit)
            if progress is not None:
                progress(done, size)
        return b"".join(chunks)


def read_head(path: str | Path, count: int, *, follow_symlinks: bool = True) -> bytes:
    """At most the first ``count`` bytes of the regular file at ``path`` (a magic number, a header line, enough to
    tell what the file is), however large it is. Raises what :func:`open_regular` raises, bar :class:`TooLarge`."""
    with open_regular(path, 1 << 62, follow_symlinks=follow_symlinks) as stream:
        return stream.read(count)
