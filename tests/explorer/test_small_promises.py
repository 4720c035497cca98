"""The medium and low defects of issue 45, each held by a test that failed before its fix: the command line in this
process on real files (tests/command_line.py)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from explorer.navigators.answer_size import ids_kept
from tests.command_line import run_cli
from tests.samples import SAMPLES

HANDBOOK = SAMPLES / "handbook.yaml"
QUESTIONS = SAMPLES / "handbook.questions.yaml"
PROG = "reasoning-explorer"


@pytest.mark.parametrize("args", [("walk", HANDBOOK, "How are refunds issued?", "--navigator", "lexical:default"),
                                  ("validate", HANDBOOK),
                                  ("eval", QUESTIONS, "--navigator", "lexical:default")],
                         ids=["walk", "validate", "eval"])
def test_columns_0_prints_what_no_columns_prints(args: tuple[object, ...]) -> None:
    """COLUMNS=0 (a width Rich took as given) printed nothing and exited 0: it is no width, as none is."""
    zero = run_cli(*args, columns=0)
    unset = run_cli(*args, columns=None)
    assert (zero.returncode, zero.stderr) == (0, unset.stderr)
    seconds = re.compile(r"\d+\.\d+ s\b")  # a decision's seconds differ between two walks
    assert seconds.sub("N s", zero.stdout) == seconds.sub("N s", unset.stdout) and len(zero.stdout.splitlines()) > 3


def test_alpha_is_kept_as_typed_so_a_resume_with_the_same_policy_is_taken(tmp_path: Path) -> None:
    """Kept as best-first@alpha=0.333333 (rounded), the run refused a resume with the --policy it was kept with."""
    run = tmp_path / "r.run.json"
    policy = "best-first@alpha=0.3333333"
    kept = run_cli("eval", QUESTIONS, "--navigator", "lexical:default", "--policy", policy, "--save-run", run)
    assert kept.returncode == 0
    assert json.loads(run.read_text())["settings"]["policy"] == policy
    resumed = run_cli("eval", QUESTIONS, "--navigator", "lexical:default", "--policy", policy, "--resume", run)
    assert (resumed.returncode, resumed.stderr.splitlines()[0]) == (
        0, f"Resuming {run} (lexical:default): it holds 41 of 41 questions; walking the 0 it does not hold")


@pytest.mark.parametrize(("policy", "said"), [
    ("best-first@", "'best-first@': nothing after @; write best-first alone, or best-first@alpha=0.7"),
    ("best-first@alpha=0.3@alpha=0.5",
     "'best-first@alpha=0.3@alpha=0.5': alpha is given more than once; give it once (best-first@alpha=0.7)"),
    ("best-first@alpha=0.3,alpha=0.5",
     "'best-first@alpha=0.3,alpha=0.5': alpha is given more than once; give it once (best-first@alpha=0.7)"),
])
def test_a_policy_with_nothing_after_at_or_alpha_twice_is_refused_saying_so(policy: str, said: str) -> None:
    done = run_cli("walk", HANDBOOK, "refunds", "--navigator", "lexical:default", "--policy", policy)
    assert (done.returncode, done.stderr) == (
        2, f"{PROG}: error: argument --policy: {said} (see `{PROG} walk --help`)\n")


def test_a_kept_run_whose_settings_no_walk_takes_is_refused_in_one_line(tmp_path: Path) -> None:
    """A kept run saying max_depth: -3 gave a ValueError traceback when resumed."""
    run = tmp_path / "r.run.json"
    assert run_cli("eval", QUESTIONS, "--navigator", "lexical:default", "--save-run", run).returncode == 0
    document = json.loads(run.read_text())
    document["settings"]["max_depth"] = -3
    run.write_text(json.dumps(document))
    resumed = run_cli("eval", QUESTIONS, "--navigator", "lexical:default", "--resume", run)
    assert (resumed.returncode, resumed.stdout) == (2, "")
    assert resumed.stderr == (f"{PROG}: error: {run}: its settings' max_depth is -3, which no walk takes (from 0 to "
                              "100,000); give a run kept by eval --save-run\n")


def test_a_trace_named_with_a_walks_number_says_it_holds_one_walk(tmp_path: Path) -> None:
    """``replay t.jsonl#2`` said "no such trace file"; #1 names its one walk."""
    trace = tmp_path / "t.jsonl"
    assert run_cli("walk", HANDBOOK, "refunds", "--navigator", "lexical:default", "--trace", trace).returncode == 0
    second = run_cli("replay", f"{trace}#2")
    assert (second.returncode, second.stderr) == (
        2, f"{PROG}: error: {trace} is a trace: it holds one walk; name it as {trace} (FILE#N names a walk of a span "
           "file)\n")
    first = run_cli("replay", f"{trace}#1")
    assert first.returncode == 0 and first.stdout == run_cli("replay", trace).stdout


def test_one_question_is_said_as_one_question(tmp_path: Path) -> None:
    one = tmp_path / "one.questions.yaml"
    one.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - id: money-back\n    query: How long until I get my money "
                   "back?\n    expect: [refund-delivery]\n")
    run = tmp_path / "one.run.json"
    assert run_cli("eval", one, "--navigator", "lexical:default", "--save-run", run).returncode == 0
    resumed = run_cli("eval", one, "--navigator", "lexical:default", "--resume", run)
    assert resumed.stderr.splitlines()[0] == (
        f"Resuming {run} (lexical:default): it holds 1 of 1 question; walking the 0 it does not hold")


def test_a_replayed_answer_of_100000_ids_is_cut_as_a_live_answer_is(tmp_path: Path) -> None:
    """A trace whose one decision selects 100,000 ids: replay took 22-29 s and 520 MB and printed 115,960 lines;
    replayed (and re-walked from the record) it holds what a py: or script: answer may, ids_kept of the offer."""
    trace = tmp_path / "t.jsonl"
    assert run_cli("walk", HANDBOOK, "refund", "--navigator", "lexical:default", "--trace", trace).returncode == 0
    lines = trace.read_text().splitlines()
    first = next(n for n, line in enumerate(lines) if json.loads(line).get("event") == "navigator_chose")
    event = json.loads(lines[first])
    event["selected"] = ["billing", *(f"junk-{n}" for n in range(100_000))]
    lines[first] = json.dumps(event)
    trace.write_text("\n".join(lines) + "\n")
    kept = ids_kept(9)  # the handbook's nine roots
    for args in (("replay", trace, "--json"),
                 ("replay", trace, "--json", "--navigator", "lexical:default", "--max-visits", "20")):
        done = run_cli(*args)
        assert done.returncode == 0
        chose = next(e for e in json.loads(done.stdout)["events"] if e["event"] == "navigator_chose")
        assert chose["selected"][0] == "billing" and len(chose["selected"]) == kept
        assert chose["hallucinated"] == [f"junk-{n}" for n in range(kept - 1)]
