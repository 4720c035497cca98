"""`--force NODE=ID[,ID...]` on `walk` and `replay`, and transcripts in the headless output."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = ROOT / "sample_corpora" / "handbook.yaml"
DEPTH_SCRIPT = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'depth-limit.yaml'}"
SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"


def run(*args):
    return subprocess.run([SCRIPT, *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                          env={**os.environ, "COLUMNS": "200"}, timeout=60)


def as_json(out):
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def entered(document):
    return [e["node"]["id"] for e in document["events"] if e["event"] == "node_entered"]


def test_force_replaces_the_navigators_answer_at_that_node_and_marks_it():
    document = as_json(run("walk", HANDBOOK, "annual refund formula", "--navigator", DEPTH_SCRIPT,
                           "--force", "billing=invoices", "--json"))
    assert entered(document)[:2] == ["billing", "invoices"]
    chose = [e for e in document["events"] if e["event"] == "navigator_chose"]
    assert [(c["current"], c.get("forced", False)) for c in chose][:2] == [(None, False), ("billing", True)]
    assert chose[1]["selected"] == ["invoices"]
    assert chose[1]["transcript"] == [["answered", "forced: by a person, at billing chose invoices"]]
    assert document["forces"] == [{"node": "billing", "selected": ["invoices"], "applied": True}]


def test_force_at_the_start_with_nothing_stops_there():
    document = as_json(run("walk", HANDBOOK, "anything", "--force", "start=", "--json"))
    assert entered(document) == [] and document["summary"]["landed"] == []
    assert [s["reason"] for s in document["stops"]] == ["navigator_stopped"]


def test_force_with_an_id_never_offered_shows_the_hallucination():
    out = run("walk", HANDBOOK, "annual refund formula", "--navigator", DEPTH_SCRIPT, "--force", "billing=ghost")
    assert out.returncode == 0, out.stderr
    assert "⚑ forced ghost" in out.stdout
    assert "1 returned but never offered (hallucinated): ghost" in out.stdout
    assert "invalid_choice at branch ghost" in out.stdout


def test_a_force_the_walk_never_reaches_is_reported_in_text_and_json():
    out = run("walk", HANDBOOK, "annual refund formula", "--navigator", DEPTH_SCRIPT, "--force", "security=x")
    assert out.returncode == 0, out.stderr
    assert "--force security=x never applied: the walk never judged 'security'" in out.stdout
    document = as_json(run("walk", HANDBOOK, "annual refund formula", "--navigator", DEPTH_SCRIPT,
                           "--force", "security=x", "--json"))
    assert document["forces"] == [{"node": "security", "selected": ["x"], "applied": False}]
    assert not any(e.get("forced") for e in document["events"])


def test_a_force_on_a_node_not_in_the_corpus_is_one_line_and_exit_2():
    out = run("walk", HANDBOOK, "q", "--force", "shipping=x")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.strip().splitlines() == [
        f"reasoning-explorer: error: --force 'shipping=x': no node 'shipping' in {HANDBOOK}; "
        "name a node of the corpus, or 'start' for the first offer"
    ]


def test_a_force_that_cannot_be_read_is_one_line_and_exit_2():
    out = run("walk", HANDBOOK, "q", "--force", "billing")
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "write NODE=ID[,ID...]" in out.stderr and "Traceback" not in out.stderr


def test_replay_takes_force_too_and_keeps_the_recorded_transcripts(tmp_path):
    trace = tmp_path / "walk.trace.jsonl"
    assert run("walk", HANDBOOK, "How are refunds issued?", "--trace", trace).returncode == 0
    recorded = [json.loads(line) for line in trace.read_text().splitlines()]
    transcripts = [r["transcript"] for r in recorded if r.get("event") == "navigator_chose"]
    assert transcripts and all(t and t[0][0] == "terms" for t in transcripts)
    document = as_json(run("replay", trace, "--json"))
    replayed = [e["transcript"] for e in document["events"] if e["event"] == "navigator_chose"]
    assert [t[0] for t in replayed] == [["answered", "replayed: the answer traced at this node"]] * len(transcripts)
    assert [t[1:] for t in replayed] == transcripts
    forced = as_json(run("replay", trace, "--force", "start=accounts", "--json"))
    assert entered(forced)[0] == "accounts"
    assert forced["forces"] == [{"node": "start", "selected": ["accounts"], "applied": True}]


def test_transcripts_flag_prints_each_transcript_in_full():
    short = run("walk", HANDBOOK, "How are refunds issued?")
    assert "transcript: terms" in short.stdout and "(--transcripts shows them)" in short.stdout
    full = run("walk", HANDBOOK, "How are refunds issued?", "--transcripts")
    assert full.returncode == 0 and "(--transcripts shows them)" not in full.stdout
    assert "scores" in full.stdout and "refunds" in full.stdout
