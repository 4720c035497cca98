"""SIGTERM, SIGHUP and SIGINT to the explorer mid-walk (issue 21, point 8): the real entry point in a pseudo-terminal.

Each signal quits the explorer as `q` does: the terminal is put back (the alternate screen, mouse reporting,
focus events and bracketed paste off, the cursor shown, the tty's modes as they were, `icanon echo` included),
what a quit saves is saved, and the exit code is 128 + the signal (SIGINT: 130, as the README says), with one
line on stderr saying why. The tests read every byte the explorer wrote, the screen those bytes draw, and the
tty's modes after it ended.
"""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from core import CandidatesOffered, WalkStarted
from explorer.ending import WalkEnd
from explorer.trace import read_trace
from tests.samples import SAMPLES

from .pty_helpers import Terminal

pytestmark = [pytest.mark.pty, pytest.mark.process]

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"


CONTROL_SEQUENCE = re.compile(rb"\x1b\[[0-9;?<>=]*[ -/]*[@-~]")


def after_the_screen(terminal: Terminal) -> bytes:
    """The text the explorer wrote once it had left the alternate screen (the modes it turned off left out)."""
    written = bytes(terminal.written)
    return CONTROL_SEQUENCE.sub(b"", written[written.rfind(b"\x1b[?1049l"):])


def assert_the_terminal_is_as_it_was(terminal: Terminal) -> None:
    assert terminal.modes_left_on() == []
    modes = termios.tcgetattr(terminal.slave)
    assert modes[3] & termios.ICANON and modes[3] & termios.ECHO  # `stty -a`: icanon echo
    assert modes == terminal.modes_before


QUITS = [
    pytest.param("q", 0, b"", id="q"),
    pytest.param(signal.SIGTERM, 143, b"reasoning-explorer: terminated (SIGTERM)\r\n", id="SIGTERM"),
    pytest.param(signal.SIGHUP, 129, b"reasoning-explorer: the terminal hung up (SIGHUP)\r\n", id="SIGHUP"),
    pytest.param(signal.SIGINT, 130, b"reasoning-explorer: interrupted\r\n", id="SIGINT"),
]


@pytest.mark.parametrize(("how", "code", "said"), QUITS)
def test_a_signal_while_a_person_is_asked_quits_as_q_does(tmp_path: Path, how: str | signal.Signals, code: int,
                                                          said: bytes) -> None:
    """Walk 1 ends (so --trace saves it), walk 2 waits at the picker for a person; then `q`, or a signal."""
    terminal = Terminal([str(HANDBOOK), "--navigator", "manual:", "--query", "refunds", "--trace", "t.jsonl"],
                        cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press("n")
        terminal.wait_for("offered 9 roots")
        terminal.press("n")
        terminal.wait_for("Your turn")
        terminal.press("s")  # stop at the roots: the walk has nothing left to do
        terminal.wait_for("navigator chose nothing")
        terminal.press("c")
        terminal.wait_for("walk finished · 0 landed")
        terminal.press("r")
        terminal.wait_for("walk 2 · restart")
        terminal.press("n")
        terminal.wait_for("offered 9 roots")
        terminal.press("n")
        terminal.wait_for("Your turn")  # mid-walk, the picker open
        if how == "q":
            terminal.press("q")
        else:
            terminal.process.send_signal(how)
        assert terminal.wait() == code
        assert_the_terminal_is_as_it_was(terminal)
        assert after_the_screen(terminal) == said
    finally:
        terminal.close()
    # What a quit saves, and nothing else: walk 1, which ended, and walk 2, still waiting at the picker, as a
    # cancelled walk with the steps it took (quitting keeps a live walk's trace, as q does).
    assert sorted(path.name for path in tmp_path.iterdir()) == ["t.jsonl", "t.walk2.jsonl"]
    trace = read_trace(tmp_path / "t.jsonl")
    assert trace.header.settings.query == "refunds"
    assert trace.end is WalkEnd.FINISHED and trace.result is not None and trace.result.documents == ()
    live = read_trace(tmp_path / "t.walk2.jsonl")
    assert live.header.settings.query == "refunds" and live.end is WalkEnd.CANCELLED and live.result is None
    assert [type(event) for event in live.events] == [WalkStarted, CandidatesOffered]


@pytest.mark.parametrize(("number", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129), (signal.SIGINT, 130)])
def test_a_signal_while_the_navigator_thinks_restores_the_terminal(tmp_path: Path, number: signal.Signals,
                                                                   code: int) -> None:
    script = tmp_path / "slow.yaml"
    script.write_text("decisions:\n  start: {select: [billing], rationale: slow, delay: 600}\n")
    terminal = Terminal([str(HANDBOOK), "--navigator", f"script:{script}", "--query", "refunds"], cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press("c")
        terminal.wait_for("working…")  # the navigator's thread sleeps in its 600 s delay
        terminal.process.send_signal(number)
        assert terminal.wait() == code
        assert_the_terminal_is_as_it_was(terminal)
    finally:
        terminal.close()


def test_a_terminal_that_hangs_up_without_a_signal_quits_the_explorer_and_keeps_the_walk(tmp_path: Path) -> None:
    """A killed tmux pane running `make run`: the pty closes, make outlives it, no SIGHUP reaches the explorer
    (here: it has no controlling terminal at all). It used to spin on the dead terminal for ever, at a full core;
    now it quits as SIGHUP does, and --trace keeps the walk it was in, cancelled."""
    terminal = Terminal([str(HANDBOOK), "--navigator", "lexical:default", "--query", "refunds", "--trace", "t.jsonl"],
                        cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press("n")
        terminal.wait_for("offered 9 roots")
        terminal.hang_up()
        assert terminal.process.wait(60) == 129
        trace = read_trace(tmp_path / "t.jsonl")
        assert trace.end == WalkEnd.CANCELLED.value
        assert [type(event) for event in trace.events] == [WalkStarted, CandidatesOffered]
    finally:
        terminal.close()


STUCK = '''
import time

from core import TreeNavigator


class Stuck(TreeNavigator):
    """Ignores the walk's cancellation token: every call sleeps for an hour."""

    def supports(self, model):
        return False

    def choose(self, request):
        time.sleep(3600)
'''


def test_q_with_a_navigator_that_ignores_the_token_quits_and_the_process_exits(tmp_path: Path) -> None:
    """A `py:` navigator stuck in its call (issue 38, point 4): `q` restored the screen, and the process then waited
    for the navigator's thread for ever."""
    (tmp_path / "stuck.py").write_text(STUCK)
    terminal = Terminal([str(HANDBOOK), "--navigator", "py:stuck.py:Stuck", "--query", "refunds"], cwd=tmp_path)
    try:
        terminal.wait_for("walk started")
        terminal.press("c")
        terminal.wait_for("working…")  # the navigator's call sleeps
        terminal.press("q")
        assert terminal.wait() == 0
        assert_the_terminal_is_as_it_was(terminal)
    finally:
        terminal.close()



LEFT_STUCK = """
import sys, threading, time
from explorer.cli.explore import leave_if_stuck
done = threading.Event()
leave_if_stuck(129, done, grace=float(sys.argv[1]))
if sys.argv[2] == "done":
    done.set()
time.sleep(float(sys.argv[3]))  # a quit stuck (as on Textual's writer queue, after the terminal hung up)
"""


@pytest.mark.parametrize(("finished", "code"), [("stuck", 129), ("done", 0)])
def test_a_quit_after_the_terminal_hung_up_that_does_not_finish_leaves_with_129(finished: str, code: int) -> None:
    """Seen after a tmux pane was killed: the quit began (SIGHUP) and then waited for ever in Textual's driver,
    on its queue of writes to the dead terminal, the explorer and its local model left running. A quit not done
    within the grace ends the process with 129; one done in time is left to end as it would."""
    ran = subprocess.run([sys.executable, "-c", LEFT_STUCK, "0.3", finished, "60" if finished == "stuck" else "1"],
                         capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stderr) == (code, "")
