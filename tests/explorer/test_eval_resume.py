"""An evaluation that respects time, from the command line: Ctrl+C with ``--save-run`` keeps what was walked as a
partial run that says which questions it holds; ``eval --resume FILE`` walks only the questions it does not hold and
merges, asking no navigator about a question already walked (the requests of a stub LLM server on 127.0.0.1,
counted); the progress line on a terminal says the time left, from the walks done so far."""

from __future__ import annotations

import _thread
import json
import re
import subprocess
import threading
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.corpora.validate import stats
from explorer.navigators.prompt_variants import model_label
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import (
    MissReason,
    Pace,
    evaluate,
    outcome_from_json,
    outcome_to_json,
    pace,
    summarize,
    summary_to_json,
    time_left,
    time_left_words,
)
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .app.llm_stub import MODEL, by_system
from .http_stub import Recorded, Reply, StubServer

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERIES = {"refunds-arrive": "How long do refunds take to arrive?", "money-back": "How long until I get my money back?",
           "sign-in": "What should I type to sign in?", "invoices": "Where do I find my invoices?"}
ENV = {"OPENAI_API_KEY": "sk-eval-resume-000", "REASONING_EXPLORER_MAX_RETRIES": "0"}


def small_set(folder: Path) -> Path:
    path = folder / "small.questions.yaml"
    path.write_text(f"corpus: {HANDBOOK}\nquestions:\n" + "".join(
        f"  - id: {qid}\n    query: {query}\n    expect: [refund-delivery]\n" for qid, query in QUERIES.items()))
    return path


def query_of(request: Recorded) -> str:
    user = request.json()["messages"][1]["content"]
    found = re.search(r"^Query: (.*)$", user, re.MULTILINE)
    assert found is not None
    return found.group(1)


def cli(*args: object, server: StubServer, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**ENV, "OPENAI_BASE_URL": server.url, **(env or {})})  # type: ignore[return-value]


def test_ctrl_c_keeps_a_partial_run_and_resume_asks_nothing_about_the_questions_it_holds(tmp_path: Path) -> None:
    questions = small_set(tmp_path)
    interrupted = threading.Event()

    def respond(request: Recorded) -> Reply:
        if query_of(request) == QUERIES["sign-in"] and not interrupted.is_set():
            interrupted.set()
            _thread.interrupt_main()  # Ctrl+C, while the third question is walked
        return by_system(request)

    partial, whole = tmp_path / "small.partial.run.json", tmp_path / "small.run.json"
    with StubServer(respond=respond) as server:
        stopped = cli("eval", questions, "--navigator", MODEL, "--save-run", partial, server=server)
        assert stopped.returncode == 130
        assert stopped.stderr == (f"Kept the 2 of 4 questions walked in {partial}, a partial run: eval --resume "
                                  f"{partial} walks the rest\nreasoning-explorer: interrupted\n")
        kept = json.loads(partial.read_text())
        assert (kept["partial"], kept["holds"], kept["questions"]["count"]) == (True, ["refunds-arrive", "money-back"],
                                                                              4)
        assert kept["summary"]["questions"] == 2
        before = len(server.requests)

        resumed = cli("eval", questions, "--resume", partial, "--save-run", whole, "--json", server=server)
        assert resumed.returncode == 0, resumed.stderr
        assert resumed.stderr == (f"Resuming {partial} ({MODEL}): it holds 2 of 4 questions; walking the 2 it does "
                                  "not hold\n")
        asked = {query_of(request) for request in server.requests[before:]}
        assert asked == {QUERIES["sign-in"], QUERIES["invoices"]}  # not one request about the questions it holds

        fresh = cli("eval", questions, "--navigator", MODEL, "--json", server=server)
    merged = json.loads(whole.read_text())
    assert (merged["partial"], merged["holds"], merged["navigator"]) == (False, list(QUERIES), MODEL)
    assert merged["results"][:2] == kept["results"]  # what it held, kept as it was
    assert json.loads(resumed.stdout)["results"] == merged["results"] == json.loads(fresh.stdout)["results"]
    assert json.loads(resumed.stdout)["summary"] == json.loads(fresh.stdout)["summary"]


def test_the_progress_line_says_the_time_left_once_a_walk_has_ended(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    questions = small_set(tmp_path)
    ticks = iter(range(0, 1000, 2))
    monkeypatch.setattr(pace, "monotonic", lambda: float(next(ticks)))  # each look at the clock: 2 s later
    with StubServer(respond=by_system) as server:
        done = cli("eval", questions, "--navigator", MODEL, server=server, env={"TTY_COMPATIBLE": "1"})
    assert done.returncode == 0, done.stderr
    said = re.findall(r"about \d+ \w+ left", done.stderr)
    assert list(dict.fromkeys(said)) == ["about 6 s left", "about 4 s left", "about 2 s left"]
    assert "walking" in done.stderr and "0/4" in done.stderr


# The pieces, without the command line ------------------------------------------------------------------------------

@pytest.mark.parametrize(("seconds", "words"), [
    (0.2, "about 1 s left"), (40, "about 40 s left"), (59.4, "about 59 s left"), (59.6, "about 1 min left"),
    (90, "about 2 min left"), (1620, "about 27 min left"),
])
def test_the_time_left_in_words(seconds: float, words: str) -> None:
    assert time_left_words(seconds) == words


def test_the_time_left_is_the_mean_seconds_a_walk_took_times_the_walks_left() -> None:
    # The evaluation: 293 s in, 15 of 82 walks done (two sides at once).
    a, b = Pace(started=1000.0, walked=9), Pace(started=1000.0, walked=6)
    assert time_left([(a, 32), (b, 35)], now=lambda: 1293.0) == "about 22 min left"
    assert time_left([(Pace(started=0.0), 82)], now=lambda: 50.0) == ""  # no walk ended yet: no guess
    assert time_left([(Pace(started=0.0, walked=82), 0)], now=lambda: 50.0) == ""  # none left


def test_a_kept_result_reads_back_as_it_was_written() -> None:
    questions = load_questions(SAMPLES / "handbook.questions.yaml")
    corpus = load_corpus(HANDBOOK)
    settings = WalkSettings("", "lexical:wide", max_nodes_visited=8, max_depth=2)  # misses of every limit
    outcomes = evaluate(corpus, questions.questions, settings)
    assert {o.miss.reason for o in outcomes if o.miss is not None} == {MissReason.TURNED_AWAY, MissReason.BUDGET,
                                                                       MissReason.DEPTH}
    back = [outcome_from_json(outcome_to_json(o), o.question, settings) for o in outcomes]
    assert [outcome_to_json(o) for o in back] == [outcome_to_json(o) for o in outcomes]
    assert summary_to_json(summarize(back, stats(corpus))) == summary_to_json(summarize(outcomes, stats(corpus)))


@pytest.mark.parametrize(("model", "label"), [
    ("local:smollm2", "local:smollm2"),
    ("local:smollm2@system=/p/v2.system.txt,prompt=/p/v2.prompt.txt", "local:smollm2 with prompt v2"),
    ("openai:m@temperature=0.3,system=/x/b.txt", "openai:m@temperature=0.3 with prompt b"),
    ("script:/a/b/case.yaml", "script:case.yaml"),
])
def test_a_side_is_named_by_its_model_and_prompt_variant_without_a_folder(model: str, label: str) -> None:
    assert model_label(model) == label
