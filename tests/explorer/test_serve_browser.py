"""`reasoning-explorer serve` driven by a real headless browser (Playwright with Debian's Chromium).

The page draws the terminal on a canvas (xterm.js), so the screen is read from the terminal's own buffer:
textual-serve's page keeps its xterm ``Terminal`` in a closure, as ``this.terminal`` of its terminal view, and
an init script catches that assignment before the page's script runs.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .serve_helpers import serving, wait_until

pytestmark = [pytest.mark.browser, pytest.mark.process]

CHROMIUM = Path("/usr/lib/chromium/chromium-headless-shell")  # /usr/bin/chromium-headless-shell is a shell wrapper
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
WAIT_MS = 60_000  # generous: the machine's cores may be busy with other work

CATCH_TERMINAL = """
Object.defineProperty(Object.prototype, "terminal", {
  configurable: true,
  set(value) {
    if (value && typeof value.loadAddon === "function" && !window.xtermForTests) window.xtermForTests = value;
    Object.defineProperty(this, "terminal", {value, writable: true, configurable: true, enumerable: true});
  },
});
"""
SCREEN_TEXT = """() => {
  const terminal = window.xtermForTests;
  if (!terminal) return "";
  const buffer = terminal.buffer.active, lines = [];
  for (let y = 0; y < terminal.rows; y++) {
    const line = buffer.getLine(buffer.viewportY + y);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
}"""


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not CHROMIUM.exists():
        pytest.skip("chromium-headless-shell not installed: apt-get install -y chromium-headless-shell")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def screen(page: Any) -> str:
    return str(page.evaluate(SCREEN_TEXT))


def wait_for_screen(page: Any, text: str) -> str:
    """Wait until the terminal shows ``text``; on a timeout, say what it showed instead."""
    try:
        page.wait_for_function(f"() => ({SCREEN_TEXT})().includes({text!r})", timeout=WAIT_MS, polling=50)
    except Exception as exc:
        raise AssertionError(f"the page never showed {text!r}; it showed:\n{screen(page)}") from exc
    return screen(page)


STOP_ROW = re.compile(r"\n\W*1\s+leaf\s+billing › refunds › refund-delivery\s+-\s+refund-delivery")
"""The Results tab's row of the walk's one stop."""


def wait_for_match(page: Any, pattern: re.Pattern[str]) -> str:
    """Wait until the terminal's text matches ``pattern`` (bounded: a hang fails); say what it showed instead."""
    deadline = time.monotonic() + WAIT_MS / 1000
    while not pattern.search(shown := screen(page)):
        if time.monotonic() > deadline:
            raise AssertionError(f"the page never matched {pattern.pattern!r}; it showed:\n{shown}")
        page.wait_for_timeout(50)
    return shown


def test_a_walk_in_the_browser_shows_the_tree_the_budget_and_the_stop_reason(browser, tmp_path):
    with serving(tmp_path, "--navigator", "lexical:default") as served:  # a walk whose every step is known
        assert f"on http://127.0.0.1:{served.port}" in served.printed()
        page = browser.new_page(viewport={"width": 1600, "height": 1000})
        page.add_init_script(CATCH_TERMINAL)
        page.goto(served.url)
        wait_for_screen(page, "Offboarding  offboarding")
        first = wait_for_screen(page, "no walk yet")  # the panes paint one after another: wait for the last read
        assert "Query" in first and "How long do refunds take to arrive?" in first  # the example question
        assert "Offboarding  offboarding" in first
        assert len(served.sessions()) == 1  # this tab's explorer

        # No click, no focus() from the test: the page gives the terminal the keyboard when it loads.
        assert page.evaluate("() => document.activeElement.classList.contains('xterm-helper-textarea')")
        page.keyboard.press("Enter")
        wait_for_screen(page, "Step 1/1  walk started · budget 15 · depth limit 6 · on failure throw")
        page.keyboard.press("n")
        offered = wait_for_screen(page, "Step 2/2  offered 9 roots")
        assert "Offered 9 roots at depth 0 · 15 visits left · 1,003 chars shipped" in offered
        page.keyboard.press("c")
        wait_for_screen(page, "Step 12/12  walk finished · 1 landed")
        # The tree and the Results tab repaint in frames of their own: wait for the tree's landed row and the
        # Results tab's stop row (its path is shown nowhere else) before reading the whole screen. Under load, the
        # screen was once read between the two, its stop table still empty.
        wait_for_screen(page, "■ 3 Refund delivery  refund-delivery  leaf")  # entered third
        end = wait_for_match(page, STOP_ROW)
        page.screenshot(path=str(tmp_path / "walk-finished.png"))

        # The tree: the branch taken, the node landed with its stop reason, a branch left.
        assert re.search(r"├─ • 1 ▼ Billing  billing", end), end  # each node entered numbered in visit order
        assert re.search(r"│  ├─ • 2 ▼ Refunds  refunds", end), end
        assert re.search(r"│  └─ ■ 3 Refund delivery  refund-delivery  leaf", end), end
        assert re.search(r"├─ ✗ ▶ Accounts and sign-in  accounts", end), end
        # The budget, spent and left.
        assert "3/15 used · 12 left" in end
        assert "visits used 3/15 · navigator calls 3" in end
        # The stop: its reason where it happened.
        assert STOP_ROW.search(end), end

        page.close()
        wait_until(lambda: not served.sessions(), "the explorer of the closed tab to end")


def test_presenting_in_the_browser_goes_a_decision_a_key_to_the_answer_card(browser, tmp_path):
    with serving(tmp_path, "--navigator", "lexical:default", "--present") as served:
        page = browser.new_page(viewport={"width": 1280, "height": 720})
        page.add_init_script(CATCH_TERMINAL)
        page.goto(served.url)
        wait_for_screen(page, "Offboarding  offboarding")
        page.keyboard.press("Enter")  # before any click
        wait_for_screen(page, "Press n for the first decision.")
        page.keyboard.press("n")
        wait_for_screen(page, "Offered 9 sections at the top · 15 visits left")
        for _ in range(4):
            page.keyboard.press("n")
        end = wait_for_screen(page, "The answer")
        assert "★ 1. Refund delivery  score" in end  # the best answer, ranked first, with its score
        assert "Billing › Refunds › Refund delivery" in end
        page.close()
        wait_until(lambda: not served.sessions(), "the explorer of the closed tab to end")


def footer_row(page: Any) -> str:
    """The terminal's last row: the footer of keys."""
    return screen(page).splitlines()[-1] if screen(page) else ""


@pytest.mark.parametrize("viewport", [(1600, 1000), (1000, 700)])
def test_the_footer_shows_its_keys_at_any_width(browser, tmp_path, viewport):
    width, height = viewport
    with serving(tmp_path, "--navigator", "lexical:default") as served:
        page = browser.new_page(viewport={"width": width, "height": height})
        page.add_init_script(CATCH_TERMINAL)
        page.goto(served.url)
        wait_for_screen(page, "Offboarding  offboarding")
        columns = int(page.evaluate("() => window.xtermForTests.cols"))
        try:
            page.wait_for_function(f"() => ({SCREEN_TEXT})().split('\\n').pop().includes('palette')",
                                   timeout=WAIT_MS, polling=50)
        except Exception as exc:
            raise AssertionError(f"at {columns} columns the footer never showed; the screen:\n{screen(page)}") from exc
        footer = footer_row(page)
        # The query box has the keyboard: its key first, the palette's docked at the right.
        assert footer.split()[:5] == ["esc", "Leave", "the", "query", "box"], footer
        assert footer.rstrip().endswith("^p palette"), footer
        page.keyboard.press("Escape")  # the tree has the keyboard: the walk's keys
        wait_for_screen(page, "n Next")
        assert footer_row(page).split()[:4] == ["n", "Next", "c", "Continue"], footer_row(page)
        page.close()
        wait_until(lambda: not served.sessions(), "the explorer of the closed tab to end")
