"""A real `reasoning-explorer serve` on a free port of 127.0.0.1, and the processes it starts (Linux /proc)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

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


def accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=1):
            return True
    except OSError:
        return False


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
    """`reasoning-explorer serve` as a subprocess, ready once its port accepts; stopped with Ctrl+C after."""
    port = free_port()
    output = tmp_path / f"serve-{port}.log"
    with output.open("wb") as sink:
        process = subprocess.Popen([sys.executable, "-m", "explorer", "serve", "--port", str(port), *options],
                                   cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    served = Served(process, port, output)
    try:
        wait_until(lambda: process.poll() is not None or accepts(port), "the server to listen")
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
