"""Question sets that can be checked (issue 19): ``validate`` knows a question set and lists, each with its question
id, expected ids missing from the corpus, duplicate ids, an empty ``expect`` and (a warning) an expected node with
children; ``eval`` refuses a set that does not fit its corpus in one line, before walking; one check serves all."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.corpora.questions import fit_problem, load_questions
from explorer.corpora.validate import validate_questions
from tests.command_line import run_cli as run
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = SAMPLES
HANDBOOK = SAMPLES / "handbook.yaml"

BROKEN = """\
corpus: {corpus}
questions:
  - id: money-back
    query: How long until I get my money back?
    expect: [refunds]
  - id: hotel
    query: Hotel limit?
    expect: [hotel]
  - id: hotel
    query: Hotel limit in London?
    expect: [hotels]
  - id: nothing
    query: Anything?
    expect: []
"""


def broken(tmp_path: Path) -> Path:
    path = tmp_path / "broken.questions.yaml"
    path.write_text(textwrap.dedent(BROKEN).format(corpus=HANDBOOK), encoding="utf-8")
    return path


def test_validate_lists_every_problem_of_a_question_set_with_its_question_id(tmp_path):
    path = broken(tmp_path)
    report = validate_questions(path)
    assert [(f.code, f.line, f.message) for f in report.errors] == [
        ("missing-id", 6, f"{path}:6: question 'hotel' expects 'hotel', which is not in {HANDBOOK}; fix the id"),
        ("question", 9, f"{path}:9: duplicate question id 'hotel' (first at line 6); rename one"),
        ("question", 12, f"{path}:12: question 'nothing': `expect:` is empty; list the ids of the nodes that "
                         "answer it"),
    ]
    assert [(w.code, w.line, w.node, w.message) for w in report.warnings] == [
        ("expects-a-parent", 3, "refunds",
         f"{path}:3: question 'money-back' expects 'refunds', which has 4 children (satisfaction-guarantee, "
         "requesting-a-refund, refund-exceptions, refund-delivery): a walk lands it only by stopping above the "
         "answer; expect the node that answers it"),
    ]
    assert not report.ok


def test_validate_recognises_a_question_set_on_the_command_line(tmp_path):
    out = run("validate", broken(tmp_path))
    assert out.returncode == 1
    assert "unknown top-level key" not in out.stdout + out.stderr
    assert "Question set broken.questions.yaml · 4 questions on Northwind Cloud handbook" in out.stdout
    assert "error: " in out.stdout and "question 'hotel' expects 'hotel'" in out.stdout
    assert "warning: " in out.stdout and "question 'money-back' expects 'refunds'" in out.stdout
    assert out.stdout.rstrip().endswith("3 errors, 1 warning")


@pytest.mark.parametrize("name", ["handbook", "regulation", "specification", "contract"])
def test_every_sample_question_set_is_clean_and_expects_what_a_walk_lands(name):
    out = run("validate", SAMPLES / f"{name}.questions.yaml")
    assert out.returncode == 0, out.stdout
    assert out.stdout.rstrip().endswith("ok, 0 warnings")


def test_money_back_expects_the_leaf_that_answers_it():
    money = next(q for q in load_questions(SAMPLES / "handbook.questions.yaml").questions if q.id == "money-back")
    assert money.expect == ("refund-delivery",)


def test_one_check_says_whether_a_set_fits_a_corpus(tmp_path):
    path = tmp_path / "q.questions.yaml"
    path.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - {{id: a, query: x, expect: [ghost]}}\n"
                    "  - {id: b, query: y, expect: [refunds, phantom]}\n", encoding="utf-8")
    questions = load_questions(path)
    handbook = load_corpus(HANDBOOK)
    assert fit_problem(questions, handbook) == (
        f"{path}:3: question 'a' expects 'ghost', which is not in {HANDBOOK}; fix the id (and 1 more)")
    other = load_corpus(SAMPLES / "contract.yaml")
    assert fit_problem(questions, other, named_corpus=True) == (
        f"{path} is a question set for {HANDBOOK}, not for {other.path}; open it with `reasoning-explorer {path}`")
    fine = load_questions(SAMPLES / "handbook.questions.yaml")
    assert fit_problem(fine, handbook) is None and fit_problem(fine, handbook, named_corpus=True) is None


def test_eval_refuses_a_set_that_does_not_fit_its_corpus_in_one_line_before_walking(tmp_path):
    path = tmp_path / "q.questions.yaml"
    path.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - {{id: a, query: x, expect: [ghost]}}\n", encoding="utf-8")
    out = run("eval", path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"reasoning-explorer: error: {path}:3: question 'a' expects 'ghost', which is not in "
                          f"{HANDBOOK}; fix the id\n")
