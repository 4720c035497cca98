"""``walk`` and ``eval --map FILE`` (issue 46 point 5): a map variant is a setting like a prompt variant: it changes
what the navigator is shown, it is named (path and hash) in the trace's header, in ``walk --json``, in ``eval``'s
text and ``--json`` header and in a kept run, and was → now names it; a bad one is one line and exit 2. The corpus
file is never written."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from explorer.trace import read_trace
from tests.command_line import run_cli
from tests.samples import SAMPLES

QUERY = "How long until I get my money back?"
HIDDEN = "General information and related matters."
"""A summary that hides what lies under Billing: the money-back question's walk turns away from it."""


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "handbook.yaml"
    shutil.copy(SAMPLES / "handbook.yaml", path)
    (tmp_path / "money.questions.yaml").write_text(
        f"corpus: handbook.yaml\nquestions:\n  - id: money-back\n    query: {QUERY}\n    expect: [refund-delivery]\n",
        encoding="utf-8")
    return path


@pytest.fixture
def hiding(tmp_path: Path) -> Path:
    path = tmp_path / "maps" / "handbook.map.yaml"
    path.parent.mkdir()
    path.write_text(f"nodes:\n  billing:\n    summary: {HIDDEN}\n", encoding="utf-8")
    return path


def test_walk_with_a_map_is_walked_on_it_and_says_so_in_the_trace(corpus: Path, hiding: Path,
                                                                 tmp_path: Path) -> None:
    before = digest(corpus)
    plain = run_cli("walk", corpus, QUERY, "--navigator", "semantic:hybrid", "--json")
    assert plain.returncode == 0, plain.stderr
    assert "refund-delivery" in [d["id"] for d in json.loads(plain.stdout)["results"]]
    assert "map" not in json.loads(plain.stdout)
    trace = tmp_path / "walk.jsonl"
    mapped = run_cli("walk", corpus, QUERY, "--navigator", "semantic:hybrid", "--map", hiding, "--trace", trace)
    assert mapped.returncode == 0, mapped.stderr
    said = " ".join(mapped.stdout.split())  # the header line wraps at the terminal's width (a long tmp path)
    assert f"({corpus}) · semantic:hybrid · budget 15 · depth limit 6 · on failure throw · map handbook.map.yaml" in said
    first = json.loads(trace.read_text(encoding="utf-8").splitlines()[0])
    assert first["map"] == {"path": str(hiding), "sha256": digest(hiding)}
    assert first["corpus"]["sha256"] == before  # the corpus's own hash: the trace opens on the corpus file
    read = read_trace(trace, before)
    assert read.header.map is not None and read.header.map.sha256 == digest(hiding)
    document = json.loads(run_cli("walk", corpus, QUERY, "--navigator", "semantic:hybrid", "--map", hiding,
                                  "--json").stdout)
    assert document["map"] == {"path": str(hiding), "sha256": digest(hiding)}
    assert "refund-delivery" not in [d["id"] for d in document["results"]]
    assert digest(corpus) == before


def test_a_trace_without_a_map_still_reads(corpus: Path, tmp_path: Path) -> None:
    trace = tmp_path / "walk.jsonl"
    assert run_cli("walk", corpus, QUERY, "--trace", trace).returncode in (0, 1)
    assert "map" not in json.loads(trace.read_text(encoding="utf-8").splitlines()[0])
    assert read_trace(trace).header.map is None


@pytest.mark.parametrize(("text", "says"), [
    ("nodes:\n  billings:\n    summary: x\n",
     "{map}:2: no node 'billings' in handbook.yaml (did you mean 'billing'?); name a node id of the corpus, or "
     "remove it from the map"),
    ("nodes: {billing: {summary: x}\n", None),
    ("nodes:\n  billing:\n    summary: ''\n",
     "{map}:3: an empty summary for node 'billing'; write what it should say, or leave 'summary:' out to keep the "
     "corpus's"),
    ('nodes:\n  "bill\\x07ing":\n    title: x\n',
     "{map}:2: node id 'bill\\x07ing' holds control characters; write the corpus's id of the node as plain text"),
])
@pytest.mark.parametrize("command", ["walk", "eval"])
def test_a_bad_map_is_one_line_and_exit_2(corpus: Path, tmp_path: Path, text: str, says: str | None,
                                          command: str) -> None:
    bad = tmp_path / "bad.map.yaml"
    bad.write_text(text, encoding="utf-8")
    before = digest(corpus)
    args = [corpus, QUERY] if command == "walk" else [tmp_path / "money.questions.yaml"]
    done = run_cli(command, *args, "--map", bad)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"reasoning-explorer: error: {bad}:")
    if says is not None:
        assert lines[0] == "reasoning-explorer: error: " + says.format(map=bad)
    assert bad.read_text(encoding="utf-8") == text and digest(corpus) == before


def test_eval_with_a_map_names_it_keeps_it_and_was_now_says_what_it_broke(corpus: Path, hiding: Path,
                                                                         tmp_path: Path) -> None:
    questions = tmp_path / "money.questions.yaml"
    before = digest(corpus)
    baseline = tmp_path / "baseline.run.json"
    done = run_cli("eval", questions, "--navigator", "semantic:hybrid", "--save-run", baseline, "--judge", "none")
    assert done.returncode == 0, done.stderr
    assert "map" not in json.loads(baseline.read_text(encoding="utf-8"))
    mapped = tmp_path / "mapped.run.json"
    text = run_cli("eval", questions, "--navigator", "semantic:hybrid", "--map", hiding, "--save-run", mapped,
                   "--against", baseline, "--judge", "none")
    assert text.returncode == 0, text.stderr
    lines = text.stdout.splitlines()
    assert lines[0] == f"Map variant {hiding} (sha256 {digest(hiding)[:12]}…) over handbook.yaml"
    assert "Nothing to fix: the kept run missed none of 1 question; this run broke 1 (money-back)" in lines
    assert "Against baseline.run.json: was semantic:hybrid · now semantic:hybrid with map handbook.map.yaml" in lines
    kept = json.loads(mapped.read_text(encoding="utf-8"))
    assert kept["map"] == {"path": str(hiding), "sha256": digest(hiding)}
    document = json.loads(run_cli("eval", questions, "--navigator", "semantic:hybrid", "--map", hiding, "--json",
                                  "--against", mapped, "--judge", "none").stdout)
    assert document["map"] == {"path": str(hiding), "sha256": digest(hiding)}
    assert document["against"]["kept_label"] == "semantic:hybrid with map handbook.map.yaml"
    assert [r["hit"] for r in document["results"]] == [False]
    assert digest(corpus) == before


def test_the_map_file_is_an_input_no_output_may_replace(corpus: Path, hiding: Path) -> None:
    text = hiding.read_text(encoding="utf-8")
    done = run_cli("walk", corpus, QUERY, "--map", hiding, "--trace", hiding, "--overwrite")
    assert done.returncode == 2
    assert "an output must not overwrite an input" in done.stderr and "the map variant" in done.stderr
    assert hiding.read_text(encoding="utf-8") == text


def test_explore_refuses_a_bad_map_before_the_screen_and_a_map_without_a_corpus(corpus: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.map.yaml"
    bad.write_text("nodes:\n  billings:\n    summary: x\n", encoding="utf-8")
    done = run_cli(corpus, "--map", bad, "--no-files")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"reasoning-explorer: error: {bad}:2: no node 'billings' in handbook.yaml (did you mean 'billing'?); name a "
        "node id of the corpus, or remove it from the map"]
    good = tmp_path / "good.map.yaml"
    good.write_text("nodes:\n  billing:\n    title: Money\n", encoding="utf-8")
    done = run_cli(tmp_path / "money.questions.yaml", "--map", good, "--no-files")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "reasoning-explorer: error: --map changes the titles and summaries of a corpus: give the corpus (not a trace, "
        "a folder of walks or a question set) with it"]


def test_a_run_is_resumed_only_with_the_map_it_was_kept_with(corpus: Path, hiding: Path, tmp_path: Path) -> None:
    questions = tmp_path / "money.questions.yaml"
    plain = tmp_path / "plain.run.json"
    assert run_cli("eval", questions, "--save-run", plain, "--judge", "none").returncode == 0
    done = run_cli("eval", questions, "--map", hiding, "--resume", plain, "--judge", "none")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"reasoning-explorer: error: {plain}: kept with no map variant (as it read then), this run walks with map "
        f"{hiding}; resume it with the map it was kept with (--map FILE)"]
    mapped = tmp_path / "mapped.run.json"
    assert run_cli("eval", questions, "--map", hiding, "--save-run", mapped, "--judge", "none").returncode == 0
    assert run_cli("eval", questions, "--map", hiding, "--resume", mapped, "--judge", "none").returncode == 0
    hiding.write_text(hiding.read_text(encoding="utf-8") + "  refunds:\n    title: Money back\n", encoding="utf-8")
    done = run_cli("eval", questions, "--map", hiding, "--resume", mapped, "--judge", "none")
    assert done.returncode == 2 and "kept with map" in done.stderr  # the map edited since: not the run's map


def test_a_trace_walked_with_a_map_is_replayed_on_it_while_the_map_is_the_same(corpus: Path, hiding: Path,
                                                                               tmp_path: Path) -> None:
    trace = tmp_path / "walk.jsonl"
    assert run_cli("walk", corpus, QUERY, "--navigator", "semantic:hybrid", "--map", hiding,
                   "--trace", trace).returncode == 0
    replayed = run_cli("replay", trace, "--json")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stderr == ""
    assert json.loads(replayed.stdout)["map"] == {"path": str(hiding), "sha256": digest(hiding)}
    hiding.write_text(f"nodes:\n  billing:\n    summary: {HIDDEN} Edited.\n", encoding="utf-8")
    replayed = run_cli("replay", trace, "--json")
    assert replayed.returncode == 0
    assert "map" not in json.loads(replayed.stdout)
    assert replayed.stderr == (f"reasoning-explorer: {trace}: walked with the map variant {hiding}, which cannot be "
                               f"used now ({hiding}: changed since); shown on the corpus as its file holds it\n")


def test_diff_names_the_map_a_walk_was_made_with(corpus: Path, hiding: Path, tmp_path: Path) -> None:
    plain, mapped = tmp_path / "plain.jsonl", tmp_path / "mapped.jsonl"
    assert run_cli("walk", corpus, QUERY, "--navigator", "semantic:hybrid", "--trace", plain).returncode == 0
    assert run_cli("walk", corpus, QUERY, "--navigator", "semantic:hybrid", "--map", hiding,
                   "--trace", mapped).returncode == 0
    document = json.loads(run_cli("diff", plain, mapped, "--json").stdout)
    assert (document["a"], document["b"]) == ("A: plain.jsonl", "B: mapped.jsonl (map handbook.map.yaml)")


@pytest.mark.parametrize(("make", "says"), [
    (lambda path: None, "no such file; give the map variant's file (maps/NAME.map.yaml)"),
    (lambda path: path.mkdir(), "is a folder; give the map variant's file (maps/NAME.map.yaml)"),
    (lambda path: __import__("os").mkfifo(path),
     "is a FIFO (named pipe), not a file that can be read to its end; give the map variant's file "
     "(maps/NAME.map.yaml)"),
])
def test_a_map_that_is_no_file_says_to_give_a_map_not_a_corpus(corpus: Path, tmp_path: Path, make, says) -> None:
    """The line that refuses ``--map`` names what to give: a map variant's file, not a corpus's kinds of file."""
    path = tmp_path / "odd.map.yaml"
    make(path)
    done = run_cli("walk", corpus, QUERY, "--map", path)
    assert (done.returncode, done.stderr) == (2, f"reasoning-explorer: error: {path}: {says}\n")


def test_a_trace_walked_with_a_relative_map_is_replayed_on_it_from_another_folder(corpus: Path, hiding: Path,
                                                                                 tmp_path: Path) -> None:
    """The map's path is found as the corpus's is: as recorded, then beside the trace (walked in the corpus's folder
    with relative paths, replayed from anywhere)."""
    assert run_cli("walk", "handbook.yaml", QUERY, "--navigator", "semantic:hybrid", "--map",
                   "maps/handbook.map.yaml", "--trace", "walk.jsonl", cwd=tmp_path).returncode == 0
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    replayed = run_cli("replay", tmp_path / "walk.jsonl", "--json", cwd=elsewhere)
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stderr == ""
    assert json.loads(replayed.stdout)["map"] == {"path": str(tmp_path / "maps" / "handbook.map.yaml"),
                                                  "sha256": digest(hiding)}


def test_a_folder_of_walks_made_with_a_map_opens_on_that_map(corpus: Path, hiding: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A session's folder (``--resume``, or the folder given) whose newest walk was walked with a map variant (``M``
    then ``r``) opens on that map: the next walk goes on with it, as the session did."""
    from explorer.cli.main import main
    from tests.explorer.app.helpers import explorer_made_here

    walks = tmp_path / "walks"
    walks.mkdir()
    assert run_cli("walk", corpus, QUERY, "--navigator", "lexical:default", "--map", hiding,
                   "--trace", walks / "walk.jsonl").returncode == 0
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(walks), "--navigator", "lexical:default", "--sessions", "off"]) == 0
    (app,) = made
    assert app.corpus.map is not None and app.corpus.map.sha256 == digest(hiding)
    assert app.corpus.summary_of("billing") == HIDDEN
