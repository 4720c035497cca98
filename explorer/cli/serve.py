"""``reasoning-explorer serve``: the explorer in a browser, one app process per tab, through textual-serve.

    reasoning-explorer serve [CORPUS | TRACE] [--host 127.0.0.1] [--port 8000] [--max-sessions N]
                             [--query Q] [--navigator M] [--max-visits N] [--max-depth D] [--on-failure P]
                             [--autoplay SECONDS] [--present] [--judge JUDGE] [--no-files] [--trace FILE]
                             [--otlp-endpoint URL] [--otlp-file FILE] [--local-threads N] [--local-ctx N]
                             [--local-slots N]

Everything is checked before the server starts (the corpus loads, the navigator resolves, the address can
be bound), so a bad option is one line and exit code 2, never a page that fails later. textual-serve runs
each browser connection's app through a shell: the command is made here from the checked options, every
part quoted, with this interpreter (``sys.executable -m explorer.cli.serve_session``: the explorer, which also
ends when the server is gone), and ``exec`` so that the app *is* the process the server watches.

The server has no authentication: it binds to 127.0.0.1 unless told otherwise, answers only to local host
names when it does, refuses web sockets opened by pages of other sites, and caps the sessions it runs. What a
client sends is checked before it reaches a session: the terminal's size is clamped (a huge one made a session
eat gigabytes), and a message that is not textual-serve's is one line in the log, never a traceback.

A ``local:`` model is sized by the server, never by a client: ``--local-threads``, ``--local-ctx`` and
``--local-slots`` (else the ``REASONING_EXPLORER_LOCAL_*`` environment, else the defaults) reach every session
with ``REASONING_EXPLORER_LOCAL_FIXED`` set, and a model id that gives its own is refused there in one line. So a
tab runs at most the one server of ``local:smollm2`` at those sizes (with files on, a GGUF of this machine may
add one more: :data:`~explorer.navigators.llm.llama_server.MAX_RUNNING`), and :data:`MEMORY_NOTE` says what that
costs.

Each tab's explorer writes its own files: ``--trace FILE`` and ``--otlp-file FILE`` are FILE for the first tab
and ``FILE.tabN`` beside it (``walks.tab2.jsonl``) for the Nth, so that no tab overwrites another's.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import json
import logging
import shlex
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import WSCloseCode, WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, log

from ..navigators import NavigatorConfigError
from ..navigators.local_model import CTX_ENV, FIXED_ENV, SLOTS_ENV, THREADS_ENV, refuse_sizes
from ..navigators.local_model import PREFIX as LOCAL_PREFIX
from ..numbers import TooLarge, whole
from ..safe_text import clip, one_line, visible
from ..walk_settings import policy_text
from .inputs import corpus_at, open_trace, trace_corpus
from .options import (
    DEFAULT_CORPUS,
    EXIT_OK,
    EXPLORER_MODEL,
    PROG,
    Parser,
    add_judge_option,
    add_overwrite_option,
    add_telemetry_options,
    add_walk_options,
    check_apart,
    check_telemetry,
    check_writable,
    checked_judge,
    fail,
    navigator_for,
    path_text,
    query_text,
    read_by,
    seconds,
    whole_number,
)

DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_SESSIONS, MAX_SESSIONS = "127.0.0.1", 8000, 8, 1_000
STOP_GRACE = 5.0  # seconds an app gets to quit after its tab closed before it is killed
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
MAX_WIDTH, MAX_HEIGHT = 1_000, 500  # cells: the most a session draws, whatever a client asks for
DEFAULT_WIDTH, DEFAULT_HEIGHT, DEFAULT_FONT_SIZE, MAX_FONT_SIZE = 80, 24, 16, 100
TEMPLATES = Path(__file__).with_name("templates")
"""Our copy of textual-serve's page: no web font, and the terminal focused when the page loads."""
LOGGED_PER_SESSION = 20  # bad messages logged for one tab; more are ignored without a word
MEMORY_NOTE = ("each tab's explorer takes about 50 MB; one on local:smollm2 also runs its llama.cpp server, about "
               "150 MB plus 23 KB for each of --local-ctx x --local-slots tokens (340 MB at the defaults, 4,096 x "
               "2); at most --max-sessions tabs run at once")
"""What one session can cost, measured on this project's machines (``serve --help`` and the README say it)."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def url_host(host: str) -> str:
    """``host`` as it is written in a URL (IPv6 addresses in brackets)."""
    return f"[{host}]" if ":" in host else host


def files_off(args: argparse.Namespace) -> bool:
    """Whether the sessions' keys that open and save files are off: asked (``--no-files``), or shared beyond this
    machine, where whoever reaches the address must not read or write this user's files."""
    return bool(args.no_files) or not is_loopback(args.host)


def tab_file(path: str, tab: int) -> str:
    """Where tab ``tab`` writes what ``path`` names: ``path`` itself for the first tab, ``stem.tabN.suffix`` beside it
    for the others (absolute: the command is run from this folder, but say exactly which file)."""
    target = Path(path).expanduser().absolute()
    if tab > 1:
        target = target.with_name(f"{target.stem}.tab{tab}{target.suffix or '.jsonl'}")
    return str(target)


def app_argv(args: argparse.Namespace, tab: int = 1) -> list[str]:
    """The explorer's command line for browser session number ``tab``, from options already checked."""
    argv = [sys.executable, "-m", "explorer.cli.serve_session"]  # the explorer, ending with the server
    if args.corpus:
        argv.append(str(Path(args.corpus).resolve()))  # the app runs in this folder, but say exactly which file
    # --name=value: a value that starts with "-" (a query, say) must not read as an option.
    if args.query is not None:
        argv.append(f"--query={args.query}")
    argv.append(f"--navigator={args.navigator}")
    if args.max_visits is not None:
        argv.append(f"--max-visits={args.max_visits}")
    if args.max_depth is not None:
        argv.append(f"--max-depth={args.max_depth}")
    argv.append(f"--on-failure={args.on_failure}")
    if getattr(args, "policy", None) is not None:
        argv.append(f"--policy={policy_text(*args.policy)}")
    if args.autoplay is not None:
        argv.append(f"--autoplay={args.autoplay!r}")
    if getattr(args, "judge", None) is not None:  # a namespace made before --judge existed has none
        argv.append(f"--judge={args.judge}")
    if getattr(args, "present", False):  # a namespace made before --present existed has none
        argv.append("--present")
    if args.trace is not None:
        argv.append(f"--trace={tab_file(args.trace, tab)}")
    if args.otlp_endpoint is not None:
        argv.append(f"--otlp-endpoint={args.otlp_endpoint}")
    if args.otlp_file is not None:
        argv.append(f"--otlp-file={tab_file(args.otlp_file, tab)}")
    if args.trace is not None or args.otlp_file is not None:
        argv.append("--overwrite")  # this server checked FILE (--overwrite, or not there); each tab's files are its own
    if files_off(args):
        argv.append("--no-files")
    return argv


def local_model_environment(args: argparse.Namespace) -> dict[str, str]:
    """The environment each session's local model runs with, said in the session's command (:func:`shell_command`;
    never set in this process): serve's sizes, fixed (a client's are refused)."""
    sizes = {THREADS_ENV: args.local_threads, CTX_ENV: args.local_ctx, SLOTS_ENV: args.local_slots}
    return {FIXED_ENV: "1", **{name: str(value) for name, value in sizes.items() if value is not None}}


def shell_command(argv: Sequence[str], environment: Mapping[str, str] | None = None) -> str:
    """The one string textual-serve hands to a shell: every part quoted; ``exec`` so no shell stays between; the
    session's own ``environment`` (the local model's sizes) given in it, through ``env``."""
    given = ["env", *(f"{name}={value}" for name, value in environment.items())] if environment else []
    return "exec " + " ".join(shlex.quote(part) for part in [*given, *argv])


def check_explorer_options(args: argparse.Namespace) -> str:
    """What the explorer itself would refuse, refused now, once; returns what is being served (for the banner)."""
    # The sessions' local model is sized by serve: a model id that sizes it would be refused by every session, and
    # with files off, a navigator that names a file would be too: say so now, once.
    for option, model in (("", args.navigator), ("--judge: ", args.judge or "")):  # a judge is a navigator too
        if model.startswith(LOCAL_PREFIX):
            try:
                refuse_sizes(model)
            except NavigatorConfigError as exc:
                fail(f"{option}{exc}")
    navigator_for(args.navigator, headless=False, allow_files=not files_off(args))
    checked_judge(args.judge, allow_files=not files_off(args))  # each session would refuse it: refused now, once
    if args.corpus and args.corpus.endswith(".jsonl"):
        trace = open_trace(args.corpus)
        corpus = trace_corpus(Path(args.corpus), trace, None)  # the app looks from the same folder: the same one
        served, what = f"the trace {args.corpus}", "the trace"
    else:
        path = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
        if not args.corpus and not path.exists():
            fail("no corpus given and the sample corpora are not installed here; pass CORPUS")
        corpus = corpus_at(path)
        served, what = str(path), "the corpus"
    if args.query is not None and not args.query.strip():
        fail("the query is blank; ask a question or leave --query out")
    if args.trace is not None:
        check_writable(args.trace)
    check_telemetry(args)
    check_apart(args, (what, args.corpus), ("the corpus", corpus.path), *read_by(args.navigator),
                *read_by(args.judge, "--judge"))
    return served


def check_address(host: str, port: int) -> None:
    """Bind once and let go, so a taken port or a foreign address is one line now, not a traceback later."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        fail(f"cannot serve on host {host!r}: {exc.strerror}; pass --host with an address of this machine")
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server will
        try:
            probe.bind(address)
        except OSError as exc:
            fail(f"cannot serve on {url_host(host)}:{port}: {exc.strerror or exc}; choose another --port or --host")


def make_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=f"{PROG} serve",
                    description="Serve the explorer to web browsers (one explorer per tab) with textual-serve.")
    parser.add_argument("corpus", metavar="CORPUS", nargs="?", type=path_text,
                        help="a corpus (.yaml, PageIndex .json, .md or a folder), or a trace (.jsonl) to step "
                             "through (default: the sample handbook)")
    parser.add_argument("--host", default=DEFAULT_HOST,
                        help=f"address to listen on (default {DEFAULT_HOST}; 0.0.0.0 shares it on your network, "
                             "with no password)")
    parser.add_argument("--port", type=whole_number(1, 65535, "a port number"), default=DEFAULT_PORT,
                        help=f"port (default {DEFAULT_PORT})")
    parser.add_argument("--max-sessions", type=whole_number(1, MAX_SESSIONS), default=DEFAULT_MAX_SESSIONS, metavar="N",
                        help=f"browser tabs served at once; each runs its own explorer (default "
                             f"{DEFAULT_MAX_SESSIONS})")
    parser.add_argument("--query", "-q", metavar="Q", type=query_text,
                        help="each tab starts a walk on this question")
    add_walk_options(parser, default_model=EXPLORER_MODEL)
    parser.add_argument("--autoplay", type=seconds, metavar="SECONDS",
                        help="play the walk by itself, one step every SECONDS (demo mode)")
    parser.add_argument("--present", action="store_true",
                        help="each tab opens in presenting mode, for a room (P toggles it)")
    add_judge_option(parser, " (each tab's: the verdicts of its step panel and evaluation screen)")
    parser.add_argument("--no-files", action="store_true",
                        help="turn off the sessions' keys that open and save files (always off when --host is not "
                             "a loopback address)")
    parser.add_argument("--trace", metavar="FILE", type=path_text,
                        help="each tab saves its finished walks as traces: the first tab to FILE, the Nth to "
                             "FILE.tabN beside it")
    add_telemetry_options(parser)
    add_overwrite_option(parser)
    local = parser.add_argument_group(
        "the local model (local:)", f"Sized here for every tab; a model id's threads, ctx or slots is refused. "
                                    f"Memory: {MEMORY_NOTE}.")
    local.add_argument("--local-threads", type=whole_number(1, 256), metavar="N",
                       help=f"threads of each tab's llama.cpp server (default ${THREADS_ENV}, else 1)")
    local.add_argument("--local-ctx", type=whole_number(256, 1_048_576), metavar="N",
                       help=f"context tokens per slot (default ${CTX_ENV}, else 4096)")
    local.add_argument("--local-slots", type=whole_number(1, 64), metavar="N",
                       help=f"requests answered at once (default ${SLOTS_ENV}, else 2)")
    return parser


def cmd_serve(argv: Sequence[str]) -> int:
    args = make_parser().parse_args(argv)
    served = check_explorer_options(args)
    check_address(args.host, args.port)
    sessions = local_model_environment(args)  # each session's, in its command: this process's stays as it was
    server = ExplorerServer(lambda tab: shell_command(app_argv(args, tab), sessions), host=args.host, port=args.port,
                            max_sessions=args.max_sessions, served=served, files_off=files_off(args))
    try:
        server.serve()
    except OSError as exc:  # the port was taken between the check and now
        fail(f"cannot serve on {url_host(args.host)}:{args.port}: {exc.strerror or exc}; choose another --port")
    return EXIT_OK


def origin_matches(origin: str | None, host: str | None) -> bool:
    """A browser's web socket must come from a page of this server (no other site may drive a session)."""
    if origin is None:
        return True  # not a browser: nothing to hijack
    return host is not None and urlsplit(origin).netloc.lower() == host.lower()


def host_allowed(host_header: str | None, bound: str) -> bool:
    """Bound to loopback, answer only to local names: a page that rebinds its own name here gets nothing."""
    if not is_loopback(bound):
        return True
    if not host_header:
        return False
    name = urlsplit(f"//{host_header}").hostname or ""
    return name.lower() in LOCAL_NAMES | {bound.lower()}



class Session(AppService):
    """One tab's explorer process: it ends with its tab, and is killed if it does not quit in time."""

    async def run(self) -> None:
        await super().run()
        await self.remote_close()  # the app is gone (quit, crashed): let the page say so instead of freezing

    async def stop(self) -> None:
        process = self._process
        stopping = asyncio.ensure_future(super().stop())  # asks the app to quit, waits for its output to end
        done, _ = await asyncio.wait({stopping}, timeout=STOP_GRACE)
        if not done and process is not None and process.returncode is None:
            log.warning("an explorer did not quit %.0f s after its tab closed; killing it", STOP_GRACE)
            process.kill()
        await stopping
        if process is not None:
            await process.wait()


def size_asked(text: str | None, default: int, limit: int) -> int:
    """A size from a query string: a whole number from 1 to ``limit`` (more is ``limit``); anything else the
    default."""
    if text is None:
        return default
    try:
        return whole(text, 1, limit)
    except TooLarge:
        return limit
    except ValueError:
        return default


class BadMessage(ValueError):
    """A client's message that does not say what textual-serve's page says; the text is one line for the log."""


class NotTheProtocol(BadMessage):
    """Not a textual-serve message at all (not JSON, not a list naming its kind): the socket is closed (1008)."""


def read_message(data: str) -> tuple[str, Any]:
    """A text message of the page's protocol, ``["kind", payload?]``, as ``(kind, payload)``."""
    try:
        envelope = json.loads(data)
    except (ValueError, RecursionError):
        raise NotTheProtocol(f"a message that is not JSON ({one_line(clip(data, 40))!r})") from None
    if not isinstance(envelope, list) or not envelope or not isinstance(envelope[0], str):
        raise NotTheProtocol(f"a message that is not [kind, ...] ({one_line(clip(data, 40))!r})")
    return envelope[0], envelope[1] if len(envelope) > 1 else None


def terminal_size(payload: Any) -> tuple[int, int]:
    """A resize's ``{"width": W, "height": H}``: whole numbers from 1, clamped to ``MAX_WIDTH`` × ``MAX_HEIGHT``."""
    if not isinstance(payload, dict):
        raise BadMessage("a resize without {width, height}")
    sizes = []
    for key, limit in (("width", MAX_WIDTH), ("height", MAX_HEIGHT)):
        value = payload.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise BadMessage(f"a resize whose {key} is {one_line(clip(repr(value), 40))}, not a whole number from 1")
        sizes.append(min(value, limit))
    return sizes[0], sizes[1]


class OneLineFormatter(logging.Formatter):
    """Log records as one line each: an exception is its type and message, never a traceback (whose frames can
    hold a session's environment, and whose lines a client could provoke by the thousand)."""

    def formatException(self, ei: Any) -> str:
        kind, error = ei[0], ei[1]
        return f"({kind.__name__ if kind else 'error'}: {one_line(str(error))})"

    def format(self, record: logging.LogRecord) -> str:
        return super().format(record).replace("\n", " ")


class ExplorerServer(Server):
    """textual-serve's server, with the explorer's guards: local names, same-origin sockets, a session cap."""

    def __init__(self, command_for: Callable[[int], str], *, host: str, port: int, max_sessions: int, served: str,
                 files_off: bool = False) -> None:
        super().__init__(command_for(1), host=host, port=port, title=PROG,
                         public_url=f"http://{url_host(host)}:{port}", templates_path=TEMPLATES)
        self.command_for = command_for
        """The shell command of tab number N (each tab writes its own files)."""
        self.max_sessions = max_sessions
        self.served = served
        self.files_off = files_off
        self.tabs = 0
        """Tabs opened so far: the next one is number ``tabs + 1``."""
        self.sessions: dict[Session, web.WebSocketResponse] = {}

    def initialize_logging(self) -> None:
        # Plain lines on stderr. textual-serve's own setup prints tracebacks with their local variables, and
        # one of those is the app's environment, which can hold an API key.
        handler = logging.StreamHandler()
        handler.setFormatter(OneLineFormatter(f"{PROG}: %(message)s"))
        logging.basicConfig(level=logging.DEBUG if self.debug else logging.WARNING, handlers=[handler])

    async def _make_app(self) -> web.Application:
        app = await super()._make_app()

        @web.middleware
        async def guard_host(request: web.Request, handler: Any) -> web.StreamResponse:
            if not host_allowed(request.headers.get("Host"), self.host):
                raise web.HTTPForbidden(text=f"{PROG} serves this machine only; open {self.public_url}/")
            response: web.StreamResponse = await handler(request)
            return response

        app.middlewares.append(guard_host)
        return app

    async def on_startup(self, app: web.Application) -> None:
        shown = self.public_url
        if self.host in ("0.0.0.0", "::"):
            shown = f"http://{url_host(socket.gethostname())}:{self.port} (every address of this machine)"
        print(f"{PROG}: serving {visible(self.served)} on {shown} — one explorer per browser tab, at most "
              f"{self.max_sessions} at once; Ctrl+C stops", flush=True)
        if not is_loopback(self.host):
            print(f"{PROG}: warning: there is no password: whoever reaches this address can use the explorer "
                  "(its keys that open and save files are off)", flush=True)
        elif self.files_off:
            print(f"{PROG}: the sessions' keys that open and save files are off (--no-files)", flush=True)

    async def on_shutdown(self, app: web.Application) -> None:
        await asyncio.gather(*(self.end(session, socket_) for session, socket_ in list(self.sessions.items())))

    async def end(self, session: Session, websocket: web.WebSocketResponse) -> None:
        await session.stop()
        await websocket.close(code=WSCloseCode.GOING_AWAY, message=b"the server stopped")

    @aiohttp_jinja2.template("app_index.html")
    async def handle_index(self, request: web.Request) -> dict[str, Any]:
        # The page names the address the browser used (the server may listen on 0.0.0.0, or be reached as
        # localhost), so that its web socket's Origin and Host agree.
        socket_scheme = "wss" if request.scheme == "https" else "ws"
        return {
            "font_size": size_asked(request.query.get("fontsize"), DEFAULT_FONT_SIZE, MAX_FONT_SIZE),
            "app_websocket_url": f"{socket_scheme}://{request.host}/ws",
            "config": {"static": {"url": f"{request.scheme}://{request.host}/static/"}},
            "application": {"name": self.title},
        }

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        probe = web.WebSocketResponse()
        if not probe.can_prepare(request).ok:  # a plain GET: say what this address is, instead of dropping it
            log.warning("a plain GET of /ws (not a web socket) was answered 400")
            raise web.HTTPBadRequest(text=f"this address takes the explorer's web socket; open {self.public_url}/")
        if not origin_matches(request.headers.get("Origin"), request.host):
            raise web.HTTPForbidden(text="a session can be opened only from this server's own page")
        if len(self.sessions) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text=f"{self.max_sessions} explorers are open (--max-sessions); "
                                                  "close a tab and try again")
        websocket = web.WebSocketResponse(heartbeat=15)

        async def close() -> None:
            await websocket.close()

        self.tabs += 1
        session = Session(self.command_for(self.tabs), write_bytes=websocket.send_bytes,
                          write_str=websocket.send_str, close=close, download_manager=self.download_manager,
                          debug=self.debug)
        self.sessions[session] = websocket  # counted before the first await, so the cap holds under a burst
        try:
            await websocket.prepare(request)
            await session.start(size_asked(request.query.get("width"), DEFAULT_WIDTH, MAX_WIDTH),
                                size_asked(request.query.get("height"), DEFAULT_HEIGHT, MAX_HEIGHT))
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:  # one line: what ended this tab's session, never a traceback
            log.warning("a session ended on an error: %s: %s", type(error).__name__, one_line(str(error)))
        finally:
            await session.stop()
            del self.sessions[session]
        return websocket

    async def _process_messages(self, websocket: web.WebSocketResponse, app_service: AppService) -> None:
        """textual-serve's loop over a tab's messages, with every message checked first: one that is not the
        protocol closes the socket (1008); one whose payload is wrong is logged and ignored, and the session
        goes on; sizes are clamped to what a session may draw."""
        logged = 0
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue  # as textual-serve: the page sends text only
            try:
                kind, payload = read_message(message.data)
                if kind == "stdin":
                    if not isinstance(payload, str):
                        raise BadMessage(f"stdin that is {type(payload).__name__}, not text")
                    try:
                        data = payload.encode("utf-8")
                    except UnicodeEncodeError:
                        raise BadMessage("stdin that is not UTF-8 text (a lone surrogate)") from None
                    await app_service.send_bytes(data)
                elif kind == "resize":
                    await app_service.set_terminal_size(*terminal_size(payload))
                elif kind == "ping":
                    if payload is None:
                        raise BadMessage("a ping without its data")
                    await websocket.send_json(["pong", payload])
                elif kind == "blur":
                    await app_service.blur()
                elif kind == "focus":
                    await app_service.focus()
                else:
                    log.debug("a message of an unknown kind ignored: %s", one_line(clip(kind, 40)))
            except NotTheProtocol as problem:
                log.warning("a tab sent %s; its session is closed", problem)
                await websocket.close(code=WSCloseCode.POLICY_VIOLATION, message=b"not a textual-serve message")
                return
            except BadMessage as problem:
                logged += 1
                if logged <= LOGGED_PER_SESSION:
                    more = "; more from this tab are ignored without a word" if logged == LOGGED_PER_SESSION else ""
                    log.warning("a tab sent %s; ignored%s", problem, more)
