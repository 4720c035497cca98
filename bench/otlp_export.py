"""How long a walk's OTLP export holds the walk, and closing, against endpoints that answer, drip or refuse.

Run: .venv/bin/python bench/otlp_export.py [--rounds R]

Issue 21, point 5: an endpoint that sends its headers and then one byte every 0.5 s held ``walk`` for 92 s,
and the explorer's ``q`` after a walk for 89.7 s. Every export now has one deadline (2 s,
``explorer.walks.telemetry.EXPORT_TIMEOUT_SECONDS``), retries and the whole answer included. On loopback,
with the test's own faulty server (tests/explorer/faulty_endpoint.py) and receiver (tests/explorer/
otlp_receiver.py), this prints, per case, the median and the worst of R rounds:

- ``walk`` (the real entry point, a subprocess) on the sample handbook, without an endpoint, with an endpoint
  that answers, and with a dripping one: the walk's own wall time, so the difference is what the export costs;
- one walk's ``export_walk`` in this process, to an endpoint that answers, and to one that answers 503 with
  ``Retry-After: 0`` and then 200 (a retry);
- ``close()`` called while an export to a dripping endpoint is under way (the explorer's ``q``): from the
  call to its return.

It asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core import ReasoningRAGStrategy  # noqa: E402
from explorer.corpora import load_corpus  # noqa: E402
from explorer.ending import WalkEnd  # noqa: E402
from explorer.navigators import resolve_navigator  # noqa: E402
from explorer.trace import FinishedWalk  # noqa: E402
from explorer.walk_settings import WalkSettings  # noqa: E402
from explorer.walks.session import WalkSession  # noqa: E402
from explorer.walks.telemetry import ENDPOINT_ENV, WalkTelemetry  # noqa: E402
from tests.explorer.faulty_endpoint import FaultyEndpoint  # noqa: E402
from tests.explorer.http_stub import Reply, StubServer  # noqa: E402
from tests.explorer.otlp_receiver import OtlpReceiver  # noqa: E402

HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
QUERY = "How are refunds issued?"


def timed(action: Callable[[], object]) -> float:
    start = time.perf_counter()
    action()
    return time.perf_counter() - start


def walk_command(*extra: str) -> Callable[[], object]:
    env = {k: v for k, v in os.environ.items() if k != ENDPOINT_ENV}

    def run() -> object:
        return subprocess.run([sys.executable, "-m", "explorer", "walk", str(HANDBOOK), QUERY, *extra],
                              capture_output=True, cwd=ROOT, env=env, timeout=600, check=False)

    return run


def line(name: str, figures: list[float]) -> None:
    print(f"  {name:<58} median {statistics.median(figures):7.3f} s   worst {max(figures):7.3f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    rounds = parser.parse_args().rounds
    corpus = load_corpus(HANDBOOK)
    navigator = resolve_navigator("lexical:default")
    events = list(ReasoningRAGStrategy(corpus.index, navigator, "lexical:default").walk(QUERY))
    header = WalkSession(corpus, WalkSettings(QUERY), navigator).history.finished(corpus).header
    walk = FinishedWalk(header, events, WalkEnd.FINISHED)

    print(f"OTLP export on loopback, {rounds} rounds each (deadline 2 s)")
    print("walk, the real entry point:")
    line("no endpoint", [timed(walk_command()) for _ in range(rounds)])
    with OtlpReceiver() as receiver:
        line("an endpoint that answers", [timed(walk_command("--otlp-endpoint", receiver.url))
                                          for _ in range(rounds)])
    with FaultyEndpoint.dripping() as endpoint:
        line("a dripping endpoint (headers, then 1 byte / 0.5 s)",
             [timed(walk_command("--otlp-endpoint", endpoint.url)) for _ in range(rounds)])

    print("one export, in this process:")
    with OtlpReceiver() as receiver, WalkTelemetry(receiver.url) as telemetry:
        telemetry.export_walk(walk)  # httpx loads at the first send
        line("to an endpoint that answers", [timed(lambda: telemetry.export_walk(walk))
                                             for _ in range(max(rounds, 20))])
    retried = []
    for _ in range(rounds):
        with StubServer() as server, WalkTelemetry(server.url) as telemetry:
            server.add(Reply(503, headers={"Retry-After": "0"}), Reply(200, b""))
            retried.append(timed(lambda: telemetry.export_walk(walk)))
    line("503 with Retry-After: 0, then 200", retried)

    print("close() while a walk is sent to a dripping endpoint (the explorer's q):")
    closing = []
    for _ in range(rounds):
        with FaultyEndpoint.dripping() as endpoint:
            telemetry = WalkTelemetry(endpoint.url, report=lambda _: None)
            sending = threading.Thread(target=telemetry.export_walk, args=(walk,))
            sending.start()
            endpoint.wait_for_request(60)
            closing.append(timed(telemetry.close))
            sending.join(60)
    line("from the call to its return", closing)


if __name__ == "__main__":
    main()
