"""`--force NODE=ID[,ID...]` on `walk` and `replay`, and transcripts in the headless output."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import pytest

from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
DEPTH_SCRIPT = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'depth-limit.yaml'}"
SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"


def run(*args):
    return run_cli(*args)


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


# Every id can be named (issue 21, point 12): bare `start` is the first offer, `"start"` in quotes a node of
# that id; ids holding `=` or `,`, or with spaces around them, go in double quotes ("" for a quote inside).

ODD = """\
source: odd
nodes:
  - id: start
    summary: The node whose id is start
    children:
      - {id: inner, content: Inside start.}
      - {id: other, content: Beside it.}
  - id: "a=b"
    summary: An id with an equals sign
    children:
      - {id: "c,d", content: A comma.}
      - {id: " pad ", content: Spaces around.}
      - {id: 'say "hi"', content: Quotes.}
"""


def odd_corpus(tmp_path):
    path = tmp_path / "odd.yaml"
    path.write_text(ODD)
    return path


def chose(document):
    return [(e["current"], e["selected"], e.get("forced", False)) for e in document["events"]
            if e["event"] == "navigator_chose"]


def test_bare_start_names_the_roots_and_warns_when_the_corpus_has_a_node_start(tmp_path):
    corpus = odd_corpus(tmp_path)
    out = run("walk", corpus, "q", "--force", "start=inner", "--json")
    document = as_json(out)
    assert chose(document) == [(None, ["inner"], True)]  # answered at the roots: inner was not offered there
    assert [s["reason"] for s in document["stops"]] == ["invalid_choice"]
    assert out.stderr == ("reasoning-explorer: warning: --force 'start=inner': bare start names the first offer (the "
                          "roots), and this corpus also has a node 'start': to force that node, write "
                          '"start"=inner\n')


def test_quoted_start_names_the_node_whose_id_is_start(tmp_path):
    corpus = odd_corpus(tmp_path)
    out = run("walk", corpus, "q", "--force", '"start"=inner', "--force", 'start="start"', "--json")
    document = as_json(out)
    assert chose(document) == [(None, ["start"], True), ("start", ["inner"], True)]
    assert entered(document) == ["start", "inner"]
    assert document["summary"]["landed"] == ["inner"]
    assert out.stderr.count("warning: --force 'start=\"start\"'") == 1  # the bare start, still said to be ambiguous


def test_ids_with_equals_commas_spaces_and_quotes_are_written_in_quotes(tmp_path):
    corpus = odd_corpus(tmp_path)
    out = run("walk", corpus, "q", "--force", 'start="a=b"', "--force", ' "a=b" = "c,d", " pad ", "say ""hi""" ',
              "--json")
    document = as_json(out)
    assert chose(document) == [(None, ["a=b"], True), ("a=b", ["c,d", " pad ", 'say "hi"'], True)]
    assert entered(document) == ["a=b", "c,d", " pad ", 'say "hi"']
    assert out.stderr.startswith("reasoning-explorer: warning: --force 'start=\"a=b\"': bare start names the first")


def test_a_force_never_applied_is_said_the_way_it_is_written(tmp_path):
    corpus = odd_corpus(tmp_path)
    out = run("walk", corpus, "q", "--force", 'start="a=b"', "--force", '"c,d"=" x "')
    assert out.returncode == 0, out.stderr
    assert "--force \"c,d\"=\" x \" never applied: the walk never judged 'c,d'" in out.stdout


def test_an_id_with_spaces_around_it_written_bare_is_refused_with_its_quoted_spelling(tmp_path):
    corpus = odd_corpus(tmp_path)
    out = run("walk", corpus, "q", "--force", " pad =x")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == (f"reasoning-explorer: error: --force ' pad =x': no node 'pad' in {corpus}; name a node of "
                          "the corpus, or 'start' for the first offer (the corpus has ' pad ': an id with spaces "
                          'around it is written in double quotes, " pad ")\n')


@pytest.mark.parametrize(("value", "message"), [
    ('"a=b=x', "--force '\"a=b=x': the quote at character 1 is never closed; write NODE=ID[,ID...]"),
    ('"a"b=x', "--force '\"a\"b=x': 'b' after the quoted id at character 1; put the whole id in the quotes"),
    ('start=""', "--force 'start=\"\"': \"\" is an empty id; name a node, or leave NODE= with nothing after it"),
    ('""=x', "--force '\"\"=x': write NODE=ID[,ID...]"),
])
def test_a_force_whose_quotes_do_not_read_is_one_line_and_exit_2(tmp_path, value, message):
    out = run("walk", odd_corpus(tmp_path), "q", "--force", value)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith(f"reasoning-explorer: error: {message}") and out.stderr.count("\n") == 1


def test_help_says_how_to_quote_an_id():
    out = run("walk", "--help")
    assert "start for the first offer" in " ".join(out.stdout.split())
    assert """'"start"=x' forces a node whose id is start""" in " ".join(out.stdout.split())
