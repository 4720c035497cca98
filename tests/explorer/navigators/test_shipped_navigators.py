"""The navigators that ship with the app, resolved through the installed entry points."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from core import (
    CancellationToken,
    NavigatorRequest,
    NodeView,
    OnFailure,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    TreeNavigatorError,
    TreeNavigatorRegistry,
    drain,
)
from explorer.corpora import load_corpus
from explorer.navigators import NavigatorConfigError, resolve_navigator
from explorer.navigators.manual import DecisionDesk, NoOneToDecide
from explorer.trace import FinishedWalk, TraceHeader, write_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.session import Wiring
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def request(query, candidates, model="lexical:default", current=None, token=None, remaining=10):
    views = tuple(NodeView(i, t, s) for i, t, s in candidates)
    return NavigatorRequest(query, model, current, views, remaining, token or CancellationToken())


def outcome_of(call, token: CancellationToken, guard: float = 30.0):
    """What ``call()`` returned or raised, run on a thread; ``guard`` only stops a hang (it then trips ``token``
    so the thread ends, and fails the test). How long calls take is measured in bench/responsiveness.py."""
    outcome: list[object] = []

    def run():
        try:
            outcome.append(call())
        except BaseException as exc:  # handed back to the test
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(guard)
    if worker.is_alive():
        token.cancel()
        pytest.fail(f"still running after {guard:.0f} s")
    return outcome[0]


@pytest.mark.parametrize(("model", "cls"), [
    ("lexical:default", "LexicalNavigator"),
    ("lexical:strict", "LexicalNavigator"),
    ("lexical:wide", "LexicalNavigator"),
    ("script:anything.yaml", "ScriptNavigator"),
    ("replay:anything.jsonl", "ReplayNavigator"),
    ("manual:", "ManualNavigator"),
    ("semantic:default", "SemanticNavigator"),
    ("semantic:hybrid", "SemanticNavigator"),
])
def test_each_model_resolves_to_exactly_one_shipped_provider(model, cls):
    assert type(TreeNavigatorRegistry().resolve(model)).__name__ == cls


@pytest.mark.parametrize("model", ["lexical:nonsense", "lexicalx", "scripted:x", "human"])
def test_unknown_variants_resolve_to_nobody(model):
    with pytest.raises(TreeNavigatorError, match="no navigator supports"):
        TreeNavigatorRegistry().resolve(model)


# Lexical ----------------------------------------------------------------------------------------------


CANDIDATES = [
    ("billing", "Billing", "Invoices, payment methods, failed payments, taxes and refunds."),
    ("accounts", "Accounts and sign-in", "Creating accounts, signing in and recovering access."),
    ("support", "Support", "How to reach support and response times."),
]


def test_lexical_picks_the_best_match_and_names_the_terms_and_scores():
    nav = TreeNavigatorRegistry().resolve("lexical:default")
    choice = nav.choose(request("When are refunds paid out?", CANDIDATES))
    assert choice.selected == ("billing",)
    assert choice.rationale.startswith("matched billing ")
    assert choice.rationale.endswith("(refund)")  # "paid" is not stemmed to "pay": a light stemmer


def test_lexical_stems_plural_and_tense():
    nav = TreeNavigatorRegistry().resolve("lexical:strict")
    choice = nav.choose(request("I was refunded twice", CANDIDATES, model="lexical:strict"))
    assert choice.selected == ("billing",)


def test_lexical_chooses_nothing_when_nothing_matches_and_says_so():
    nav = TreeNavigatorRegistry().resolve("lexical:default")
    choice = nav.choose(request("How long until I get my money back?", CANDIDATES))
    assert choice.selected == ()
    assert choice.rationale == "no candidate shares a term with the query (query terms: long, money, back)"


def test_lexical_default_takes_close_runners_up_and_strict_only_the_best():
    candidates = [("a", "Refund timing", "When refunds arrive"), ("b", "Refund requests", "Asking for a refund"),
                  ("c", "Taxes", "Sales tax")]
    default = TreeNavigatorRegistry().resolve("lexical:default").choose(request("refund", candidates))
    strict = TreeNavigatorRegistry().resolve("lexical:strict").choose(
        request("refund", candidates, model="lexical:strict"))
    assert set(default.selected) == {"a", "b"}
    assert len(strict.selected) == 1


def test_lexical_is_deterministic():
    nav = TreeNavigatorRegistry().resolve("lexical:default")
    answers = {nav.choose(request("payment and sign-in", CANDIDATES)) for _ in range(5)}
    assert len(answers) == 1


def test_lexical_walks_the_handbook_to_refunds():
    corpus = load_corpus(HANDBOOK)
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator("lexical:default"), "lexical:default")
    result = drain(strategy.walk("How are refunds issued, and within how many days?"))
    assert "refunds" in [s.path[1] for s in result.stops if len(s.path) > 1]


# Script -----------------------------------------------------------------------------------------------


def run_script(name, **kwargs):
    corpus = load_corpus(HANDBOOK)
    model = f"script:{SCRIPTS / name}"
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator(model), model, **kwargs)
    return strategy


def stops(result):
    return [(s.reason.value, tuple(s.path), s.branch, s.landed) for s in result.stops]


def test_script_wide_walk_runs_out_of_visits():
    result = drain(run_script("wide-walk-out-of-visits.yaml").walk("q"))
    assert result.visits_used == 15
    assert stops(result)[-2:] == [
        ("visit_budget_exhausted", ("billing",), None, "billing"),
        ("visit_budget_exhausted", (), "accounts", None),
    ]
    assert len(result.documents) == 12


def test_script_depth_limit():
    result = drain(run_script("depth-limit.yaml", max_depth=2).walk("q"))
    assert stops(result) == [("max_depth", ("billing", "refunds", "refund-exceptions"), None, "refund-exceptions")]


def test_script_hallucinated_branch_lands_the_parent():
    result = drain(run_script("hallucinated-branch.yaml").walk("q"))
    assert stops(result) == [
        ("invalid_choice", ("billing",), "refund-policy", "billing"),
        ("leaf", ("billing", "refunds", "requesting-a-refund"), None, "requesting-a-refund"),
    ]


def test_script_provider_failure_under_each_policy():
    with pytest.raises(RetrievalError, match="upstream timeout after 30 s"):
        run_script("provider-failure.yaml").retrieve("q")
    assert run_script("provider-failure.yaml", on_failure=OnFailure.EMPTY).retrieve("q") == []
    partial = drain(run_script("provider-failure.yaml", on_failure=OnFailure.PARTIAL).walk("q"))
    assert stops(partial) == [
        ("navigator_failed", ("billing", "refunds"), None, "refunds"),
        ("leaf", ("billing", "invoices", "invoice-schedule"), None, "invoice-schedule"),
    ]


def test_script_rationale_and_usage_reach_the_choice(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("decisions:\n  start: {select: [a], rationale: why, usage: {prompt_tokens: 12}}\n")
    nav = resolve_navigator(f"script:{script}")
    choice = nav.choose(request("q", [("a", "A", "")], model=f"script:{script}"))
    assert (choice.selected, choice.rationale, dict(choice.usage)) == (("a",), "why", {"prompt_tokens": 12})


def test_script_delay_is_cut_short_when_cancelled(tmp_path):
    script = tmp_path / "slow.yaml"
    script.write_text("decisions:\n  start: {select: [a], delay: 3600}\n")  # an hour: only the cancel ends it
    model = f"script:{script}"
    nav = resolve_navigator(model)
    token = CancellationToken()
    threading.Timer(0.2, token.cancel).start()
    outcome = outcome_of(lambda: nav.choose(request("q", [("a", "A", "")], model=model, token=token)), token)
    assert isinstance(outcome, RetrievalCancelled)


@pytest.mark.parametrize(("text", "message"), [
    ("decisions: [a]\n", "s.yaml:1: `decisions:` must map node ids to decisions, not a list"),
    ("decisions:\n  a: {selct: [b]}\n", "s.yaml:2: decisions.a: unknown key 'selct'; did you mean 'select'?"),
    ("decisions:\n  a: {delay: -1}\n", "s.yaml:2: decisions.a.delay must be a number of seconds, at least 0"),
    ("decisions:\n  a: {delay: .nan}\n", "s.yaml:2: decisions.a.delay must be a number of seconds, at least 0"),
    ("decisions:\n  a: {delay: -.inf}\n", "s.yaml:2: decisions.a.delay must be a number of seconds, at least 0"),
    ("decisions:\n  a:\n    select: [b]\n    delay: .inf\n",
     "s.yaml:4: decisions.a.delay must be at most 3600 seconds (an hour), not inf"),
    ("decisions:\n  a: {delay: 1e12}\n",
     "s.yaml:2: decisions.a.delay must be at most 3600 seconds (an hour), not 1e+12"),
    ("decisions:\n  a: {delay: 1.0e+12}\n",
     "s.yaml:2: decisions.a.delay must be at most 3600 seconds (an hour), not 1e+12"),
    ("decisions:\n  a: {delay: '5'}\n", "s.yaml:2: decisions.a.delay must be a number of seconds, at least 0"),
    ("default: {delay: 3601}\n", "s.yaml:1: default.delay must be at most 3600 seconds (an hour), not 3601"),
    ("decisions:\n  a: {delay: 1" + "0" * 5000 + "}\n",
     "s.yaml:2: decisions.a.delay must be at most 3600 seconds (an hour), not a number of 5001 digits"),
    ("decision: {}\n", "s.yaml:1: unknown key 'decision'; did you mean 'decisions'?"),
])
def test_a_broken_script_is_a_config_error_before_the_walk(tmp_path, text, message):
    (tmp_path / "s.yaml").write_text(text)
    with pytest.raises(NavigatorConfigError) as caught:
        resolve_navigator(f"script:{tmp_path / 's.yaml'}")
    assert str(caught.value) == f"{tmp_path}/{message}"


def test_a_script_delay_up_to_an_hour_loads_and_1e1_reads_as_a_number(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("decisions:\n  start: {delay: 3600}\n  a: {delay: 1e1}\n  b: {delay: 0.5}\n")
    loaded = resolve_navigator(f"script:{script}").script(f"script:{script}")
    assert [loaded.decisions[k].delay for k in ("start", "a", "b")] == [3600.0, 10.0, 0.5]


def test_a_missing_script_is_a_config_error():
    with pytest.raises(NavigatorConfigError, match="no such navigator script"):
        resolve_navigator("script:/nonexistent/s.yaml")
    with pytest.raises(NavigatorConfigError, match="script: needs a file"):
        resolve_navigator("script:")


# Replay -----------------------------------------------------------------------------------------------


def saved_trace(tmp_path, strategy, query="q"):
    corpus = load_corpus(HANDBOOK)
    events = list(strategy.walk(query))
    header = TraceHeader(str(HANDBOOK), corpus.sha256, corpus.source, corpus.format,
                         WalkSettings(query, strategy.model, strategy.max_nodes_visited, strategy.max_depth,
                                      strategy.on_failure))
    return write_trace(tmp_path / "walk.jsonl", FinishedWalk(header, events, "finished")), events


def test_replay_repeats_the_recorded_decisions(tmp_path):
    original = run_script("hallucinated-branch.yaml")
    path, events = saved_trace(tmp_path, original)
    model = f"replay:{path}"
    replayed = ReasoningRAGStrategy(original.index, resolve_navigator(model), model)
    assert stops(drain(replayed.walk("q"))) == stops(events[-1].result)
    assert replayed.retrieve("q") == original.retrieve("q")


def test_replay_with_a_larger_budget_stops_where_the_trace_never_judged(tmp_path):
    path, _ = saved_trace(tmp_path, run_script("wide-walk-out-of-visits.yaml"))
    model = f"replay:{path}"
    corpus = load_corpus(HANDBOOK)
    events = list(ReasoningRAGStrategy(corpus.index, resolve_navigator(model), model, max_nodes_visited=40).walk("q"))
    result = events[-1].result
    # billing's children were never offered in the trace: the replay stops there and says why
    billing_choice = next(e for e in events if type(e).__name__ == "NavigatorChose" and e.current == "billing")
    assert billing_choice.selected == ()
    assert billing_choice.rationale == "the trace never judged 'billing'; stopping here"
    assert ("navigator_stopped", ("billing",), None, "billing") in stops(result)


def test_replay_repeats_a_failure(tmp_path):
    path, _ = saved_trace(tmp_path, run_script("provider-failure.yaml", on_failure=OnFailure.PARTIAL))
    model = f"replay:{path}"
    corpus = load_corpus(HANDBOOK)
    with pytest.raises(RetrievalError, match="ReplayedFailure: ScriptedFailure: upstream timeout after 30 s"):
        ReasoningRAGStrategy(corpus.index, resolve_navigator(model), model).retrieve("q")


def test_replay_of_a_missing_trace_is_a_config_error():
    with pytest.raises(NavigatorConfigError, match="no such trace file"):
        resolve_navigator("replay:/nonexistent/walk.jsonl")


# Manual -----------------------------------------------------------------------------------------------


def test_manual_without_anyone_to_decide_fails_at_once_with_a_clear_message():
    nav = resolve_navigator("manual:")
    token = CancellationToken()  # never tripped by the test: a call that waited for a person would never end
    outcome = outcome_of(lambda: nav.choose(request("q", [("a", "A", "")], model="manual:", token=token)), token)
    assert isinstance(outcome, NoOneToDecide)
    assert str(outcome) == ("the manual: navigator needs the explorer to supply decisions; run `reasoning-explorer "
                            "CORPUS --navigator manual:` instead of a headless command")


def test_manual_blocks_until_a_decision_arrives_from_another_thread():
    pending = []
    desk = DecisionDesk()
    desk.attach(pending.append)
    try:
        nav = Wiring(desk).wire(resolve_navigator("manual:"))
        answer = []
        worker = threading.Thread(target=lambda: answer.append(
            nav.choose(request("q", [("a", "A", ""), ("b", "B", "")], model="manual:"))))
        worker.start()
        deadline = time.monotonic() + 30  # only a hang-guard
        while not pending and time.monotonic() < deadline:
            time.sleep(0.01)
        assert [c.id for c in pending[0].request.candidates] == ["a", "b"]
        assert not answer  # blocked until the decision
        assert pending[0].decide(["b", "ghost"], "picked b")
        assert not pending[0].decide(["a"])  # only the first decision counts
        worker.join(30)
        assert answer[0].selected == ("b", "ghost")
        assert answer[0].rationale == "picked b"
    finally:
        desk.detach()


def test_manual_raises_cancelled_when_the_token_trips_while_waiting():
    desk = DecisionDesk()
    desk.attach(lambda pending: None)
    try:
        nav = Wiring(desk).wire(resolve_navigator("manual:"))
        token = CancellationToken()
        threading.Timer(0.1, token.cancel).start()  # nobody ever decides: only the token can end the wait
        outcome = outcome_of(lambda: nav.choose(request("q", [("a", "A", "")], model="manual:", token=token)), token)
        assert isinstance(outcome, RetrievalCancelled)
    finally:
        desk.detach()
