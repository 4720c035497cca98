"""Ctrl+C typed in the explorer (issue 30, point 10): the real entry point in a pseudo-terminal.

The terminal is in raw mode while the explorer runs, so Ctrl+C is a key (the byte 0x03), not SIGINT. It cancels a
running walk, as `x` does, even while the navigator thinks; with no walk running it says that `q` quits, and
the explorer goes on. (SIGINT sent from outside quits: tests/explorer/test_signals.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.samples import SAMPLES

from .pty_helpers import Terminal

pytestmark = [pytest.mark.pty, pytest.mark.process]

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
CTRL_C = "\x03"


def test_ctrl_c_cancels_a_walk_while_the_navigator_thinks_then_says_how_to_quit(tmp_path: Path) -> None:
    script = tmp_path / "hour-long.yaml"  # the first decision takes an hour unless the walk's token trips
    script.write_text("decisions:\n  start: {select: [people-policies], delay: 3600}\n")
    terminal = Terminal([str(HANDBOOK), "--navigator", f"script:{script}", "--query", "parental leave"],
                        cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press("n")
        terminal.wait_for("offered 9 roots")
        terminal.press("n")
        terminal.wait_for("working… ")  # the navigator thinks, for an hour
        terminal.press(CTRL_C)
        terminal.wait_for("Walk cancelled.")
        terminal.wait_for("cancelled · b steps back · e forks · r restarts")
        terminal.press(CTRL_C)  # at rest
        terminal.wait_for("No walk is running: q quits")
        assert terminal.process.poll() is None  # still running: Ctrl+C at rest does not quit
        terminal.press("q")
        assert terminal.wait() == 0
        assert terminal.modes_left_on() == []
    finally:
        terminal.close()
