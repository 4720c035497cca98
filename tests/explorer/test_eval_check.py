"""``eval --check CORPUS`` (issue 36, point 1): the corpus's check set, written beside it, said on stderr with how
many questions and from where, and walked as any set (A against B with ``--compare``); its one-line errors. The
command line runs in this process on real files in tmp_path."""

from __future__ import annotations

import json
from pathlib import Path

from tests.command_line import run_cli

from .check_set_helpers import CHECK_IDS, SAMPLES, check_set_folder

PROG = "reasoning-explorer"


def test_eval_check_walks_the_check_set_of_the_corpus_a_against_b(tmp_path: Path) -> None:
    corpus = check_set_folder(tmp_path)
    done = run_cli("eval", "--check", corpus, "--navigator", "lexical:default", "--compare", "semantic:default",
                   "--json", columns=None)
    assert done.returncode == 0, done.stderr
    check = tmp_path / "handbook.check.questions.yaml"
    assert done.stderr == (f"Check set of {corpus}: 4 questions: 2 kept with K, 2 missed or flipped in "
                           f"small-candidate.run.json ({check})\n")
    document = json.loads(done.stdout)
    assert document["questions"] == str(check)
    assert [r["id"] for r in document["results"]] == CHECK_IDS
    assert [r["hit"] for r in document["results"]] == [False, True, False, False]
    assert [r["hit"] for r in document["compare"]["results"]] == [True, True, False, True]


def test_eval_check_says_in_one_line_what_is_missing(tmp_path: Path) -> None:
    corpus = tmp_path / "handbook.yaml"
    corpus.write_bytes((SAMPLES / "handbook.yaml").read_bytes())
    done = run_cli("eval", "--check", corpus, columns=None)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == (
        f"{PROG}: error: {tmp_path / 'handbook.check.questions.yaml'}: no check set yet: no question kept with K and "
        "no kept run of this corpus with a miss; keep a case with K or a run with ctrl+s (eval --save-run), or "
        "evaluate a whole set\n")
    assert run_cli("eval", columns=None).stderr == (
        f"{PROG}: error: give QUESTIONS (a question set), or --check CORPUS (the check set of a corpus)\n")
    both = run_cli("eval", SAMPLES / "handbook.questions.yaml", "--check", corpus, columns=None)
    assert (both.returncode, both.stderr) == (2, f"{PROG}: error: --check walks the check set of {corpus}: give it "
                                                 f"without {SAMPLES / 'handbook.questions.yaml'}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["handbook.yaml"]  # nothing written
