"""Comparing two walks: the first divergence, the landings, the costs; `diff` on the command line."""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.forcing import parse_force
from explorer.walk_settings import WalkSettings
from explorer.walks.compare import DivergenceKind, compare, tree_marks
from explorer.walks.session import WalkSession, save_history
from explorer.walks.state import Mark
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
DEPTH = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'depth-limit.yaml'}"
SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"


def walk(query="annual refund formula", model=DEPTH, forces=(), **options):
    session = WalkSession(HANDBOOK, WalkSettings(query, model, **options), resolve_navigator(model),
                          forces=[parse_force(f) for f in forces])
    session.run_headless()
    return session.history


def run(*args):
    return run_cli(*args)


def test_the_same_walk_twice_made_the_same_decisions():
    comparison = compare(walk(), walk())
    assert comparison.same_decisions and comparison.divergence is None and comparison.notes == ()
    assert [x.node for x in comparison.both] == ["annual-proration-formula"]
    assert comparison.only_a == comparison.only_b == ()
    assert comparison.a_totals == comparison.b_totals


def test_a_forced_branch_diverges_at_the_forced_node():
    a, b = walk(), walk(forces=["billing=invoices"])
    comparison = compare(a, b)
    divergence = comparison.divergence
    assert divergence is not None and divergence.number == 2 and divergence.node == "billing"
    assert divergence.kind is DivergenceKind.CHOSE_DIFFERENTLY
    assert divergence.a.answer.selected == ("refunds",) and divergence.b.answer.selected == ("invoices",)
    assert divergence.b.forced and not divergence.a.forced
    assert (divergence.a.offer_seq, divergence.b.offer_seq) == (5, 5)
    assert [(x.node, x.a) for x in comparison.only_a] == [("annual-proration-formula", "leaf")]
    assert [(x.node, x.b) for x in comparison.only_b] == [("invoices", "navigator_stopped")]
    assert comparison.a_totals.visits == 5 and comparison.b_totals.visits == 2
    marks, reasons = tree_marks(comparison)
    assert marks["billing"] is Mark.DIVERGED and marks["invoices"] is Mark.ONLY_B
    assert marks["refunds"] is Mark.ONLY_A and reasons["invoices"] == "B navigator_stopped"


def test_a_walk_that_ends_first_is_said_so():
    a, b = walk(max_depth=2), walk()
    divergence = compare(a, b).divergence
    assert divergence is not None and divergence.kind is DivergenceKind.A_ENDED
    assert divergence.a is None and divergence.b.node == "refund-exceptions"


def test_different_queries_and_settings_are_said_up_front():
    comparison = compare(walk("q one"), walk("q two", max_nodes_visited=4))
    assert comparison.notes == ("the walks answer different queries: 'q one' and 'q two'",
                                "settings differ: budget 15 → 4")


def test_diff_exit_codes_and_the_divergence_in_text_and_json(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    save_history(walk(), HANDBOOK, a)
    save_history(walk(forces=["billing=invoices"]), HANDBOOK, b)
    same = run("diff", a, a)
    assert same.returncode == 0, same.stderr
    assert "Same decisions: the two walks made the same choices at every offer." in same.stdout
    differ = run("diff", a, b)
    assert differ.returncode == 1, differ.stderr
    assert "First divergence: decision 2, at billing (chose differently)" in differ.stdout
    assert "B (step 5→6) ⚑ forced invoices" in differ.stdout
    assert "Landed only in B: invoices (navigator_stopped)" in differ.stdout
    document = json.loads(run("diff", a, b, "--json").stdout)
    assert document["same_decisions"] is False
    assert document["first_divergence"]["node"] == "billing"
    assert document["first_divergence"]["a"]["selected"] == ["refunds"]
    assert document["first_divergence"]["b"]["forced"] is True
    totals = document["totals"]
    assert totals["a"] == {"visits": 5, "calls": 5, "decisions": 5,
                           "answered": {"live": 5, "forced": 0, "replayed": 0, "cached": 0},
                           "chars_shipped": 2888, "prompt_tokens": 0, "completion_tokens": 0}
    # B's decision at billing was forced: no call, and its offer's 620 characters were never sent (roots 1,003 and
    # invoices 266 were).
    assert totals["b"] == {"visits": 2, "calls": 2, "decisions": 3,
                           "answered": {"live": 2, "forced": 1, "replayed": 0, "cached": 0},
                           "chars_shipped": 1003 + 266, "prompt_tokens": 0, "completion_tokens": 0}


def test_diff_of_walks_on_different_corpora_says_so_up_front(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    save_history(walk(), HANDBOOK, a)
    other = load_corpus(SAMPLES / "contract.yaml")
    session = WalkSession(other, WalkSettings("annual refund formula"), resolve_navigator("lexical:default"))
    session.run_headless()
    save_history(session.history, other, b)
    out = run("diff", a, b)
    assert out.returncode == 1
    first = out.stdout.splitlines()[1]
    assert first.startswith("note: the walks were made on different corpora (sha256 ")
    assert "offered different candidates" in out.stdout


def test_diff_of_a_missing_or_damaged_trace_is_one_line_and_exit_2(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    for args in ((tmp_path / "missing.jsonl", bad), (bad, bad)):
        out = run("diff", *args)
        assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr


def test_a_walk_cancelled_while_the_navigator_thought_ended_there_it_did_not_choose_differently():
    import threading

    from explorer.ending import WalkEnd

    full = walk()
    session = WalkSession(HANDBOOK, WalkSettings("annual refund formula", DEPTH), resolve_navigator(DEPTH))
    session.step(5)  # up to billing's offer, then the cancel before its answer
    worker = threading.Thread(target=session.run, args=(session.record,), daemon=True)
    worker.start()
    deadline = time.monotonic() + 30  # a hang guard, not a promise of speed
    while len(session.history.events) < 5 and worker.is_alive():
        assert time.monotonic() < deadline, "the walk never reached billing's offer"
        worker.join(0.01)
    session.cancel()
    worker.join(30)
    assert session.history.end is WalkEnd.CANCELLED and len(session.history.events) == 5
    divergence = compare(full, session.history).divergence
    assert divergence is not None and divergence.kind is DivergenceKind.B_ENDED
    assert divergence.node == "billing" and divergence.b.answer is None
