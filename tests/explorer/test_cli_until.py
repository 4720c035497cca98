"""``walk --until``, through the command line's entry point (``main``)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = str(SAMPLES / "handbook.yaml")
SCRIPT = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'hallucinated-branch.yaml'}"


def run(*args):
    return run_cli("walk", HANDBOOK, "How are refunds issued?", "--navigator", SCRIPT, *args, columns=None)


def test_until_says_where_it_paused_and_json_carries_it():
    assert run("--until", "never-offered").stdout.splitlines()[-1] == (
        "paused: an id never offered at step 6: refund-policy")
    assert run("--until", "failure").stdout.splitlines()[-1] == (
        "--until failure never held: the walk ended without it")
    assert json.loads(run("--until", "offered:plans", "--json").stdout)["paused"] == {
        "until": "offered:plans", "step": 2, "why": "plans offered at step 2"}


def test_bad_until_is_one_line_and_exit_2():
    done = run("--until", "plans")
    assert done.returncode == 2
    assert done.stderr == ("reasoning-explorer: error: --until plans: not a condition; give one of offered:ID, "
                           "entered:ID, visits-left:N, wrong-turn:ID, never-offered, failure or forced\n")


def test_the_walk_stops_where_the_condition_holds():
    """The token trips at the step where ``--until`` holds: the walk holds that many events and no more (no
    decision after it is asked for), the report says ``paused`` and nothing of a cancel, and the exit is 0. Paused at
    the offer, before the navigator was asked: no call, so no character shipped (it said 1,003 beside 0 calls)."""
    done = run("--until", "offered:plans")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-3:] == [
        "└── ▸ offered 9 candidates (no answer yet)",
        "paused · visits used 0/15 · navigator calls 0 · characters shipped 0",
        "paused: plans offered at step 2"]
    assert "cancel" not in done.stdout
    document = json.loads(run("--until", "never-offered", "--json").stdout)
    assert len(document["events"]) == document["paused"]["step"] == 6
    finished = json.loads(run("--json").stdout)
    assert len(finished["events"]) > 6


def test_until_with_runs_or_budgets_is_one_line_and_exit_2_not_ignored():
    """It was ignored in silence (issue 38, point 15)."""
    runs = run("--until", "failure", "--runs", "2")
    assert (runs.returncode, runs.stdout, runs.stderr) == (
        2, "", "reasoning-explorer: error: --until pauses one walk; leave it out with --runs (or walk once, with "
               "--until)\n")
    budgets = run("--until", "failure", "--budgets", "3,5")
    assert (budgets.returncode, budgets.stdout, budgets.stderr) == (
        2, "", "reasoning-explorer: error: --budgets and --until cannot go together; the budgets walk once each, with "
               "these visit budgets\n")
