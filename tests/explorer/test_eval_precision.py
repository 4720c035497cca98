"""How precise a walk was (issue 19): nodes landed, precision, hit@1 and hit@3 by the order nodes landed, per
question and in the totals; in ``eval``'s text and ``--json``, built by the evaluation, which the CLI only prints."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.corpora.questions import Question, load_questions
from explorer.corpora.validate import stats
from explorer.navigators.judge import judge_for
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import evaluate, evaluation_to_json, judged, summarize
from tests.command_line import run_cli as run
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK_PATH = SAMPLES / "handbook.yaml"
HANDBOOK = load_corpus(HANDBOOK_PATH)

# Lands, in this order: requesting-a-refund, refund-delivery, refund-exceptions, then invoices and taxes (the
# script stops there).
LANDS_FOUR = """\
decisions:
  start: [billing]
  billing: [refunds, invoices, taxes]
  refunds: [requesting-a-refund, refund-delivery, refund-exceptions]
"""


def script(tmp_path: Path) -> str:
    path = tmp_path / "four.yaml"
    path.write_text(textwrap.dedent(LANDS_FOUR), encoding="utf-8")
    return f"script:{path}"


QUESTIONS = (
    Question("first", "q", ("requesting-a-refund",), 1),  # landed first
    Question("second", "q", ("refund-delivery",), 2),  # landed second
    Question("fourth", "q", ("invoices",), 3),  # landed fourth: a hit, not a hit@3
    Question("two-right", "q", ("requesting-a-refund", "taxes"), 4),
    Question("nowhere", "q", ("hotels",), 5),
)


def test_each_question_counts_what_landed_its_precision_and_hits_by_landing_order(tmp_path):
    outcomes = evaluate(HANDBOOK, QUESTIONS, WalkSettings("", script(tmp_path)))
    assert outcomes[0].landed == ("requesting-a-refund", "refund-delivery", "refund-exceptions", "invoices", "taxes")
    assert [(o.landed_count, o.correct, o.precision, o.hit, o.hit_at_1, o.hit_at_3) for o in outcomes] == [
        (5, 1, 0.2, True, True, True),
        (5, 1, 0.2, True, False, True),
        (5, 1, 0.2, True, False, False),
        (5, 2, 0.4, True, True, True),
        (5, 0, 0.0, False, False, False),
    ]
    summary = summarize(outcomes, stats(HANDBOOK))
    assert (summary.hits, summary.hits_at_1, summary.hits_at_3) == (4, 2, 3)
    assert (summary.landed, summary.correct, summary.mean_landed) == (25, 5, 5.0)
    assert summary.precision == pytest.approx(5 / 25)
    assert (summary.hit_at_1_rate, summary.hit_at_3_rate) == (pytest.approx(2 / 5), pytest.approx(3 / 5))


def test_nothing_landed_has_no_precision_rather_than_a_perfect_or_zero_one(tmp_path):
    path = tmp_path / "none.yaml"
    path.write_text("decisions:\n  start: []\n", encoding="utf-8")
    [outcome] = evaluate(HANDBOOK, QUESTIONS[:1], WalkSettings("", f"script:{path}"))
    assert (outcome.landed_count, outcome.precision, outcome.hit_at_1) == (0, None, False)
    assert summarize([outcome], stats(HANDBOOK)).precision is None


def questions_file(tmp_path: Path) -> Path:
    lines = [f"corpus: {HANDBOOK_PATH}", "questions:"]
    lines += [f"  - {{id: {q.id}, query: {q.query}, expect: [{', '.join(q.expect)}]}}" for q in QUESTIONS]
    path = tmp_path / "set.questions.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_eval_text_shows_hit_at_1_and_3_landed_and_precision_per_question_and_in_the_totals(tmp_path):
    out = run("eval", questions_file(tmp_path), "--navigator", script(tmp_path))
    assert out.returncode == 0, out.stderr
    header = next(line for line in out.stdout.splitlines() if "question" in line and "precision" in line)
    columns = [h.strip() for h in header.strip("┃ ").split("┃")]
    assert columns[:5] == ["question", "hit", "@1", "@3", "why missed"]
    fourth = next(line for line in out.stdout.splitlines() if "│ fourth" in line)
    cells = [c.strip() for c in fourth.strip("│ ").split("│")]
    assert cells[:4] == ["fourth", "✓", "✗", "✗"]
    assert (cells[columns.index("landed")], cells[columns.index("precision")]) == ("5", "20%")
    assert ("hit rate 80% (4/5)  ·  hit@1 40% (2)  ·  hit@3 60% (3)  ·  landed 5.0 per question  ·  "
            "precision 20% (5/25)") in out.stdout


def test_eval_json_is_the_evaluations_own_document_with_the_new_figures(tmp_path):
    path = questions_file(tmp_path)
    model = script(tmp_path)
    out = run("eval", path, "--navigator", model, "--json")
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    questions = load_questions(path)
    settings = WalkSettings("", model)
    judge = judge_for("semantic:default", HANDBOOK)  # eval's default judge: each miss's verdict, the flat rank
    outcomes = [judged(o, judge, model) for o in evaluate(HANDBOOK, questions.questions, settings)]
    built = evaluation_to_json(questions.path, HANDBOOK, settings, outcomes, summarize(outcomes, stats(HANDBOOK)))
    assert printed == json.loads(json.dumps(built))  # the CLI prints the evaluation's document, nothing of its own
    fourth = printed["results"][2]
    assert (fourth["landed_count"], fourth["precision"], fourth["hit"], fourth["hit_at_1"], fourth["hit_at_3"]) == (
        5, 0.2, True, False, False)
    assert fourth["end"] == "finished" and isinstance(fourth["end"], str)
    summary = printed["summary"]
    assert (summary["hits"], summary["hits_at_1"], summary["hits_at_3"], summary["mean_landed"]) == (4, 2, 3, 5.0)
    assert summary["precision"] == pytest.approx(0.2)
    assert summary["misses"] == {"turned away": 1}
