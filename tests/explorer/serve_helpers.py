"""A real `reasoning-explorer serve` on a free port of 127.0.0.1, the processes it starts (Linux /proc), and a
browser tab spoken to over its web socket."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

ROOT = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def wait_until(probe: Callable[[], T], what: str, timeout: float = 60.0, interval: float = 0.1) -> T:
    """Poll ``probe`` until it returns something truthy; the bound is generous, it only stops a hang."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(interval)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def listening(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself holds a socket listening on ``port`` (Linux /proc). That the port accepts
    is not enough: another test's server, started on the same free port a moment earlier, accepts too, and the
    server under test then fails to listen, and exits."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            rows = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for row in rows:
            fields = row.split()
            if fields[3] == "0A" and int(fields[1].rsplit(":", 1)[1], 16) == port:  # 0A: LISTEN
                inodes.add(fields[9])
    try:
        links = [os.readlink(entry) for entry in Path(f"/proc/{pid}/fd").iterdir()]
    except OSError:
        return False
    return any(link == f"socket:[{inode}]" for link in links for inode in inodes)


def children_of(pid: int) -> list[int]:
    """The live processes whose parent is ``pid`` (zombies excluded: they have ended)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        state, parent = stat.rsplit(")", 1)[1].split()[:2]
        if int(parent) == pid and state != "Z":
            found.append(int(entry.name))
    return found


def is_alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def cmdline(pid: int) -> list[str]:
    return Path(f"/proc/{pid}/cmdline").read_bytes().decode().split("\0")[:-1]


@dataclass
class Served:
    process: subprocess.Popen[bytes]
    port: int
    output: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def printed(self) -> str:
        return self.output.read_text(errors="replace")

    def sessions(self) -> list[int]:
        """The explorer processes serving browser tabs right now."""
        return children_of(self.process.pid)


@contextmanager
def serving(tmp_path: Path, *options: str) -> Iterator[Served]:
    """`reasoning-explorer serve` as a subprocess, ready once it listens on its port; stopped with Ctrl+C after.

    The port is free when it is chosen, but a test on another worker may take it before the server binds it: the
    server then says it cannot listen there and exits, and another free port is tried (at most five)."""
    for _ in range(5):
        port = free_port()
        output = tmp_path / f"serve-{port}.log"
        with output.open("wb") as sink:
            process = subprocess.Popen([sys.executable, "-m", "explorer", "serve", "--port", str(port), *options],
                                       cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        served = Served(process, port, output)
        wait_until(lambda p=process, at=port: p.poll() is not None or listening(p.pid, at), "the server to listen")
        if process.poll() is None or "cannot serve on" not in served.printed():
            break
    try:
        assert process.poll() is None, f"the server exited: {served.printed()}"
        yield served
    finally:
        sessions = served.sessions() if process.poll() is None else []
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
        for pid in sessions:  # never leave an explorer behind, whatever the test found
            if is_alive(pid):
                os.kill(pid, signal.SIGKILL)


class Tab:
    """One browser tab of a served explorer, spoken to as textual-serve's page does over its web socket: keys go
    as ``["stdin", "..."]``, sizes as ``["resize", {...}]``; the bytes that come back are the terminal output,
    drawn here by a terminal emulator (pyte) so that a test reads the screen a person would see."""

    def __init__(self, client: Any, websocket: Any, width: int, height: int) -> None:
        import pyte

        self.client = client
        self.websocket = websocket
        self.screen = pyte.Screen(width, height)
        self._stream = pyte.ByteStream(self.screen)
        self.received = 0
        self.output = bytearray()
        """Every byte of terminal output received (kept for tests that read the escape sequences)."""
        self.texts: list[Any] = []
        """The text messages (JSON) the server sent, e.g. ``["pong", ...]``."""
        self.close_code: int | None = None
        self.ended = asyncio.Event()
        self._reader = asyncio.ensure_future(self._read())

    @classmethod
    async def open(cls, port: int, width: int = 200, height: int = 50, query: str | None = None,
                   draw: tuple[int, int] | None = None) -> Tab:
        """Open the tab's socket (``query`` replaces ``width``/``height`` in the URL when given); ``draw`` is the
        size the emulator draws at, when it is not ``width`` × ``height``."""
        import aiohttp

        client = aiohttp.ClientSession()
        address = f"http://127.0.0.1:{port}/ws?" + (query if query is not None else f"width={width}&height={height}")
        try:
            websocket = await client.ws_connect(address, headers={"Origin": f"http://127.0.0.1:{port}"},
                                                max_msg_size=0)
        except BaseException:
            await client.close()
            raise
        columns, rows = draw or (width, height)
        return cls(client, websocket, columns, rows)

    async def _read(self) -> None:
        import aiohttp

        try:
            async for message in self.websocket:
                if message.type == aiohttp.WSMsgType.BINARY:
                    self.received += len(message.data)
                    self.output += message.data
                    self._stream.feed(message.data)
                elif message.type == aiohttp.WSMsgType.TEXT:
                    self.texts.append(json.loads(message.data))
        finally:
            self.close_code = self.websocket.close_code
            self.ended.set()

    def text(self) -> str:
        return "\n".join(self.screen.display)

    def flat(self) -> str:
        """The screen as one line of words: text a box wraps reads whole (borders and runs of spaces dropped)."""
        return " ".join(re.sub(r"[│┃▊▎▏╭╮╰╯├└─━╸╺▔▁█▀▄]", " ", self.text()).split())

    def dialog(self) -> str:
        """The text of the modal dialog on screen (what lies between its █ borders), as one line of words."""
        inside = [row[row.index("█") + 1:row.rindex("█")] for row in self.screen.display if row.count("█") >= 2]
        return " ".join(re.sub(r"[▊▎▔▁▀▄]", " ", " ".join(inside)).split())

    async def wait_for(self, probe: Callable[[], Any], what: str, timeout: float = 60.0) -> Any:
        """Wait until ``probe()`` is truthy (a hang guard, not a pause); on a timeout, say what the screen showed."""
        deadline = time.monotonic() + timeout
        while True:
            value = probe()
            if value:
                return value
            if self.ended.is_set() or time.monotonic() > deadline:
                raise AssertionError(f"gave up waiting for {what} (socket closed: {self.ended.is_set()}, code "
                                     f"{self.close_code}); the screen:\n{self.text()}")
            await asyncio.sleep(0.05)

    async def shows(self, text: str, timeout: float = 60.0) -> str:
        """Wait until the screen shows ``text`` (read as :meth:`flat`); returns the flat screen."""
        return str(await self.wait_for(lambda: text in self.flat() and self.flat(), f"the screen to show {text!r}",
                                       timeout))

    async def send(self, message: Any) -> None:
        """A message as the page sends it (JSON), or raw text when ``message`` is a ``str``."""
        await self.websocket.send_str(message if isinstance(message, str) else json.dumps(message))

    async def press(self, keys: str) -> None:
        await self.send(["stdin", keys])

    async def ping(self, data: str) -> None:
        """A ping answered: the session's socket is alive and its messages are read."""
        await self.send(["ping", data])
        await self.wait_for(lambda: ["pong", data] in self.texts, f"the pong to {data!r}")

    async def close(self) -> None:
        await self.websocket.close()
        await self.client.close()
        await self._reader


def memory_of(pid: int) -> dict[str, int]:
    """A process's resident memory now and at its peak, in bytes (``VmRSS``, ``VmHWM`` of /proc/PID/status)."""
    found = {}
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = row.partition(":")
        if name in ("VmRSS", "VmHWM"):
            found[name] = int(value.split()[0]) * 1024
    return found
