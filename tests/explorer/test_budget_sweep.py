"""``eval --budgets``: every question at each budget, the smallest budget that lands each, and over an LLM only the
largest budget's calls (a stub OpenAI-compatible server on 127.0.0.1 that answers by the ids it is offered)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.navigators import resolve_navigator
from explorer.navigators.judge import judge_for
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import draw_chart, evaluate, flat_line, hit_at_3_chart, sweep
from explorer.walks.evaluation.verdict_run import flat_hits_at_3
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .http_stub import Recorded, Reply, StubServer

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUESTIONS = SAMPLES / "handbook.questions.yaml"
ENV = {"OPENAI_API_KEY": "sk-sweep-000111", "REASONING_EXPLORER_MAX_RETRIES": "0", "COLUMNS": "200"}


def cli(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**ENV, **(env or {})})  # type: ignore[return-value]


def first_two(request: Recorded) -> Reply:
    """The first two ids the schema offers: a navigator that goes wide, so budgets matter."""
    schema = request.json()["response_format"]["json_schema"]["schema"]
    offered = schema["properties"]["selected"]["items"]["enum"]
    content = json.dumps({"selected": offered[:2], "rationale": "the first two"})
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}]})


@pytest.fixture(scope="module")
def handbook():
    return load_corpus(HANDBOOK), load_questions(QUESTIONS).questions[:6]


def test_a_free_navigator_is_walked_live_at_every_budget(handbook) -> None:
    corpus, questions = handbook
    settings = WalkSettings("", "lexical:default")
    found = sweep(corpus, questions, settings, [8, 3, 15, 3], navigator=resolve_navigator("lexical:default"))
    assert found.budgets == (3, 8, 15)
    for row in found.rows:
        alone = evaluate(corpus, questions, settings.but(max_nodes_visited=row.budget),
                         navigator=resolve_navigator("lexical:default"))
        assert [o.landed for o in row.outcomes] == [o.landed for o in alone]
        assert not row.reused and row.live_calls == sum(o.calls for o in alone)
    for number in range(len(questions)):
        hits = [row.outcomes[number].hit for row in found.rows]
        expected = next((b for b, hit in zip(found.budgets, hits, strict=True) if hit), None)
        assert found.lands_from(number) == expected


def test_over_an_llm_only_the_largest_budgets_calls_are_made() -> None:
    with StubServer(respond=first_two) as server:
        evaluated = cli("eval", QUESTIONS, "--navigator", "openai:sweep-model", "--budgets", "2,4,15", "--json",
                        "--no-cache", env={"OPENAI_BASE_URL": server.url})
        assert evaluated.returncode == 0, evaluated.stderr
        calls = len(server.requests)
    with StubServer(respond=first_two) as server:
        alone = cli("eval", QUESTIONS, "--navigator", "openai:sweep-model", "--max-visits", "15", "--json",
                    "--no-cache", env={"OPENAI_BASE_URL": server.url})
        assert alone.returncode == 0, alone.stderr
        calls_alone = len(server.requests)
    document, largest = json.loads(evaluated.stdout), json.loads(alone.stdout)
    assert calls == calls_alone > 0  # the sweep asked exactly what a walk at budget 15 asks
    rows = document["sweep"]["rows"]
    assert [(r["budget"], r["reused"]) for r in rows] == [(2, True), (4, True), (15, False)]
    assert [r["live_calls"] for r in rows] == [0, 0, sum(r["navigator_calls"] for r in largest["results"])]
    assert document["results"] == largest["results"]
    assert document["summary"] == largest["summary"]
    # A budget of 2 enters at most two nodes: the first two roots, no deeper.
    assert rows[0]["summary"]["mean_visits"] <= 2
    lands = {q["id"]: q["lands_from"] for q in document["sweep"]["questions"]}
    assert set(lands) == {r["id"] for r in largest["results"]}
    for result in largest["results"]:
        assert (lands[result["id"]] is None) == (not result["hit"])


def test_the_human_output_has_a_row_per_budget_and_each_questions_budget() -> None:
    evaluated = cli("eval", QUESTIONS, "--budgets", "3,15")
    assert evaluated.returncode == 0, evaluated.stderr
    found = sweep(load_corpus(HANDBOOK), load_questions(QUESTIONS).questions, WalkSettings("", "lexical:default"),
                  [3, 15], navigator=resolve_navigator("lexical:default"))
    lines = evaluated.stdout.splitlines()
    assert lines[0] == "Budget sweep"
    assert lines[1].startswith("  budget  3  hit ") and lines[2].startswith("  budget 15  hit ")
    # the flat search (the default judge ranking every node, no tree): its figure, then a level line of its own
    assert lines[3] == ("flat search hit@3 35/41 at any budget: the judge ranking every node, no tree, no navigator "
                        "call")
    start = lines.index("Per question:")  # after the chart of hit@3 by budget, plain text in a pipe
    chart = flat_line(hit_at_3_chart([("lexical:default", found)]), 35)
    assert [(line.name, line.points) for line in chart.series][1] == ("flat search (no tree)", ((3, 35.0), (15, 35.0)))
    assert lines[4:start] == draw_chart(chart, 72, 18).splitlines()
    assert lines[4].strip() == "hit@3 of 41 questions, by visit budget"
    assert lines[start - 2:start] == ["•• lexical:default", "xx flat search (no tree)"]
    assert "\x1b" not in evaluated.stdout
    assert all(line.endswith(("lands from 3", "lands from 15", "not within 15")) for line in lines[start + 1:])
    assert len(lines[start + 1:]) == len(load_questions(QUESTIONS).questions)


@pytest.mark.parametrize(("args", "message"), [
    (("--budgets", "3,x"), "argument --budgets: 'x' is not a visit budget; give budgets as whole numbers separated "
                           "by commas: 3,5,8,15"),
    (("--budgets", "0"), "argument --budgets: 0 is not a visit budget (1-100000); give budgets as whole numbers "
                         "separated by commas: 3,5,8,15"),
    (("--budgets", "3,5", "--compare", "lexical:strict"),
     "--budgets and --compare cannot go together; sweep one navigator at a time"),
    (("--budgets", "3,5", "--max-visits", "4"),
     "--budgets and --max-visits cannot go together; the budgets are the visit budgets to walk with"),
])
def test_bad_budgets_are_one_line_and_exit_2(args, message) -> None:
    evaluated = cli("eval", QUESTIONS, *args)
    assert evaluated.returncode == 2
    assert evaluated.stderr.splitlines()[0].startswith("reasoning-explorer")
    assert message in evaluated.stderr and len(evaluated.stderr.splitlines()) == 1


def test_walk_budgets_prints_what_lands_at_each_and_the_smallest_that_lands_the_expected_node() -> None:
    walked = cli("walk", HANDBOOK, "how long do refunds take", "--budgets", "15,1,2,3", "--expect", "refund-delivery")
    assert walked.returncode == 0, walked.stderr
    assert walked.stdout.splitlines() == [
        "Walk how long do refunds take · lexical:default at budgets 1, 2, 3, 15",
        "  budget  1  1 visit · landed billing",
        "  budget  2  2 visits · landed refunds",
        "  budget  3  3 visits · landed refund-delivery",
        "  budget 15  3 visits · landed refund-delivery",
        "refund-delivery lands from 3",
    ]
    document = json.loads(cli("walk", HANDBOOK, "how long do refunds take", "--budgets", "1,2",
                              "--expect", "refund-delivery", "--json").stdout)
    assert [(b["budget"], b["landed"], b["reused"]) for b in document["budgets"]] == [
        (1, ["billing"], False), (2, ["refunds"], False)]
    assert document["lands_from"] is None
    short = cli("walk", HANDBOOK, "how long do refunds take", "--budgets", "1,2", "--expect", "refund-delivery")
    assert short.stdout.splitlines()[-1] == "refund-delivery does not land within 2"


@pytest.mark.parametrize(("args", "message"), [
    (("--expect", "billing"), "--expect names the node a budget sweep looks for: it needs --budgets N,N,..."),
    (("--budgets", "3", "--expect", "nope"),
     "--expect nope: no node 'nope' in sample_corpora/handbook.yaml; give a node id of the corpus"),
    (("--budgets", "3", "--runs", "2"),
     "--budgets and --runs cannot go together; the budgets walk once each, with these visit budgets"),
    (("--budgets", "3", "--force", "start=billing"),
     "--budgets and --force cannot go together; the budgets walk once each, with these visit budgets"),
])
def test_walk_budgets_refuses_what_does_not_go_with_it(args, message) -> None:
    walked = cli("walk", "sample_corpora/handbook.yaml", "refunds", *args)
    assert walked.returncode == 2
    assert walked.stderr == f"reasoning-explorer: error: {message}\n"


def test_the_sweep_holds_the_flat_search_hit_at_3_and_none_with_no_judge() -> None:
    document = json.loads(cli("eval", QUESTIONS, "--budgets", "3,15", "--json").stdout)
    assert document["sweep"]["flat_hits_at_3"] == 35
    lexical = json.loads(cli("eval", QUESTIONS, "--budgets", "3,15", "--json", "--judge", "lexical:default").stdout)
    questions = load_questions(QUESTIONS).questions
    assert lexical["sweep"]["flat_hits_at_3"] == flat_hits_at_3(judge_for("lexical:default", load_corpus(HANDBOOK)),
                                                                [(q.query, q.expect) for q in questions])
    none = cli("eval", QUESTIONS, "--budgets", "3,15", "--judge", "none")
    assert none.returncode == 0 and "flat search" not in none.stdout
    assert "flat_hits_at_3" not in json.loads(cli("eval", QUESTIONS, "--budgets", "3", "--json", "--judge",
                                                  "none").stdout)["sweep"]
