"""Benchmark of `reasoning-explorer serve` in a real headless browser (Debian's chromium-headless-shell).

Run: .venv/bin/python bench/serve_browser.py [--tabs N] [--keys K]

Starts the server on a free port of 127.0.0.1 and prints:
- first paint: seconds from starting the browser until the page shows the explorer's first screen (the
  browser starts, loads the page, the server starts this tab's explorer, the explorer draws), and the same
  for each further tab in the running browser;
- memory per session: RSS (and PSS, which counts shared pages once) of each tab's explorer process, after
  its first screen and after a walk, and the server's own RSS;
- key answer latency: milliseconds from the moment the page sends a key (xterm's onData) until the terminal
  has parsed the answer that shows the new step (onWriteParsed), median and worst, for `n` (a navigator
  call each) and for `b`/`f` (stepping through history); the first answer of any kind too.
Targets (issue 13): first paint 2-5 s, about 50 MB per session, each key answered within 0.1 s. It asserts
nothing.
"""

from __future__ import annotations

import argparse
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = Path("/usr/lib/chromium/chromium-headless-shell")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    if (value && typeof value.loadAddon === "function" && !window.xterm) {
      window.xterm = value;
      window.keys = {sent: 0, answers: []};
      value.onData(() => { window.keys.sent = performance.now(); window.keys.answers = []; });
    }
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""
SCREEN = """() => {
  const t = window.xterm, b = t.buffer.active, lines = [];
  for (let y = 0; y < t.rows; y++) {
    const l = b.getLine(b.viewportY + y);
    lines.push(l ? l.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""
# After the terminal is found: note the time and the screen each time a write has been parsed.
WATCH_WRITES = f"""() => {{
  const screen = {SCREEN};
  window.xterm.onWriteParsed(() => window.keys.answers.push([performance.now(), screen()]));
}}"""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state, parent = (entry / "stat").read_text().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(parent) == pid and state != "Z":
                found.append(int(entry.name))
    return sorted(found)


def memory_mb(pid: int) -> tuple[float, float]:
    """RSS and PSS of a process, in MB."""
    rss = pss = 0
    for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
        if line.startswith("Rss:"):
            rss = int(line.split()[1])
        elif line.startswith("Pss:"):
            pss = int(line.split()[1])
    return rss / 1024, pss / 1024


def wait_for(page: Any, text: str) -> None:
    page.wait_for_function(f"() => window.xterm && ({SCREEN})().includes({text!r})", timeout=120_000, polling=20)


def key_latency(page: Any, key: str, shows: str) -> tuple[float, float]:
    """(ms to the first answer, ms to the answer that shows ``shows``) for one key press."""
    page.keyboard.press(key)
    page.wait_for_function(f"() => window.keys.answers.some(([, s]) => s.includes({shows!r}))", timeout=60_000,
                           polling=20)
    sent, answers = page.evaluate("() => [window.keys.sent, window.keys.answers]")
    first = answers[0][0] - sent
    shown = next(at for at, screen in answers if shows in screen) - sent
    return first, shown


def summary(values: list[float]) -> str:
    return f"median {statistics.median(values):.0f} ms, worst {max(values):.0f} ms over {len(values)} keys"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tabs", type=int, default=3, help="browser tabs (sessions) to open")
    parser.add_argument("--keys", type=int, default=10, help="n presses to time (the sample walk has 11 steps)")
    options = parser.parse_args()
    if not CHROMIUM.exists():
        sys.exit("chromium-headless-shell not installed: apt-get install -y chromium-headless-shell")
    from playwright.sync_api import sync_playwright

    port = free_port()
    log = tempfile.NamedTemporaryFile(prefix="serve-bench-", suffix=".log", delete=False)  # noqa: SIM115
    server = subprocess.Popen([sys.executable, "-m", "explorer", "serve", "--port", str(port), "--max-sessions",
                               str(options.tabs)], cwd=ROOT, stdout=log, stderr=subprocess.STDOUT,
                              stdin=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    sys.exit(f"the server did not start; see {log.name}")
                time.sleep(0.05)
        url = f"http://127.0.0.1:{port}/"
        print(f"serve_browser: {url}, Chromium {CHROMIUM}, {options.tabs} tabs")
        with sync_playwright() as playwright:
            started = time.perf_counter()
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
            pages, paints = [], []
            for _ in range(options.tabs):
                opened = time.perf_counter()
                page = browser.new_page(viewport={"width": 1600, "height": 1000})
                page.add_init_script(CATCH_TERMINAL)
                page.goto(url)
                wait_for(page, "Offboarding  offboarding")
                paints.append(time.perf_counter() - (started if not pages else opened))
                page.evaluate(WATCH_WRITES)
                page.evaluate("() => window.xterm.focus()")
                pages.append(page)
            print(f"first paint: {paints[0]:.2f} s after the browser starts; further tabs: "
                  + ", ".join(f"{p:.2f} s" for p in paints[1:]))

            sessions = children_of(server.pid)
            idle = [memory_mb(pid) for pid in sessions]
            print("memory per session, first screen: " + ", ".join(f"RSS {r:.0f} MB (PSS {p:.0f} MB)" for r, p in idle))

            page = pages[0]
            page.keyboard.press("Enter")
            wait_for(page, "Step 1/1  walk started")
            firsts, steps = [], []
            for step in range(2, 2 + options.keys):
                first, shown = key_latency(page, "n", f"Step {step}/{step}")
                firsts.append(first)
                steps.append(shown)
            wait_for(page, f"Step {1 + options.keys}/")
            history, history_firsts = [], []
            last = 1 + options.keys
            for key, shows in [("b", f"Step {last - 1}/{last}"), ("f", f"Step {last}/{last}")] * 5:
                first, shown = key_latency(page, key, shows)
                history_firsts.append(first)
                history.append(shown)
            print(f"key answer latency, n (one navigator call): {summary(steps)}; first answer {summary(firsts)}")
            print(f"key answer latency, b/f (history): {summary(history)}; first answer {summary(history_firsts)}")

            walked = memory_mb(sessions[0])
            server_rss = memory_mb(server.pid)[0]
            print(f"memory per session after a walk: RSS {walked[0]:.0f} MB (PSS {walked[1]:.0f} MB); "
                  f"server RSS {server_rss:.0f} MB")

            for page in pages:
                page.close()
            closed = time.perf_counter()
            while children_of(server.pid) and time.perf_counter() - closed < 60:
                time.sleep(0.05)
            left = children_of(server.pid)
            print(f"tabs closed: {'all sessions ended' if not left else f'{len(left)} sessions still running'} "
                  f"after {time.perf_counter() - closed:.2f} s")
            browser.close()
    finally:
        server.send_signal(signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


if __name__ == "__main__":
    main()
