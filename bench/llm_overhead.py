"""The LLM navigator's own cost per call, next to a raw kept-alive HTTP request, against a server that answers at once.

Run: .venv/bin/python bench/llm_overhead.py [--calls N] [--rounds R] [--before REV]

A local HTTP/1.1 server on 127.0.0.1 (in a subprocess, so it does not share our interpreter
lock) answers every POST at once with the same small chat completion. In the same run, and
interleaved round by round so that a change in the machine's load hits all alike, it measures:

- a raw ``httpx.Client`` POST on a kept-alive connection (the floor for HTTP from Python);
- a raw ``httpx.AsyncClient`` POST on a kept-alive connection, awaited on a running loop;
- ``OpenAICompatibleNavigator.choose`` for a five-candidate offer: prompt, HTTP through the
  navigator's one client, reading the answer, the transcript;
- with ``--before REV``, the same for the navigator as it was at git revision REV (the
  one-file version, e.g. ``2dd71ce~1``), for the figures before and after.

It prints the median and the 90th percentile per call, the navigator's overhead over the raw
request, and how many TCP connections each client opened. It asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ANSWER = json.dumps({
    "id": "c", "object": "chat.completion", "model": "bench-model",
    "choices": [{"index": 0, "message": {"role": "assistant",
                                         "content": json.dumps({"selected": ["billing"], "rationale": "because"})},
                 "finish_reason": "stop"}],
    "usage": {"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110},
}).encode()
HEADERS = {"Authorization": "Bearer x", "Accept": "application/json"}


# -- the server (run with --serve in a subprocess) ----------------------------------------------------------------


def serve() -> None:
    posted_from: set[tuple[str, int]] = set()  # the client ends of the connections that POSTed
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def setup(self) -> None:
            super().setup()
            # As real servers do: without it, headers and body leave in two segments and the
            # client's delayed ACK adds 40 ms to every kept-alive answer.
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with lock:
                posted_from.add(self.client_address)
            self._send(ANSWER)

        def do_GET(self) -> None:  # /connections: how many connections have POSTed so far
            with lock:
                self._send(str(len(posted_from)).encode())

        def _send(self, body: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    server.serve_forever()


# -- the clients --------------------------------------------------------------------------------------------------


def navigator_call(module: ModuleType, model: str) -> Callable[[], object]:
    from core import CancellationToken, NavigatorRequest, NodeView

    navigator = module.OpenAICompatibleNavigator()
    candidates = (
        NodeView("billing", "Billing", "Invoices, refunds and payment methods."),
        NodeView("accounts", "Accounts", "Signing in, security, closing an account."),
        NodeView("plans", "Plans", "Free, Team and Business plans."),
        NodeView("support", "Support", "Contacting a person."),
        NodeView("security", "Security", "Incidents and certifications."),
    )

    def call() -> object:
        request = NavigatorRequest("How long does a refund take?", model, None, candidates, 15, CancellationToken())
        choice = navigator.choose(request)
        assert choice.selected == ("billing",), choice
        return choice

    call.navigator = navigator  # type: ignore[attr-defined]  # kept alive as long as the call is
    return call


def raw_sync_call(url: str, body: dict[str, Any]) -> Callable[[], object]:
    import httpx

    client = httpx.Client(timeout=10)

    def call() -> object:
        response = client.post(url, json=body, headers=HEADERS)
        return json.loads(response.text)

    return call


def raw_async_call(url: str, body: dict[str, Any]) -> Callable[[], object]:
    """A kept-alive AsyncClient driven by one loop in this thread (no handover between threads)."""
    import httpx

    loop = asyncio.new_event_loop()

    async def make() -> httpx.AsyncClient:
        return httpx.AsyncClient(timeout=10)

    client = loop.run_until_complete(make())

    async def post() -> object:
        response = await client.post(url, json=body, headers=HEADERS)
        return json.loads(response.text)

    def call() -> object:
        return loop.run_until_complete(post())

    return call


def load_before(rev: str) -> ModuleType:
    """The one-file navigator as it was at ``rev``, imported under another name."""
    source = subprocess.run(["git", "-C", str(ROOT), "show", f"{rev}:explorer/navigators/openai_compat.py"],
                            check=True, capture_output=True, text=True).stdout
    name = "explorer.navigators._openai_compat_before"
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "explorer.navigators"
    sys.modules[name] = module  # dataclasses look their module up
    exec(compile(source, f"{rev}:openai_compat.py", "exec"), module.__dict__)
    return module


# -- measuring ----------------------------------------------------------------------------------------------------


def connections(port: int) -> int:
    """How many connections the clients have POSTed on so far."""
    import httpx

    return int(httpx.get(f"http://127.0.0.1:{port}/connections").text)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--calls", type=int, default=200, help="calls per client per round (default 200)")
    parser.add_argument("--rounds", type=int, default=5, help="rounds, interleaving the clients (default 5)")
    parser.add_argument("--before", metavar="REV", help="also measure the navigator as it was at git revision REV")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve()
        return

    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        base = f"http://127.0.0.1:{port}/v1"
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            os.environ.pop(name, None)
        os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-secret"
        os.environ["OPENAI_BASE_URL"] = base
        model = "openai:bench-model"

        from core import NavigatorRequest, NodeView
        from explorer.navigators import openai_compat
        from explorer.navigators.llm.prompt import messages, payload

        offer = NavigatorRequest("How long does a refund take?", model, None, (NodeView("billing", "Billing"),), 15)
        body = payload("bench-model", messages(offer))
        clients: dict[str, Callable[[], object]] = {}
        opened: dict[str, int] = {}
        makers: list[tuple[str, Callable[[], Callable[[], object]]]] = [
            ("raw httpx.Client POST, kept alive", lambda: raw_sync_call(f"{base}/chat/completions", body)),
            ("raw httpx.AsyncClient POST, kept alive", lambda: raw_async_call(f"{base}/chat/completions", body)),
            ("openai: navigator choose()", lambda: navigator_call(openai_compat, model)),
        ]
        if args.before:
            before_module = load_before(args.before)
            makers.append(
                (f"openai: navigator choose() at {args.before}", lambda: navigator_call(before_module, model))
            )
        for label, make in makers:
            before = connections(port)
            clients[label] = make()
            for _ in range(20):  # warm up: connect, build the TLS context and the loop, fill caches
                clients[label]()
            opened[label] = connections(port) - before

        times: dict[str, list[float]] = {label: [] for label in clients}
        made: dict[str, int] = dict.fromkeys(clients, 0)
        for _ in range(args.rounds):
            for label, call in clients.items():
                before = connections(port)
                samples = times[label]
                for _ in range(args.calls):
                    started = time.perf_counter_ns()
                    call()
                    samples.append((time.perf_counter_ns() - started) / 1e6)
                made[label] += connections(port) - before

        print(f"LLM navigator per-call cost, server on 127.0.0.1 answering at once; {args.rounds} rounds x "
              f"{args.calls} calls per client, interleaved; python {sys.version.split()[0]}, {os.cpu_count()} cpus")
        width = max(map(len, times))
        raw = statistics.median(times["raw httpx.Client POST, kept alive"])
        for label, samples in times.items():
            ordered = sorted(samples)
            median = statistics.median(ordered)
            p90 = ordered[int(0.9 * (len(ordered) - 1))]
            extra = "" if label.startswith("raw httpx.Client") else f"   {median - raw:+.3f} ms over the raw request"
            print(f"  {label:<{width}}  median {median:7.3f} ms   p90 {p90:7.3f} ms   "
                  f"connections {opened[label]} + {made[label]} while measured{extra}")
    finally:
        server.terminate()
        server.wait(timeout=10)


if __name__ == "__main__":
    main()
