"""``eval --save-run FILE`` keeps a run; ``eval --against FILE`` compares a new run with it, the kept run the was side,
on the questions both hold; a run kept before partial runs (version 1) still reads (real files, the real entry
point)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = SAMPLES / "handbook.questions.yaml"
REGULATION = SAMPLES / "regulation.questions.yaml"


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
    assert (run["format"], run["version"]) == ("reasoning-explorer-run", 2)
    assert run["questions"] == {"path": str(QUESTIONS), "sha256": hashlib.sha256(QUESTIONS.read_bytes()).hexdigest(),
                                "count": 41}
    assert run["corpus"]["sha256"] == hashlib.sha256((ROOT / "sample_corpora/handbook.yaml").read_bytes()).hexdigest()
    assert (run["navigator"], run["settings"]) == ("lexical:default", {"max_nodes_visited": 15, "max_depth": 6,
                                                                       "on_failure": "throw",
                                                                       "policy": "depth-first"})
    assert (run["partial"], run["holds"]) == (False, [r["id"] for r in fresh["results"]])
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
    start = lines.index("Against default.json: was lexical:default · now lexical:wide")
    hits, was = wide["summary"]["hits"], sum(r["hit"] for r in default.values())
    broke = f"broke {len(broken)} ({', '.join(broken[:3])}{', …' if len(broken) > 3 else ''})" if broken \
        else "broke none"
    headline = f"Fixed {len(fixed)} of {41 - was} questions the kept run missed, {broke}"
    assert lines[start - 1] == headline  # it leads: did it work, in one sentence
    assert lines[start + 1] == "  compared on 41 of 41 questions both runs hold"
    assert lines[start + 2] == f"  hit        {hits}/41 (was {was}/41, {hits - was:+d})"
    assert lines[start + 5] == f"Fixed ({len(fixed)}): missed then, hit now"
    for offset, question in enumerate(fixed, start=6):
        assert lines[start + offset] == f"  {question}  was: {default[question]['miss']['says']}"
    assert lines[start + 6 + len(fixed)] == f"Broken ({len(broken)}): hit then, missed now"
    assert lines[-2:] == [f"Was: {kept} · lexical:default", "Now: this run · lexical:wide"]  # the detail, last
    document = evaluated("--navigator", "lexical:wide", "--against", kept)["against"]
    assert [f["id"] for f in document["fixed"]] == fixed
    assert [b["id"] for b in document["broken"]] == broken
    assert document["hits"] == {"kept": was, "now": hits, "delta": hits - was}
    assert (document["compared_on"], document["questions"], document["kept_partial"]) == (41, 41, False)
    assert document["says"] == headline


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
    moved_corpus.write_text((SAMPLES / "handbook.yaml").read_text() + "\n# changed\n")
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


def test_a_run_kept_before_partial_runs_still_reads_as_a_whole_run(kept: Path, tmp_path: Path) -> None:
    old = json.loads(kept.read_text())
    old["version"] = 1
    for key in ("partial", "holds"):
        del old[key]
    del old["questions"]["count"], old["settings"]["policy"]
    for result in old["results"]:  # a version 1 run's results had neither
        del result["valid_answers"], result["chars_saved"]
    v1 = tmp_path / "v1.run.json"
    v1.write_text(json.dumps(old))
    done = cli("eval", QUESTIONS, "--against", v1)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("Against v1.run.json: was lexical:default · now lexical:default")
    assert lines[start + 1:start + 5] == ["  compared on 41 of 41 questions both runs hold",
                                          "  hit        13/41 (was 13/41, +0)", "  hit@3      13/41 (was 13/41, +0)",
                                          "  precision  20% (was 20%, +0 points)"]
    resumed = cli("eval", QUESTIONS, "--resume", v1)
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr == (f"Resuming {v1} (lexical:default): it holds 41 of 41 questions; walking the 0 it "
                              "does not hold\n")


def test_against_a_partial_run_compares_on_the_questions_both_hold(kept: Path, tmp_path: Path) -> None:
    run = json.loads(kept.read_text())
    held = [r for r in run["results"] if r["id"] in ("money-back", "expecting-twins", "scim-deprovisioning")]
    assert len(held) == 3
    run.update(partial=True, holds=[r["id"] for r in held], results=held)
    partial = tmp_path / "partial.run.json"
    partial.write_text(json.dumps(run))
    done = cli("eval", QUESTIONS, "--navigator", "lexical:wide", "--against", partial)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    start = lines.index("Against partial.run.json: was lexical:default · now lexical:wide")
    assert lines[start + 1] == "  compared on 3 of 41 questions both runs hold"
    assert lines[-2] == (f"Was: {partial} · lexical:default · partial: holds 3 of 41 questions ({', '.join(run['holds'])})")
    document = evaluated("--navigator", "lexical:wide", "--against", partial)["against"]
    assert (document["compared_on"], document["kept_partial"], document["hits"]["kept"]) == (
        3, True, sum(r["hit"] for r in held))


@pytest.mark.parametrize(("change", "message"), [
    ({"holds": ["money-back"]}, "its \"holds\", \"partial\" and \"count\" do not match its results; keep the run again"),
    ({"version": 3}, "kept run version 3 is not supported (this reads 1 and 2)"),
    ({"settings": {"max_nodes_visited": 15, "max_depth": 6, "policy": "sideways"}},
     "its settings' failure policy or walk policy is none this explorer knows"),
])
def test_a_damaged_kept_run_is_refused_in_one_line(kept: Path, tmp_path: Path, change: dict, message: str) -> None:
    run = json.loads(kept.read_text())
    run.update(change)
    damaged = tmp_path / "damaged.run.json"
    damaged.write_text(json.dumps(run))
    for option in ("--against", "--resume"):
        done = cli("eval", QUESTIONS, option, damaged)
        assert (done.returncode, done.stdout, done.stderr) == (2, "", f"reasoning-explorer: error: {damaged}: {message}\n")


def test_resume_refuses_other_settings_and_a_result_it_cannot_read(kept: Path, tmp_path: Path) -> None:
    other = cli("eval", QUESTIONS, "--resume", kept, "--max-visits", "20")
    assert (other.returncode, other.stderr) == (2, (
        f"reasoning-explorer: error: {kept}: kept with lexical:default · budget 15 · depth limit 6 · on failure "
        "throw, not lexical:default · budget 20 · depth limit 6 · on failure throw; resume it with the settings it was "
        "kept with\n"))
    model = cli("eval", QUESTIONS, "--resume", kept, "--navigator", "lexical:wide")
    assert model.returncode == 2 and "kept with lexical:default · budget 15" in model.stderr
    run = json.loads(kept.read_text())
    run["results"][1]["visits_used"] = "many"
    broken = tmp_path / "broken.run.json"
    broken.write_text(json.dumps(run))
    done = cli("eval", QUESTIONS, "--resume", broken)
    assert done.stderr == (f"reasoning-explorer: error: {broken}: result 2 ({run['results'][1]['id']}): 'visits_used' "
                           "is not a count; keep the run again\n")
    same = cli("eval", QUESTIONS, "--resume", kept, "--save-run", kept)
    assert same.returncode == 2
    assert same.stderr == (f"reasoning-explorer: error: --save-run {kept} is the kept run --resume reads ({kept}); an "
                           "output must not overwrite an input: choose another file\n")
    both = cli("eval", QUESTIONS, "--resume", kept, "--compare", "lexical:wide")
    assert both.stderr == ("reasoning-explorer: error: --resume cannot go with --budgets or --compare; resume one "
                           "navigator's run at a time\n")
