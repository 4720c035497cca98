"""The command line's reports say what the screen says (issue 19's rough edges 8, 9 and 11): every sub-command in
``--help``; numbers as ``1,003``, paths with ``›``, "none" for nothing landed, ``1 visit left``; and ``diff`` lists
every divergence and every forced decision, the first one marked."""

from __future__ import annotations

import json

from explorer.cli.main import COMMANDS
from explorer.walks.describe import count_of, visits_left
from explorer.walks.session import save_history
from tests.command_line import run_cli as run

from .test_cli import HANDBOOK, SCRIPTS
from .test_compare import HANDBOOK as HANDBOOK_CORPUS
from .test_compare import walk


def test_help_lists_every_sub_command_diff_included():
    out = run("--help")
    assert out.returncode == 0
    listed = out.stdout.split("sub-commands", 1)[1]
    for name in COMMANDS:
        assert f"\n  {name} " in listed, name
    assert "diff      two traces compared" in listed


def test_numbers_carry_thousands_separators_and_paths_the_screens_arrow():
    out = run("walk", HANDBOOK, "How are refunds issued?")
    assert out.returncode == 0, out.stderr
    assert "▸ offered 9 roots · 15 visits left · 1,003 chars shipped" in out.stdout
    assert "billing › refunds › refund-delivery" in out.stdout and " > " not in out.stdout
    assert "characters shipped 2,100" in out.stdout


def test_one_visit_left_is_said_in_the_singular():
    out = run("walk", HANDBOOK, "annual refund formula", "--navigator", f"script:{SCRIPTS / 'depth-limit.yaml'}",
              "--max-visits", "3")
    assert out.returncode == 0, out.stderr
    assert "(depth 1 · 1 visit left)" in out.stdout
    assert "1 visits" not in out.stdout
    assert (visits_left(1), visits_left(0), count_of(1003, "visit")) == ("1 visit left", "0 visits left",
                                                                          "1,003 visits")


def test_nothing_landed_under_on_failure_empty_prints_none_not_an_empty_table():
    out = run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}",
              "--on-failure", "empty")
    assert out.returncode == 0, out.stderr
    assert "Landed nodes: none" in out.stdout
    assert "┏" not in out.stdout  # no table at all


def test_diff_lists_every_divergence_and_every_forced_decision_the_first_marked(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    save_history(walk(), HANDBOOK_CORPUS, a)
    save_history(walk(forces=["billing=invoices"]), HANDBOOK_CORPUS, b)
    out = run("diff", a, b)
    assert out.returncode == 1, out.stderr
    lines = out.stdout.splitlines()
    start = lines.index("Every divergence (5; ▶ the first):")
    assert lines[start + 1:start + 6] == [
        "  ▶ decision 2 at billing — chose differently: A chose refunds · B ⚑ forced invoices",
        "    decision 3 at refunds — judged only in walk A: A chose refund-exceptions · B never judged it",
        "    decision 3 at invoices — judged only in walk B: A never judged it · B chose nothing",
        "    decision 4 at refund-exceptions — judged only in walk A: A chose annual-plan-refunds · B never judged it",
        "    decision 5 at annual-plan-refunds — judged only in walk A: A chose annual-proration-formula · B never "
        "judged it",
    ]
    assert "Forced decisions (1):" in lines
    assert "  B decision 2 (step 5) at billing ⚑ forced invoices" in lines
    document = json.loads(run("diff", a, b, "--json").stdout)
    assert [(d["node"], d["kind"], d["first"]) for d in document["divergences"]][:3] == [
        ("billing", "chose differently", True), ("refunds", "judged only in walk A", False),
        ("invoices", "judged only in walk B", False)]
    assert len(document["divergences"]) == 5
    assert document["forced"] == [{"walk": "b", "decision": 2, "offer_step": 5, "answer_step": 6, "node": "billing",
                                   "candidates": document["forced"][0]["candidates"], "selected": ["invoices"],
                                   "error": None, "rationale": "forced by a person: at billing chose invoices",
                                   "forced": True}]
    assert "invoices" in document["forced"][0]["candidates"]


def test_diff_of_the_same_walk_lists_no_divergence_and_says_no_decision_was_forced(tmp_path):
    a = tmp_path / "a.jsonl"
    save_history(walk(), HANDBOOK_CORPUS, a)
    out = run("diff", a, a)
    assert out.returncode == 0
    assert "Every divergence" not in out.stdout and "Forced decisions: none" in out.stdout
    document = json.loads(run("diff", a, a, "--json").stdout)
    assert (document["divergences"], document["forced"]) == ([], [])


def test_the_entry_and_the_help_name_the_same_sub_commands():
    from explorer.cli.options import SUBCOMMANDS

    assert list(SUBCOMMANDS) == list(COMMANDS)
