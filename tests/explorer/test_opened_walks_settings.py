"""Walks opened from files go on with their own settings (issue 38, point 20): the real explorer in a pseudo-terminal.

A folder of traces (or one trace) opened with the navigator the command line defaults to in the next walk's note, and
the traces' budget beside it: half of the walks' settings. The next walk now takes each setting from the command line
when it gives one, from the walks opened when it does not, and from the defaults last; a navigator that cannot be had
here leaves the default."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

from .pty_helpers import Terminal

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"


def recorded(folder: Path, *navigator: str) -> Path:
    """Two walks of the handbook, budget 7 under partial, as traces in ``folder / "walks"``."""
    walks = folder / "walks"
    walks.mkdir()
    for name, query in (("refunds", "refunds"), ("leave", "parental leave")):
        walked = run_cli("walk", HANDBOOK, query, *navigator, "--max-visits", "7", "--on-failure", "partial",
                         "--trace", walks / f"{name}.jsonl", cwd=folder, columns=None)
        assert walked.returncode == 0, walked.stderr
    return walks


def next_walk_note(args: list[str], cwd: Path) -> str:
    """The line of the explorer's screen that says what the next walk will use."""
    terminal = Terminal(args, cwd=cwd, columns=170, rows=40)
    try:
        shown = terminal.wait_for("next walk: ")
        terminal.press("q")
        assert terminal.wait() == 0
    finally:
        terminal.close()
    (line,) = [line for line in shown.splitlines() if "next walk: " in line]
    return line[line.index("next walk: "):].split("│")[0].strip()


@pytest.mark.pty
@pytest.mark.process
def test_a_folder_of_walks_and_one_trace_go_on_with_their_own_settings_unless_told_otherwise(tmp_path: Path) -> None:
    walks = recorded(tmp_path, "--navigator", "lexical:wide")
    own = "next walk: lexical:wide · budget 7 · depth limit 6 · on failure partial"
    assert next_walk_note([str(walks)], tmp_path) == own
    assert next_walk_note([str(walks / "refunds.jsonl")], tmp_path) == own
    assert next_walk_note([str(walks), "--navigator", "lexical:strict", "--max-visits", "9", "--on-failure", "empty"],
                          tmp_path) == "next walk: lexical:strict · budget 9 · depth limit 6 · on failure empty"


@pytest.mark.pty
@pytest.mark.process
def test_walks_whose_navigator_cannot_be_had_here_leave_the_default(tmp_path: Path) -> None:
    script = tmp_path / "gone.yaml"
    script.write_text("decisions:\n  start: {select: [billing]}\n")
    walks = recorded(tmp_path, "--navigator", f"script:{script}")
    script.unlink()
    assert next_walk_note([str(walks)], tmp_path) == (
        "next walk: semantic:hybrid · budget 7 · depth limit 6 · on failure partial")
