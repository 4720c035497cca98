"""The one HTTP layer under the LLM client and the OTLP exporter (issue 25): one ``Retry-After`` parser, one retry
policy, and one deadline for a whole call, its retries and its waits included. The loop runs against a real HTTP
server on 127.0.0.1, with httpx, as both users run it."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass
from email.utils import formatdate

import httpx
import pytest

from explorer.http import LONGEST, Deadline, RetryPolicy, Stop, parse_retry_after, with_retries

from .http_stub import Reply, StubServer

GUARD = 60.0
"""Seconds a reply may be held back: longer than any deadline here (a hang guard, never a measure)."""
NOW = 1445412480.0  # Wed, 21 Oct 2015 07:28:00 GMT
SERVER_TROUBLE = frozenset({429, 502, 503, 504})


# -- Retry-After -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("header", "seconds"), [
    ("0", 0.0),
    ("30", 30.0),
    (" 7 ", 7.0),
    ("2.5", 2.5),
    ("2147483647", 2147483647.0),
])
def test_retry_after_as_seconds(header, seconds):
    assert parse_retry_after(header) == seconds


@pytest.mark.parametrize(("header", "seconds"), [
    ("Wed, 21 Oct 2015 07:28:30 GMT", 30.0),
    ("Wed, 21 Oct 2015 07:28:00 GMT", 0.0),
    ("Wed, 21 Oct 2015 07:27:00 GMT", 0.0),  # already past: no wait
    ("Wed, 21 Oct 2015 07:28:10 -0000", 10.0),  # no zone given: an HTTP date is in GMT
    ("Wednesday, 21-Oct-15 07:29:00 GMT", 60.0),  # the obsolete RFC 850 form
])
def test_retry_after_as_an_http_date(header, seconds):
    assert parse_retry_after(header, now=NOW) == seconds


@pytest.mark.parametrize("header", ["soon", "", "   ", "30 s", "1e3", "+5", "0x10", "1_000", "nan", "inf", "Infinity",
                                    "\u0663", "Wed, 32 Oct 2015 07:28:00 GMT", "Mon, 99 Foo 2015"])
def test_retry_after_that_is_garbage_is_unreadable(header):
    assert parse_retry_after(header, now=NOW) is None


@pytest.mark.parametrize("header", ["-1", "-0.5", " -30 "])
def test_a_negative_retry_after_is_unreadable(header):
    assert parse_retry_after(header) is None


@pytest.mark.parametrize("header", ["2147483649", "9" * 400, "9" * 400 + ".5", "Fri, 31 Dec 9999 23:59:59 GMT"])
def test_a_huge_retry_after_is_read_as_the_longest_wait(header):
    assert LONGEST == 2.0**31
    assert parse_retry_after(header, now=NOW) == LONGEST


def test_no_retry_after_is_none():
    assert parse_retry_after(None) is None


# -- the policy ---------------------------------------------------------------------------------------------


def test_the_policy_retries_only_its_statuses_and_only_so_often():
    policy = RetryPolicy(SERVER_TROUBLE, max_retries=2, backoff=0.5)
    assert policy.attempts == 3
    assert [policy.retryable(s) for s in (429, 503, 500, 404, 200, None)] == [True, True, False, False, False, False]
    assert [policy.should_retry(503, attempt) for attempt in (1, 2, 3)] == [True, True, False]


def test_a_policy_without_a_retry_limit_leaves_it_to_the_deadline():
    policy = RetryPolicy(SERVER_TROUBLE, max_retries=None, backoff=0.25)
    assert policy.attempts is None
    assert policy.should_retry(503, 1_000_000) is True
    assert [policy.delay(retry) for retry in (1, 2, 3, 4)] == [0.25, 0.5, 1.0, 2.0]  # no cap but the deadline
    assert policy.delay(1, "9" * 400) == LONGEST


def test_the_wait_is_what_retry_after_asks_else_the_backoff_and_never_over_the_cap():
    policy = RetryPolicy(SERVER_TROUBLE, max_retries=10, backoff=0.5, max_delay=30.0)
    assert [policy.delay(retry) for retry in (1, 2, 3, 4, 7, 8)] == [0.5, 1.0, 2.0, 4.0, 30.0, 30.0]
    assert [policy.delay(3, header, now=NOW) for header in ("0", "2.5", "3600", "-1", "soon", "9" * 400,
                                                              "Wed, 21 Oct 2015 07:28:10 GMT")] == [
        0.0, 2.5, 30.0, 2.0, 2.0, 30.0, 10.0]


# -- the loop, over real HTTP --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Answer:
    status: int
    retry_after: str | None


class Caller:
    """Makes each attempt as a real POST with httpx, held to what is left of the deadline, and notes each wait."""

    def __init__(self, server: StubServer, deadline: Deadline) -> None:
        self.url = server.url + "/v1/traces"
        self.deadline = deadline
        self.client = httpx.Client()
        self.waits: list[tuple[int, int, float]] = []

    def attempt(self, number: int) -> Answer:
        response = self.client.post(self.url, content=f"attempt {number}".encode(),
                                    timeout=httpx.Timeout(self.deadline.left()))
        return Answer(response.status_code, response.headers.get("retry-after"))

    def before_retry(self, answer: Answer, retry: int, delay: float) -> None:
        self.waits.append((answer.status, retry, delay))

    def call(self, policy: RetryPolicy):
        try:
            return with_retries(self.attempt, policy, self.deadline, before_retry=self.before_retry)
        finally:
            self.client.close()


def test_retries_are_made_as_the_answers_ask_until_one_is_not_to_be_retried():
    with StubServer() as server:
        past = formatdate(time.time() - 60, usegmt=True)
        server.add(Reply(503, headers={"Retry-After": "0"}), Reply(429, headers={"Retry-After": past}), Reply(502),
                   Reply(200, b"taken"))
        caller = Caller(server, Deadline(GUARD))
        done = caller.call(RetryPolicy(SERVER_TROUBLE, max_retries=None, backoff=0.001))
        assert [r.body for r in server.requests] == [b"attempt 1", b"attempt 2", b"attempt 3", b"attempt 4"]
    assert (done.answer, done.attempts, done.stop) == (Answer(200, None), 4, Stop.ANSWERED)
    assert caller.waits == [(503, 1, 0.0), (429, 2, 0.0), (502, 3, 0.004)]  # the date is past; then the backoff


def test_a_refusal_that_asking_again_will_not_change_is_not_retried():
    with StubServer() as server:
        server.add(Reply(400, headers={"Retry-After": "0"}))
        caller = Caller(server, Deadline(GUARD))
        done = caller.call(RetryPolicy(SERVER_TROUBLE, max_retries=None, backoff=0.0))
        assert len(server.requests) == 1
    assert (done.answer, done.attempts, done.stop, caller.waits) == (Answer(400, "0"), 1, Stop.ANSWERED, [])


def test_the_retries_stop_at_the_policys_limit():
    with StubServer() as server:
        server.add(*[Reply(503, headers={"Retry-After": "0"})] * 3)
        caller = Caller(server, Deadline(GUARD))
        done = caller.call(RetryPolicy(SERVER_TROUBLE, max_retries=1, backoff=0.0))
        assert len(server.requests) == 2 and server.pending == 1
    assert (done.answer, done.attempts, done.stop, done.asked) == (Answer(503, "0"), 2, Stop.ATTEMPTS, 0.0)


def test_a_wait_that_would_pass_the_deadline_is_never_begun():
    with StubServer() as server:
        server.add(Reply(429, headers={"Retry-After": "30"}), Reply(200))
        caller = Caller(server, Deadline(GUARD / 4))
        done = caller.call(RetryPolicy(SERVER_TROUBLE, max_retries=None, backoff=0.0))
        assert len(server.requests) == 1
    assert (done.answer, done.attempts, done.stop, done.asked, done.wait) == (
        Answer(429, "30"), 1, Stop.DEADLINE, 30.0, 30.0)
    assert caller.waits == []
    assert not caller.deadline.passed  # it gave up at once, rather than waiting to fail


def test_a_huge_retry_after_from_the_server_is_capped_by_the_policy_and_the_deadline():
    with StubServer() as server:
        server.add(Reply(503, headers={"Retry-After": "9" * 400}), Reply(200))
        capped = Caller(server, Deadline(GUARD))
        assert capped.call(RetryPolicy(SERVER_TROUBLE, max_retries=3, backoff=0.0, max_delay=0.001)).stop \
            is Stop.ANSWERED
        server.add(Reply(503, headers={"Retry-After": "9" * 400}))
        uncapped = Caller(server, Deadline(GUARD))
        done = uncapped.call(RetryPolicy(SERVER_TROUBLE, max_retries=None, backoff=0.0))
        assert len(server.requests) == 3
    assert capped.waits == [(503, 1, 0.001)]
    assert (done.stop, done.asked, done.wait, uncapped.waits) == (Stop.DEADLINE, LONGEST, LONGEST, [])


def test_one_deadline_covers_the_whole_call_its_retries_and_its_last_attempt():
    with StubServer() as server:
        server.add(Reply(503, headers={"Retry-After": "0"}), Reply(503, headers={"Retry-After": "0"}),
                   Reply(200, delay=GUARD))  # the third answer would come too late
        caller = Caller(server, Deadline(2.0))
        with pytest.raises(httpx.TimeoutException):
            caller.call(RetryPolicy(SERVER_TROUBLE, max_retries=None, backoff=0.0))
        assert [r.body for r in server.requests] == [b"attempt 1", b"attempt 2", b"attempt 3"]
    assert caller.waits == [(503, 1, 0.0), (503, 2, 0.0)]
    assert caller.deadline.passed  # the third attempt had only what the first two left of the one deadline


def test_a_wait_that_raises_ends_the_call():
    class Cancelled(Exception):
        pass

    def cancel(answer: Answer, retry: int, delay: float) -> None:
        raise Cancelled()

    with StubServer() as server:
        server.add(Reply(503), Reply(200))
        caller = Caller(server, Deadline(GUARD))
        with pytest.raises(Cancelled):
            with_retries(caller.attempt, RetryPolicy(SERVER_TROUBLE, max_retries=3, backoff=0.0), caller.deadline,
                         before_retry=cancel)
        caller.client.close()
        assert len(server.requests) == 1


def test_the_deadline_counts_down_and_passes():
    deadline = Deadline(0.0)
    assert (deadline.seconds, deadline.left(), deadline.passed) == (0.0, 0.0, True)
    later = Deadline(GUARD)
    assert 0 < later.left() <= GUARD and not later.passed
    assert math.isclose(Deadline(-5.0).left(), 0.0)
