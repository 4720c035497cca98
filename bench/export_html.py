"""What exporting a walk as one HTML file costs: the size of an exported 40-step walk, how long the export takes
to write, and how long the file takes to open in headless Chromium (to its first frame, and to step through all).

    .venv/bin/python bench/export_html.py

Figures, not a test: the wall times move with the machine's load. The walk is semantic:wide's on the sample
handbook, with the budget raised until it has at least 40 events.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
CHROMIUM = Path("/usr/lib/chromium/chromium-headless-shell")
QUERY = "How long do refunds take to arrive?"
STEPS = 40


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "explorer", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=600, check=True)


def events_in(trace: Path) -> int:
    return sum(1 for line in trace.read_text().splitlines() if '"seq"' in line)


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        trace, out = Path(folder) / "walk.jsonl", Path(folder) / "walk.html"
        for budget in range(15, 60, 5):
            cli("walk", str(HANDBOOK), QUERY, "--navigator", "semantic:wide", "--max-visits", str(budget),
                "--trace", str(trace))
            if events_in(trace) >= STEPS:
                break
        steps = events_in(trace)
        started = time.perf_counter()
        cli("export", str(trace), "--html", str(out))
        written = time.perf_counter() - started
        size = out.stat().st_size
        print(f"walk: semantic:wide, budget {budget}, {steps} events")
        print(f"export: {written:.1f} s to write (a process: start, corpus, drawing every step), "
              f"{size / 1_000_000:.2f} MB ({size / steps / 1000:.1f} kB a step)")
        if not CHROMIUM.exists():
            print("open: skipped (no chromium-headless-shell)")
            return
        from playwright.sync_api import sync_playwright

        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=["--no-sandbox", "--disable-gpu"])
            page = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000}).new_page()
            started = time.perf_counter()
            page.goto(out.as_uri())
            page.wait_for_selector("body[data-ready=yes]", timeout=60_000)
            opened = time.perf_counter() - started
            page.check("#every")
            started = time.perf_counter()
            for _ in range(steps - 1):
                page.keyboard.press("n")
                page.wait_for_selector("body[data-ready=yes]", timeout=60_000)
            stepped = time.perf_counter() - started
            browser.close()
        print(f"open: {opened * 1000:.0f} ms to the first frame; every step: {stepped / (steps - 1) * 1000:.0f} ms "
              f"each (inflate and draw), {stepped:.1f} s for all {steps}")


if __name__ == "__main__":
    main()
