"""What a walk really cost (issue 19): live navigator calls apart from forced, replayed and cached answers, and the
characters and tokens of live calls only; in the walk's state, ``walk`` and ``replay`` text and ``--json``, the
comparison and ``diff``, and the evaluation."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.corpora import load_corpus
from explorer.corpora.questions import Question
from explorer.navigators import resolve_navigator
from explorer.navigators.answered import Answered, answered_pair
from explorer.walk_settings import WalkSettings
from explorer.walks.compare import compare
from explorer.walks.describe import calls_words, cost_text
from explorer.walks.evaluation import evaluate
from explorer.walks.session import WalkSession, fork, save_history
from explorer.walks.state import Cost
from tests.command_line import run_cli as run
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK_PATH = SAMPLES / "handbook.yaml"
HANDBOOK = load_corpus(HANDBOOK_PATH)

# Four decisions: the roots and refunds are forced on the command line, billing and invoices are the script's.
FOUR_DECISIONS = """\
decisions:
  start: [support]
  billing: [refunds, invoices]
  refunds: [refund-exceptions]
  invoices: {select: [], usage: {prompt_tokens: 100, completion_tokens: 7}}
default: {select: [], usage: {prompt_tokens: 40, completion_tokens: 3}}
"""


def script(tmp_path: Path, text: str = FOUR_DECISIONS) -> str:
    path = tmp_path / "case.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return f"script:{path}"


FORCES = ("--force", "start=billing", "--force", "refunds=refund-delivery")


def test_walk_with_two_forced_decisions_counts_two_live_calls_of_four(tmp_path):
    model = script(tmp_path)
    text = run("walk", HANDBOOK_PATH, "refunds", "--navigator", model, *FORCES)
    assert text.returncode == 0, text.stderr
    summary_line = next(line for line in text.stdout.splitlines() if line.startswith("finished ·"))
    assert summary_line == ("finished · visits used 4/15 · navigator calls 2 of 4 decisions (2 forced) · "
                            "characters shipped 886 · tokens 100 in / 7 out")
    assert "1,003 chars, not sent: forced" in text.stdout  # the roots' offer: forced, so never sent
    document = json.loads(run("walk", HANDBOOK_PATH, "refunds", "--navigator", model, *FORCES, "--json").stdout)
    summary = document["summary"]
    assert (summary["navigator_calls"], summary["decisions"]) == (2, 4)
    assert summary["answered"] == {"live": 2, "forced": 2, "replayed": 0, "cached": 0}
    offers = {(e["current"] or {}).get("id"): e["chars_shipped"] for e in document["events"]
              if e["event"] == "candidates_offered"}
    assert summary["chars_shipped"] == offers["billing"] + offers["invoices"] == 886
    assert (summary["prompt_tokens"], summary["completion_tokens"]) == (100, 7)  # invoices' (a live call)


def test_replay_with_another_budget_makes_no_call_and_sends_nothing(tmp_path):
    trace = tmp_path / "walk.trace.jsonl"
    model = script(tmp_path)
    assert run("walk", HANDBOOK_PATH, "refunds", "--navigator", model, *FORCES, "--trace", trace).returncode == 0
    text = run("replay", trace, "--max-visits", "8")
    assert text.returncode == 0, text.stderr
    # Every decision comes from the trace now, those a person forced in the walk too.
    assert "navigator calls 0 of 4 decisions (4 replayed) · characters shipped 0" in text.stdout
    assert "tokens" not in text.stdout.split("navigator calls")[-1]  # a replayed answer's usage cost nothing now
    document = json.loads(run("replay", trace, "--max-visits", "8", "--json").stdout)
    assert document["summary"]["navigator_calls"] == 0
    assert document["summary"]["answered"] == {"live": 0, "forced": 0, "replayed": 4, "cached": 0}
    assert (document["summary"]["chars_shipped"], document["summary"]["prompt_tokens"]) == (0, 0)


def test_a_fork_compared_with_its_original_counts_the_replayed_calls_as_not_live(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [billing]\n  billing: [refunds]\n  refunds: [refund-delivery]\n"
                             "  invoices: [invoice-schedule]\n")
    original = WalkSession(HANDBOOK, WalkSettings("refunds", model), resolve_navigator(model))
    original.run_headless()
    billing = next(d for d in original.history.decisions() if d.node == "billing")
    forked = fork(original.history, billing.offer_seq, ("invoices",), HANDBOOK, resolve_navigator(model))
    forked.run_headless()
    comparison = compare(original.history, forked.history)
    a, b = comparison.a_totals, comparison.b_totals
    assert (a.live_calls, a.answers, a.replayed, a.forced) == (3, 3, 0, 0)
    assert (b.live_calls, b.answers, b.replayed, b.forced) == (1, 3, 1, 1)  # start replayed, billing forced
    assert calls_words(b) == "1 of 3 decisions (1 forced, 1 replayed)"
    a_path, b_path = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    save_history(original.history, HANDBOOK, a_path)
    save_history(forked.history, HANDBOOK, b_path)
    diff = run("diff", a_path, b_path)
    row = next(line for line in diff.stdout.splitlines() if line.startswith("navigator calls"))
    assert row.split() == ["navigator", "calls", "3", "1", "of", "3", "decisions", "(1", "forced,", "1", "replayed)"]
    totals = json.loads(run("diff", a_path, b_path, "--json").stdout)["totals"]["b"]
    assert (totals["calls"], totals["decisions"]) == (1, 3)
    assert totals["answered"] == {"live": 1, "forced": 1, "replayed": 1, "cached": 0}


class Cached(TreeNavigator):
    """Answers the roots from a (pretend) response cache, marked as the LLM cache marks its answers."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        if request.current is None:
            return NavigatorChoice(("billing",), "cached", {"prompt_tokens": 500},
                                   (answered_pair(Answered.CACHED, "an identical request"),))
        return NavigatorChoice((), "stop", {"prompt_tokens": 50})


def test_a_cached_answer_is_no_call_and_its_characters_and_tokens_were_not_sent():
    session = WalkSession(HANDBOOK, WalkSettings("refunds", "cached:x"), Cached())
    session.run_headless()
    state = session.history.state()
    assert (state.live_calls, state.cached_answers, state.answers) == (1, 1, 2)
    assert state.prompt_tokens == 50
    billing_offer = next(e for e in session.history.events if type(e).__name__ == "CandidatesOffered"
                         and e.current is not None)
    assert state.chars_shipped == billing_offer.chars_shipped
    [outcome] = evaluate(HANDBOOK, [Question("q", "refunds", ("refunds",), 1)], WalkSettings("", "cached:x"),
                         navigator=Cached())
    assert (outcome.calls, outcome.cached, outcome.answers) == (1, 1, 2)


def test_the_cost_in_words():
    assert calls_words(Cost(3, 3)) == "3"
    assert calls_words(Cost(3, 0, replayed=5), decisions="") == "0 of 5 (5 replayed)"
    assert cost_text(Cost(1003, 2, forced=2, chars=1003), 2000) == (
        "visits used 1,003/2,000 · navigator calls 2 of 4 decisions (2 forced) · characters shipped 1,003")
