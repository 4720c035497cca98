"""A walk's decisions: the one pairing of offers with answers, and the one rule that says how each was answered."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from core import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    NodePath,
    NodeView,
    OnFailure,
    WalkStarted,
)
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.navigators.answered import Answered, answered_pair
from explorer.walk_settings import WalkSettings
from explorer.walks.decisions import Decision, chosen_by, decisions_of, how_answered
from explorer.walks.session import WalkSession
from explorer.walks.state import WalkState
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPTS = ROOT / "sample_corpora" / "scripts"

BILLING, REFUNDS, INVOICES = NodeView("billing", "Billing"), NodeView("refunds", "Refunds"), NodeView("invoices", "I")
STARTED = WalkStarted("q", "lexical:default", 15, 6, None, OnFailure.PARTIAL)


def offer(current: NodeView | None, *candidates: NodeView) -> CandidatesOffered:
    path = NodePath(()) if current is None else NodePath((current.id,))
    return CandidatesOffered(current, path, candidates, 9, len(path), 40)


def chose(current: str | None, *selected: str, transcript=None) -> NavigatorChose:
    return NavigatorChose(current, selected, (), (), "because", None, 0.5, transcript)


def failed(current: str | None, transcript=None) -> NavigatorFailed:
    return NavigatorFailed(current, "upstream timeout", OnFailure.PARTIAL, 1.0, transcript)


def entered(node: NodeView) -> NodeEntered:
    return NodeEntered(node, NodePath((node.id,)), 1, 8, 1)


# -- pairing offers with answers ---------------------------------------------------------------------------------


def test_each_offer_is_paired_with_the_answer_that_follows_it_with_both_numbers():
    events = [STARTED, offer(None, BILLING), chose(None, "billing"), entered(BILLING),
              offer(BILLING, REFUNDS, INVOICES), chose("billing", "refunds", "invoices")]
    assert decisions_of(events) == [
        Decision(2, events[1], 3, events[2], Answered.LIVE),
        Decision(5, events[4], 6, events[5], Answered.LIVE),
    ]
    assert [d.node for d in decisions_of(events)] == [None, "billing"]


def test_an_offer_with_no_answer_is_a_decision_without_one_whether_awaited_or_passed_over():
    events = [STARTED, offer(None, BILLING), offer(BILLING, REFUNDS), chose("billing", "refunds"),
              offer(REFUNDS, INVOICES)]
    first, second, last = decisions_of(events)
    assert (first.offer_seq, first.answer_seq, first.answer, first.how) == (2, None, None, Answered.LIVE)
    assert (second.offer_seq, second.answer_seq, second.answer) == (3, 4, events[3])
    assert (last.offer_seq, last.answer_seq, last.answer, last.forced) == (5, None, None, False)  # still awaited
    assert decisions_of([STARTED]) == [] and decisions_of([]) == []


def test_an_answer_before_any_offer_pairs_with_nothing():
    assert decisions_of([STARTED, chose(None, "billing"), offer(None, BILLING)]) == [Decision(3, offer(None, BILLING))]


def test_a_failure_answers_its_offer_as_a_choice_does():
    events = [STARTED, offer(REFUNDS, INVOICES), failed("refunds"), offer(None, BILLING), chose(None, "billing")]
    failure, after = decisions_of(events)
    assert (failure.offer_seq, failure.answer_seq, failure.answer, failure.how) == (2, 3, events[2], Answered.LIVE)
    assert not failure.capped_by_visits and after.answer is events[4]
    assert chosen_by([failure, after]) == {"billing": (after, 1)}  # a failure chose nothing


def test_a_real_walk_whose_navigator_failed_pairs_the_failure_with_the_offer_of_refunds():
    model = f"script:{SCRIPTS / 'provider-failure.yaml'}"
    walk = WalkSession(HANDBOOK, WalkSettings("refunds and invoices", model, on_failure=OnFailure.PARTIAL),
                       resolve_navigator(model))
    events = walk.run_headless()
    decisions = list(walk.history.decisions())
    assert [(d.node, type(d.answer).__name__) for d in decisions] == [
        (None, "NavigatorChose"), ("billing", "NavigatorChose"), ("refunds", "NavigatorFailed"),
        ("invoices", "NavigatorChose")]
    refunds = decisions[2]
    assert events[refunds.offer_seq - 1] is refunds.offer and events[refunds.answer_seq - 1] is refunds.answer
    assert refunds.answer_seq == refunds.offer_seq + 1 and refunds.how is Answered.LIVE
    assert decisions == decisions_of(events)  # the history's decisions are the one pairing's


def test_a_walk_cancelled_while_its_navigator_is_asked_ends_on_an_offer_with_no_answer():
    model = f"script:{SCRIPTS / 'depth-limit.yaml'}"
    walk = WalkSession(HANDBOOK, WalkSettings("refunds", model), resolve_navigator(model))
    worker = threading.Thread(target=walk.run, args=(walk.record,), daemon=True)
    worker.start()
    walk.step(2)  # the start, then the first offer: the worker waits at the gate before asking
    deadline = time.monotonic() + 30  # only a hang-guard
    while not (len(walk.history.events) == 2 and walk.waiting) and time.monotonic() < deadline:
        time.sleep(0.01)
    walk.cancel()
    worker.join(30)
    assert walk.history.end is WalkEnd.CANCELLED and [type(e) for e in walk.history.events] == [
        WalkStarted, CandidatesOffered]
    (only,) = walk.history.decisions()
    assert (only.offer_seq, only.node, only.answer_seq, only.answer) == (2, None, None, None)
    assert walk.history.decision_at() == only


# -- how a decision was answered -------------------------------------------------------------------------------


def test_an_answer_nothing_marks_was_live():
    assert how_answered(chose(None, "billing")) is Answered.LIVE
    assert how_answered(chose(None, "billing", transcript=(("system", "..."), ("answer", "billing")))) is Answered.LIVE
    assert how_answered(failed(None, transcript=(("answered", "guessed: no such way"),))) is Answered.LIVE


def test_a_forced_answer_is_forced_by_the_word_of_the_history_its_marker_or_an_older_traces_label():
    assert how_answered(chose(None, "billing"), forced=True) is Answered.FORCED
    marked = chose(None, "billing", transcript=(answered_pair(Answered.FORCED, "by a person, start=billing"),))
    assert how_answered(marked) is Answered.FORCED
    assert how_answered(chose(None, "billing", transcript=(("forced", "start=billing"),))) is Answered.FORCED
    cached = chose(None, "billing", transcript=(answered_pair(Answered.CACHED),))
    assert how_answered(cached, forced=True) is Answered.FORCED  # a person's word wins over the transcript


def test_a_replayed_answer_is_replayed_by_its_marker_or_the_sessions_word():
    marked = chose(None, "billing", transcript=(answered_pair(Answered.REPLAYED, "the answer recorded"),
                                                ("answered", "cached: an identical request")))
    assert how_answered(marked) is Answered.REPLAYED  # the first marker says: replayed (it was cached once)
    assert how_answered(failed(None), replayed=True) is Answered.REPLAYED
    assert how_answered(failed(None), forced=True, replayed=True) is Answered.FORCED


def test_a_cached_answer_is_cached_by_its_marker():
    answer = chose(None, "billing", transcript=(("system", "..."), answered_pair(Answered.CACHED, "same request")))
    assert answered_pair(Answered.CACHED, "same request") == ("answered", "cached: same request")
    assert how_answered(answer) is Answered.CACHED


def test_an_answer_taken_from_a_what_if_is_what_if_by_its_marker_and_costs_no_call():
    pair = answered_pair(Answered.WHAT_IF, "prompt v2 from decision 3")
    assert pair == ("answered", "what-if: prompt v2 from decision 3")
    answer = chose(None, "billing", transcript=(pair, ("answer", "billing")))
    assert how_answered(answer) is Answered.WHAT_IF
    assert how_answered(chose(None, "billing", transcript=(answered_pair(Answered.WHAT_IF),))) is Answered.WHAT_IF
    events = [STARTED, offer(None, BILLING), answer]
    (decision,) = decisions_of(events)
    assert decision.how is Answered.WHAT_IF and not decision.forced
    cost = WalkState.from_events(events).cost()
    assert (cost.live_calls, cost.what_if, cost.answers, cost.chars) == (0, 1, 1, 0)
    assert cost.without_call == {"what-if": 1}
    assert cost.to_json() == {"live": 0, "forced": 0, "replayed": 0, "cached": 0, "what-if": 1}


def test_the_pairing_says_how_each_decision_was_answered_by_the_one_rule():
    events = [STARTED, offer(None, BILLING), chose(None, "billing"),
              offer(BILLING, REFUNDS), chose("billing", "refunds", transcript=(answered_pair(Answered.CACHED),)),
              offer(REFUNDS, INVOICES), failed("refunds"),
              offer(INVOICES, REFUNDS), chose("invoices", transcript=(("forced", "invoices="),))]
    decisions = decisions_of(events, forced={3}, replayed={7})
    assert [d.how for d in decisions] == [Answered.FORCED, Answered.CACHED, Answered.REPLAYED, Answered.FORCED]
    assert [d.forced for d in decisions] == [True, False, False, True]
    assert [d.how for d in decisions] == [how_answered(d.answer, d.answer_seq in {3}, d.answer_seq in {7})
                                          for d in decisions if d.answer is not None]
    state = WalkState.from_events(events, forced={3})  # the fold counts by the same rule
    assert (state.live_calls, state.forced_answers, state.replayed_answers, state.cached_answers) == (1, 2, 0, 1)
