"""The process's state in one place: the environment as the program read it once, where it starts, and the index
of the state that is process-wide by nature.

**The environment.** The command line's entry (:func:`explorer.cli.main.main`, which also starts the screen) reads
the environment once, with :func:`program_started`, and every module below reads it from :func:`environment`, never
from ``os.environ``: what a navigator, the span limits or a local model's sizes see is what the program was started
with, whatever changes the environment later. Outside a program (a library use, a test that calls a navigator
directly) :func:`environment` is the environment as it is now, so a test's ``monkeypatch.setenv`` is seen either way.

**State that is process-wide** is held by :class:`OnePerProcess` (one value, made on first use) and
:class:`PerProcess` (one value per key); each holder lies beside the code that owns it, and this is their one index,
with why each is shared by the whole process rather than handed down:

- the local model servers (``explorer.navigators.llm.llama_server``: a :class:`PerProcess` behind
  ``server_for``, ``local_servers``, ``stop_local_servers``): one llama.cpp child per configuration, shared by every
  navigator and walk that names it, since each holds gigabytes of memory and a port; stopped at exit (``atexit``)
  so that no child outlives the program;
- the bundled embeddings (``explorer.navigators.embeddings.bundled_embeddings``, a :class:`OnePerProcess`): loaded
  once on first use (about half a second, tens of megabytes) and read-only after, shared by every semantic walk;
- the one TLS context (``functools.cache`` in ``navigators/llm/transport.py``): loading the CA bundle costs about
  50 ms, and the context serves every client; the memoised pure functions (``lru_cache`` in
  ``navigators/text_terms.py``, ``navigators/embeddings.py``): their results depend on their arguments alone;
- module locks (``tui/html_export.py``, ``walks/evaluation/chart.py``): they guard libraries that are not
  thread-safe (one per process, as the library's state is);
- the ``opentelemetry.attributes`` logging filter (``walks/telemetry/walk_spans.py``): logging's loggers are the
  process's, so the filter is added once, however many tracers.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, TypeVar

__all__ = ["Environment", "OnePerProcess", "PerProcess", "environment", "program_started", "read_environment"]

T = TypeVar("T")
K = TypeVar("K", bound=Hashable)


@dataclass(frozen=True, slots=True)
class Environment:
    """The environment variables the program takes its settings from, as read at its start (read-only)."""

    variables: Mapping[str, str]

    def get(self, name: str, default: str = "") -> str:
        """The variable's value, ``default`` when it is unset."""
        return self.variables.get(name, default)


def read_environment(environ: Mapping[str, str] | None = None) -> Environment:
    """A read-only copy of ``environ`` (``None``: this process's environment, now)."""
    return Environment(MappingProxyType(dict(os.environ if environ is None else environ)))


_started: Environment | None = None
_started_lock = threading.Lock()


@contextmanager
def program_started(environ: Mapping[str, str] | None = None) -> Iterator[Environment]:
    """The program's run: the environment read once (``environ``, or this process's), what :func:`environment`
    answers until the run ends; the one before it again after (a program run inside another, as tests do)."""
    global _started
    read = read_environment(environ)
    with _started_lock:
        before, _started = _started, read
    try:
        yield read
    finally:
        with _started_lock:
            _started = before


def environment() -> Environment:
    """The environment the program was started with (:func:`program_started`); outside a program, the environment
    as it is now."""
    started = _started
    return started if started is not None else Environment(os.environ)


class OnePerProcess(Generic[T]):
    """One value for the whole process: made by ``make`` on first use (once, under a lock, whatever threads ask at
    the same time) and the same value after. ``make`` raising: nothing is kept, and the next use tries again."""

    def __init__(self, make: Callable[[], T]) -> None:
        self._make = make
        self._value: T | None = None
        self._lock = threading.Lock()

    def get(self) -> T:
        """The value, made now if this is its first use."""
        value = self._value
        if value is not None:
            return value
        with self._lock:
            if self._value is None:
                self._value = self._make()
            return self._value


class PerProcess(Generic[K, T]):
    """One value per key for the whole process, made by ``make(key)`` on the key's first use (under a lock)."""

    def __init__(self, make: Callable[[K], T]) -> None:
        self._make = make
        self._values: dict[K, T] = {}
        self._lock = threading.Lock()

    def get(self, key: K) -> T:
        """The value for ``key``, made now if this is its first use."""
        with self._lock:
            value = self._values.get(key)
            if value is None:
                value = self._values[key] = self._make(key)
            return value

    def values(self) -> tuple[T, ...]:
        """Every value made so far, in the order they were made."""
        with self._lock:
            return tuple(self._values.values())
