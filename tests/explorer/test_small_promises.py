"""The medium and low defects of issue 45, each held by a test that failed before its fix: the command line in this
process on real files (tests/command_line.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.command_line import run_cli

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
QUESTIONS = ROOT / "sample_corpora" / "handbook.questions.yaml"
PROG = "reasoning-explorer"


@pytest.mark.parametrize("args", [("walk", HANDBOOK, "How are refunds issued?", "--navigator", "lexical:default"),
                                  ("validate", HANDBOOK),
                                  ("eval", QUESTIONS, "--navigator", "lexical:default")],
                         ids=["walk", "validate", "eval"])
def test_columns_0_prints_what_no_columns_prints(args: tuple[object, ...]) -> None:
    """COLUMNS=0 (a width Rich took as given) printed nothing and exited 0: it is no width, as none is."""
    zero = run_cli(*args, columns=0)
    unset = run_cli(*args, columns=None)
    assert (zero.returncode, zero.stderr) == (0, unset.stderr)
    assert zero.stdout == unset.stdout and len(zero.stdout.splitlines()) > 3
