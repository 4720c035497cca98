"""The real `reasoning-explorer` in a pseudo-terminal: every byte it writes, the screen they draw (pyte), the tty's
modes, and the terminal modes an application turned on and must turn off again."""

from __future__ import annotations

import fcntl
import os
import select
import shutil
import struct
import subprocess
import sys
import termios
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pyte

SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"
# DEC private modes the explorer's driver sets (alternate screen, mouse reporting, focus events, bracketed paste):
# each must be reset after its last set.
PRIVATE_MODES = (1049, 1000, 1003, 1006, 1015, 1004, 2004)
# Synchronized output (DEC mode 2026), as a modern terminal has it: the explorer asks whether the terminal has it,
# and this one says so, so each frame comes between a start and an end, and the screen read is a whole frame (a frame
# read half drawn showed a prompt gone that the rest of the frame draws again).
SYNC_QUERY = b"\x1b[?2026$p"
SYNC_ANSWER = b"\x1b[?2026;2$y"
SYNC_START = b"\x1b[?2026h"
SYNC_END = b"\x1b[?2026l"


class Terminal:
    """``reasoning-explorer ARGS`` on the slave side of a pty of ``columns`` × ``rows``, read on a thread."""

    def __init__(self, args: list[str], cwd: Path, columns: int = 120, rows: int = 40) -> None:
        self.master, self.slave = os.openpty()
        fcntl.ioctl(self.slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, columns, 0, 0))
        self.modes_before = termios.tcgetattr(self.slave)
        self.screen = pyte.Screen(columns, rows)
        self._stream = pyte.ByteStream(self.screen)
        self.written = bytearray()
        self._unshown = bytearray()
        """What came after the start of a frame not ended yet: drawn when its end comes."""
        self._answered = False
        self._lock = threading.Lock()
        self._stop = threading.Event()
        environment = {**os.environ, "TERM": "xterm-256color"}
        for name in ("COLUMNS", "LINES", "TEXTUAL", "TEXTUAL_DRIVER"):
            environment.pop(name, None)
        self.process = subprocess.Popen([SCRIPT, *args], stdin=self.slave, stdout=self.slave, stderr=self.slave,
                                        cwd=cwd, env=environment, start_new_session=True)
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while not self._stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.05)
            if not ready:
                continue
            try:
                data = os.read(self.master, 65536)
            except OSError:
                return
            with self._lock:
                self.written += data
                self._unshown += data
                if not self._answered and self.written.find(SYNC_QUERY, len(self.written) - len(data) - 8) >= 0:
                    self._answered = True
                    os.write(self.master, SYNC_ANSWER)
                self._stream.feed(self._whole_frames())

    def _whole_frames(self) -> bytes:
        """What came that no unfinished frame holds back (kept: a frame begun and not ended, and a last escape
        sequence cut short, which may be a frame's start)."""
        unshown = self._unshown
        start, end = unshown.rfind(SYNC_START), unshown.rfind(SYNC_END)
        cut = start if start > end else len(unshown)
        escape = unshown.rfind(b"\x1b", max(0, cut - len(SYNC_START) + 1), cut)
        if escape >= 0 and SYNC_START.startswith(bytes(unshown[escape:cut])):
            cut = escape
        shown, self._unshown = bytes(unshown[:cut]), unshown[cut:]
        return shown

    def text(self) -> str:
        with self._lock:
            return "\n".join(self.screen.display)

    def wait_for(self, text: str, timeout: float = 60.0) -> str:
        """Wait until the screen shows ``text`` (a hang guard, not a pause); on a timeout, say what it showed."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text()
            if text in shown:
                return shown
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {text!r} (exit code {self.process.poll()}):\n{shown}")
            time.sleep(0.05)

    def wait_until(self, holds: Callable[[str], bool], what: str, timeout: float = 60.0) -> str:
        """Wait until ``holds(screen text)``, ``what`` saying what is awaited (a hang guard, not a pause)."""
        deadline = time.monotonic() + timeout
        while True:
            shown = self.text()
            if holds(shown):
                return shown
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {what} (exit code {self.process.poll()}):\n{shown}")
            time.sleep(0.05)

    def frames(self) -> int:
        """How many whole frames the explorer has drawn so far (each ends its synchronized update)."""
        with self._lock:
            return self.written.count(SYNC_END)

    def wait_for_frame(self, after: int, timeout: float = 60.0) -> None:
        """Wait until a frame is drawn after the first ``after`` (a hang guard, not a pause): what a key did has been
        drawn, or the screen drew for another reason (the cursor's blink), which says nothing of the key."""
        self.wait_until(lambda _: self.frames() > after, f"a frame after the first {after}", timeout)

    def press(self, keys: str) -> None:
        os.write(self.master, keys.encode())

    def wait(self, timeout: float = 60.0) -> int:
        """Wait for the explorer to end, then for its last bytes; returns its exit code."""
        code = self.process.wait(timeout)
        quiet_since = time.monotonic()
        deadline = quiet_since + timeout  # a hang guard: a pty that never stops writing fails the test
        size = len(self.written)
        while time.monotonic() - quiet_since < 0.3:  # the reader drains what is left in the pty
            if time.monotonic() > deadline:
                raise AssertionError(f"the pty was still being written {timeout} s after the explorer ended")
            time.sleep(0.05)
            if len(self.written) != size:
                size, quiet_since = len(self.written), time.monotonic()
        return code

    def modes_left_on(self) -> list[str]:
        """The terminal modes the explorer turned on and did not turn off again."""
        written = bytes(self.written)
        left = [f"?{mode}h" for mode in PRIVATE_MODES
                if written.rfind(f"\x1b[?{mode}h".encode()) > written.rfind(f"\x1b[?{mode}l".encode())]
        if written.rfind(b"\x1b[?25l") > written.rfind(b"\x1b[?25h"):
            left.append("cursor hidden")
        return left

    def hang_up(self) -> None:
        """Close the terminal as a closed window does: the master side goes, and nothing sends a signal."""
        self._stop.set()
        self._reader.join(10)
        os.close(self.master)
        self.master = -1

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._stop.set()
        self._reader.join(10)
        if self.master >= 0:
            os.close(self.master)
        os.close(self.slave)
