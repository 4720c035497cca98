"""Finding where a navigator goes wrong across a question set: the first wrong turn as a step of the walk, two
navigators compared (``eval --compare``), a question set told from a corpus, and a run that can be cancelled."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path

import pytest

from core import CandidatesOffered, NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import (
    Change,
    EvaluationRun,
    MissReason,
    evaluate,
    looks_like_question_set,
    wrong_turn_step,
)
from tests.command_line import run_cli as run
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = SAMPLES / "handbook.questions.yaml"
SET = load_questions(QUESTIONS)
CORPUS = load_corpus(SET.corpus_path)


def outcome(question_id: str, **settings):
    question = next(q for q in SET.questions if q.id == question_id)
    return evaluate(CORPUS, [question], WalkSettings("", **settings))[0]


def test_a_wrong_turn_below_the_roots_is_the_answer_that_passed_the_right_branch_over():
    scim = outcome("scim-deprovisioning")
    assert (scim.hit, scim.first_wrong_turn, scim.missed) == (False, 2, "single-sign-on")
    step = wrong_turn_step(scim, CORPUS.index)
    assert step == 9  # the step panel's numbering: the decision is the step of its answer
    offer = scim.history.events[step - 2]
    assert isinstance(offer, CandidatesOffered)
    assert offer.current.id == "sign-in-methods"
    assert "single-sign-on" in [c.id for c in offer.candidates]
    answer = scim.history.events[step - 1]  # the answer to that offer passed over the branch to scim-provisioning
    assert answer.selected == () and "single-sign-on" in answer.rejected


def test_a_wrong_turn_at_the_roots_is_the_first_answer():
    money = outcome("money-back")
    assert (money.first_wrong_turn, money.missed) == (0, "billing")
    assert wrong_turn_step(money, CORPUS.index) == 3
    assert money.history.events[1].current is None and money.history.events[2].current is None


def test_no_wrong_turn_means_the_end_of_the_walk():
    hit = next(o for o in evaluate(CORPUS, SET.questions[:40], WalkSettings("")) if o.hit)
    assert hit.first_wrong_turn is None and hit.missed is None
    assert wrong_turn_step(hit, CORPUS.index) is None


def test_a_budget_that_runs_out_on_the_way_is_no_wrong_turn_and_points_at_where_it_ran_out():
    # A budget of 2: the walk enters accounts and sign-in-methods, then has no visit left to judge anything below.
    # The navigator took no wrong turn: the visits all went to the way itself.
    scim = outcome("scim-deprovisioning", max_nodes_visited=2)
    assert (scim.first_wrong_turn, scim.missed) == (None, "single-sign-on")
    assert scim.miss.reason is MissReason.BUDGET and scim.miss.spent == ()
    step = wrong_turn_step(scim, CORPUS.index)
    stop = scim.history.events[step - 1]
    assert type(stop).__name__ == "PathStopped" and stop.record.reason.value == "visit_budget_exhausted"
    assert stop.record.node == "sign-in-methods"
    assert scim.miss.sentence() == ("the budget ran out toward single-sign-on: all 2 visits went to the way "
                                    f"itself; none was left at step {step}")


def test_each_walk_keeps_its_history_named_for_its_question():
    money = outcome("money-back")
    assert money.history.label.startswith("question money-back · lexical:default")
    assert money.history.end is WalkEnd.FINISHED and money.end == "finished"


def test_cancelling_an_evaluation_ends_the_walk_under_way_and_starts_no_other():
    class Gate(TreeNavigator):
        def __init__(self) -> None:
            self.inside = threading.Event()

        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            self.inside.set()
            request.cancellation.wait(60)
            request.cancellation.raise_if_cancelled()
            return NavigatorChoice(())

    gate = Gate()
    evaluation = EvaluationRun(CORPUS, SET.questions[:5], WalkSettings(""), navigator=gate, jobs=2)
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(evaluation.run()))
    worker.start()
    assert gate.inside.wait(30)
    evaluation.cancel()
    worker.join(30)
    assert not worker.is_alive()
    outcomes = results[0]
    walked = [o for o in outcomes if o is not None]
    assert 1 <= len(walked) <= 2 and all(o.end == "cancelled" for o in walked)
    assert outcomes[2:] == [None, None, None]


@pytest.mark.parametrize(("name", "text", "expected"), [
    ("handbook.questions.yaml", "anything", True),
    ("set.yaml", "corpus: handbook.yaml\nquestions:\n  - id: q\n", True),
    ("corpus.yaml", "source: s\nnodes:\n  - id: a\n", False),
    ("odd.yaml", "source: s\nquestions: x\nnodes:\n  - id: a\n", False),
    ("notes.md", "questions:\n", False),
])
def test_a_question_set_is_told_from_a_corpus(tmp_path, name, text, expected):
    path = tmp_path / name
    path.write_text(text)
    assert looks_like_question_set(path) is expected


def test_telling_a_fifo_apart_never_blocks_on_it(tmp_path):
    fifo = tmp_path / "corpus.yaml"
    os.mkfifo(fifo)  # nobody writes to it: reading it would wait for ever
    assert looks_like_question_set(fifo) is False


def test_sample_question_sets_and_corpora_are_told_apart():
    samples = SAMPLES
    assert all(looks_like_question_set(p) for p in samples.glob("*.questions.yaml"))
    assert not any(looks_like_question_set(p) for p in samples.glob("*.yaml") if ".questions." not in p.name)


# eval --compare ---------------------------------------------------------------------------------------------


def test_eval_compare_json_has_both_hit_rates_and_every_question_where_they_differ():
    out = run("eval", QUESTIONS, "--compare", "lexical:wide", "--json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    compare = doc["compare"]
    assert compare["navigator"] == "lexical:wide"
    assert compare["hit_rates"] == {"a": doc["summary"]["hit_rate"], "b": compare["summary"]["hit_rate"]}
    assert [r["id"] for r in compare["results"]] == [r["id"] for r in doc["results"]]
    a = {r["id"]: r for r in doc["results"]}
    b = {r["id"]: r for r in compare["results"]}
    differ = [i for i in a if set(a[i]["landed"]) != set(b[i]["landed"]) or a[i]["hit"] != b[i]["hit"]]
    assert [d["id"] for d in compare["differ"]] == differ and differ
    for d in compare["differ"]:
        x, y = a[d["id"]], b[d["id"]]
        assert (d["a_hit"], d["b_hit"], d["a_landed"], d["b_landed"]) == (x["hit"], y["hit"], x["landed"], y["landed"])
        expected = (Change.B_HITS if y["hit"] else Change.A_HITS) if x["hit"] != y["hit"] else Change.LANDED_DIFFERENTLY
        assert d["change"] == expected.value
    assert compare["summary"]["hits"] == sum(r["hit"] for r in compare["results"])


def test_eval_compare_text_says_both_rates_and_lists_the_differences():
    out = run("eval", QUESTIONS, "--compare", "lexical:wide")
    assert out.returncode == 0, out.stderr
    doc = json.loads(run("eval", QUESTIONS, "--compare", "lexical:wide", "--json").stdout)
    a, b = doc["summary"], doc["compare"]["summary"]
    assert "Compared: A lexical:default · B lexical:wide" in out.stdout
    assert (f"hit rate           A {a['hit_rate']:.0%} ({a['hits']}/{a['questions']}) · "
            f"B {b['hit_rate']:.0%} ({b['hits']}/{b['questions']})") in out.stdout
    assert f"{len(doc['compare']['differ'])} question(s) where they differ" in out.stdout
    first = doc["compare"]["differ"][0]
    assert f"  {first['id']}" in out.stdout


def test_eval_compare_with_itself_finds_no_difference():
    out = run("eval", SAMPLES / "contract.questions.yaml", "--compare", "lexical:default")
    assert out.returncode == 0
    assert "The two navigators landed the same nodes on every question." in out.stdout


def test_eval_compare_with_an_unknown_navigator_is_one_line_and_exit_2():
    out = run("eval", QUESTIONS, "--compare", "nobody:x")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("reasoning-explorer: error: navigator 'nobody:x': no navigator supports 'nobody:x'")
    assert out.stderr.count("\n") == 1


def test_the_same_navigator_shared_by_threads_gives_the_same_outcomes():
    one = EvaluationRun(CORPUS, SET.questions, WalkSettings(""), navigator=resolve_navigator("lexical:default")).run()
    many = EvaluationRun(CORPUS, SET.questions, WalkSettings(""), navigator=resolve_navigator("lexical:default"),
                         jobs=4).run()
    assert one == many and None not in one


# reasoning-explorer QUESTIONS.yaml ------------------------------------------------------------------------------


def test_the_explorer_given_a_question_set_opens_it_on_the_corpus_it_names():
    import argparse

    from explorer.cli.explore import question_set_for

    found = question_set_for(argparse.Namespace(corpus=str(QUESTIONS), compare="lexical:wide",
                                                navigator="lexical:default", no_files=False))
    assert found is not None
    questions, corpus, compared_file = found
    assert questions.path == QUESTIONS and corpus.path.resolve() == SET.corpus_path
    assert compared_file == []  # lexical: reads no file
    script = ROOT / "sample_corpora" / "scripts" / "hallucinated-branch.yaml"
    found = question_set_for(argparse.Namespace(corpus=str(QUESTIONS), compare=f"script:{script}",
                                                navigator="lexical:default", no_files=False))
    assert found is not None and found[2] == [("the file --compare reads", script)]
    assert question_set_for(argparse.Namespace(corpus=str(SET.corpus_path), compare=None,
                                               navigator="lexical:default", no_files=False)) is None


@pytest.mark.parametrize(("make", "args", "message"), [
    (None, ["sample_corpora/handbook.yaml", "--compare", "lexical:wide"],
     "--compare walks a question set with a second navigator: give QUESTIONS.yaml"),
    (None, ["missing.questions.yaml"], "missing.questions.yaml: no such question set"),
    (None, ["sample_corpora/handbook.questions.yaml", "--compare", "nobody:x"],
     "navigator 'nobody:x': no navigator supports 'nobody:x'"),
    (None, ["sample_corpora/handbook.questions.yaml", "--navigator", "manual:"], "needs a person at the keyboard"),
    ("questions:\n  - {{id: q, query: refunds, expect: [refunds]}}\n", ["{path}"],
     "the question set names no corpus; add `corpus: FILE` to it"),
    ("corpus: {handbook}\nquestions:\n  - {{id: q, query: refunds, expect: [ghost]}}\n", ["{path}"],
     "question 'q' expects 'ghost', which is not in"),
])
def test_a_question_set_the_explorer_cannot_walk_is_one_line_and_exit_2(tmp_path, make, args, message):
    path = tmp_path / "set.questions.yaml"
    if make is not None:
        path.write_text(make.format(handbook=SAMPLES / "handbook.yaml"))
    out = run(*[a.format(path=path) for a in args])
    assert out.returncode == 2, out.stdout
    assert out.stderr.startswith("reasoning-explorer: error: ") and message in out.stderr
    assert out.stderr.count("\n") == 1 and out.stdout == ""
