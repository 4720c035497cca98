"""The command line, run in this process: ``main(argv)`` with its own stdin, stdout, stderr, working folder and
environment, returning what a subprocess would (:class:`subprocess.CompletedProcess`).

A fresh interpreter per command cost the suite about half a second of imports each, hundreds of times over, and
the model server once per command. Only the tests of the process itself (signals, exit codes on SIGINT and
SIGTERM, the console script, a closed stdin, a pty) start a real one: they are marked ``process``.

What the command changes in the process is put back afterwards: the environment (a test's ``env`` and ``unset``;
the command line itself sets none, its folders travel in its wiring), the working folder, the standard streams and
the signal handlers.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
from collections.abc import Iterable, Mapping
from pathlib import Path

from explorer.cli.main import main

ROOT = Path(__file__).resolve().parents[1]

_HANDLED = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class _Captured(io.TextIOWrapper):
    """A text stream over bytes, as a pipe's would be (``reconfigure`` works on it, as ``main`` needs)."""

    def __init__(self, data: bytes = b"") -> None:
        super().__init__(io.BytesIO(data), encoding="utf-8", errors="strict", write_through=True)

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:  # no descriptor: code that asks must not reach the test runner's own
        raise io.UnsupportedOperation("fileno")

    def taken(self) -> bytes:
        self.flush()
        raw = self.buffer
        assert isinstance(raw, io.BytesIO)
        return raw.getvalue()


def _text(data: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` gives them: UTF-8, universal newlines."""
    return data.decode("utf-8", errors="surrogateescape").replace("\r\n", "\n").replace("\r", "\n")


def run_cli(*args: object, cwd: Path | str = ROOT, env: Mapping[str, str] | None = None, unset: Iterable[str] = (),
            columns: int | None = 200, stdin: str = "",
            binary: bool = False) -> subprocess.CompletedProcess[str] | subprocess.CompletedProcess[bytes]:
    """``reasoning-explorer ARGS`` in this process.

    ``unset`` removes variables and ``env`` then adds or replaces them, for this command only; ``columns`` is the
    ``COLUMNS`` the command sees (``None``: none set, as in a pipe with no terminal). ``binary`` returns stdout and
    stderr as bytes (as ``subprocess.run`` without ``text``)."""
    argv = [os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in args]
    saved_env = dict(os.environ)
    saved_cwd = os.getcwd()
    saved_streams = sys.stdin, sys.stdout, sys.stderr
    saved_handlers = {number: signal.getsignal(number) for number in _HANDLED}
    out, err = _Captured(), _Captured()
    try:
        os.environ.pop("COLUMNS", None)
        if columns is not None:
            os.environ["COLUMNS"] = str(columns)
        for name in unset:
            os.environ.pop(name, None)
        os.environ.update(env or {})
        os.chdir(cwd)
        sys.stdin, sys.stdout, sys.stderr = _Captured(stdin.encode()), out, err
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's --help and its own usage errors
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    finally:
        sys.stdin, sys.stdout, sys.stderr = saved_streams
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)
        for number, handler in saved_handlers.items():
            if handler is not None and signal.getsignal(number) is not handler:  # (only the main thread may)
                signal.signal(number, handler)
    if binary:
        return subprocess.CompletedProcess(["reasoning-explorer", *argv], code, out.taken(), err.taken())
    return subprocess.CompletedProcess(["reasoning-explorer", *argv], code, _text(out.taken()), _text(err.taken()))
