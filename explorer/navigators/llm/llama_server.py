"""llama.cpp's server for ``local:`` models: started in a child process on first use, shared, and never left behind.

One :class:`LlamaServer` per :class:`ServerConfig` (model file, threads, context, slots, port) per process,
found with :func:`server_for`: every navigator, walk and thread that uses the same model shares it. At most
:data:`MAX_RUNNING` run at once: starting one more first stops the one asked for longest ago (it starts again if
asked), so model ids that differ only in their sizes cannot pile servers up. It is started when a call first
needs it, in a child (:mod:`.llama_child`) that ends when this process does, however
this process ends (a normal exit, Ctrl+C, a crash, SIGKILL): the child waits on a pipe that only this process
holds open. It is stopped at exit (``atexit``) and by :func:`stop_local_servers`.

How loading goes is told to the :class:`StatusListeners` of whoever asked for the server
(:meth:`LlamaServer.address`): ``loading``, then ``ready`` with the seconds it took, or ``failed`` with the one
line that says what to do; ``stopped`` at the end. Each program that runs walks makes its own and hands it to
the navigators it runs (``explorer.walks.wiring.Wiring``): the command line prints it on stderr, the screen shows
it as a toast, and two explorers in one process each hear of their own walks' models only.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import logging
import os
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Final

import httpx

from core import CancellationToken, RetrievalCancelled

from ...process import PerProcess, environment
from .errors import NavigatorHTTPError, one_line

_log = logging.getLogger(__name__)

START_TIMEOUT_ENV: Final = "REASONING_EXPLORER_LOCAL_START_TIMEOUT"
DEFAULT_START_TIMEOUT: Final = 120.0
STOP_GRACE: Final = 3.0
_POLL: Final = 0.05
MAX_RUNNING: Final = 2
"""Local model servers one process runs at once: a walk's and a comparison's (``eval --compare``)."""
_HEALTH_TIMEOUT: Final = 2.0


class LocalModelError(NavigatorHTTPError):
    """A ``local:`` model's server that could not be started; the message says why and what to do."""


class LoadPhase(StrEnum):
    """Where a local model's server is."""

    LOADING = "loading"
    READY = "ready"
    FAILED = "failed"
    STOPPED = "stopped"


@dataclass(frozen=True, slots=True)
class ServerConfig:
    """What chooses a server: the model file, its threads, context tokens per slot, parallel slots, and port
    (0: a free one, chosen by the server itself when it binds)."""

    model: Path
    threads: int
    ctx: int
    slots: int
    port: int = 0

    def describe(self) -> str:
        """``1 thread, 2 slots of 4,096 tokens``."""
        threads = "1 thread" if self.threads == 1 else f"{self.threads} threads"
        slots = "1 slot" if self.slots == 1 else f"{self.slots} slots"
        return f"{threads}, {slots} of {self.ctx:,} tokens"


@dataclass(frozen=True, slots=True)
class LocalModelStatus:
    """One change of a local model server's state, as told to status listeners.

    ``seconds``: for ``ready``, how long the start took (the child's start, the model's load and the first
    ``/health``); for ``failed``, how long until it failed. ``detail``: for ``failed``, the one line that says
    what to do. ``address``: the server's base address once ready.
    """

    config: ServerConfig
    phase: LoadPhase
    seconds: float | None = None
    address: str | None = None
    detail: str = ""
    pid: int | None = None

    @property
    def model(self) -> str:
        """The model file's name, for a message."""
        return self.config.model.name

    def line(self) -> str:
        """The status as one line: ``local model SmolLM2-135M-Instruct.Q4_1.gguf ready in 1.73 s (...)``."""
        what = f"local model {self.model}"
        if self.phase is LoadPhase.LOADING:
            return f"loading {what} ({self.config.describe()}) …"
        if self.phase is LoadPhase.READY:
            return f"{what} ready in {self.seconds or 0:.2f} s (llama.cpp at {self.address}, {self.config.describe()})"
        if self.phase is LoadPhase.FAILED:
            return f"{what} failed to start: {self.detail}"
        return f"{what} stopped"


StatusListener = Callable[[LocalModelStatus], None]

class StatusListeners:
    """Who hears how the local model servers a program asks for load: one per program that runs walks (an
    explorer, a command), handed to the navigators it runs and by them to :meth:`LlamaServer.address`.

    A listener is called on the thread that starts (or stops) the server, never the screen's: a Textual app
    posts a message from it. A listener that raises is logged and kept.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._listeners: list[StatusListener] = []

    def add(self, listener: StatusListener) -> Callable[[], None]:
        """Tell ``listener`` from now on; returns the function that stops it."""
        with self._lock:
            self._listeners.append(listener)

        def remove() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return remove

    def tell(self, status: LocalModelStatus) -> None:
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(status)
            except Exception:
                _log.exception("a local model status listener failed")


def _start_timeout() -> float:
    raw = environment().get(START_TIMEOUT_ENV).strip()
    try:
        value = float(raw) if raw else DEFAULT_START_TIMEOUT
    except ValueError:
        value = -1.0
    if not value > 0:
        raise LocalModelError(f"{START_TIMEOUT_ENV} must be a positive number of seconds (e.g. 120), got {raw!r}")
    return value


def _last_error(log: IO[bytes]) -> str:
    """The last error line llama.cpp wrote (its log is kept in a temporary file), for a message."""
    try:
        log.seek(0, os.SEEK_END)
        size = log.tell()
        log.seek(max(0, size - 8192))
        lines = log.read().decode("utf-8", "replace").splitlines()
    except (OSError, ValueError):
        return ""
    errors = [line for line in lines if " E " in line]
    picked = errors[0] if errors else (lines[-1] if lines else "")
    # "0.00.005.785 E srv         start: couldn't bind ...": the message after the source's name.
    _, _, message = picked.partition(" E ")
    return one_line(message.split(":", 1)[-1] if ":" in message else picked)


class LlamaServer:
    """llama.cpp's server for one :class:`ServerConfig`, in a child process; see the module's docstring."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._ready = threading.Event()
        self._process: subprocess.Popen[bytes] | None = None
        self._address: str | None = None
        self._error: str | None = None
        self._starter: threading.Thread | None = None
        self._log: IO[bytes] | None = None
        self._audience: list[StatusListeners] = []
        """Who has asked for this server: each is told of its changes from its first ask on."""
        self.started_in: float | None = None
        """Seconds the start took (``None`` until ready)."""
        self.last_asked = 0.0
        """When its address was last asked for (``time.monotonic``): the one asked longest ago stops first."""

    @property
    def pid(self) -> int | None:
        """The child's process id, once started."""
        process = self._process
        return process.pid if process is not None else None

    @property
    def running(self) -> bool:
        """Whether the child is alive and was ready."""
        process = self._process
        return self._address is not None and process is not None and process.poll() is None

    def address(self, token: CancellationToken | None = None, hearing: StatusListeners | None = None) -> str:
        """The server's base address (``http://127.0.0.1:PORT``), starting it first if it is not running.

        Waits for the start, looking at ``token``: a cancel raises :class:`core.RetrievalCancelled` (the start
        goes on, for the next call). A start that failed raises :class:`LocalModelError`, and the next call
        tries again. ``hearing`` is told of the server's changes from now on (the start this call waits for, if
        it makes one; its stop). Starting it first stops the server asked for longest ago when :data:`MAX_RUNNING`
        run.
        """
        self.last_asked = time.monotonic()
        if self._starter is None or not self.running:
            _make_room(self)
        with self._lock:
            if hearing is not None and all(heard is not hearing for heard in self._audience):
                self._audience.append(hearing)
            if self._address is not None and (self._process is None or self._process.poll() is not None):
                self._reset()  # it died (killed from outside): start it again
            if self._starter is None:
                self._ready.clear()
                self._error = None
                self._starter = threading.Thread(target=self._start, name="local-model-start", daemon=True)
                self._starter.start()
        while not self._ready.wait(_POLL):
            if token is not None and token.cancelled:
                raise RetrievalCancelled()
        with self._lock:
            if self._error is not None:
                error, self._starter = self._error, None
                raise LocalModelError(error)
            assert self._address is not None
            return self._address

    def _tell(self, status: LocalModelStatus) -> None:
        with self._lock:
            audience = list(self._audience)
        for hearing in audience:
            hearing.tell(status)

    @property
    def active(self) -> bool:
        """Whether it is started or starting (it holds, or is about to hold, a model in memory)."""
        return self._starter is not None

    def _reset(self) -> None:
        self._address, self._starter, self.started_in = None, None, None
        self._stop_process()

    def _start(self) -> None:
        began = time.monotonic()
        self._tell(LocalModelStatus(self.config, LoadPhase.LOADING))
        try:
            address, pid = self._launch(began)
        except LocalModelError as exc:
            with self._lock:
                self._error = str(exc)
                self._stop_process()
            self._tell(LocalModelStatus(self.config, LoadPhase.FAILED, time.monotonic() - began, detail=str(exc)))
            self._ready.set()
            return
        seconds = time.monotonic() - began
        with self._lock:
            self._address, self.started_in = address, seconds
        _log.info("local model %s ready at %s in %.2f s", self.config.model.name, address, seconds)
        self._tell(LocalModelStatus(self.config, LoadPhase.READY, seconds, address, pid=pid))
        self._ready.set()

    def _launch(self, began: float) -> tuple[str, int]:
        timeout = _start_timeout()
        config = self.config
        log = tempfile.TemporaryFile(prefix="reasoning-explorer-llama-")  # noqa: SIM115 (kept while the child runs)
        command = [sys.executable, "-m", "explorer.navigators.llm.llama_child", "--model", str(config.model),
                   "--threads", str(config.threads), "--ctx", str(config.ctx), "--slots", str(config.slots),
                   "--port", str(config.port)]
        try:
            # A session of its own: a Ctrl+C in the terminal is this process's to handle, and its exit (or
            # death) is what ends the child, through the stdin pipe.
            process = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                       start_new_session=True, close_fds=True)
        except OSError as exc:
            log.close()
            raise LocalModelError(f"cannot start the local model's server ({sys.executable}: "
                                  f"{exc.strerror or exc})") from None
        with self._lock:
            self._process, self._log = process, log
        assert process.stdout is not None
        line = self._first_line(process, began + timeout)
        said: object = None
        try:
            said = json.loads(line) if line else None
        except ValueError:
            said = None
        if not isinstance(said, dict) or not isinstance(said.get("address"), str):
            raise LocalModelError(self._why_not(said, line, timeout))
        address = str(said["address"]).rstrip("/")
        self._wait_healthy(address, process, began + timeout)
        return address, process.pid

    def _first_line(self, process: subprocess.Popen[bytes], until: float) -> bytes:
        """The child's first line on stdout, or ``b""`` if it died or the start timed out."""
        assert process.stdout is not None
        result: list[bytes] = []
        reader = threading.Thread(target=lambda: result.append(process.stdout.readline()),  # type: ignore[union-attr]
                                  name="local-model-read", daemon=True)
        reader.start()
        reader.join(max(0.0, until - time.monotonic()))
        return result[0].strip() if result else b""

    def _why_not(self, said: object, line: bytes, timeout: float) -> str:
        config = self.config
        process = self._process
        log = self._log
        bind = said.get("bind") if isinstance(said, dict) else None
        detail = bind if isinstance(bind, str) else _last_error(log) if log is not None else ""
        if not line and process is not None and process.poll() is None:
            return (f"the local model {config.model.name} did not load within {timeout:g} s; the machine may be "
                    f"busy: try again, or raise {START_TIMEOUT_ENV}")
        if "bind" in detail:
            port = f"port {config.port}" if config.port else "a free port"
            return (f"cannot listen on 127.0.0.1 ({port}): {detail}; choose another port with "
                    "REASONING_EXPLORER_LOCAL_PORT, or leave it unset for a free one")
        if "xllamacpp" in line.decode("utf-8", "replace") or "No module named" in detail:
            return "llama.cpp is not installed here: pip install xllamacpp (make test and make run install it)"
        if "model" in detail:
            return (f"llama.cpp could not load {config.model} ({detail}); check that it is a GGUF model file "
                    "llama.cpp supports")
        reason = detail or (str(said.get("error")) if isinstance(said, dict) else "") or "it exited"
        return f"the local model's server did not start: {one_line(reason)}"

    def _wait_healthy(self, address: str, process: subprocess.Popen[bytes], until: float) -> None:
        """Wait for ``/health`` to answer 200 (llama.cpp answers 503 while it loads)."""
        with httpx.Client(timeout=_HEALTH_TIMEOUT, trust_env=False) as client:
            while True:
                try:
                    if client.get(f"{address}/health").status_code == 200:
                        return
                except httpx.HTTPError:
                    pass
                if process.poll() is not None:
                    raise LocalModelError(f"the local model's server exited while loading: "
                                          f"{_last_error(self._log) if self._log else 'no message'}")
                if time.monotonic() >= until:
                    raise LocalModelError(f"the local model's server at {address} never said it was healthy; "
                                          f"try again, or raise {START_TIMEOUT_ENV}")
                time.sleep(_POLL)

    def stop(self) -> None:
        """Stop the child (if started) and tell the listeners; safe to call twice, from any thread."""
        with self._lock:
            was_running = self._process is not None
            self._address, self._starter, self.started_in = None, None, None
            self._stop_process()
        if was_running:
            self._tell(LocalModelStatus(self.config, LoadPhase.STOPPED))

    def _stop_process(self) -> None:
        process, self._process = self._process, None
        log, self._log = self._log, None
        if process is not None:
            if process.stdin is not None:
                with contextlib.suppress(OSError):
                    process.stdin.close()  # the child's cue to end
            try:
                process.wait(STOP_GRACE)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(STOP_GRACE)
            if process.stdout is not None:
                process.stdout.close()
        if log is not None:
            log.close()


_servers: PerProcess[ServerConfig, LlamaServer] = PerProcess(LlamaServer)
"""The servers this process made, one per configuration (:mod:`explorer.process` says why)."""


def server_for(config: ServerConfig) -> LlamaServer:
    """The one server for ``config`` in this process (not started until its address is asked for)."""
    return _servers.get(config)


def _make_room(starting: LlamaServer) -> None:
    """Before ``starting`` starts: stop the others asked for longest ago, so that at most :data:`MAX_RUNNING` run."""
    others = sorted((server for server in _servers.values() if server is not starting and server.active),
                    key=lambda server: server.last_asked)
    for server in others[:max(0, len(others) - (MAX_RUNNING - 1))]:
        _log.info("local model %s stopped: %d servers run at most", server.config.model.name, MAX_RUNNING)
        server.stop()


def local_servers() -> tuple[LlamaServer, ...]:
    """Every local model server this process has made (started or not)."""
    return _servers.values()


def stop_local_servers() -> None:
    """Stop every local model server of this process (also done at exit)."""
    for server in local_servers():
        server.stop()


atexit.register(stop_local_servers)
