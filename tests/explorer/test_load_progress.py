"""The explorer says what it is loading, and how far, before its screen opens (issue 11.18, issue 12)."""

from __future__ import annotations

import io
from pathlib import Path

from explorer.cli.inputs import LoadProgress
from explorer.corpora import load_corpus
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]


def test_a_load_draws_one_line_in_place_then_clears_it():
    stream = io.StringIO()
    progress = LoadProgress(SAMPLES / "handbook.yaml", stream)
    corpus = load_corpus(SAMPLES / "handbook.yaml", progress=progress)
    progress.clear()
    drawn = stream.getvalue()
    assert len(corpus.index) == 133
    assert "\r\x1b[Kloading handbook.yaml: " in drawn and "(Ctrl+C stops)" in drawn
    assert "\n" not in drawn and drawn.endswith("\r\x1b[K")


def test_a_hostile_file_name_is_escaped_in_the_progress_line():
    stream = io.StringIO()
    LoadProgress("evil\x1b]0;owned\x07.yaml", stream)("parsing", 0, 1)
    assert "\x1b]0" not in stream.getvalue() and "\\x1b]0;owned\\x07.yaml" in stream.getvalue()
