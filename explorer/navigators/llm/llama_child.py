"""``python -m explorer.navigators.llm.llama_child``: the process that runs llama.cpp's server for a ``local:``
model, and ends when the process that started it does.

It loads the model into ``xllamacpp.Server`` (llama.cpp's own HTTP server, on 127.0.0.1), writes one JSON
line on stdout, ``{"address": "http://127.0.0.1:PORT", "seconds": 0.4}`` (or ``{"error": "..."}``), and then
waits for its standard input to close. A port that cannot be bound is said in the error line itself
(``{"error": ..., "bind": "couldn't bind ..."}``): llama.cpp logs its own reason from a thread of its own, which
the exit can cut short, so the log alone could not say it every time.

The parent holds the other end of the stdin pipe and never writes to it: the pipe closes when the parent closes
it (a normal stop) or when the parent dies in any way, SIGKILL included, since the kernel closes a dead process's
files. A look at the parent's pid every half second covers a pipe held open by someone else. Either way the child
exits at once (``os._exit``: the server's threads are native and hold nothing that needs a clean shutdown). It
ignores Ctrl+C (SIGINT reaches the whole foreground process group): its lifetime is its parent's to decide.

This module stays small and imports nothing of the explorer: it runs once per model server.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import sys
import threading
import time

POLL = 0.5  # seconds between looks at the parent


def _say(document: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(document) + "\n")
    sys.stdout.flush()


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(POLL)
    os._exit(0)


def _wait_for_stdin_to_close() -> None:
    try:
        while sys.stdin.buffer.read(65536):
            pass  # the parent writes nothing; anything written is ignored
    except OSError:
        pass
    os._exit(0)


def _unbindable(host: str, port: int) -> str | None:
    """llama.cpp's own words when ``host:port`` cannot be bound now (it is taken), else ``None``; port 0 (a free
    one) always can be. The probe sets SO_REUSEADDR, as llama.cpp's server does, so a port in TIME_WAIT is free."""
    if not port:
        return None
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError:
            return f"couldn't bind HTTP server socket, hostname: {host}, port: {port}"
    return None


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="llama_child")
    parser.add_argument("--model", required=True)
    parser.add_argument("--threads", type=int, required=True)
    parser.add_argument("--ctx", type=int, required=True, help="context tokens per slot")
    parser.add_argument("--slots", type=int, required=True)
    parser.add_argument("--port", type=int, default=0, help="0: a free port")
    parser.add_argument("--host", default="127.0.0.1")
    args = parser.parse_args(argv)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    threading.Thread(target=_watch_parent, args=(os.getppid(),), name="llama-parent-watch", daemon=True).start()
    threading.Thread(target=_wait_for_stdin_to_close, name="llama-stdin-watch", daemon=True).start()
    started = time.monotonic()
    try:
        import xllamacpp  # type: ignore[import-untyped]

        params = xllamacpp.CommonParams()
        params.model.path = args.model
        params.n_parallel = args.slots
        params.n_ctx = args.ctx * args.slots  # llama.cpp splits the context between its slots
        params.cpuparams.n_threads = args.threads
        params.cpuparams_batch.n_threads = args.threads
        params.hostnames = [args.host]
        params.port = args.port
        params.verbosity = 1  # errors only: the log is kept for the one line said when loading fails
        params.ui = False
        server = xllamacpp.Server(params)
        address = server.listening_address
    except Exception as exc:  # RuntimeError("Failed to init server ..."): the log on stderr says why
        failed: dict[str, object] = {"error": f"{type(exc).__name__}: {exc}"}
        bind = _unbindable(args.host, args.port)
        if bind is not None:
            failed["bind"] = bind
        _say(failed)
        sys.stderr.flush()
        os._exit(3)
    _say({"address": address, "seconds": round(time.monotonic() - started, 3), "pid": os.getpid()})
    threading.Event().wait()  # until a watcher ends the process; the server lives on its own threads
    del server


if __name__ == "__main__":
    main()
