"""The bundled model's server in memory: resident and peak size of its process after one answer, at the default
sizes (or those of REASONING_EXPLORER_LOCAL_CTX / _SLOTS / _THREADS), and of this process beside it.

    .venv/bin/python bench/local_model_memory.py

Prints one line a process, in MB (from /proc: Linux only).
"""

from __future__ import annotations

import os

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators import resolve_navigator
from explorer.navigators.local_model import LocalModelNavigator

MODEL = "local:smollm2"


def megabytes(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM (the peak) of ``pid``, in MB."""
    found: dict[str, float] = {}
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                found[key] = int(value.split()[0]) / 1024
    return found


def main() -> None:
    navigator = resolve_navigator(MODEL)
    assert isinstance(navigator, LocalModelNavigator)
    server = navigator.server(MODEL)
    try:
        server.address(CancellationToken())
        request = NavigatorRequest("How long do refunds take?", MODEL, None,
                                   (NodeView("billing", "Billing", "Invoices, payments and refunds"),
                                    NodeView("accounts", "Accounts", "Signing in and roles")), 5, CancellationToken())
        navigator.choose(request)
        assert server.pid is not None
        config = server.config
        for name, pid in (("llama.cpp server", server.pid), ("this process", os.getpid())):
            size = megabytes(pid)
            print(f"{name}: {size['VmRSS']:.0f} MB resident, {size['VmHWM']:.0f} MB at its peak "
                  f"(ctx {config.ctx} × slots {config.slots}, threads {config.threads})")
    finally:
        navigator.close()
        server.stop()


if __name__ == "__main__":
    main()
