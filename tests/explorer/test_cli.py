"""The command line, each sub-command and each error path: run in this process (``main(argv)``), and the
console script itself in a subprocess where the process is what is tested."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def run(*args, cwd=ROOT, env=None):
    return run_cli(*args, cwd=cwd, env=env)


def walk_json(*args):
    out = run("walk", *args, "--json")
    return out, json.loads(out.stdout) if out.stdout.strip() else None


# walk ---------------------------------------------------------------------------------------------------


def test_walk_prints_the_tree_the_landed_nodes_and_a_summary():
    out = run("walk", HANDBOOK, "How are refunds issued?")
    assert out.returncode == 0, out.stderr
    assert "▸ offered 9 roots · 15 visits left" in out.stdout
    assert "→ chose billing" in out.stdout
    assert "■ leaf · landed refund-delivery" in out.stdout
    assert "Landed nodes" in out.stdout
    assert "finished · visits used 3/15 · navigator calls 3 · characters shipped 2,100" in out.stdout
    assert out.stderr == ""


def test_walk_json_field_by_field():
    out, doc = walk_json(HANDBOOK, "How are refunds issued?")
    assert out.returncode == 0
    assert doc["corpus"]["source"] == "handbook" and doc["corpus"]["format"] == "yaml"
    assert len(doc["corpus"]["sha256"]) == 64
    assert (doc["query"], doc["navigator"]) == ("How are refunds issued?", "lexical:default")
    assert doc["settings"] == {"max_nodes_visited": 15, "max_depth": 6, "on_failure": "throw"}
    kinds = [e["event"] for e in doc["events"]]
    assert kinds[0] == "walk_started" and kinds[-1] == "walk_finished"
    assert kinds.count("node_entered") == 3 and kinds.count("navigator_chose") == 3
    first_offer = doc["events"][1]
    assert first_offer["current"] is None and first_offer["remaining_visits"] == 15 and first_offer["depth"] == 0
    assert [c["id"] for c in first_offer["candidates"]][:3] == ["accounts", "plans", "billing"]
    assert [r["id"] for r in doc["results"]] == ["refund-delivery"]
    result = doc["results"][0]
    assert result["score"] == 1.0
    assert result["metadata"]["hierarchyStopReason"] == "leaf"
    assert result["metadata"]["hierarchyPath"] == ["billing", "refunds", "refund-delivery"]
    assert result["metadata"]["hierarchyDepth"] == 2
    assert result["content"].startswith("Refunds go back to the payment method used for the original charge")
    assert doc["stops"] == [{"reason": "leaf", "path": ["billing", "refunds", "refund-delivery"], "branch": None,
                             "landed": "refund-delivery", "detail": ""}]
    assert doc["summary"] == {"end": "finished", "error": None, "failure": None, "visits_used": 3,
                              "navigator_calls": 3, "decisions": 3,
                              "answered": {"live": 3, "forced": 0, "replayed": 0, "cached": 0},
                              "chars_shipped": 2100, "prompt_tokens": 0, "completion_tokens": 0,
                              "landed": ["refund-delivery"]}


def test_walk_under_throw_that_fails_exits_1_with_the_error_and_what_was_spent():
    out, doc = walk_json(HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}")
    assert out.returncode == 1
    assert doc["summary"]["end"] == "failed"
    assert "upstream timeout after 30 s" in doc["summary"]["error"]
    assert doc["events"][-1]["event"] == "navigator_failed"
    assert (doc["summary"]["visits_used"], doc["summary"]["navigator_calls"]) == (2, 3)
    assert doc["summary"]["chars_shipped"] > 0


def test_walk_under_empty_says_what_emptied_the_result():
    out = run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}",
              "--on-failure", "empty")
    assert out.returncode == 0
    assert ("finished · visits used 2/15 · navigator calls 3 · characters shipped 2,100 Finished: no documents — the "
            "navigator failed under on-failure empty: ScriptedFailure: upstream timeout") in " ".join(out.stdout.split())
    assert ("1 chosen but never entered, the navigator failed and on-failure empty ended the walk: invoices"
            in " ".join(out.stdout.split()))


def test_walk_refuses_a_trace_destination_it_cannot_write_before_walking(tmp_path):
    out = run("walk", HANDBOOK, "q", "--trace", tmp_path / "missing" / "t.jsonl")
    assert out.returncode == 2
    assert f"cannot save the trace to {tmp_path / 'missing' / 't.jsonl'}: no folder" in out.stderr
    assert out.stdout == ""


def test_validate_escapes_a_hostile_source_name(tmp_path):
    corpus = tmp_path / "c.yaml"
    corpus.write_text('source: "evil\\e]0;PWNED\\a"\nnodes:\n  - {id: a, summary: s, content: some text here}\n')
    out = run("validate", corpus)
    assert "\x1b" not in out.stdout and "\x07" not in out.stdout
    assert "source evil\\x1b]0;PWNED\\x07" in out.stdout


def test_walk_partial_policy_and_budget_flags():
    out, doc = walk_json(HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'provider-failure.yaml'}",
                         "--on-failure", "partial", "--max-visits", "3", "--max-depth", "5")
    assert out.returncode == 0
    assert doc["settings"] == {"max_nodes_visited": 3, "max_depth": 5, "on_failure": "partial"}
    assert [(s["reason"], s["landed"]) for s in doc["stops"]] == [("navigator_failed", "refunds"),
                                                                   ("visit_budget_exhausted", "invoices")]


def test_walk_hostile_text_is_printed_literally(tmp_path):
    corpus = tmp_path / "hostile.yaml"
    corpus.write_text('source: h\nnodes:\n  - id: evil\n    title: "[bold red]boom[/] \\e]0;pwned\\a"\n'
                      '    summary: "refund [link=http://x]here[/link]"\n')
    out = run("walk", corpus, "refund")
    assert out.returncode == 0
    assert "[bold red]boom[/] \\x1b]0;pwned\\x07" in out.stdout
    assert "[link=http://x]here[/link]" in out.stdout
    assert "\x1b]0;" not in out.stdout and "\x07" not in out.stdout


# replay and traces -------------------------------------------------------------------------------------


def test_a_trace_saved_by_walk_replays_to_the_same_landed_nodes(tmp_path):
    trace = tmp_path / "walk.jsonl"
    walked = run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'wide-walk-out-of-visits.yaml'}",
                 "--trace", trace, "--json")
    assert walked.returncode == 0
    original = json.loads(walked.stdout)
    lines = trace.read_text().splitlines()
    assert json.loads(lines[0])["format"] == "reasoning-explorer-trace"
    assert json.loads(lines[-1]) == {"end": "finished", "error": None}
    replayed = run("replay", trace, "--json")
    assert replayed.returncode == 0, replayed.stderr
    doc = json.loads(replayed.stdout)
    assert doc["summary"]["landed"] == original["summary"]["landed"]
    assert doc["navigator"] == f"replay:{trace}"


def test_replay_with_a_smaller_budget_stops_where_expected(tmp_path):
    trace = tmp_path / "walk.jsonl"
    run("walk", HANDBOOK, "q", "--navigator", f"script:{SCRIPTS / 'depth-limit.yaml'}", "--trace", trace)
    doc = json.loads(run("replay", trace, "--max-visits", "2", "--json").stdout)
    assert doc["settings"]["max_nodes_visited"] == 2
    assert doc["stops"] == [{"reason": "visit_budget_exhausted", "path": ["billing", "refunds"], "branch": None,
                             "landed": "refunds", "detail": "no visit left to go deeper"}]
    # Replayed from the trace: two decisions, no navigator call, nothing sent.
    assert (doc["summary"]["navigator_calls"], doc["summary"]["decisions"]) == (0, 2)
    assert doc["summary"]["answered"] == {"live": 0, "forced": 0, "replayed": 2, "cached": 0}
    assert doc["summary"]["chars_shipped"] == 0


def test_replay_refuses_a_changed_corpus(tmp_path):
    corpus = tmp_path / "c.yaml"
    corpus.write_text("source: c\nnodes:\n  - id: a\n    summary: alpha\n")
    trace = tmp_path / "t.jsonl"
    assert run("walk", corpus, "alpha", "--trace", trace).returncode == 0
    corpus.write_text("source: c\nnodes:\n  - id: a\n    summary: changed\n")
    out = run("replay", trace)
    assert out.returncode == 2
    assert "the trace was made on a different version of" in out.stderr
    assert out.stderr.count("\n") == 1


@pytest.mark.parametrize(("content", "message"), [
    ("", "the trace is empty"),
    ('{"format": "reasoning-explorer-trace", "version": 99}\n', "trace format version 99 is not supported"),
    ("hello\n", "not a reasoning-explorer trace"),
])
def test_replay_rejects_broken_traces_with_one_line(tmp_path, content, message):
    trace = tmp_path / "t.jsonl"
    trace.write_text(content)
    out = run("replay", trace)
    assert out.returncode == 2
    assert message in out.stderr and out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_replay_rejects_a_truncated_trace(tmp_path):
    trace = tmp_path / "t.jsonl"
    run("walk", HANDBOOK, "refunds", "--trace", trace)
    lines = trace.read_text().splitlines()
    trace.write_text("\n".join(lines[:-1]) + "\n" + lines[-1][:5])
    out = run("replay", trace)
    assert out.returncode == 2 and "truncated" in out.stderr
    trace.write_text("\n".join(lines[:-1]) + "\n")
    out = run("replay", trace)
    assert out.returncode == 2 and "truncated (no end line" in out.stderr


# validate and eval --------------------------------------------------------------------------------------


def test_validate_prints_counts_and_exits_0_on_a_clean_corpus():
    out = run("validate", HANDBOOK)
    assert out.returncode == 0
    for expected in ("nodes", "133", "roots", "widest node", "leave (9 children)", "ok, 0 warnings"):
        assert expected in out.stdout


def test_validate_exits_1_and_lists_every_error(tmp_path):
    corpus = tmp_path / "bad.yaml"
    corpus.write_text("source: s\nnodes:\n  - id: a\n  - id: a\n  - title: no id\n")
    out = run("validate", corpus)
    assert out.returncode == 1
    assert f"error: {corpus}:4: duplicate id 'a'" in out.stdout
    assert f"error: {corpus}:5: node at nodes[2] (title 'no id') has no id" in out.stdout
    assert "2 errors, 0 warnings" in out.stdout


def test_validate_prints_the_first_hundred_warnings_and_counts_the_rest(tmp_path):
    corpus = tmp_path / "headings.md"
    corpus.write_text("".join(f"# Heading {i}\n\n" for i in range(1, 301)))  # each: no summary, no content
    out = run("validate", corpus)
    assert out.returncode == 0, out.stderr
    warnings = [line for line in out.stdout.splitlines() if line.startswith("warning: ")]
    assert len(warnings) == 101
    assert warnings[0] == f"warning: {corpus}:1: node 'heading-1' has no summary; the navigator sees only its title"
    assert warnings[99] == (f"warning: {corpus}:99: node 'heading-50' is a leaf without content; landing on it "
                            "returns nothing")
    assert warnings[100] == "warning: … and 500 more (the first 100 are shown)"
    assert out.stdout.splitlines()[-1] == "ok, 600 warnings"


def test_eval_json_has_every_question_in_order_and_a_summary():
    out = run("eval", SAMPLES / "handbook.questions.yaml", "--json", "--jobs", "3")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    import yaml

    expected_ids = [q["id"] for q in yaml.safe_load((SAMPLES / "handbook.questions.yaml")
                                                    .read_text())["questions"]]
    assert [r["id"] for r in doc["results"]] == expected_ids
    first = doc["results"][0]
    assert set(first) == {"id", "query", "expect", "landed", "hit", "hit_at_1", "hit_at_3", "landed_count",
                          "precision", "branch_entered", "first_wrong_turn", "miss", "visits_used", "navigator_calls",
                          "decisions", "cached", "valid_answers", "chars_shipped", "chars_saved", "stop_reasons", "end",
                          "error", "blame", "flat"}
    money = next(r for r in doc["results"] if r["id"] == "money-back")
    assert (money["hit"], money["branch_entered"], money["first_wrong_turn"], money["visits_used"]) == (
        False, False, 0, 0)
    assert (money["landed"], money["landed_count"], money["precision"]) == ([], 0, None)
    assert money["miss"]["reason"] == "turned away" and money["miss"]["step"] == 3
    summary = doc["summary"]
    assert summary["questions"] == len(expected_ids)
    assert summary["hit_rate"] == pytest.approx(summary["hits"] / summary["questions"])
    assert summary["valid_answer_rate"] == 1.0
    assert 0 < summary["chars_vs_titles_summaries"] < 1 and 0 < summary["chars_vs_content"] < 1


def test_eval_jobs_keep_the_question_order_and_the_same_results():
    path = SAMPLES / "contract.questions.yaml"
    one = json.loads(run("eval", path, "--json").stdout)
    many = json.loads(run("eval", path, "--json", "--jobs", "4").stdout)
    assert one["results"] == many["results"]


def test_eval_table_and_summary():
    out = run("eval", SAMPLES / "handbook.questions.yaml")
    assert out.returncode == 0
    assert "Evaluation" in out.stdout and "money-back" in out.stdout
    assert "hit rate " in out.stdout and "valid answers 100%" in out.stdout


# errors: one line, exit 2, never a traceback -------------------------------------------------------------


@pytest.mark.parametrize(("args", "message"), [
    (["walk", "missing.yaml", "q"], "missing.yaml: no such file or folder"),
    (["walk", HANDBOOK, "q", "--navigator", " "], "navigator ' ': the navigator model is blank"),
    (["walk", HANDBOOK, "q", "--navigator", "nobody:x"], "no navigator supports 'nobody:x'"),
    (["walk", HANDBOOK, "q", "--navigator", "script:missing.yaml"], "no such navigator script"),
    (["walk", HANDBOOK, "q", "--navigator", "manual:"], "needs a person at the keyboard"),
    (["walk", HANDBOOK, "q", "--max-visits", "0"], "argument --max-visits: 0 must be at least 1"),
    (["walk", HANDBOOK, "q", "--max-depth", "-1"], "argument --max-depth: -1 must be at least 0"),
    (["walk", HANDBOOK, "q", "--on-failure", "explode"], "argument --on-failure: invalid choice: 'explode'"),
    (["walk", HANDBOOK, "  "], "the query is blank"),
    (["walk", HANDBOOK], "the following arguments are required: QUERY"),
    (["eval", "missing.questions.yaml"], "no such question set"),
    (["replay", "missing.jsonl"], "missing.jsonl: no such trace file"),
    (["validate"], "the following arguments are required: CORPUS"),
    (["validate", "missing.yaml"], "missing.yaml: no such file or folder"),
    (["missing-corpus.yaml"], "missing-corpus.yaml: no such file or folder"),
    (["--max-visits", "x"], "argument --max-visits: 'x' is not a whole number"),
    (["--autoplay", "0"], "argument --autoplay: 0 must be between 0.05 and 60 seconds"),
    (["--navigator", "nobody:x"], "no navigator supports 'nobody:x'"),
    (["--prompts", HANDBOOK], f"--prompts {HANDBOOK}: not a folder; name a folder for the prompt variants"),
])
def test_usage_and_configuration_errors_are_one_line_and_exit_2(args, message):
    out = run(*args)
    assert out.returncode == 2, out.stdout
    assert out.stderr.startswith("reasoning-explorer: error: ")
    assert message in out.stderr
    assert out.stderr.count("\n") == 1
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_a_broken_corpus_is_one_line_naming_file_and_line(tmp_path):
    corpus = tmp_path / "c.yaml"
    corpus.write_text("source: s\nnodes:\n  - id: a\n    sumary: x\n")
    out = run("walk", corpus, "q")
    assert out.returncode == 2
    assert out.stderr == (f"reasoning-explorer: error: {corpus}:4: node at nodes[0]: unknown key 'sumary'; "
                          "did you mean 'summary'?\n")


@pytest.mark.process
def test_python_dash_m_explorer_is_the_same_entry_point():
    out = subprocess.run([sys.executable, "-m", "explorer", "walk", HANDBOOK, "refunds", "--json"],
                         capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.returncode == 0
    assert json.loads(out.stdout)["summary"]["end"] == "finished"


@pytest.mark.process
def test_headless_commands_do_not_import_textual():
    code = (f"import sys\nfrom explorer.cli.main import main\nrc = main(['validate', {str(HANDBOOK)!r}])\n"
            "print('textual' in sys.modules, rc)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert out.stdout.strip().splitlines()[-1] == "False 0"


@pytest.mark.process
@pytest.mark.parametrize("stdin", ["/dev/null", "a pipe"])
def test_the_explorer_with_no_terminal_on_stdin_says_so_in_one_line_and_exits_2(stdin):
    """It used a whole core for ever (issue 38, point 5); the hang guard of 60 s fails the test, never hangs it."""
    script = Path(sys.executable).parent / "reasoning-explorer"
    done = subprocess.run([str(script), str(HANDBOOK)], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          stdin=subprocess.DEVNULL if stdin == "/dev/null" else None, input=None if stdin == "/dev/null"
                          else "q\n")
    assert (done.returncode, done.stdout) == (2, "")
    assert done.stderr == ("reasoning-explorer: error: the explorer needs a terminal, and its standard input is not "
                           "one; run it in a terminal, or walk without a screen: `reasoning-explorer walk CORPUS "
                           "QUERY`\n")
