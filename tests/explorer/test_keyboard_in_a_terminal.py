"""The dead keyboard of issue 45 (serious point 2), in a real terminal: a prompt key, ctrl+p and Enter written in
one chunk (faster than any 50 ms apart) left Escape, `q` and ctrl+c ignored; only a signal ended the explorer.
Escape closes what the keys left open (the prompt, the palette over it if the Enter did not close it), one a press,
and `q` quits.

How many Escapes that takes depends on the pace (an Enter typed into the palette before its commands are listed closes
nothing), so an Escape can be one too many, and then `q`, sent within the terminal's escape delay (100 ms) after it,
reaches the explorer as one key, `alt+q`: it is taken as the Escape and the `q` typed (``explorer.tui.key_holding``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.samples import SAMPLES

from .pty_helpers import Terminal

pytestmark = [pytest.mark.pty, pytest.mark.process]

HANDBOOK = SAMPLES / "handbook.yaml"
CTRL_P = "\x10"
ESCAPE = "\x1b"
PROMPT = "Escape cancels"  # every prompt's hint ends so ("Enter accepts · ↓ the list · Escape cancels")
PALETTE = "Search for commands…"


def markers(shown: str) -> frozenset[str]:
    return frozenset(marker for marker in (PROMPT, PALETTE) if marker in shown)


def open_over_the_walk(terminal: Terminal) -> frozenset[str]:
    return markers(terminal.text())


@pytest.mark.parametrize("key", ["u", "v", "A", "m"])
def test_a_prompt_key_ctrl_p_and_enter_in_one_chunk_leave_escape_and_q_working(tmp_path: Path, key: str) -> None:
    terminal = Terminal([str(HANDBOOK), "--query", "How are refunds issued?"], cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press(key + CTRL_P + "\r")
        terminal.wait_until(lambda _: bool(open_over_the_walk(terminal)), "the prompt or the palette")
        # Each Escape closes one screen: the prompt, the palette over it, or a prompt the Enter opened from the
        # palette over the first. The app can be ahead of the frame read: an Escape may close a palette that was never
        # drawn and leave the screen as it was, so each Escape waits for the next frame drawn (the open prompt or
        # palette draws one at least at each blink of its cursor), then the next is pressed if a marker still shows.
        # One too many is harmless: on the walk screen an Escape closes nothing, and one followed by `q` within the
        # escape delay still quits (below). Six presses for at most three screens; whatever they leave open must then
        # close, or the keyboard is deaf.
        for _ in range(6):
            drawn = terminal.frames()
            if not markers(terminal.text()):
                break
            terminal.press(ESCAPE)
            terminal.wait_for_frame(after=drawn)
        terminal.wait_until(lambda shown: not markers(shown), "the prompt and the palette closed by Escape")
        terminal.press("q")
        assert terminal.wait() == 0
        assert terminal.modes_left_on() == []
    finally:
        terminal.close()


def test_escape_and_q_sent_in_one_chunk_quit(tmp_path: Path) -> None:
    """What a key storm sends: the terminal cannot tell Escape then q from alt+q."""
    terminal = Terminal([str(HANDBOOK), "--query", "How are refunds issued?"], cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press("v")
        terminal.wait_for(PROMPT)
        terminal.press(ESCAPE + "q")
        assert terminal.wait() == 0
        assert terminal.modes_left_on() == []
    finally:
        terminal.close()
