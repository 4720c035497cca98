"""How fast the explorer answers a cancel, a quit, a read timeout and a big tree: the figures tests must not assert.

Run: .venv/bin/python bench/responsiveness.py [--rounds N] [--skip-tui]

The tests check that each of these things happens (a cancel wakes a blocked
navigator, the screen says "cancelled" while the navigator is still blocked, a
quit ends the walk); how long it takes depends on the machine and its load, so
it is measured here and printed next to the target it used to be asserted
against. Each figure is the median and the worst of ``--rounds`` runs (the
app's figures of fewer, as each starts the whole app). It asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from core import (
    CancellationToken,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChoice,
    NavigatorRequest,
    NodeView,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievedDocument,
    TreeNavigator,
    TreeNavigatorRegistry,
)
from explorer.corpora import Corpus, load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.manual import DecisionDesk, ManualNavigator
from explorer.walk_settings import WalkSettings
from explorer.walks.session import SessionEnded, WalkSession
from tests.explorer.http_stub import Reply, StubServer

ROOT = Path(__file__).resolve().parent.parent
HANDBOOK = load_corpus(ROOT / "sample_corpora" / "handbook.yaml")
HOUR_LONG = "decisions:\n  start: {select: [billing], delay: 3600}\n"
ROWS: list[tuple[str, list[float], str]] = []


def note(label: str, seconds: list[float], target: str) -> None:
    ROWS.append((label, seconds, target))
    print(f"  {label:<70} median {statistics.median(seconds) * 1000:8.1f} ms   worst "
          f"{max(seconds) * 1000:8.1f} ms   ({target})", flush=True)


def request(model: str, token: CancellationToken) -> NavigatorRequest:
    views = tuple(NodeView(c, c.title(), "") for c in ("billing", "refunds"))
    return NavigatorRequest("How are refunds issued?", model, None, views, 10, token)


def after_trip(call: Callable[[], object], token: CancellationToken, ready: Callable[[], bool] | None = None,
               delay: float = 0.05) -> float:
    """Seconds from tripping ``token`` (``delay`` after ``ready()`` holds) until ``call()`` returns or raises."""
    tripped: list[float] = []

    def trip() -> None:
        deadline = time.monotonic() + 30
        while ready is not None and not ready() and time.monotonic() < deadline:
            time.sleep(0.001)
        time.sleep(delay)
        tripped.append(time.perf_counter())
        token.cancel()

    threading.Thread(target=trip, daemon=True).start()
    with contextlib.suppress(Exception):  # the outcome is the tests' business; here only the time counts
        call()
    return time.perf_counter() - tripped[0]


# -- core ---------------------------------------------------------------------------------------------


def bench_core(rounds: int) -> None:
    def token_wait() -> float:
        token = CancellationToken()
        return after_trip(lambda: token.wait(3600), token)

    note("token.wait(3600) returns after cancel", [token_wait() for _ in range(rounds)], "was < 1 s")

    index = HierarchyIndex([RetrievedDocument("", i, 0.0, {HierarchyMetadata.ID: i, "reasoningTitle": i})
                            for i in ("support", "billing")])

    class Blocked(TreeNavigator):
        def __init__(self) -> None:
            self.inside = threading.Event()

        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            self.inside.set()
            if request.cancellation.wait(3600):
                raise RetrievalCancelled()
            return NavigatorChoice(())

    def blocked_walk() -> float:
        token, navigator = CancellationToken(), Blocked()
        strategy = ReasoningRAGStrategy(index, navigator, "blocked")
        return after_trip(lambda: strategy.retrieve("q", cancellation=token), token, navigator.inside.is_set)

    note("walk with a navigator blocked on the token ends after cancel", [blocked_walk() for _ in range(rounds)],
         "was < 1 s")


# -- the session --------------------------------------------------------------------------------------


def bench_session(rounds: int, folder: Path) -> None:
    script = folder / "hour-long.yaml"
    script.write_text(HOUR_LONG)
    model = f"script:{script}"

    def started(walk: WalkSession, permits: int) -> tuple[queue.Queue[object], threading.Thread]:
        messages: queue.Queue[object] = queue.Queue()
        worker = threading.Thread(target=walk.run, args=(messages.put,), daemon=True)
        worker.start()
        walk.step(permits)
        return messages, worker

    def ended(messages: queue.Queue[object]) -> None:
        while not isinstance(messages.get(timeout=30), SessionEnded):
            pass

    def cancel_blocked() -> float:
        walk = WalkSession(HANDBOOK, WalkSettings("refunds", model), resolve_navigator(model))
        messages, _ = started(walk, 3)
        deadline = time.monotonic() + 30
        while not (walk.busy and messages.qsize() == 2) and time.monotonic() < deadline:
            time.sleep(0.001)
        begun = time.perf_counter()
        walk.cancel()
        ended(messages)
        return time.perf_counter() - begun

    def close_paused() -> float:
        walk = WalkSession(HANDBOOK, WalkSettings("refunds", "lexical:default"), resolve_navigator("lexical:default"))
        messages, worker = started(walk, 1)
        messages.get(timeout=30)
        begun = time.perf_counter()
        walk.close()
        ended(messages)
        worker.join(30)
        return time.perf_counter() - begun

    note("session: cancel while the navigator is blocked, to SessionEnded", [cancel_blocked() for _ in range(rounds)],
         "was < 0.1 s")
    note("session: close while paused, to the worker's end", [close_paused() for _ in range(rounds)], "was < 0.5 s")


# -- the shipped navigators ---------------------------------------------------------------------------


def bench_navigators(rounds: int, folder: Path) -> None:
    script = folder / "hour-long.yaml"
    script.write_text(HOUR_LONG)
    model = f"script:{script}"
    scripted = resolve_navigator(model)

    def script_delay() -> float:
        token = CancellationToken()
        return after_trip(lambda: scripted.choose(request(model, token)), token, delay=0.1)

    note("script: an hour-long delay returns after cancel", [script_delay() for _ in range(rounds)],
         "was < 0.1 s after the trip")

    manual = resolve_navigator("manual:")

    def manual_alone() -> float:
        begun = time.perf_counter()
        with contextlib.suppress(RuntimeError):  # NoOneToDecide: the tests check it
            manual.choose(request("manual:", CancellationToken()))
        return time.perf_counter() - begun

    note("manual: with nobody to decide, fails", [manual_alone() for _ in range(rounds)], "was < 0.1 s")

    desk = DecisionDesk()
    desk.attach(lambda pending: None)
    manual = ManualNavigator(desk)
    try:
        def manual_cancel() -> float:
            token = CancellationToken()
            return after_trip(lambda: manual.choose(request("manual:", token)), token, delay=0.1)

        note("manual: waiting for a person, returns after cancel", [manual_cancel() for _ in range(rounds)],
             "was < 0.1 s after the trip")
    finally:
        desk.detach()


# -- the OpenAI-compatible navigator against a local stub server ----------------------------------------


def completion(content: str) -> dict[str, object]:
    return {"id": "c", "object": "chat.completion", "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]}


ANSWER = completion(json.dumps({"selected": ["billing"], "rationale": "because"}))


def bench_http(rounds: int) -> None:
    saved = dict(os.environ)
    model = "openai:bench-model"
    try:
        for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            os.environ.pop(name, None)
        os.environ["OPENAI_API_KEY"] = "sk-bench-not-a-secret"
        with StubServer() as server:
            os.environ["OPENAI_BASE_URL"] = f"{server.url}/v1"
            navigator = TreeNavigatorRegistry().resolve(model)

            def cancel_slow_answer() -> float:
                server.add(Reply(200, ANSWER, delay=60))
                seen, token = len(server.requests), CancellationToken()
                return after_trip(lambda: navigator.choose(request(model, token)), token,
                                  lambda: len(server.requests) > seen)

            def cancel_backoff() -> float:
                server.add(Reply(503, "", {"Retry-After": "3600"}), Reply(200, ANSWER))
                seen, token = len(server.requests), CancellationToken()
                return after_trip(lambda: navigator.choose(request(model, token)), token,
                                  lambda: len(server.requests) > seen, delay=0.2)  # by then, waiting to retry

            note("openai: cancel while the server holds the answer", [cancel_slow_answer() for _ in range(rounds)],
                 "was < 0.15 s after the trip")
            backoff = []
            for _ in range(rounds):
                backoff.append(cancel_backoff())
                navigator.choose(request(model, CancellationToken()))  # takes the answer the cancel left queued
            note("openai: cancel during a Retry-After wait", backoff, "was < 0.15 s after the trip")

            os.environ["REASONING_EXPLORER_READ_TIMEOUT"] = "0.3"

            def read_timeout() -> float:
                server.add(Reply(200, ANSWER, delay=60))
                begun = time.perf_counter()
                with contextlib.suppress(Exception):  # the read timeout's error: the tests check it
                    navigator.choose(request(model, CancellationToken()))
                return time.perf_counter() - begun

            note("openai: read timeout 0.3 s, to the error", [read_timeout() for _ in range(rounds)], "was < 1.5 s")
            del os.environ["REASONING_EXPLORER_READ_TIMEOUT"]

            os.environ["REASONING_EXPLORER_RETRY_BACKOFF"] = "20"

            def retry_after() -> float:
                server.add(Reply(429, "", {"Retry-After": "0.3"}), Reply(200, ANSWER))
                begun = time.perf_counter()
                navigator.choose(request(model, CancellationToken()))
                return time.perf_counter() - begun

            note("openai: Retry-After 0.3 s (backoff 20 s), to the answer", [retry_after() for _ in range(rounds)],
                 "was 0.3 to 3 s")
    finally:
        os.environ.clear()
        os.environ.update(saved)


# -- the explorer (headless) ------------------------------------------------------------------------------


def wide_corpus(children: int) -> Corpus:
    docs = [RetrievedDocument("", "root", 0.0, {HierarchyMetadata.ID: "root", "reasoningTitle": "Root",
                                                "reasoningSummary": "refund rules"})]
    docs += [RetrievedDocument("", f"c{i}", 0.0, {HierarchyMetadata.ID: f"c{i}", HierarchyMetadata.PARENT_ID: "root",
                                                  "reasoningTitle": f"Child {i}", "reasoningSummary": "refund"})
             for i in range(children)]
    return Corpus(Path("wide"), "synthetic", "s", "Wide", HierarchyIndex(docs), "0" * 64)


async def until(pilot: object, condition: Callable[[], bool]) -> None:
    deadline = time.monotonic() + 30
    while not condition() and time.monotonic() < deadline:
        await pilot.pause(0.001)  # type: ignore[attr-defined]


async def reveal_round(wide: Corpus) -> float:
    from explorer.tui.widgets.walk_tree import WalkTree
    from tests.explorer.app.helpers import SIZE, make_app

    app = make_app("refund", corpus=wide, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        begun = time.perf_counter()
        tree.reveal("c3000")
        await until(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "c3000")
        took = time.perf_counter() - begun
        await pilot.pause(0.1)  # let the highlight reach the node panel before the app exits
        return took


async def cancel_round() -> float:
    from tests.explorer.app.helpers import SIZE, Blocking, make_app
    from tests.explorer.app.reading import status_text

    navigator = Blocking()
    app = make_app("parental leave", navigator=navigator, start_walk=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n", "n")
            await until(pilot, lambda: app.walk_screen.view.session is not None and app.walk_screen.view.session.busy)
            begun = time.perf_counter()
            await pilot.press("z")  # an unbound key: what pressing costs the test harness itself
            harness = time.perf_counter() - begun
            begun = time.perf_counter()
            await pilot.press("x")
            took = time.perf_counter() - begun - harness
            if not status_text(app).startswith("cancelled ·"):
                print("  (the screen did not say cancelled when the key had been handled)")
            return took
    finally:
        navigator.release.set()


async def quit_round(model: str, steps: int) -> float:
    from tests.explorer.app.helpers import SIZE, make_app

    app = make_app("parental leave", model=model, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*["n"] * steps)
        screen = app.walk_screen
        view = screen.view
        await until(pilot, lambda: view.history is not None and len(view.history.events) == max(1, steps))
        await until(pilot, lambda: view.session is not None and (view.session.busy or view.session.waiting))
        begun = time.perf_counter()
        await pilot.press("q")
    return time.perf_counter() - begun


async def bench_tui(rounds: int, folder: Path) -> None:
    from tests.explorer.app.helpers import hour_long_script

    wide = wide_corpus(5000)
    note("explorer: reveal c3000 among 5,000 children, cursor on it",
         [await reveal_round(wide) for _ in range(rounds)], "was < 1 s")
    note("explorer: x while the navigator is blocked, to 'cancelled' on screen",
         [await cancel_round() for _ in range(rounds)], "was < 0.1 s, less the harness's cost of a key")
    model = hour_long_script(folder)
    note("explorer: q while an hour-long decision runs, to the app's exit",
         [await quit_round(model, 2) for _ in range(rounds)], "was < 1 s")
    note("explorer: q while paused, to the app's exit",
         [await quit_round("lexical:default", 0) for _ in range(rounds)], "was < 1 s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--skip-tui", action="store_true", help="leave out the explorer's figures (the slowest)")
    args = parser.parse_args()
    print(f"Responsiveness, {args.rounds} rounds each (on {os.cpu_count()} CPUs; load average "
          f"{os.getloadavg()[0]:.1f})")
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        bench_core(args.rounds)
        bench_session(args.rounds, folder)
        bench_navigators(args.rounds, folder)
        bench_http(args.rounds)
        if not args.skip_tui:
            asyncio.run(bench_tui(max(1, args.rounds // 2), folder))


if __name__ == "__main__":
    main()
