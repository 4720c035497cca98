"""Sentences, not only figures: was → now leads with one sentence that says whether it worked (``Fixed 3 of 4 kept
cases, broke none``, ``Not fixed: the kept case still misses — turned away at the roots``, read from a kept file as
from a run in hand); a best-first walk's end says what the visits did not reach was left waiting in the frontier."""

from __future__ import annotations

import json

from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import KeptRun, RunComparison
from explorer.walks.evaluation.kept_run import KeptQuestion, _result
from explorer.walks.evaluation.misses import Miss, MissReason
from tests.command_line import run_cli
from tests.samples import SAMPLES

CHECK = "handbook.check.questions.yaml"


def question(id: str, hit: bool, miss: Miss | None = None) -> KeptQuestion:
    return KeptQuestion(id, hit, hit, ("x",) if hit else (), miss.sentence() if miss else None, int(hit),
                        miss.brief() if miss else None)


def run(path: str, *results: KeptQuestion, questions: str = CHECK) -> KeptRun:
    return KeptRun(path, WalkSettings("", "lexical:default"), "q", "c", len(results), results, (), questions)


AT_ROOTS = Miss(MissReason.TURNED_AWAY, 2, None, "people-policies", ("onboarding",))
OUT = Miss(MissReason.BUDGET, 5, "benefits", "pay")


def test_a_kept_case_still_missed_says_so_and_where_it_turned_away() -> None:
    said = RunComparison(run("was.json", question("q1", False, AT_ROOTS)),
                         run("now.json", question("q1", False, AT_ROOTS))).lines()
    assert said[0] == "Not fixed: the kept case still misses — turned away at the roots"
    assert said[1] == "Against was.json: was lexical:default · now lexical:default"


def test_fixed_cases_are_counted_with_what_broke() -> None:
    was = run("was.json", *(question(f"q{n}", False, AT_ROOTS) for n in range(4)), question("q4", True))
    now = run("now.json", *(question(f"q{n}", True) for n in range(3)), question("q3", False, OUT),
              question("q4", True))
    assert RunComparison(was, now).headline() == "Fixed 3 of 4 kept cases, broke none"
    broke = run("now.json", *(question(f"q{n}", True) for n in range(3)), question("q3", False, OUT),
                question("q4", False, OUT))
    assert RunComparison(was, broke).headline() == "Fixed 3 of 4 kept cases, broke 1 (q4)"
    assert RunComparison(was, broke).to_json()["says"] == "Fixed 3 of 4 kept cases, broke 1 (q4)"


def test_outside_a_check_set_the_cases_are_the_questions_the_kept_run_missed() -> None:
    was = run("was.json", question("a", False, AT_ROOTS), question("b", False, OUT), questions="set.questions.yaml")
    now = run("now.json", question("a", False, OUT), question("b", False, OUT), questions="set.questions.yaml")
    assert RunComparison(was, now).headline() == ("Not fixed: all 2 questions the kept run missed still miss — 2 ran "
                                                  "out of visits")
    clean = run("now.json", question("a", True), questions="set.questions.yaml")
    assert RunComparison(run("was.json", question("a", True), questions="set.questions.yaml"), clean).headline() == \
        "Nothing to fix: the kept run missed none of 1 question; this run broke none"


def test_a_kept_files_miss_reads_back_in_a_few_words() -> None:
    item = {"id": "q1", "hit": False, "hit_at_3": False, "landed": [], "miss": AT_ROOTS.to_json()}
    assert _result(item, "result 1").brief == "turned away at the roots"
    unknown = {**item, "miss": {"reason": "something new", "says": "x"}}
    assert _result(unknown, "result 1").brief is None


def test_a_best_first_walks_end_says_what_was_left_waiting_in_the_frontier() -> None:
    query = "How many vacation days do I get?"
    ends = {}
    for policy in ("best-first", "depth-first"):
        done = run_cli("walk", SAMPLES / "handbook.yaml", query, "--navigator", "lexical:wide", "--max-visits", "3",
                       "--policy", policy)
        assert done.returncode == 0, done.stderr
        ends[policy] = done.stdout.splitlines()[-1]
    assert ends == {"best-first": "1 left waiting in the frontier, no visit left: thirty-sixty-ninety",
                    "depth-first": "1 chosen but never entered, no visit left: thirty-sixty-ninety"}


def test_diff_expect_says_which_walk_landed_it_and_whose_fault_each_miss_was(tmp_path) -> None:
    trace = tmp_path / "a.jsonl"
    walked = run_cli("walk", SAMPLES / "handbook.yaml", "How much is the home office budget for new employees?",
                     "--navigator", "lexical:default", "--max-visits", "6", "--trace", trace)
    assert walked.returncode == 0, walked.stderr
    done = run_cli("diff", trace, "--policy", "best-first", "--expect", "home-office-setup", "--json")
    assert done.returncode == 1, done.stderr  # they differ
    document = json.loads(done.stdout)
    assert document["landing"] == ("neither landed the expected Home office setup: depth-first turned away at the "
                                   "roots; best-first turned away at people-policies")
    assert document["verdicts"][0] == {
        "walk": "a", "says": "the navigator erred: at the roots, what it was shown ranks 'Employee policies' 1st of 9 "
                             "(its content 1st), and it chose 'onboarding'",
        "flat": "a flat search finds it 1st: the walk lost it"}
    assert [v["walk"] for v in document["verdicts"]] == ["a", "b"]
    text = run_cli("diff", trace, "--policy", "best-first", "--expect", "home-office-setup").stdout.splitlines()
    assert text[2].startswith("Expected: neither landed the expected Home office setup: depth-first turned away")
    assert text[3].startswith("  A verdict: the navigator erred: at the roots")
    refused = run_cli("diff", trace, "--policy", "best-first", "--expect", "nope,home-office-setup")
    assert (refused.returncode, refused.stdout) == (2, "")
    assert refused.stderr == ("reasoning-explorer: error: --expect: nope is no node of "
                              f"{SAMPLES / 'handbook.yaml'}; name node ids of the corpus, separated by commas\n")


def test_diff_expect_judges_by_the_judge_named_and_none_says_no_verdict(tmp_path) -> None:
    trace = tmp_path / "a.jsonl"
    assert run_cli("walk", SAMPLES / "handbook.yaml", "How much is the home office budget for new employees?",
                   "--navigator", "lexical:default", "--max-visits", "6", "--trace", trace).returncode == 0
    done = run_cli("diff", trace, "--policy", "best-first", "--expect", "home-office-setup", "--json", "--judge",
                   "lexical:default")
    assert done.returncode == 1, done.stderr
    verdict = json.loads(done.stdout)["verdicts"][0]
    assert verdict["walk"] == "a"  # BM25 judging a BM25 walk: the map misled it, and the line says it scores alike
    assert verdict["says"].startswith("the map misled: at the roots, the title and summary of 'Onboarding' rank it "
                                      "1st of 9 for the query, but what lies beneath it only 3rd")
    assert verdict["says"].endswith("(the judge is the navigator's own scoring: this says only whether the map or the "
                                    "walk was at fault)")
    unjudged = run_cli("diff", trace, "--policy", "best-first", "--expect", "home-office-setup", "--json", "--judge",
                       "none")
    document = json.loads(unjudged.stdout)
    assert document["verdicts"] == [] and document["landing"].startswith("neither landed the expected Home office")
    refused = run_cli("diff", trace, "--policy", "best-first", "--judge", "nope")
    assert refused.returncode == 2 and refused.stderr.startswith("reasoning-explorer: error: --judge: no judge is named")
