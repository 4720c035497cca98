"""An LLM navigator's habits flagged: a rationale that copies the prompt, ids repeated, the first k taken in the
order offered, every candidate taken — on recorded answers, and on whole walks through the real client against an
OpenAI-compatible server on 127.0.0.1 (the walk's JSON, the narration, the spans, the evaluation's counts)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from core import NavigatorChose
from explorer.navigators.answered import duplicates_in, duplicates_pair
from explorer.trace import read_trace
from explorer.walks.decision_steps import decision_steps
from explorer.walks.decisions import decisions_of
from explorer.walks.habits import HabitCounts, Habits, copied_text, count_habits, habits_by_answer, habits_of
from explorer.walks.narration import narrate
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .http_stub import Recorded, Reply, StubServer

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERY = "When is my invoice sent?"
MODEL = "openai:habit-model"
ENV = {"OPENAI_API_KEY": "sk-habits-000111", "REASONING_EXPLORER_MAX_RETRIES": "0", "COLUMNS": "200"}
PLACEHOLDER = "one or two sentences on why"
SYSTEM_PROMPT = (  # the built-in system message as the bundled model was sent it (issue 28), kept as recorded
    "You guide a search down a hierarchy of documents, like a table of contents. At each step you see "
    "where you are and the sections directly below, each with an id, a title and a summary (never the "
    "documents' text), and you pick the sections most likely to hold what answers the query. "
    'Reply with one JSON object and nothing else: {"selected": [ids, most promising first], '
    '"rationale": "one or two sentences on why"}. Use only ids from the list you are given, copied '
    'exactly. An empty "selected" list means stop here: no section below is worth entering.'
)


# -- on recorded answers ---------------------------------------------------------------------------------------


def test_the_built_in_placeholder_copied_as_the_reason_is_flagged_whatever_its_case_and_punctuation() -> None:
    assert copied_text("One or two sentences on WHY.", [SYSTEM_PROMPT]) == PLACEHOLDER
    assert copied_text(f"“{PLACEHOLDER}”", [SYSTEM_PROMPT, "Query: refunds"]) == PLACEHOLDER


def test_an_instruction_sentence_copied_into_a_longer_reason_is_flagged_as_its_longest_run() -> None:
    reason = "Billing it is. Use only ids from the list you are given, copied exactly. Refunds are billing."
    assert copied_text(reason, [SYSTEM_PROMPT]) == "use only ids from the list you are given copied exactly"


def test_a_reason_of_its_own_or_one_quoting_the_offer_is_not_flagged() -> None:
    user = "Query: when do refunds arrive\n1. id: refunds\n   title: Refunds\n   summary: How refunds reach your card."
    offer = ["when do refunds arrive", "Refunds", "How refunds reach your card."]
    assert copied_text("Refunds hold the money-back questions.", [SYSTEM_PROMPT, user], offer) == ""
    assert copied_text("how refunds reach your card", [SYSTEM_PROMPT, user], offer) == ""
    assert copied_text("It asks: when do refunds arrive", [SYSTEM_PROMPT, user], offer) == ""
    assert copied_text("on why", [SYSTEM_PROMPT]) == ""  # two words: too short to say it was copied
    assert copied_text("", [SYSTEM_PROMPT]) == ""


def test_the_first_k_in_the_order_offered_and_every_candidate_are_told_apart() -> None:
    offered = ["a", "b", "c", "d"]
    assert habits_of([], offered, ["a", "b", "c"], "").first == 3
    assert habits_of([], offered, ["a", "b"], "").notes() == ("took the first 2 in the order offered",)
    assert habits_of([], offered, ["a"], "") == Habits()  # one is no habit: the best candidate may come first
    assert habits_of([], offered, ["b", "a"], "") == Habits()
    assert habits_of([], offered, ["d", "b", "a", "c"], "").notes() == ("took every candidate offered (4)",)
    assert habits_of([], offered, ["a", "b", "c", "d"], "") == Habits(everything=4)
    assert habits_of([], ["a"], ["a"], "") == Habits()  # the one candidate offered
    assert habits_of([], offered, [], "") == Habits()


def test_the_duplicates_pair_is_read_back_exactly() -> None:
    assert duplicates_pair(7) == ("duplicates", "7 duplicate ids dropped")
    assert duplicates_pair(1) == ("duplicates", "1 duplicate id dropped")
    assert duplicates_in([("answer", "{}"), duplicates_pair(1234)]) == 1234
    assert duplicates_in([("answer", "{}")]) == 0
    assert duplicates_in([("duplicates", "many")]) == 0


def test_habits_are_counted_over_decisions() -> None:
    counts = count_habits([Habits(PLACEHOLDER, 7), Habits(PLACEHOLDER, first=3), Habits(), Habits(everything=2)])
    assert counts.to_json() == {"decisions": 4, "copied_prompt": 2, "duplicate_ids": 1, "first_in_order": 1,
                                "took_everything": 1, "duplicate_ids_dropped": 7}
    assert (counts + counts).to_json()["duplicate_ids_dropped"] == 14
    assert counts.words() == ("habits over 4 LLM decisions: copied the prompt 2 · repeated ids 1 (7 dropped) · "
                              "first k in order 1 · took everything 1")
    assert HabitCounts().words() == ""


# -- whole walks through the real client ---------------------------------------------------------------------


def completion(selected: list[str], rationale: str) -> Reply:
    content = json.dumps({"selected": selected, "rationale": rationale})
    return Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": content}}],
                       "usage": {"prompt_tokens": 100, "completion_tokens": 9, "total_tokens": 109}})


def habitual(request: Recorded) -> Reply:
    """Each habit at one offer: at the roots, billing then `plans` eight times with the placeholder for a reason;
    under billing, its first three children; under invoices, both of them; elsewhere, nothing."""
    offered = request.json()["response_format"]["json_schema"]["schema"]["properties"]["selected"]["items"]["enum"]
    if offered[0] == "accounts":
        return completion(["billing", *["plans"] * 8], PLACEHOLDER)
    if offered[0] == "invoices":
        return completion(offered[:3], "Invoices and payments hold what a bill says.")
    if offered[0] == "invoice-schedule":
        return completion(list(reversed(offered)), "Both could say when.")
    return completion([], "Nothing here.")


def cli(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, env={**ENV, **(env or {})})  # type: ignore[return-value]


@pytest.fixture(scope="module")
def walked(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One walk with every habit, through ``walk --json --trace --otlp-file``, its replay's JSON, and a question
    set of two evaluated with ``eval --json``."""
    folder = tmp_path_factory.mktemp("habits")
    system = folder / "system.txt"  # the recorded prompt, whatever the built-in one becomes
    system.write_text(SYSTEM_PROMPT, encoding="utf-8")
    trace, spans = folder / "walk.jsonl", folder / "spans.jsonl"
    questions = folder / "two.questions.yaml"
    questions.write_text(f"corpus: {HANDBOOK}\nquestions:\n"
                         f"  - {{id: invoice, query: {QUERY}, expect: [invoice-schedule]}}\n"
                         "  - {id: refunds, query: How are refunds issued?, expect: [refund-delivery]}\n")
    with StubServer(respond=habitual) as server:
        env = {"OPENAI_BASE_URL": server.url}
        asked = ("--navigator", MODEL, "--no-cache", "--system-prompt", system)
        walk = cli("walk", HANDBOOK, QUERY, *asked, "--json", "--trace", trace, "--otlp-file", spans, env=env)
        text = cli("walk", HANDBOOK, QUERY, *asked, env=env)
        evaluated = cli("eval", questions, *asked, "--json", env=env)
        evaluated_text = cli("eval", questions, *asked, env=env)
    for done in (walk, text, evaluated, evaluated_text):
        assert done.returncode == 0, done.stderr
    replay = cli("replay", trace, "--json")
    assert replay.returncode == 0, replay.stderr
    return {"walk": json.loads(walk.stdout), "text": text.stdout, "replay": json.loads(replay.stdout),
            "trace": trace, "spans": spans, "eval": json.loads(evaluated.stdout), "eval_text": evaluated_text.stdout}


EXPECTED = [
    ("billing", {"copied_prompt": PLACEHOLDER, "duplicate_ids": 7}),
    ("invoices", {"first_in_order": 3}),
    ("invoice-contents", {"took_everything": 2}),
    (None, {}), (None, {}), (None, {}),  # nothing chosen under payment methods, failed payments and plans
]
SUMMARY = {"decisions": 6, "copied_prompt": 1, "duplicate_ids": 1, "first_in_order": 1, "took_everything": 1,
           "duplicate_ids_dropped": 7}


def chose(document: dict[str, Any]) -> list[tuple[str | None, object]]:
    return [(event["selected"][0] if event["selected"] else None, event["habits"])
            for event in document["events"] if event["event"] == "navigator_chose"]


def test_walk_json_says_each_decisions_habits_and_counts_them(walked: dict[str, Any]) -> None:
    document = walked["walk"]
    assert chose(document) == EXPECTED
    roots = next(e for e in document["events"] if e["event"] == "navigator_chose")
    assert roots["selected"] == ["billing", "plans"]  # the walk keeps each id once
    assert ["duplicates", "7 duplicate ids dropped"] in roots["transcript"]
    assert document["summary"]["habits"] == SUMMARY


def test_replay_json_says_the_same_habits_from_the_trace(walked: dict[str, Any]) -> None:
    assert chose(walked["replay"]) == EXPECTED
    assert walked["replay"]["summary"]["habits"] == SUMMARY


def test_the_walks_tree_names_the_habits_under_the_choice(walked: dict[str, Any]) -> None:
    lines = [line.strip(" │├└─") for line in walked["text"].splitlines()]
    assert f"habits: its reason copies the prompt: “{PLACEHOLDER}” · 7 duplicate ids dropped" in lines
    assert "habits: took the first 3 in the order offered" in lines
    assert "habits: took every candidate offered (2)" in lines


def test_the_narration_never_reads_the_copied_placeholder_as_a_reason(walked: dict[str, Any]) -> None:
    trace = read_trace(walked["trace"])
    steps = decision_steps(trace.events)
    said = [narrate(trace.events, step, forced=trace.forced) for step in steps]
    roots, billing = said[1], said[2]
    assert PLACEHOLDER not in " ".join(said).casefold()
    assert roots.startswith("The navigator starts at the top. It was offered 9 sections and chose Billing and Plans "
                            "and pricing (its reason copies the prompt). Its habits: 7 duplicate ids dropped. ")
    assert billing.startswith("The navigator is at Billing. It was offered 6 sections and chose Invoices, Payment "
                              "methods and Failed payments: Invoices and payments hold what a bill says. Its habits: "
                              "took the first 3 in the order offered. ")


def test_a_trace_written_before_habits_were_counted_loads_with_no_duplicates(walked: dict[str, Any],
                                                                             tmp_path: Path) -> None:
    older = tmp_path / "older.jsonl"
    lines = []
    for line in walked["trace"].read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        if isinstance(record.get("transcript"), list):
            record["transcript"] = [pair for pair in record["transcript"] if pair[0] != "duplicates"]
        lines.append(json.dumps(record))
    older.write_text("\n".join(lines) + "\n", encoding="utf-8")
    trace = read_trace(older)
    by_answer = habits_by_answer(trace.events, trace.forced)
    assert [habits.duplicates for habits in by_answer.values()] == [0, 0, 0, 0, 0, 0]
    assert next(iter(by_answer.values())) == Habits(copied=PLACEHOLDER)
    replay = cli("replay", older, "--json")
    assert replay.returncode == 0, replay.stderr
    assert chose(json.loads(replay.stdout))[0] == ("billing", {"copied_prompt": PLACEHOLDER})


def span_attributes(path: Path) -> list[dict[str, Any]]:
    found = []
    for line in path.read_text(encoding="utf-8").splitlines():
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    found.append({kv["key"]: next(iter(kv["value"].values())) for kv in span["attributes"]})
    return found


def test_each_llm_decisions_span_names_its_habits(walked: dict[str, Any]) -> None:
    decisions = [a for a in span_attributes(walked["spans"]) if "reasoning_explorer.selected" in a]
    roots = next(a for a in decisions if a.get("reasoning_explorer.node.id") is None)
    assert roots["reasoning_explorer.habits"] == {"values": [{"stringValue": "copied_prompt"},
                                                             {"stringValue": "duplicate_ids"}]}
    assert roots["reasoning_explorer.habits.copied_prompt"] == PLACEHOLDER
    assert roots["reasoning_explorer.habits.duplicate_ids"] == "7"  # OTLP/JSON writes an int64 as a string
    invoices = next(a for a in decisions if a.get("reasoning_explorer.node.id") == "invoices")
    assert invoices["reasoning_explorer.habits.took_everything"] == "2"
    quiet = next(a for a in decisions if a.get("reasoning_explorer.node.id") == "payment-methods")
    assert quiet["reasoning_explorer.habits"] == {}  # an empty array: looked at, no habit


def test_the_evaluation_counts_each_habit_over_the_run(walked: dict[str, Any]) -> None:
    document = walked["eval"]
    by_question = {result["id"]: result["habits"] for result in document["results"]}
    assert by_question["invoice"] == SUMMARY
    # How are refunds issued?: the same answers (the server answers by the offer), so the same habits.
    assert by_question["refunds"] == SUMMARY
    assert document["summary"]["habits"] == {**{k: 2 * v for k, v in SUMMARY.items()}}
    assert ("habits over 12 LLM decisions: copied the prompt 2 · repeated ids 2 (14 dropped) · first k in order 2 · "
            "took everything 2") in walked["eval_text"]


def test_a_lexical_walk_has_no_habits_in_its_json() -> None:
    done = cli("walk", HANDBOOK, QUERY, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert "habits" not in document["summary"]
    assert all("habits" not in event for event in document["events"])


def test_a_forced_answer_has_no_habits(walked: dict[str, Any]) -> None:
    trace = read_trace(walked["trace"])
    every = {d.answer_seq for d in decisions_of(trace.events) if isinstance(d.answer, NavigatorChose)}
    first = min(every)
    assert set(habits_by_answer(trace.events, forced={first})) == every - {first}


def test_ids_that_resolve_to_one_offered_id_count_as_its_duplicates(monkeypatch: pytest.MonkeyPatch) -> None:
    from core import CancellationToken, NavigatorRequest, NodeView
    from explorer.navigators.openai_compat import OpenAICompatibleNavigator

    offered = (NodeView("billing", "Billing", "Invoices."), NodeView("accounts", "Accounts", "Sign-in."))
    with StubServer() as server, OpenAICompatibleNavigator() as navigator:
        monkeypatch.setenv("OPENAI_API_KEY", ENV["OPENAI_API_KEY"])
        monkeypatch.setenv("OPENAI_BASE_URL", server.url)
        monkeypatch.setenv("REASONING_EXPLORER_MAX_RETRIES", "0")
        # The id, its title, its number and the id padded: one id four times; then one id never offered, twice.
        server.add(Reply(200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": json.dumps(
            {"selected": ["billing", "Billing", 1, " billing ", "ghost", "ghost"], "rationale": "money"})}}]}))
        choice = navigator.choose(NavigatorRequest(QUERY, MODEL, None, offered, 5, CancellationToken()))
    assert choice.selected == ("billing", "billing", "billing", "billing", "ghost", "ghost")
    assert dict(choice.transcript or ())["duplicates"] == "4 duplicate ids dropped"
    assert choice.rationale == "money"  # the count is the transcript's, never appended to the reason


def test_a_lexical_evaluation_has_no_habits_in_its_json(tmp_path: Path) -> None:
    questions = tmp_path / "one.questions.yaml"
    questions.write_text(f"corpus: {HANDBOOK}\nquestions:\n  - {{id: invoice, query: {QUERY}, expect: [invoices]}}\n")
    done = cli("eval", questions, "--json")
    assert done.returncode == 0, done.stderr
    document = json.loads(done.stdout)
    assert "habits" not in document["summary"] and "habits" not in document["results"][0]
    assert "habits over" not in cli("eval", questions).stdout


def test_the_evaluation_screens_totals_count_the_habits_of_the_questions_walked(walked: dict[str, Any]) -> None:
    from explorer.corpora import load_corpus
    from explorer.corpora.questions import Question
    from explorer.tui.evaluation_screen import totals
    from explorer.walks.evaluation import outcome_of

    trace = read_trace(walked["trace"])
    outcome = outcome_of(load_corpus(HANDBOOK), Question("invoice", QUERY, ("invoice-schedule",), 1), trace.events,
                         str(trace.end), trace.error)
    assert outcome.habits.to_json() == SUMMARY
    assert totals([outcome, None]).endswith(" · habits over 6 LLM decisions: copied the prompt 1 · repeated ids 1 "
                                            "(7 dropped) · first k in order 1 · took everything 1")
