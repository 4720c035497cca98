"""What the explorer reads, given a FIFO, a link to /dev/zero or a loop of symlinks in place of a file (issue 45,
serious point 3): one line saying what is there, never a hang, never memory without bound, never a traceback.

``eval --check`` and ``E`` read ``X.check.questions.yaml``: a FIFO there blocked for ever, a link to /dev/zero ate
11 GB in 30 s, a loop gave a RuntimeError traceback. The command line runs here as a real process under a memory
cap and a timeout (a regression fails rather than hangs); every other reader runs in this process under a guard
that releases a read blocked on a FIFO (:func:`.test_reading.guarded`)."""

from __future__ import annotations

import os
import resource
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.questions import keep_question, load_questions, looks_like_question_set
from explorer.navigators.llm.prompt import PromptFileError, read_prompt_file
from explorer.trace import TraceError, read_trace, read_trace_header
from explorer.walks.evaluation.check_set import check_set, write_check_set
from explorer.walks.evaluation.kept_run import RunError, file_sha256, read_run
from explorer.walks.telemetry.span_walks import SpanError, index_span_walks
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .test_reading import guarded

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
PROG = "reasoning-explorer"
MEMORY_CAP = 4 << 30


def odd(path: Path, what: str) -> Path:
    """``path`` made a FIFO with no writer, a link to /dev/zero, or one link of a loop."""
    if what == "fifo":
        os.mkfifo(path)
    elif what == "zero":
        path.symlink_to("/dev/zero")
    else:
        other = path.with_name(path.name + ".other")
        path.symlink_to(other)
        other.symlink_to(path)
    return path


SAID = {"fifo": "a FIFO (named pipe), not a regular file", "zero": "a character device, not a regular file",
        "loop": "the path goes round a loop of symlinks"}


def folder_with_a_kept_case(folder: Path) -> Path:
    corpus = folder / "handbook.yaml"
    shutil.copy(HANDBOOK, corpus)
    keep_question(folder / "cases.questions.yaml", load_corpus(corpus), "How long do refunds take to arrive?",
                  ["refund-delivery"], day="2026-12-05")
    return corpus


def capped() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


@pytest.mark.process
@pytest.mark.parametrize("what", ["fifo", "zero", "loop"])
def test_eval_check_says_in_one_line_what_is_at_the_check_sets_name(tmp_path: Path, what: str) -> None:
    corpus = folder_with_a_kept_case(tmp_path)
    check = odd(tmp_path / "handbook.check.questions.yaml", what)
    done = subprocess.run([sys.executable, "-m", "explorer", "eval", "--check", str(corpus), "--navigator",
                           "lexical:default"], capture_output=True, text=True, cwd=tmp_path, timeout=120,
                          preexec_fn=capped, env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"})
    assert done.returncode == 2
    assert done.stderr.startswith(f"{PROG}: error: {check}: {SAID[what]}")
    assert done.stderr.endswith(", where the check set is written; move it away (a check set is written only over "
                                "one reasoning-explorer made)\n")
    assert done.stderr.count("\n") == 1 and done.stdout == ""
    assert check.is_symlink() or check.exists()  # left as it was


@pytest.mark.parametrize("what", ["fifo", "zero", "loop"])
def test_the_check_set_is_made_and_refused_in_one_line_whatever_is_at_its_name(tmp_path: Path, what: str) -> None:
    """What ``E`` does (the check set made for the prompt's title, then written when chosen), in this process."""
    corpus = load_corpus(folder_with_a_kept_case(tmp_path))
    path = odd(tmp_path / "handbook.check.questions.yaml", what)
    check = guarded(lambda: check_set(corpus, ""), path if what == "fifo" else None)
    assert len(check.questions) == 1  # type: ignore[attr-defined]
    with pytest.raises(CorpusError) as refused:
        guarded(lambda: write_check_set(check, corpus), path if what == "fifo" else None)  # type: ignore[arg-type]
    assert str(refused.value).startswith(f"{path}: {SAID[what]}")


READERS: list[tuple[str, Callable[[Path], object], type[Exception]]] = [
    ("corpus", load_corpus, CorpusError),
    ("question set", load_questions, CorpusError),
    ("trace", read_trace, TraceError),
    ("trace header", read_trace_header, TraceError),
    ("kept run", read_run, RunError),
    ("span file", index_span_walks, SpanError),
    ("prompt file", lambda p: read_prompt_file(p, "system prompt"), PromptFileError),
    ("question set's hash", file_sha256, OSError),
]


@pytest.mark.parametrize("what", ["fifo", "zero", "loop"])
@pytest.mark.parametrize(("name", "reader", "error"), READERS, ids=[r[0] for r in READERS])
def test_every_reader_refuses_at_once_what_is_no_regular_file(tmp_path: Path, what: str, name: str,
                                                             reader: Callable[[Path], object],
                                                             error: type[Exception]) -> None:
    path = odd(tmp_path / "odd.yaml", what)
    with pytest.raises(error) as refused:
        guarded(lambda: reader(path), path if what == "fifo" else None)
    said = str(refused.value)
    assert "\n" not in said and "Traceback" not in said
    if name != "question set's hash":
        words = {"loop": "loop of symlinks", "fifo": "FIFO", "zero": "character device"}[what]
        assert words in said


@pytest.mark.parametrize("what", ["fifo", "zero", "loop"])
def test_sniffing_what_a_file_is_reads_no_odd_file(tmp_path: Path, what: str) -> None:
    path = odd(tmp_path / "odd.yaml", what)
    assert guarded(lambda: looks_like_question_set(path), path if what == "fifo" else None) is False


@pytest.mark.parametrize("what", ["fifo", "zero", "loop"])
def test_a_kept_run_that_is_no_file_is_named_for_what_it_is(tmp_path: Path, what: str) -> None:
    run = odd(tmp_path / "old.run.json", what)
    done = guarded(lambda: run_cli("eval", SAMPLES / "handbook.questions.yaml", "--navigator",
                                   "lexical:default", "--against", run, cwd=tmp_path),
                   run if what == "fifo" else None)
    assert done.returncode == 2  # type: ignore[attr-defined]
    assert done.stderr.startswith(f"{PROG}: error: {run}: {SAID[what]}")  # type: ignore[attr-defined]
    assert "no such kept run" not in done.stderr  # type: ignore[attr-defined]
