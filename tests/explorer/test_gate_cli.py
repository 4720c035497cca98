"""Issue 45, points 4 and 7, and issue 44 point 3 on the command line: no output over what a command reads (the
question sets and kept runs a check set is built from), none over an existing file unless ``--overwrite``, and an
output through a symlink written through it to its regular target (the link stays a link), a FIFO refused without
a hang. Real files, links and FIFOs in tmp_path; the command line runs in this process."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.command_line import run_cli

from .check_set_helpers import SAMPLES, check_set_folder

PROG = "reasoning-explorer"
HANDBOOK = SAMPLES / "handbook.yaml"


def contents(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file() and not p.is_symlink()}


def test_eval_check_never_writes_over_the_question_sets_and_kept_runs_the_check_set_is_built_from(tmp_path: Path):
    corpus = check_set_folder(tmp_path)
    check = tmp_path / "handbook.check.questions.yaml"
    cases = [("--save-run", tmp_path / "handbook.questions.yaml", "the kept run", "a question set the check set is "
              "built from"),
             ("--save-run", tmp_path / "small-candidate.run.json", "the kept run", "a kept run the check set is "
              "built from"),
             ("--otlp-file", tmp_path / "small-candidate.run.json", "--otlp-file", "a kept run the check set is "
              "built from")]
    for option, target, _, what in cases:
        before = contents(tmp_path)
        before.pop(check.name, None)  # made again each time: the one file eval --check writes before it checks
        done = run_cli("eval", "--check", corpus, option, target, "--overwrite", columns=None)
        assert done.returncode == 2, done.stderr
        assert done.stderr.splitlines()[-1] == (
            f"{PROG}: error: {option} {target} is {what} ({target}); an output must not overwrite an input: choose "
            "another file")
        after = contents(tmp_path)
        after.pop(check.name, None)
        assert after == before


def test_an_output_over_an_existing_file_is_refused_unless_overwrite(tmp_path: Path):
    trace = tmp_path / "kept.jsonl"
    trace.write_text("a walk kept earlier\n")
    done = run_cli("walk", HANDBOOK, "refunds", "--trace", trace, columns=None)
    assert (done.returncode, done.stderr) == (2, f"{PROG}: error: --trace {trace} exists and would be replaced; pass "
                                                 "--overwrite to replace it, or name another file\n")
    assert trace.read_text() == "a walk kept earlier\n"
    done = run_cli("walk", HANDBOOK, "refunds", "--trace", trace, "--overwrite", columns=None)
    assert done.returncode == 0, done.stderr
    assert json.loads(trace.read_text().splitlines()[0])["query"] == "refunds"


def test_outputs_through_a_symlink_write_its_target_and_leave_the_link_a_link(tmp_path: Path):
    questions = tmp_path / "small.questions.yaml"
    questions.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - {{id: r, query: refunds, expect: [refunds]}}\n")
    runs = [
        ("--trace", ["walk", HANDBOOK, "refunds"], "trace.jsonl"),
        ("--save-run", ["eval", questions], "run.json"),
    ]
    for option, command, name in runs:
        target, link = tmp_path / f"real-{name}", tmp_path / f"link-{name}"
        target.write_text("old\n")
        link.symlink_to(target)
        done = run_cli(*command, option, link, "--overwrite", columns=None)
        assert done.returncode == 0, done.stderr
        assert link.is_symlink() and os.readlink(link) == str(target)
        assert target.read_text() != "old\n" and target.stat().st_size > 10
        dangling = tmp_path / f"dangling-{name}"
        dangling.symlink_to(tmp_path / f"new-{name}")
        done = run_cli(*command, option, dangling, columns=None)
        assert done.returncode == 0, done.stderr
        assert dangling.is_symlink() and (tmp_path / f"new-{name}").is_file()
    saved = tmp_path / "real-trace.jsonl"
    target, link = tmp_path / "real.html", tmp_path / "link.html"
    target.write_text("old\n")
    link.symlink_to(target)
    done = run_cli("export", saved, "--html", link, "--overwrite", columns=None)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and target.read_text().startswith("<!DOCTYPE html>")


def test_an_output_through_a_symlink_to_a_fifo_or_onto_the_corpus_is_refused_and_nothing_changes(tmp_path: Path):
    corpus = tmp_path / "handbook.yaml"
    corpus.write_bytes(HANDBOOK.read_bytes())
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    to_fifo, to_corpus = tmp_path / "to-fifo.jsonl", tmp_path / "to-corpus.jsonl"
    to_fifo.symlink_to(fifo)
    to_corpus.symlink_to(corpus)
    done = run_cli("walk", corpus, "refunds", "--trace", to_fifo, "--overwrite", columns=None)
    assert done.returncode == 2 and "not a regular file" in done.stderr and done.stderr.count("\n") == 1
    done = run_cli("walk", corpus, "refunds", "--trace", to_corpus, "--overwrite", columns=None)
    assert done.stderr == (f"{PROG}: error: --trace {to_corpus} is the corpus ({corpus}); an output must not "
                           "overwrite an input: choose another file\n")
    assert corpus.read_bytes() == HANDBOOK.read_bytes()
    assert to_fifo.is_symlink() and to_corpus.is_symlink()


def test_the_explorer_export_and_serve_refuse_an_output_that_is_there_before_anything_starts(tmp_path: Path):
    there = tmp_path / "there.jsonl"
    there.write_text("kept\n")
    for argv, option in (([HANDBOOK, "--trace", there], "--trace"), ([HANDBOOK, "--otlp-file", there], "--otlp-file"),
                         (["serve", HANDBOOK, "--trace", there], "--trace"),
                         (["export", there, "--html", there], "--html")):
        done = run_cli(*argv, columns=None)
        assert done.returncode == 2, done.stderr
        if option != "--html":
            assert done.stderr == (f"{PROG}: error: {option} {there} exists and would be replaced; pass --overwrite "
                                   "to replace it, or name another file\n")
    assert there.read_text() == "kept\n"
