"""Reading a corpus's files: what a path is, and a file's bytes and text, refusing at once what cannot be read to
its end (a FIFO, a device, a folder) and naming the line of the first byte that is not UTF-8. Every failure is a
:class:`~.errors.CorpusError` with one clear line."""

from __future__ import annotations

import codecs
import errno
import os
import stat
from pathlib import Path

from ..reading import NotARegularFile, TooLarge, kind, problem, read_file, read_head
from .errors import CorpusError
from .progress import Progress, Stage

__all__ = ["MISSING", "check_corpus_path", "check_utf8", "decode_text", "read_bytes", "read_start", "read_text"]

MISSING = "no such file or folder; give a .yaml, .json, .md or .pdf file, or a folder of .md files"
_READ_CHUNK = 8 << 20


def check_corpus_path(path: str | Path) -> os.stat_result:
    """What the path is (following symlinks), or a CorpusError with one clear line.

    Refuses a path holding a NUL, one longer than the file system allows, a
    missing one, and anything that is neither a regular file nor a folder (a
    FIFO or a device would be read forever).
    """
    path = Path(path)
    result = _stat(path)
    if not (stat.S_ISREG(result.st_mode) or stat.S_ISDIR(result.st_mode)):
        raise CorpusError(path, _not_a_file(kind(result.st_mode)))
    return result


def _stat(path: Path) -> os.stat_result:
    if "\0" in str(path):
        raise CorpusError(path, "the path holds a NUL character; give the file's real name")
    try:
        return os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise CorpusError(path, MISSING) from None
    except OSError as exc:
        raise CorpusError(path, _os_problem(exc)) from None


def _os_problem(exc: OSError) -> str:
    if exc.errno == errno.ENAMETOOLONG:
        return "the path is longer than the file system allows; give a shorter path"
    if exc.errno == errno.ELOOP:
        return "the path goes round a loop of symlinks; give the file's real path"
    if exc.errno == errno.EINVAL and "\0" in str(exc.filename):
        return "the path holds a NUL character; give the file's real name"
    return f"cannot read: {problem(exc)}"


CORPUS_KINDS = "give a .yaml, .json, .md or .pdf file, or a folder"
"""What a line refusing a path that is no corpus ends with (a reader of another kind of file says its own)."""


def _not_a_file(what: str) -> str:
    return f"is {what}, not a file that can be read to its end; {CORPUS_KINDS}"


def read_text(path: Path, progress: Progress | None = None) -> tuple[str, bytes]:
    """The file's text (UTF-8, a BOM dropped) and its bytes; a CorpusError when it cannot be read.

    Only a regular file is read: the file is opened without blocking and
    checked before a byte is read, so a FIFO or a device (``/dev/zero``)
    given in its place is refused at once.
    """
    data = read_bytes(path, progress)
    return decode_text(path, data), data


MAX_FILE_BYTES = 2_000_000_000
"""The largest corpus, question set or script read (a corpus of 1,000,000 nodes as JSON is about 200 MB)."""


def read_bytes(path: Path, progress: Progress | None = None) -> bytes:
    """The file's bytes, read as :func:`read_text` reads them (a regular file only, up to :data:`MAX_FILE_BYTES`,
    through :mod:`explorer.reading`), for a parser that takes bytes."""
    started = False

    def told(done: int, size: int) -> None:
        nonlocal started
        if progress is None or not progress.active:
            return
        if not started:
            started = True
            progress.start(Stage.READING, size)
        progress.tick(done)

    try:
        data = read_file(path, MAX_FILE_BYTES, progress=told)
    except OSError as exc:
        raise _refused(path, exc) from None
    if started and progress is not None:
        progress.finish(len(data))
    return data


def read_start(path: Path, count: int) -> bytes:
    """At most the first ``count`` bytes of the file (a magic number), refused as :func:`read_bytes` refuses: a
    reader that would refuse most files by their start looks there before it reads gigabytes."""
    try:
        return read_head(path, count)
    except OSError as exc:
        raise _refused(path, exc) from None


def _refused(path: Path, exc: OSError) -> CorpusError:
    if isinstance(exc, FileNotFoundError):
        return CorpusError(path, f"cannot read: {exc.strerror or exc}")
    if isinstance(exc, IsADirectoryError):
        return CorpusError(path, "is a folder, not a file")
    if isinstance(exc, NotARegularFile):
        return CorpusError(path, _not_a_file(exc.kind))
    if isinstance(exc, TooLarge):
        return CorpusError(path, f"is {exc.strerror}; a corpus, question set or script is far smaller: give a "
                           "smaller file")
    return CorpusError(path, _os_problem(exc))


def decode_text(path: Path, data: bytes) -> str:
    """``data`` as UTF-8 text, a BOM dropped; a CorpusError naming the line of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise CorpusError(path, f"not UTF-8 text (byte {exc.start}); save the file as UTF-8", line=line) from None


_CHECK_CHUNK = 1 << 20  # bytes checked at a time: a bounded copy, however large the file


def check_utf8(path: Path, data: bytes) -> None:
    """Raise :func:`decode_text`'s CorpusError when ``data`` is not UTF-8 text, without keeping a decoded copy.

    For a reader that parses the bytes itself and skips what it does not need (PageIndex's msgspec path): the
    file is then refused or accepted as a whole, as :func:`decode_text` would, whatever key the bad bytes sit
    under. ASCII (most large JSON) is one pass with no copy; other text is decoded a megabyte at a time."""
    if data.isascii():
        return
    decoder = codecs.getincrementaldecoder("utf-8")()
    view = memoryview(data)
    try:
        for at in range(0, len(view), _CHECK_CHUNK):
            decoder.decode(view[at:at + _CHECK_CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        decode_text(path, data)  # the same codec refuses the same bytes: it raises, naming the byte and the line
    finally:
        view.release()
