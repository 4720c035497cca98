"""The walk's policy as a setting of the command line (issue 37, point 3): ``--policy depth-first|best-first[@alpha=A]``
on ``walk`` and ``replay``, kept in the trace's header and events, read back by ``replay``; a trace without one was
walked depth-first. Real walks of the sample handbook with a scripted navigator, whose scores come from the order of
its choices (the i-th of n selected scores (n - i) / n)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from explorer.trace import read_trace
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
SCRIPT = """decisions:
  start: {select: [accounts, plans]}
  accounts: {select: [sign-in-methods, account-recovery]}
  sign-in-methods: {select: [password-sign-in]}
  account-recovery: {select: [password-reset, lost-two-factor-device, account-lockout]}
  plans: {select: [free-plan]}
"""
DEPTH_FIRST = ["accounts", "sign-in-methods", "password-sign-in", "account-recovery", "password-reset",
               "lost-two-factor-device", "account-lockout", "plans", "free-plan"]
BEST_FIRST = ["accounts", "sign-in-methods", "password-sign-in", "account-recovery", "password-reset",
              "lost-two-factor-device", "plans", "free-plan", "account-lockout"]
"""At alpha 0.9: account-lockout, third of three under account-recovery (path score 0.9 × 1/3 + 0.1 × 0.55 = 0.355),
waits behind plans (0.5, the second root) and free-plan (0.9 × 1 + 0.1 × 0.5 = 0.95)."""


def walked(tmp_path: Path, *args: str) -> dict:
    (tmp_path / "order.yaml").write_text(SCRIPT)
    done = run_cli("walk", HANDBOOK, "q", "--navigator", f"script:{tmp_path / 'order.yaml'}", "--json", *args,
                   cwd=tmp_path)
    assert (done.returncode, done.stderr) == (0, ""), done.stderr
    return json.loads(done.stdout)


def entered(document: dict) -> list[str]:
    return [e["node"]["id"] for e in document["events"] if e["event"] == "node_entered"]


def test_best_first_enters_by_path_score_and_ranks_what_landed(tmp_path: Path) -> None:
    depth_first = walked(tmp_path)
    assert entered(depth_first) == DEPTH_FIRST
    assert "policy" not in depth_first["settings"]  # a depth-first walk's output is as it always was
    best_first = walked(tmp_path, "--policy", "best-first@alpha=0.9")
    assert best_first["settings"] == {"max_nodes_visited": 15, "max_depth": 6, "on_failure": "throw",
                                      "policy": "best_first", "alpha": 0.9}
    assert entered(best_first) == BEST_FIRST
    assert best_first["summary"]["landed"] == ["password-sign-in", "password-reset", "free-plan",
                                               "lost-two-factor-device", "account-lockout"]
    scores = {s["landed"]: s["score"] for s in best_first["stops"]}
    assert scores == pytest.approx({"password-sign-in": 1.0, "password-reset": 0.955, "free-plan": 0.95,
                                    "lost-two-factor-device": 0.655, "account-lockout": 0.355})
    # the events carry the frontier's change (issue 47), never the whole frontier: the roots' answer says accounts
    # then plans joined, the first entry that accounts left
    chose = next(e for e in best_first["events"] if e["event"] == "navigator_chose")
    assert (chose["joined"], "left" in chose, "frontier" in chose) == ([["accounts", 1.0], ["plans", 0.5]], False, False)
    first = next(e for e in best_first["events"] if e["event"] == "node_entered")
    assert (first["left"], "joined" in first, "frontier" in first) == (["accounts"], False, False)
    offer = next(e for e in best_first["events"] if e["event"] == "candidates_offered")
    assert not {"joined", "left", "frontier"} & offer.keys()  # an offer changes nothing


def test_the_trace_keeps_the_policy_and_replay_walks_it_again(tmp_path: Path) -> None:
    walked(tmp_path, "--policy", "best-first@alpha=0.9", "--trace", str(tmp_path / "bf.jsonl"))
    trace = read_trace(tmp_path / "bf.jsonl")
    assert (trace.header.settings.policy.value, trace.header.settings.alpha) == ("best_first", 0.9)
    replayed = run_cli("replay", tmp_path / "bf.jsonl", "--json", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    again = json.loads(replayed.stdout)
    assert entered(again) == BEST_FIRST and again["settings"]["policy"] == "best_first"
    depth_first = run_cli("replay", tmp_path / "bf.jsonl", "--policy", "depth-first", "--json", cwd=tmp_path)
    assert entered(json.loads(depth_first.stdout)) == DEPTH_FIRST  # the same answers, taken in the other order
    walked(tmp_path, "--trace", str(tmp_path / "df.jsonl"))
    header = json.loads((tmp_path / "df.jsonl").read_text().splitlines()[0])
    assert "policy" not in header and read_trace(tmp_path / "df.jsonl").header.settings.policy.value == "depth_first"


@pytest.mark.parametrize(("given", "said"), [
    ("sideways", "'sideways' is no walk policy; write depth-first or best-first (best-first@alpha=0.7)"),
    ("best-first@alpha=0", "'best-first@alpha=0': alpha must be a number above 0 and at most 1"),
    ("best-first@alpha=nan", "'best-first@alpha=nan': alpha must be a number above 0 and at most 1"),
    ("depth-first@alpha=0.7", "'depth-first@alpha=0.7': alpha weighs best-first's path scores; depth-first takes none"),
    ("best-first@beta=1", "'best-first@beta=1': the one option of a policy is alpha"),
])
def test_a_policy_that_does_not_read_is_one_line_and_exit_2(tmp_path: Path, given: str, said: str) -> None:
    done = run_cli("walk", HANDBOOK, "q", "--policy", given, cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and said in done.stderr, done.stderr


def test_lexical_scores_let_a_best_first_walk_come_back_to_a_sibling_it_did_not_choose(tmp_path: Path) -> None:
    """``lexical:`` gives its BM25 scores, scaled per offer by the best (issue 37, point 2): at Refunds it chooses
    Refund delivery alone, and the best-first walk comes back to Requesting a refund and Refund exceptions, which
    it scored; depth-first ends at the leaf it chose."""
    def walk(*policy: str) -> dict:
        done = run_cli("walk", HANDBOOK, "How long do refunds take to arrive?", "--navigator", "lexical:default",
                       "--max-visits", "6", "--json", *policy, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout)

    best_first = walk("--policy", "best-first")
    assert entered(best_first) == ["billing", "refunds", "refund-delivery", "requesting-a-refund",
                                   "refund-exceptions", "annual-plan-refunds"]
    at_refunds = next(e for e in best_first["events"] if e["event"] == "navigator_chose" and e["current"] == "refunds")
    assert at_refunds["selected"] == ["refund-delivery"]
    assert at_refunds["scores"]["refund-delivery"] == 1.0
    assert 0 < at_refunds["scores"]["requesting-a-refund"] < 1
    assert best_first["summary"]["landed"] == ["refund-delivery", "requesting-a-refund"]
    depth_first = walk()
    assert entered(depth_first) == ["billing", "refunds", "refund-delivery"]
    assert depth_first["summary"]["landed"] == ["refund-delivery"]


def test_replay_walks_a_depth_first_recording_best_first_with_its_scores_and_no_call(tmp_path: Path) -> None:
    """The recorded answers keep their scores, so a depth-first walk replayed best-first comes back to the siblings
    its navigator scored, without a navigator call; a node it never judged stops there, said so."""
    walked = run_cli("walk", HANDBOOK, "How long do refunds take to arrive?", "--navigator", "lexical:default",
                     "--max-visits", "6", "--trace", tmp_path / "df.jsonl", cwd=tmp_path)
    assert walked.returncode == 0, walked.stderr
    replayed = run_cli("replay", tmp_path / "df.jsonl", "--policy", "best-first", "--json", cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    document = json.loads(replayed.stdout)
    assert entered(document) == ["billing", "refunds", "refund-delivery", "requesting-a-refund", "refund-exceptions",
                                 "satisfaction-guarantee"]
    assert document["summary"]["navigator_calls"] == 0
    assert document["summary"]["never_judged"] == ["refund-exceptions"]
    assert document["summary"]["landed"] == ["refund-delivery", "requesting-a-refund", "refund-exceptions",
                                             "satisfaction-guarantee"]
