"""Question sets and corpus validation (errors and, separately, warnings)."""

from __future__ import annotations

import textwrap

import pytest

from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.questions import load_questions
from explorer.corpora.validate import validate


def write(path, text):
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


CORPUS = """\
source: s
nodes:
  - id: billing
    title: Billing
    summary: Money
    content: Intro.
    children:
      - id: refunds
        title: Refunds
        summary: Refunds are issued within 14 days
        content: Refunds are issued within 14 days.
"""


def test_a_question_set_loads_with_its_corpus_path(tmp_path):
    write(tmp_path / "c.yaml", CORPUS)
    path = write(tmp_path / "c.questions.yaml", """\
        corpus: c.yaml
        questions:
          - id: money-back
            query: How long until I get my money back?
            expect: [refunds]
          - id: one
            query: Billing?
            expect: billing
        """)
    questions = load_questions(path)
    assert questions.corpus_path == (tmp_path / "c.yaml").resolve()
    assert [(q.id, q.query, q.expect, q.line) for q in questions.questions] == [
        ("money-back", "How long until I get my money back?", ("refunds",), 3),
        ("one", "Billing?", ("billing",), 6),
    ]
    assert questions.check(load_corpus(questions.corpus_path)) == []


def test_an_expected_id_missing_from_the_corpus_is_named(tmp_path):
    write(tmp_path / "c.yaml", CORPUS)
    path = write(tmp_path / "q.yaml", "corpus: c.yaml\nquestions:\n  - {id: q1, query: x, expect: [refund]}\n")
    questions = load_questions(path)
    [error] = questions.check(load_corpus(questions.corpus_path))
    assert str(error) == f"{path}:3: question 'q1' expects 'refund', which is not in {tmp_path / 'c.yaml'}; fix the id"


@pytest.mark.parametrize(("text", "message"), [
    ("corpus: c.yaml\n", "q.yaml: `questions:` must be a non-empty list of questions"),
    ("corpus: c.yaml\nquestions:\n  - {id: a, query: x}\n",
     "q.yaml:3: question 'a': `expect:` must list the ids that answer it"),
    ("questions:\n  - {id: a, query: ' ', expect: [x]}\n", "q.yaml:2: questions[0]: needs a non-blank `query:`"),
    ("questions:\n  - {id: a, qeury: x, expect: [x]}\n",
     "q.yaml:2: questions[0]: unknown key 'qeury'; did you mean 'query'?"),
    ("questions:\n  - {id: a, query: x, expect: [x]}\n  - {id: a, query: y, expect: [x]}\n",
     "q.yaml:3: duplicate question id 'a' (first at line 2); rename one"),
    ("[1, 2]\n", "q.yaml:1: a question set is a mapping with `corpus:` and `questions:`, not a list"),
])
def test_broken_question_sets(tmp_path, text, message):
    path = write(tmp_path / "q.yaml", text)
    with pytest.raises(CorpusError) as caught:
        load_questions(path)
    assert str(caught.value) == f"{tmp_path}/{message}"


def test_validate_reports_warnings_separately_from_errors(tmp_path):
    long_title = "T" * 121
    long_summary = "S" * 401
    children = "\n".join(f"      - {{id: c{i}, title: C{i}, summary: s, content: text}}" for i in range(51))
    path = write(tmp_path / "w.yaml", f"""\
source: w
nodes:
  - id: bare
    content: no summary here
  - id: empty-leaf
    summary: nothing inside
  - id: long
    title: {long_title}
    summary: {long_summary}
    content: x
  - id: wide
    summary: many children
    content: x
    children:
{children}
""")
    report = validate(path)
    assert report.errors == ()
    assert [(w.code, w.node, w.line) for w in report.warnings] == [
        ("no-summary", "bare", 3),
        ("empty-leaf", "empty-leaf", 5),
        ("long-title", "long", 7),
        ("long-summary", "long", 7),
        ("wide-node", "wide", 11),
    ]
    assert report.warnings[0].message == f"{path}:3: node 'bare' has no summary; the navigator sees only its title"
    assert report.warnings[4].message.endswith("node 'wide' has 51 children (over 50); group them so each offer "
                                               "stays small")
    stats = report.stats
    assert (stats.nodes, stats.roots, stats.leaves, stats.depth) == (55, 4, 54, 1)
    assert (stats.widest, stats.widest_children) == ("wide", 51)


def test_validate_lists_every_yaml_error_and_has_no_warnings_then(tmp_path):
    path = write(tmp_path / "bad.yaml", "source: s\nnodes:\n  - id: a\n    sumary: x\n  - title: t\n  - id: a\n")
    report = validate(path)
    assert not report.ok
    assert [(e.line, e.message.split(": ", 1)[1]) for e in report.errors] == [
        (4, "node at nodes[0]: unknown key 'sumary'; did you mean 'summary'?"),
        (5, "node at nodes[1] (title 't') has no id; add `id: <unique-id>`"),
        (6, "duplicate id 'a' (first at line 3); ids must be unique within a corpus: rename one"),
    ]
    assert report.warnings == ()


def test_validate_of_an_unloadable_file_is_one_error(tmp_path):
    report = validate(tmp_path / "missing.yaml")
    assert [e.code for e in report.errors] == ["error"]
    assert "no such file or folder" in report.errors[0].message


def test_a_report_keeps_the_first_hundred_warnings_in_tree_order_and_counts_the_rest(tmp_path):
    path = tmp_path / "headings.md"
    path.write_text("".join(f"# H{i}\n\n" for i in range(1, 1001)))
    report = validate(path)
    assert report.ok
    assert [(w.code, w.node) for w in report.warnings[:3]] == [("no-summary", "h1"), ("empty-leaf", "h1"),
                                                               ("no-summary", "h2")]
    assert len(report.warnings) == 100 and report.warnings[-1].node == "h50"
    assert (report.more_warnings, report.warning_count) == (1900, 2000)
