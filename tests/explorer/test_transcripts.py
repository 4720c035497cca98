"""A decision's transcript in the parts a person copies and reads (explorer.walks.transcripts): the request sent,
the raw answer byte for byte, and JSON pretty-printed for reading only."""

from __future__ import annotations

from explorer.walks.decisions import Decision, decisions_of
from explorer.walks.transcripts import pretty_json, raw_answer, request_text

from .test_decisions import BILLING, STARTED, chose, failed, offer

RAW = '{"selected":["billing"],"rationale":"money"}'
LLM = (("answered", "cached: an identical request"), ("system", "You walk a tree."), ("user", "Pick one:\n1 billing"),
       ("parameters", '{"temperature":0}'), ("answer", RAW), ("http", "200 after 1 attempt"))


def decision(answer) -> Decision:
    return decisions_of([STARTED, offer(None, BILLING), answer])[0]


def test_the_request_is_every_pair_sent_before_the_raw_answer_and_the_answer_is_byte_exact():
    made = decision(chose(None, "billing", transcript=LLM))
    assert made.step == 3 and made.offer_seq == 2  # the step panel's number: the answer's
    assert request_text(made) == "system\nYou walk a tree.\n\nuser\nPick one:\n1 billing\n\nparameters\n" \
                                 '{"temperature":0}'
    assert raw_answer(made) == RAW


def test_one_pair_sent_is_copied_alone_and_an_answer_without_a_raw_one_is_its_rationale_or_error():
    made = decision(chose(None, "billing", transcript=(("scored", '{"kind":"bm25"}'),)))
    assert request_text(made) == '{"kind":"bm25"}'
    assert raw_answer(made) == "because"
    assert raw_answer(decision(failed(None))) == "upstream timeout" and request_text(decision(failed(None))) is None


def test_an_offer_not_yet_answered_has_nothing_to_copy_and_is_its_offers_step():
    waiting = decisions_of([STARTED, offer(None, BILLING)])[0]
    assert (waiting.step, request_text(waiting), raw_answer(waiting)) == (2, None, None)


def test_json_is_pretty_printed_and_anything_else_is_left_alone():
    assert pretty_json(RAW) == '{\n  "selected": [\n    "billing"\n  ],\n  "rationale": "money"\n}'
    assert pretty_json('[1, "é"]') == '[\n  1,\n  "é"\n]'
    assert pretty_json("plain text") is None and pretty_json("{not json") is None and pretty_json("42") is None
