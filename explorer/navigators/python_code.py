"""``py:MODULE:NAME`` and ``py:path/to/file.py:NAME`` — a navigator from the person's own Python code.

The navigator people debug is usually theirs, in their application: this provider lets it into the explorer, the
CLI, ``--compare``, ``--runs`` and ``serve`` by a model id, with no package and no entry point to install.

``NAME`` (a dotted attribute path inside the module) may be:

* a :class:`core.TreeNavigator` subclass: it is made with the options as keyword arguments (none: no argument,
  as ``core`` makes its providers);
* a factory (any other callable): called with the options as keyword arguments, it returns a navigator;
* a navigator instance: used as it is, and it takes no options.

Options follow the name after ``@``, as for the LLM navigators: ``py:mynav.py:make@threshold=0.3,mode=wide``.
They are handed over as strings (``{"threshold": "0.3", "mode": "wide"}``); converting them is the navigator's
job, and a factory that refuses one raises, which is said in one line. A value cannot hold ``,``.

``MODULE`` is imported as Python imports it, with the current folder searched first (as ``python -m`` does), so
``py:mynav:KeywordNavigator`` finds ``./mynav.py``. A target that ends in ``.py`` or names a folder (holds a
``/``) is a file, loaded under a module name of its own (``reasoning_explorer_py.<name>_<hash>``) so that two
files called ``nav.py`` never collide. Each model id is loaded once per resolved provider, on first use (the
resolver's check loads it, so a broken one is one line before any walk).

What the code's navigator sees: the same :class:`core.NavigatorRequest` any navigator sees, with ``model`` the
whole ``py:`` id; its ``supports`` is not asked (the id already names the object). What it raises or returns is
judged as any navigator's answer (``--on-failure``, hallucinated ids); a ``sys.exit()`` in it, on import, while
it is made or while it chooses, is its failure too, never the explorer's exit. Loading code runs it, so every ``py:`` id
counts as reading a file on this machine: a session with files off (``serve --no-files``) refuses it.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib
import importlib.util
import inspect
import os
import re
import sys
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from core import NavigatorChoice, NavigatorRequest, TreeNavigator

from .answer_size import capped
from .errors import NavigatorConfigError

__all__ = ["PREFIX", "CodeTarget", "PythonCodeNavigator", "parse_target"]

PREFIX = "py:"
_TARGET = re.compile(r"^(?P<where>.+):(?P<name>[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*)(?:@(?P<options>.*))?$", re.DOTALL)
_OPTION_KEY = re.compile(r"^[A-Za-z_]\w*$")
FILE_MODULES = "reasoning_explorer_py"
"""The package name under which files named by ``py:FILE.py:NAME`` are loaded (one module each)."""


@dataclass(frozen=True, slots=True)
class CodeTarget:
    """What a ``py:`` model id names: where the code is, the object in it, and the options for making it."""

    where: str
    name: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def is_file(self) -> bool:
        """A file (``x.py``, ``path/to/x.py``), not a module name."""
        return self.where.endswith(".py") or "/" in self.where or os.sep in self.where


def _first_line(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"SystemExit: sys.exit({exc.code!r}) was called"
    text = str(exc).strip().splitlines()
    first = text[0].strip() if text else ""
    return f"{type(exc).__name__}: {first}" if first else type(exc).__name__


def parse_target(model: str) -> CodeTarget:
    """The :class:`CodeTarget` of ``py:WHERE:NAME[@key=value,...]``, or :class:`NavigatorConfigError` saying what
    to write instead."""
    if not model.startswith(PREFIX):
        raise NavigatorConfigError(f"navigator {model!r} is not a py: model id (py:MODULE:NAME or py:FILE.py:NAME)")
    match = _TARGET.match(model[len(PREFIX):])
    if match is None:
        raise NavigatorConfigError(
            f"navigator {model!r}: write py:MODULE:NAME or py:path/to/file.py:NAME, where NAME is a navigator "
            "class, a factory or an instance in that module (options after @: py:MODULE:NAME@key=value)")
    options: list[tuple[str, str]] = []
    tail = match["options"]
    if tail is not None:
        for part in tail.split(","):
            key, eq, value = part.partition("=")
            if not eq or not _OPTION_KEY.match(key.strip()):
                raise NavigatorConfigError(
                    f"navigator {model!r}: option {part!r} is not key=value (a key is a Python name; "
                    "options are separated by commas)")
            if any(key.strip() == seen for seen, _ in options):
                raise NavigatorConfigError(f"navigator {model!r}: option {key.strip()!r} is given twice")
            options.append((key.strip(), value))
    return CodeTarget(match["where"], match["name"], tuple(options))


@contextlib.contextmanager
def _current_folder_first() -> Iterator[None]:
    """Search the current folder first while importing, as ``python -m`` does (a console script does not); and write
    no compiled module (``__pycache__``) into the user's folders: the explorer reads a navigator, it writes nothing
    beside it (checked by the output rule's tests, which fingerprint the folder)."""
    here = os.getcwd()
    added = here not in sys.path
    if added:
        sys.path.insert(0, here)
    writing, sys.dont_write_bytecode = sys.dont_write_bytecode, True
    try:
        yield
    finally:
        sys.dont_write_bytecode = writing
        if added:
            with contextlib.suppress(ValueError):
                sys.path.remove(here)


def _load_file(model: str, where: str) -> ModuleType:
    path = Path(where).expanduser()
    try:
        resolved = path.resolve(strict=True)
    except (OSError, RuntimeError):
        raise NavigatorConfigError(f"navigator {model!r}: no such file {where!r}; give the path of a .py file "
                                   "(relative to the current folder) or an importable module name") from None
    if not resolved.is_file():
        raise NavigatorConfigError(f"navigator {model!r}: {where!r} is not a regular file; give a .py file")
    digest = hashlib.sha256(str(resolved).encode()).hexdigest()[:12]
    stem = re.sub(r"\W", "_", resolved.stem) or "module"
    name = f"{FILE_MODULES}.{stem}_{digest}"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise NavigatorConfigError(f"navigator {model!r}: {where!r} cannot be loaded as Python; give a .py file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look a class's module up while it is being made
    try:
        with _current_folder_first():
            spec.loader.exec_module(module)
    except BaseException as exc:
        del sys.modules[name]
        if not isinstance(exc, Exception | SystemExit):
            raise
        raise NavigatorConfigError(f"navigator {model!r}: {where!r} does not import: {_first_line(exc)}") from None
    return module


def _load_module(model: str, where: str) -> ModuleType:
    try:
        with _current_folder_first():
            return importlib.import_module(where)
    except (Exception, SystemExit) as exc:  # sys.exit() in a module is its failure, never the explorer's exit
        raise NavigatorConfigError(f"navigator {model!r}: module {where!r} does not import: "
                                   f"{_first_line(exc)}") from None


def _find(model: str, module: ModuleType, target: CodeTarget) -> object:
    found: object = module
    for part in target.name.split("."):
        try:
            found = getattr(found, part)
        except AttributeError:
            raise NavigatorConfigError(f"navigator {model!r}: {target.where!r} has no {target.name!r}; name a "
                                       "navigator class, a factory or an instance defined there") from None
    return found


def _make(model: str, target: CodeTarget, found: object) -> TreeNavigator:
    """The navigator ``found`` is, or makes: an instance as it is, a class or a factory called with the options."""
    options = dict(target.options)
    if isinstance(found, TreeNavigator):
        if options:
            raise NavigatorConfigError(f"navigator {model!r}: {target.name!r} is a navigator instance and takes no "
                                       "options; name its class or a factory to hand it options")
        return found
    if not callable(found):
        raise NavigatorConfigError(f"navigator {model!r}: {target.name!r} is a {type(found).__name__}, not a "
                                   "core.TreeNavigator subclass, a factory or an instance")
    if inspect.isclass(found) and not issubclass(found, TreeNavigator):
        raise NavigatorConfigError(f"navigator {model!r}: {target.name!r} is the class {found.__name__}, which is "
                                   "not a core.TreeNavigator subclass")
    try:
        made: Any = found(**options)
    except (Exception, SystemExit) as exc:
        raise NavigatorConfigError(f"navigator {model!r}: making {target.name!r} raised {_first_line(exc)}") from None
    if not isinstance(made, TreeNavigator):
        raise NavigatorConfigError(f"navigator {model!r}: {target.name!r} returned a {type(made).__name__}, not a "
                                   "core.TreeNavigator")
    return made


def load_navigator(model: str) -> tuple[TreeNavigator, bool]:
    """Import the code ``model`` names and make its navigator, and whether it was made here (a class or a factory
    called) rather than an instance named; every failure is one :class:`NavigatorConfigError`."""
    target = parse_target(model)
    module = _load_file(model, target.where) if target.is_file else _load_module(model, target.where)
    found = _find(model, module, target)
    return _make(model, target, found), not isinstance(found, TreeNavigator)


_calling = threading.local()
"""``calling`` is set on a thread while it runs the person's code."""


class _PrintsToStderr:
    """``sys.stdout``, except that what the person's code prints while the explorer calls it (on that thread) goes
    to stderr: a ``print()`` in a navigator corrupted ``walk --json``. Other threads, and the explorer's own output,
    write where they did; everything else is the stream's own."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> Any:
        target = sys.stderr if getattr(_calling, "on", False) else self._stream
        return target.write(text)  # as the stream returns it (Textual's print capture returns None)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def prints_to_stderr() -> Iterator[None]:
    """While the block runs, this thread's prints go to stderr (:class:`_PrintsToStderr`, put in place once)."""
    if not isinstance(sys.stdout, _PrintsToStderr):
        sys.stdout = _PrintsToStderr(sys.stdout)
    was = getattr(_calling, "on", False)
    _calling.on = True
    try:
        yield
    finally:
        _calling.on = was


class PythonCodeNavigator(TreeNavigator):
    """``py:MODULE:NAME`` / ``py:FILE.py:NAME`` — the navigator a person's own code defines (module docstring)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loaded: dict[str, TreeNavigator] = {}
        self._made: list[TreeNavigator] = []
        self._first: str | None = None

    def supports(self, model: str) -> bool:
        return model.startswith(PREFIX)

    def reads_file(self, model: str) -> bool:
        """Every ``py:`` model runs code from this machine: a session with files off refuses it unread."""
        return True

    def files_read(self, model: str) -> tuple[Path, ...]:
        """The source file of the code ``model`` names: ``py:FILE.py:NAME``'s file, or the file a module name is
        found in (none for a module that is not found, or not a file). No output may be written over it."""
        try:
            target = parse_target(model)
        except NavigatorConfigError:
            return ()
        if target.is_file:
            return (Path(target.where).expanduser(),)
        try:
            spec = importlib.util.find_spec(target.where)
        except Exception:  # a parent package that fails to import: its file is not known, nor needed here
            return ()
        origin = spec.origin if spec is not None else None
        return (Path(origin),) if origin and spec is not None and spec.has_location else ()

    def check_model(self, model: str) -> None:
        """Load the code now, so that a module that does not import is one line before the walk."""
        self.navigator(model)

    def navigator(self, model: str) -> TreeNavigator:
        """The code's navigator for ``model``, made once."""
        with self._lock, prints_to_stderr():
            found = self._loaded.get(model)
            if found is None:
                found, made = load_navigator(model)
                self._loaded[model] = found
                if made:
                    self._made.append(found)
                if self._first is None:
                    self._first = model
            return found

    @property
    def shared_across_threads(self) -> bool:
        """As the code's navigator says (``shared_across_threads = False`` makes each thread resolve its own)."""
        with self._lock:
            first = self._loaded.get(self._first) if self._first is not None else None
        return bool(getattr(first, "shared_across_threads", True))

    def choose(self, request: NavigatorRequest) -> NavigatorChoice | Iterable[str]:
        with prints_to_stderr():
            try:
                return capped(self.navigator(request.model).choose(request), len(request.candidates))
            except SystemExit as exc:  # the code's sys.exit() is its failure (judged by --on-failure), not the end
                raise RuntimeError(f"the navigator called sys.exit({exc.code!r})") from None
            except (Exception, KeyboardInterrupt):  # a failure core judges; Ctrl-C stays the person's own
                raise
            except BaseException as exc:
                # CancelledError, GeneratorExit or the code's own BaseException: core never catches those (the
                # spec), so they ended the walk whatever --on-failure said. From a person's code they are a failure
                # of its choice like any other.
                message = " ".join(str(exc).split())
                raise RuntimeError(f"the navigator raised {type(exc).__name__}"
                                   + (f": {message}" if message else "")) from None

    def close(self) -> None:
        """Close what the code made, where it can be closed; an instance it merely named is its own to close."""
        with self._lock:
            made, self._made, self._loaded = self._made, [], {}
        for navigator in made:
            closer = getattr(navigator, "close", None)
            if callable(closer):
                with contextlib.suppress(Exception):
                    closer()
