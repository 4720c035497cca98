"""The walk's policy wherever a walk is kept or compared (issue 37, point 3): a kept run says it and a run compared
with a kept run of the other order says so; a stability run says it; ``diff --policy`` compares walks re-walked in
that order; the spans carry the policy and the frontier, and a best-first walk rebuilt from its spans walks
best-first again. Real walks of the sample handbook on the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.command_line import run_cli

from .test_policy_cli import BEST_FIRST, HANDBOOK, SCRIPT, entered

QUESTIONS = HANDBOOK.with_name("handbook.questions.yaml")
REFUNDS = "How long do refunds take to arrive?"


def ok(*args: object, cwd: Path) -> str:
    done = run_cli(*args, cwd=cwd)
    assert done.returncode in (0, 1), done.stderr
    return str(done.stdout)


def test_a_run_compared_with_a_kept_run_of_the_other_order_says_so(tmp_path: Path) -> None:
    ok("eval", QUESTIONS, "--save-run", tmp_path / "df.run.json", cwd=tmp_path)
    assert json.loads((tmp_path / "df.run.json").read_text())["settings"]["policy"] == "depth-first"
    lines = ok("eval", QUESTIONS, "--policy", "best-first@alpha=0.7", "--against", tmp_path / "df.run.json",
               cwd=tmp_path).splitlines()
    start = lines.index("Against df.run.json: was lexical:default · now lexical:default")
    assert lines[start + 1:start + 3] == ["  compared on 41 of 41 questions both runs hold",
                                          "  walked in other orders: was depth-first · now best-first@alpha=0.7"]
    document = json.loads(ok("eval", QUESTIONS, "--policy", "best-first@alpha=0.7", "--against",
                             tmp_path / "df.run.json", "--json", cwd=tmp_path))
    assert document["against"]["policy"] == {"kept": "depth-first", "now": "best-first@alpha=0.7"}
    same = ok("eval", QUESTIONS, "--against", tmp_path / "df.run.json", cwd=tmp_path)
    assert "walked in other orders" not in same  # the same order: nothing said


def test_a_stability_run_says_its_policy(tmp_path: Path) -> None:
    document = json.loads(ok("walk", HANDBOOK, REFUNDS, "--runs", "2", "--policy", "best-first@alpha=0.7", "--json",
                             cwd=tmp_path))
    assert document["settings"] == {"max_nodes_visited": 15, "max_depth": 6, "on_failure": "throw",
                                    "policy": "best_first", "alpha": 0.7}
    report = ok("walk", HANDBOOK, REFUNDS, "--runs", "2", "--policy", "best-first", cwd=tmp_path).splitlines()
    assert report[0] == ("Stability: 'How long do refunds take to arrive?' walked 2 times with lexical:default · "
                         "budget 15 · depth limit 6 · on failure throw · best-first")
    depth_first = json.loads(ok("walk", HANDBOOK, REFUNDS, "--runs", "2", "--json", cwd=tmp_path))
    assert "policy" not in depth_first["settings"]


def test_diff_policy_compares_a_walk_with_itself_re_walked_in_that_order(tmp_path: Path) -> None:
    """A depth-first walk of 6 visits against itself re-walked best-first from its decisions (no navigator call): the
    best-first walk comes back to the siblings lexical scored; the node it never judged stops there."""
    ok("walk", HANDBOOK, REFUNDS, "--max-visits", "6", "--trace", tmp_path / "df.jsonl", cwd=tmp_path)
    done = run_cli("diff", tmp_path / "df.jsonl", "--policy", "best-first", "--json", cwd=tmp_path)
    assert done.returncode == 1, done.stderr  # they differ
    document = json.loads(done.stdout)
    assert (document["a"], document["b"]) == ("A: df.jsonl", "B: df.jsonl, re-walked best-first")
    assert "settings differ: policy depth-first → best-first" in document["notes"]
    assert [landing["node"] for landing in document["landed"]["only_b"]] == [
        "requesting-a-refund", "refund-exceptions", "satisfaction-guarantee"]
    text = run_cli("diff", tmp_path / "df.jsonl", "--policy", "best-first", cwd=tmp_path).stdout
    assert "navigator calls         3  0 of 4 decisions (4 replayed)" in text
    refused = run_cli("diff", tmp_path / "df.jsonl", cwd=tmp_path)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1
    assert "name walk B (a trace or span file), or compare walk A with itself in another order: --policy P" \
        in refused.stderr


def test_spans_carry_the_policy_and_the_frontiers_changes_and_rebuild_best_first(tmp_path: Path) -> None:
    (tmp_path / "order.yaml").write_text(SCRIPT)
    ok("walk", HANDBOOK, "q", "--navigator", f"script:{tmp_path / 'order.yaml'}", "--policy", "best-first@alpha=0.9",
       "--otlp-file", tmp_path / "spans.json", cwd=tmp_path)
    spans = [span for resource in json.loads((tmp_path / "spans.json").read_text())["resourceSpans"]
             for scope in resource["scopeSpans"] for span in scope["spans"]]

    def attributes(item: dict[str, Any]) -> dict[str, Any]:
        return {a["key"].removeprefix("reasoning_explorer."): next(iter(a["value"].values()))
                for a in item["attributes"]}

    walk = next(span for span in spans if span["name"] == "q")
    assert (attributes(walk)["walk_policy"], attributes(walk)["alpha"]) == ("best_first", 0.9)
    # the frontier said as its changes (issue 47): what joined by each answer, what left at each entry
    assert attributes(walk)["frontier_version"] == "2"  # an OTLP/JSON int is a string
    roots = next(span for span in spans if span["name"] == "choose among the roots")
    assert json.loads(attributes(roots)["joined"]) == [["accounts", 1.0], ["plans", 0.5]]
    assert "frontier" not in attributes(roots)
    first = attributes(next(event for event in walk["events"] if event["name"] == "enter"))
    assert (first["node.id"], first["score"], json.loads(first["left"])) == ("accounts", 1.0, ["accounts"])
    assert "frontier" not in first
    rebuilt = json.loads(ok("replay", tmp_path / "spans.json", "--json", cwd=tmp_path))
    assert entered(rebuilt) == BEST_FIRST  # it was walked depth-first from its spans before
    assert rebuilt["settings"]["policy"] == "best_first" and rebuilt["settings"]["alpha"] == 0.9
