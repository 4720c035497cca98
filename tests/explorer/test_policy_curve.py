"""``eval --compare-policy`` (issue 37, point 5): the same navigator and budget under two walk policies. At one budget,
each miss of the first policy says whether the other lands it, as a column of the table and a line under its reason;
with ``--budgets``, the cost/quality curve (hit@3, landed, precision, calls, tokens per budget and policy), drawn as a
chart and written as JSON. On the contract's set with ``lexical:default``, whose walks are deterministic."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from core import Policy
from core.policy import DEFAULT_ALPHA
from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import curve_lines, draw_chart, policy_curve
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
CONTRACT = SAMPLES / "contract.questions.yaml"

ROWS = [  # budget, policy, hit@3, nodes landed, expected nodes landed, the navigator's answers (31 questions)
    (3, "depth-first", 4, 48, 4, 62),
    (3, "best-first", 4, 35, 4, 64),
    (8, "depth-first", 7, 70, 8, 89),
    (8, "best-first", 8, 78, 8, 92),
    (15, "depth-first", 7, 77, 9, 101),
    (15, "best-first", 9, 124, 10, 116),
]


def test_the_curve_is_written_as_json_with_each_budget_and_policys_figures():
    done = run_cli("eval", CONTRACT, "--navigator", "lexical:default", "--compare-policy", "best-first",
                   "--budgets", "15,3,8", "--json")
    assert done.returncode == 0, done.stderr
    curve = json.loads(done.stdout)["policy_curve"]
    assert (curve["policies"], curve["budgets"]) == (["depth-first", "best-first"], [3, 8, 15])
    assert curve["flat_hits_at_3"] == 17  # the flat search by eval's judge, no tree
    assert curve["rows"] == [
        {"budget": budget, "policy": policy, "questions": 31, "hits_at_3": hits, "landed": landed,
         "correct": correct, "calls": calls, "tokens": 0, "mean_landed": round(landed / 31, 4),
         "precision": round(correct / landed, 4), "mean_calls": round(calls / 31, 4), "mean_tokens": 0.0,
         "reused": False}
        for budget, policy, hits, landed, correct, calls in ROWS]
    lands = {q["id"]: q["lands"] for q in curve["questions"]}
    assert len(lands) == 31
    assert [(key, value) for key, value in lands.items() if value["depth-first"] != value["best-first"]] == [
        ("audit-rights", {"depth-first": [False, False, False], "best-first": [False, False, True]})]


def test_the_curve_is_printed_as_a_table_and_a_chart_of_hit_at_3_by_budget_with_no_escape_code_in_a_pipe():
    done = run_cli("eval", CONTRACT, "--compare-policy", "best-first", "--budgets", "3,8,15")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:8] == [
        "Policies: depth-first against best-first · lexical:default",
        "budget  policy       hit@3  landed  precision  calls  tokens",
        "     3  depth-first   4/31    1.55       0.08    2.0       0",
        "     3  best-first    4/31    1.13       0.11    2.1       0",
        "     8  depth-first   7/31    2.26       0.11    2.9       0",
        "     8  best-first    8/31    2.52       0.10    3.0       0",
        "    15  depth-first   7/31    2.48       0.12    3.3       0",
        "    15  best-first    9/31    4.00       0.08    3.7       0",
    ]
    questions = load_questions(CONTRACT)
    curve = policy_curve(load_corpus(SAMPLES / "contract.yaml"), questions.questions,
                         WalkSettings("", "lexical:default"),
                         [(Policy.DEPTH_FIRST, DEFAULT_ALPHA), (Policy.BEST_FIRST, DEFAULT_ALPHA)], [3, 8, 15],
                         navigator=resolve_navigator("lexical:default"))
    assert curve.lines() == curve_lines(curve.points()) == lines[1:8]
    # the flat search (eval's judge ranking every node, no tree): a level line of its own, labelled
    assert lines[8] == ("flat search hit@3 17/31 at any budget: the judge ranking every node, no tree, no navigator "
                        "call")
    flat = replace(curve, flat=17)
    assert lines[9:] == draw_chart(flat.chart(), 72, 18).splitlines()
    assert lines[-3:] == ["•• depth-first", "xx best-first", "++ flat search (no tree)"] and "\x1b" not in done.stdout
    assert [(line.name, line.points) for line in flat.chart().series][2] == (
        "flat search (no tree)", ((3, 17.0), (8, 17.0), (15, 17.0)))
    assert curve.chart().series == flat.chart().series[:2]  # not searched: no flat line


def test_at_one_budget_each_miss_says_whether_the_other_policy_lands_it():
    done = run_cli("eval", CONTRACT, "--compare-policy", "best-first")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    header = next(line for line in lines if "why missed" in line)
    assert "┃ best-first lands ┃" in header
    column = [cell.strip() for cell in header.split("┃")].index("best-first lands")
    audit = next(line for line in lines if line.startswith("│ audit-rights "))
    walk_away = next(line for line in lines if line.startswith("│ walk-away "))
    assert audit.split("│")[column].strip() == "✓" and walk_away.split("│")[column].strip() == "✗"
    reason = lines.index(next(line for line in lines if line.startswith("  audit-rights: turned away: ")))
    assert lines[reason + 1] == "    best-first lands it at the same budget (15)"
    walked = lines.index(next(line for line in lines if line.startswith("  walk-away: ")))
    assert lines[walked + 1] == "    best-first misses it too (budget 15)"
    assert "Why each miss is a miss (22 misses):" in lines  # depth-first's, the policy walked
    second = lines.index("Why each miss of best-first is a miss (21 misses):")
    assert lines[second + 2] == "    depth-first misses it too (budget 15)"  # under best-first's first miss
    assert lines[-4:] == [
        "budget  policy       hit@3  landed  precision  calls  tokens",
        "    15  depth-first   7/31    2.48       0.12    3.3       0",
        "    15  best-first    9/31    4.00       0.08    3.7       0",
        "flat search hit@3 17/31 at any budget: the judge ranking every node, no tree, no navigator call",
    ]


@pytest.mark.parametrize(("args", "message"), [
    (("--compare-policy", "depth-first"),
     "--compare-policy names the policy walked already; give the other one (--policy depth-first --compare-policy "
     "best-first)"),
    (("--policy", "best-first", "--compare-policy", "best-first@alpha=0.5"),
     "--compare-policy names the policy walked already; give the other one (--policy depth-first --compare-policy "
     "best-first)"),
    (("--compare-policy", "best-first", "--compare", "lexical:strict"),
     "--compare-policy cannot go with --compare; compare the policies of one navigator's run at a time"),
    (("--compare-policy", "best-first", "--save-run", "x.run.json"),
     "--compare-policy cannot go with --save-run; compare the policies of one navigator's run at a time"),
    (("--compare-policy", "sideways"),
     "argument --compare-policy: 'sideways' is no walk policy; write depth-first or best-first "
     "(best-first@alpha=0.7) (see `reasoning-explorer eval --help`)"),
])
def test_a_compare_policy_that_cannot_be_is_one_line_and_exit_2(args, message):
    done = run_cli("eval", CONTRACT, *args)
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr.splitlines() == [f"reasoning-explorer: error: {message}"]


def test_a_best_first_evaluations_document_says_its_policy_in_its_settings():
    """A document without a policy reads as depth-first (docs/formats.md): a best-first run's must say so, and
    --compare-policy's document is that of the first policy walked."""
    done = run_cli("eval", CONTRACT, "--navigator", "lexical:default", "--policy", "best-first@alpha=0.7",
                   "--compare-policy", "depth-first", "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["settings"] == {"max_nodes_visited": 15, "max_depth": 6, "on_failure": "throw",
                                                   "policy": "best_first", "alpha": 0.7}
    done = run_cli("eval", CONTRACT, "--navigator", "lexical:default", "--json")
    assert json.loads(done.stdout)["settings"] == {"max_nodes_visited": 15, "max_depth": 6, "on_failure": "throw"}


def test_in_a_pipe_the_per_question_table_is_plain_columns_each_row_one_line():
    """Into a pipe (no terminal, no COLUMNS), the table was squeezed to 160 columns and its headings wrapped
    (``best-fir`` over ``st lands``, issue 45, tried as three kinds of user, point 10): now each heading is whole on
    one line and each question is one row."""
    questions = SAMPLES / "handbook.questions.yaml"
    done = run_cli("eval", questions, "--compare-policy", "best-first", "--navigator", "lexical:default", columns=None)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    headers = [line for line in lines if line.startswith("┃")]
    assert len(headers) == 1
    assert [cell.strip() for cell in headers[0].strip("┃").split("┃")] == [
        "question", "hit", "@1", "@3", "why missed", "best-first lands", "branch", "wrong turn", "visits", "calls",
        "chars", "landed", "precision", "landed ids", "stops"]
    rows = [line for line in lines if line.startswith("│")]
    assert [row.split("│")[1].strip() for row in rows] == [q.id for q in load_questions(questions).questions]


def test_with_no_judge_the_curve_has_no_flat_line():
    done = run_cli("eval", CONTRACT, "--compare-policy", "best-first", "--budgets", "3,8", "--judge", "none")
    assert done.returncode == 0, done.stderr
    assert "flat search" not in done.stdout
    assert done.stdout.splitlines()[-2:] == ["•• depth-first", "xx best-first"]
