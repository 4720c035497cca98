"""A query's escape sequences never reach the terminal (issue 30, point 3): the real explorer in a pseudo-terminal.

`--query` holding OSC 0 / OSC 2 (set the window title) and CSI 2J (clear the screen), or a trace whose query
holds them, retitled the terminal and blanked the header rows: the query box wrote its value raw. The box shows
the query with its control characters made visible, as the header does; the bytes the explorer writes hold no
such sequence, and the terminal (pyte) keeps its title.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

from .pty_helpers import Terminal

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERY = "refunds \x1b]0;PWNED\x07 \x1b]2;OWNED\x07 \x1b[2Jgone"
SHOWN = "refunds \\x1b]0;PWNED\\x07 \\x1b]2;OWNED\\x07 \\x1b[2Jgone"
HOSTILE = (b"\x1b]0;PWNED", b"\x1b]2;OWNED", b"\x1b[2Jgone")


def make_trace(folder: Path) -> Path:
    trace = folder / "hostile.jsonl"
    walked = run_cli("walk", HANDBOOK, QUERY, "--navigator", "lexical:default", "--trace", trace, cwd=folder,
                     columns=None)
    assert walked.returncode == 0, walked.stderr
    return trace


@pytest.mark.parametrize("source", ["--query", "--query --present", "a trace"])
@pytest.mark.pty
@pytest.mark.process
def test_a_querys_escape_sequences_never_reach_the_terminal(tmp_path: Path, source: str) -> None:
    if source == "a trace":
        args = [str(make_trace(tmp_path))]
    else:
        args = [str(HANDBOOK), "--navigator", "lexical:default", "--query", QUERY, *source.split()[1:]]
    terminal = Terminal(args, cwd=tmp_path)
    try:
        terminal.wait_for(SHOWN[:40])  # the query box, its control characters made visible
        terminal.press("q")
        assert terminal.wait() == 0
    finally:
        terminal.close()
    written = bytes(terminal.written)
    assert [sequence for sequence in HOSTILE if sequence in written] == []
    assert "PWNED" not in terminal.screen.title and "OWNED" not in terminal.screen.title
