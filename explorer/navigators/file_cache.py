"""Files named in a model id (``script:PATH``, ``replay:PATH``), read once and again only when they change."""

from __future__ import annotations

import errno
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from .errors import NavigatorConfigError

T = TypeVar("T")


class FileCache(Generic[T]):
    """Parses the file a model id names, caching the result by path and modification time.

    ``read`` turns a path into a value or raises ``ValueError`` (the loaders'
    one-line errors); that becomes a :class:`NavigatorConfigError`. Thread-safe:
    concurrent walks (``eval --jobs``) share one navigator.
    """

    def __init__(self, prefix: str, example: str, read: Callable[[Path], T]) -> None:
        self.prefix = prefix
        self.example = example
        self.read = read
        self._lock = threading.Lock()
        self._cache: dict[Path, tuple[float, T]] = {}

    def path_of(self, model: str) -> Path | None:
        """The file ``model`` names (``None``: none given)."""
        raw = model[len(self.prefix):].strip()
        return Path(raw).expanduser() if raw else None

    def get(self, model: str) -> T:
        raw = model[len(self.prefix):].strip()
        if not raw:
            raise NavigatorConfigError(f"{self.prefix} needs a file, e.g. {self.prefix}{self.example}")
        path = Path(raw).expanduser()
        try:
            mtime = path.stat().st_mtime
        except OSError:
            mtime = -1.0
        with self._lock:
            cached = self._cache.get(path)
            if cached is not None and cached[0] == mtime:
                return cached[1]
        try:
            value = self.read(path)
        except ValueError as exc:
            raise NavigatorConfigError(str(exc)) from None
        except OSError as exc:  # e.g. a name too long for the file system, which the loaders' checks trip on
            problem = ("the path is longer than the file system allows; give a shorter path"
                       if exc.errno == errno.ENAMETOOLONG else f"cannot read it: {exc.strerror or exc}")
            raise NavigatorConfigError(f"{path}: {problem}") from None
        with self._lock:
            self._cache[path] = (mtime, value)
        return value
