"""Failure policies and cancellation (SPEC.md, "Failures and cancellation")."""

from __future__ import annotations

import threading

import pytest

from core import (
    CancellationToken,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    OnFailure,
    PathStopped,
    ReasoningRAGStrategy,
    RetrievalCancelled,
    RetrievalError,
    WalkFinished,
    drain,
)

from .test_walk import HANDBOOK, stops
from .trees import Recorder, ids, index


def strategy(navigator, policy=OnFailure.THROW, **kwargs):
    return ReasoningRAGStrategy(index(HANDBOOK), navigator, "test:model", on_failure=policy, **kwargs)


BOOM = {"start": ["support", "billing", "accounts"], "billing": RuntimeError("upstream timeout"), "accounts": ["closing"]}


# Policies --------------------------------------------------------------------------------------------


def test_throw_raises_retrieval_error_from_the_provider_exception():
    with pytest.raises(RetrievalError, match="upstream timeout") as caught:
        strategy(Recorder(BOOM)).retrieve("q")
    assert isinstance(caught.value.__cause__, RuntimeError)
    assert "children of 'billing'" in str(caught.value)


def test_throw_yields_the_failure_event_before_raising():
    events = strategy(Recorder(BOOM)).walk("q")
    seen = []
    with pytest.raises(RetrievalError):
        for event in events:
            seen.append(event)
    failed = seen[-1]
    assert isinstance(failed, NavigatorFailed)
    assert (failed.current, failed.error, failed.policy) == ("billing", "RuntimeError: upstream timeout", OnFailure.THROW)


def test_empty_returns_nothing_even_after_nodes_landed():
    nav = Recorder(BOOM)
    s = strategy(nav, OnFailure.EMPTY)
    assert s.retrieve("q") == []
    result = drain(s.walk("q"))
    assert result.documents == ()
    assert result.failure == "RuntimeError: upstream timeout"
    assert stops(result) == [("leaf", ("support",), None, "support"), ("navigator_failed", ("billing",), None, None)]
    assert [current for current, *_ in nav.offered][-1] == "billing"  # accounts never offered


def test_partial_lands_the_current_node_and_goes_on():
    result = drain(strategy(Recorder(BOOM), OnFailure.PARTIAL).walk("q"))
    assert stops(result) == [
        ("leaf", ("support",), None, "support"),
        ("navigator_failed", ("billing",), None, "billing"),
        ("leaf", ("accounts", "closing"), None, "closing"),
    ]
    assert ids(result.documents) == ["support", "billing", "closing"]
    assert result.failure is None
    assert result.stops[1].detail == "RuntimeError: upstream timeout"


def test_partial_failure_at_the_start_lands_nothing():
    result = drain(strategy(Recorder({"start": ValueError("bad")}), OnFailure.PARTIAL).walk("q"))
    assert stops(result) == [("navigator_failed", (), None, None)]
    assert result.documents == ()


@pytest.mark.parametrize(
    ("answer", "shown"),
    [
        ("billing", "'billing' (str)"),
        (None, "None (NoneType)"),
        (42, "42 (int)"),
        (["billing", 7], "7 (int)"),
        ({"selected": ["billing"]}.items(), "('selected', ['billing']) (tuple)"),
    ],
)
def test_a_malformed_answer_is_a_provider_failure_saying_what_was_returned(answer, shown):
    with pytest.raises(RetrievalError) as caught:
        strategy(Recorder({"start": answer})).retrieve("q")
    assert shown in str(caught.value)
    result = drain(strategy(Recorder({"start": answer}), OnFailure.PARTIAL).walk("q"))
    assert stops(result) == [("navigator_failed", (), None, None)]
    assert shown in result.stops[0].detail


def test_a_plain_iterable_of_ids_is_accepted():
    nav = Recorder({"start": (i for i in ["support"])})
    assert ids(strategy(nav).retrieve("q")) == ["support"]


def test_keyboard_interrupt_is_never_caught():
    nav = Recorder({"start": KeyboardInterrupt()})
    with pytest.raises(KeyboardInterrupt):
        strategy(nav, OnFailure.PARTIAL).retrieve("q")


def test_retrieval_cancelled_is_not_a_retrieval_error():
    assert not issubclass(RetrievalCancelled, RetrievalError)


# Cancellation ----------------------------------------------------------------------------------------


def test_a_token_tripped_before_the_walk_raises_without_calling_the_navigator():
    token = CancellationToken()
    token.cancel()
    nav = Recorder({"start": ["support"]})
    with pytest.raises(RetrievalCancelled):
        strategy(nav).retrieve("q", cancellation=token)
    assert nav.requests == []


@pytest.mark.parametrize("policy", list(OnFailure))
def test_a_token_tripped_during_the_call_cancels_after_it_whatever_the_policy(policy):
    token = CancellationToken()

    def cancel_then_answer(request):
        token.cancel()
        return ["support"]

    with pytest.raises(RetrievalCancelled):
        strategy(Recorder({"start": cancel_then_answer}), policy).retrieve("q", cancellation=token)


@pytest.mark.parametrize("policy", list(OnFailure))
def test_a_provider_raising_cancelled_ends_the_walk_whatever_the_policy(policy):
    with pytest.raises(RetrievalCancelled):
        strategy(Recorder({"start": RetrievalCancelled()}), policy).retrieve("q")


@pytest.mark.parametrize("policy", list(OnFailure))
def test_a_provider_exception_while_the_token_is_tripped_is_cancellation(policy):
    token = CancellationToken()

    def cancel_then_fail(request):
        token.cancel()
        raise ConnectionError("socket closed")

    with pytest.raises(RetrievalCancelled) as caught:
        strategy(Recorder({"start": cancel_then_fail}), policy).retrieve("q", cancellation=token)
    assert isinstance(caught.value.__cause__, ConnectionError)


def test_the_token_is_checked_before_entering_a_node():
    token = CancellationToken()
    events = strategy(Recorder({"start": ["support"]})).walk("q", cancellation=token)
    kinds = [type(next(events)).__name__ for _ in range(3)]
    assert kinds == ["WalkStarted", "CandidatesOffered", "NavigatorChose"]
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        next(events)


def test_the_token_is_checked_before_the_navigator_call():
    token = CancellationToken()
    nav = Recorder({"start": ["support"]})
    events = strategy(nav).walk("q", cancellation=token)
    next(events), next(events)  # started, offered
    token.cancel()
    with pytest.raises(RetrievalCancelled):
        next(events)
    assert nav.requests == []


def test_the_request_carries_the_walks_token():
    token = CancellationToken()
    nav = Recorder({"start": []})
    strategy(nav).retrieve("q", cancellation=token)
    assert nav.requests[0].cancellation is token


def test_cancelling_from_another_thread_while_the_navigator_is_blocked():
    token = CancellationToken()
    entered = threading.Event()

    woken: list[bool] = []

    def block(request):
        entered.set()
        woken.append(request.cancellation.wait(3600))  # an hour: only the cancel can end the wait
        if woken[-1]:
            raise RetrievalCancelled()
        return ["support"]

    outcome: list[object] = []

    def run():
        try:
            outcome.append(strategy(Recorder({"start": block})).retrieve("q", cancellation=token))
        except RetrievalCancelled as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run)
    worker.start()
    assert entered.wait(30)  # the 30 s bounds only stop a hang; how fast it is: bench/responsiveness.py
    token.cancel()
    worker.join(30)
    assert not worker.is_alive()
    assert woken == [True]
    assert isinstance(outcome[0], RetrievalCancelled)


def test_a_navigator_that_ignores_the_token_is_caught_after_its_call():
    token = CancellationToken()
    started, release = threading.Event(), threading.Event()

    def slow(request):
        started.set()
        release.wait(30)  # deaf to the token: answers when the test lets it, after the cancel
        return ["support"]

    nav = Recorder({"start": slow})
    events = []

    def run():
        try:
            for event in strategy(nav).walk("q", cancellation=token):
                events.append(event)
        except RetrievalCancelled:
            events.append("cancelled")

    worker = threading.Thread(target=run)
    worker.start()
    assert started.wait(30)
    token.cancel()
    release.set()
    worker.join(30)
    assert events[-1] == "cancelled"
    assert not any(isinstance(e, NavigatorChose | NodeEntered | PathStopped | WalkFinished) for e in events)


# The token itself ------------------------------------------------------------------------------------


def test_token_cancel_is_idempotent_and_thread_safe():
    token = CancellationToken()
    assert not token.cancelled
    token.raise_if_cancelled()
    threads = [threading.Thread(target=token.cancel) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    token.cancel()
    assert token.cancelled
    with pytest.raises(RetrievalCancelled):
        token.raise_if_cancelled()


def test_the_none_token_is_never_cancelled():
    never = CancellationToken.none()
    assert never is CancellationToken.none()
    never.cancel()
    assert not never.cancelled
    never.raise_if_cancelled()
    assert never.wait(0.01) is False


def test_wait_returns_true_when_the_token_is_tripped_before_its_timeout():
    token = CancellationToken()
    woken: list[bool] = []
    waiter = threading.Thread(target=lambda: woken.append(token.wait(3600)), daemon=True)  # only the cancel ends it
    waiter.start()
    token.cancel()
    waiter.join(30)  # only a hang-guard; how fast it wakes: bench/responsiveness.py
    assert woken == [True]
    assert token.wait(3600) is True  # a tripped token does not wait at all
