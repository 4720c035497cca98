"""``eval --save-run FILE`` keeps a run; ``eval --against FILE`` compares a new run with it (real files, the real
entry point)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.command_line import run_cli

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = ROOT / "sample_corpora" / "handbook.questions.yaml"
REGULATION = ROOT / "sample_corpora" / "regulation.questions.yaml"


def cli(*args: object) -> subprocess.CompletedProcess[str]:
    return run_cli(*args)  # type: ignore[return-value]


def evaluated(*args: object) -> dict:
    done = cli("eval", QUESTIONS, *args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("runs") / "default.json"
    done = cli("eval", QUESTIONS, "--save-run", path)
    assert done.returncode == 0, done.stderr
    return path


def test_a_kept_run_holds_its_settings_model_question_set_and_every_result(kept: Path) -> None:
    run = json.loads(kept.read_text())
    fresh = evaluated()
    assert (run["format"], run["version"]) == ("reasoning-explorer-run", 1)
    assert run["questions"] == {"path": str(QUESTIONS), "sha256": hashlib.sha256(QUESTIONS.read_bytes()).hexdigest()}
    assert run["corpus"]["sha256"] == hashlib.sha256((ROOT / "sample_corpora/handbook.yaml").read_bytes()).hexdigest()
    assert (run["navigator"], run["settings"]) == ("lexical:default", {"max_nodes_visited": 15, "max_depth": 6,
                                                                       "on_failure": "throw"})
    assert run["results"] == fresh["results"] and run["summary"] == fresh["summary"]


def test_against_a_kept_run_says_the_deltas_and_the_questions_that_flipped(kept: Path) -> None:
    wide = evaluated("--navigator", "lexical:wide")
    default = {r["id"]: r for r in json.loads(kept.read_text())["results"]}
    fixed = [r["id"] for r in wide["results"] if r["hit"] and not default[r["id"]]["hit"]]
    broken = [r["id"] for r in wide["results"] if not r["hit"] and default[r["id"]]["hit"]]
    assert fixed  # lexical:wide goes wider: some questions lexical:default missed land now
    done = cli("eval", QUESTIONS, "--navigator", "lexical:wide", "--against", kept)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index(f"Against {kept}: kept lexical:default · now lexical:wide")
    hits, was = wide["summary"]["hits"], sum(r["hit"] for r in default.values())
    assert lines[start + 1] == f"  hit        {hits}/41 (was {was}/41, {hits - was:+d})"
    assert lines[start + 4] == f"Fixed ({len(fixed)}): missed then, hit now"
    for offset, question in enumerate(fixed, start=5):
        assert lines[start + offset] == f"  {question}  was: {default[question]['miss']['says']}"
    assert lines[start + 5 + len(fixed)] == f"Broken ({len(broken)}): hit then, missed now"
    document = evaluated("--navigator", "lexical:wide", "--against", kept)["against"]
    assert [f["id"] for f in document["fixed"]] == fixed
    assert [b["id"] for b in document["broken"]] == broken
    assert document["hits"] == {"kept": was, "now": hits, "delta": hits - was}


def test_the_same_run_against_itself_flips_nothing(kept: Path) -> None:
    document = evaluated("--against", kept)["against"]
    assert (document["fixed"], document["broken"], document["hits"]["delta"]) == ([], [], 0)


def test_a_run_of_another_set_or_corpus_or_no_run_at_all_is_refused_in_one_line(kept: Path, tmp_path: Path) -> None:
    other = cli("eval", REGULATION, "--against", kept)
    assert other.returncode == 2
    assert other.stderr == (f"reasoning-explorer: error: {kept}: kept from another question set (or the set has "
                            "changed since); compare runs of the same question set\n")
    copied = tmp_path / "handbook.questions.yaml"
    shutil.copy(QUESTIONS, copied)
    moved_corpus = tmp_path / "handbook.yaml"
    moved_corpus.write_text((ROOT / "sample_corpora" / "handbook.yaml").read_text() + "\n# changed\n")
    changed = cli("eval", copied, "--corpus", moved_corpus, "--against", kept)
    assert changed.returncode == 2
    assert changed.stderr == (f"reasoning-explorer: error: {kept}: kept over another corpus (or the corpus has "
                              "changed since); compare runs over the same corpus\n")
    garbage = tmp_path / "garbage.json"
    garbage.write_text('{"format": "something else"}')
    refused = cli("eval", QUESTIONS, "--against", garbage)
    assert refused.returncode == 2
    assert refused.stderr == (f"reasoning-explorer: error: {garbage}: not a kept run (no \"format\": "
                              "\"reasoning-explorer-run\"); give a file written by eval --save-run\n")
    missing = cli("eval", QUESTIONS, "--against", tmp_path / "none.json")
    assert missing.stderr == (f"reasoning-explorer: error: {tmp_path / 'none.json'}: no such kept run (give a file "
                              "written by eval --save-run)\n")
    nowhere = cli("eval", QUESTIONS, "--save-run", tmp_path / "no" / "run.json")
    assert nowhere.returncode == 2
    assert nowhere.stderr == (f"reasoning-explorer: error: cannot write the kept run to {tmp_path / 'no' / 'run.json'}: "
                              f"no folder {tmp_path / 'no'}\n")
