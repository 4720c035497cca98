"""``reasoning-explorer serve``: the explorer in a browser, one app process per tab, through textual-serve.

    reasoning-explorer serve [CORPUS | TRACE] [--host 127.0.0.1] [--port 8000] [--max-sessions N]
                             [--query Q] [--navigator M] [--max-visits N] [--max-depth D] [--on-failure P]
                             [--autoplay SECONDS]

Everything is checked before the server starts (the corpus loads, the navigator resolves, the address can
be bound), so a bad option is one line and exit code 2, never a page that fails later. textual-serve runs
each browser connection's app through a shell: the command is made here from the checked options, every
part quoted, with this interpreter (``sys.executable -m explorer.cli.serve_session``: the explorer, which also
ends when the server is gone), and ``exec`` so that the app *is* the process the server watches.

The server has no authentication: it binds to 127.0.0.1 unless told otherwise, answers only to local host
names when it does, refuses web sockets opened by pages of other sites, and caps the sessions it runs.
"""

from __future__ import annotations

import argparse
import asyncio
import ipaddress
import logging
import shlex
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import aiohttp_jinja2
from aiohttp import WSCloseCode, web
from textual_serve.app_service import AppService
from textual_serve.server import Server, log, to_int

from ..safe_text import visible
from .inputs import corpus_at, open_trace, trace_corpus
from .options import (
    DEFAULT_CORPUS,
    EXIT_OK,
    EXPLORER_MODEL,
    PROG,
    Parser,
    add_walk_options,
    fail,
    navigator_for,
    path_text,
    query_text,
    seconds,
    whole_number,
)

DEFAULT_HOST, DEFAULT_PORT, DEFAULT_MAX_SESSIONS, MAX_SESSIONS = "127.0.0.1", 8000, 8, 1_000
STOP_GRACE = 5.0  # seconds an app gets to quit after its tab closed before it is killed
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})


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


def app_argv(args: argparse.Namespace) -> list[str]:
    """The explorer's command line for one browser session, from options already checked."""
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
    if args.autoplay is not None:
        argv.append(f"--autoplay={args.autoplay!r}")
    if not is_loopback(args.host):
        argv.append("--no-files")  # whoever reaches a shared address must not read or write this user's files
    return argv


def shell_command(argv: Sequence[str]) -> str:
    """The one string textual-serve hands to a shell: every part quoted; ``exec`` so no shell stays between."""
    return "exec " + " ".join(shlex.quote(part) for part in argv)


def check_explorer_options(args: argparse.Namespace) -> str:
    """What the explorer itself would refuse, refused now, once; returns what is being served (for the banner)."""
    navigator_for(args.navigator, headless=False)
    if args.corpus and args.corpus.endswith(".jsonl"):
        trace = open_trace(args.corpus)
        trace_corpus(Path(args.corpus), trace, None)  # the app looks from the same folder, so it finds the same
        served = f"the trace {args.corpus}"
    else:
        path = Path(args.corpus) if args.corpus else DEFAULT_CORPUS
        if not args.corpus and not path.exists():
            fail("no corpus given and the sample corpora are not installed here; pass CORPUS")
        corpus_at(path)
        served = str(path)
    if args.query is not None and not args.query.strip():
        fail("the query is blank; ask a question or leave --query out")
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
    return parser


def cmd_serve(argv: Sequence[str]) -> int:
    args = make_parser().parse_args(argv)
    served = check_explorer_options(args)
    check_address(args.host, args.port)
    server = ExplorerServer(shell_command(app_argv(args)), host=args.host, port=args.port,
                            max_sessions=args.max_sessions, served=served)
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


class ExplorerServer(Server):
    """textual-serve's server, with the explorer's guards: local names, same-origin sockets, a session cap."""

    def __init__(self, command: str, *, host: str, port: int, max_sessions: int, served: str) -> None:
        super().__init__(command, host=host, port=port, title=PROG, public_url=f"http://{url_host(host)}:{port}")
        self.max_sessions = max_sessions
        self.served = served
        self.sessions: dict[Session, web.WebSocketResponse] = {}

    def initialize_logging(self) -> None:
        # Plain lines on stderr. textual-serve's own setup prints tracebacks with their local variables, and
        # one of those is the app's environment, which can hold an API key.
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter(f"{PROG}: %(message)s"))
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
            "font_size": to_int(request.query.get("fontsize", "16"), 16),
            "app_websocket_url": f"{socket_scheme}://{request.host}/ws",
            "config": {"static": {"url": f"{request.scheme}://{request.host}/static/"}},
            "application": {"name": self.title},
        }

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if not origin_matches(request.headers.get("Origin"), request.host):
            raise web.HTTPForbidden(text="a session can be opened only from this server's own page")
        if len(self.sessions) >= self.max_sessions:
            raise web.HTTPServiceUnavailable(text=f"{self.max_sessions} explorers are open (--max-sessions); "
                                                  "close a tab and try again")
        websocket = web.WebSocketResponse(heartbeat=15)

        async def close() -> None:
            await websocket.close()

        session = Session(self.command, write_bytes=websocket.send_bytes, write_str=websocket.send_str, close=close,
                          download_manager=self.download_manager, debug=self.debug)
        self.sessions[session] = websocket  # counted before the first await, so the cap holds under a burst
        try:
            await websocket.prepare(request)
            await session.start(to_int(request.query.get("width", "80"), 80),
                                to_int(request.query.get("height", "24"), 24))
            await self._process_messages(websocket, session)
        except asyncio.CancelledError:
            await websocket.close()
        except Exception as error:
            log.exception(error)
        finally:
            await session.stop()
            del self.sessions[session]
        return websocket
