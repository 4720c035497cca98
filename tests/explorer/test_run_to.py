"""Run-to conditions (explorer.walks.run_to) on real walks over the sample corpora, with scripted navigators."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.forcing import parse_force
from explorer.walk_settings import WalkSettings
from explorer.walks.run_to import FORMS, UntilError, first_hold, parse_until
from explorer.walks.session import WalkSession
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def walked(script, forces=()):
    model = f"script:{SCRIPTS / script}"
    session = WalkSession(HANDBOOK, WalkSettings("How are refunds issued?", model), resolve_navigator(model),
                          forces=forces)
    return session.run_headless(), session.history.forced


def paused(text, script, after=0, forces=(), backwards=False):
    events, forced = walked(script, forces)
    found = first_hold(parse_until(text, HANDBOOK.index), events, after, forced, backwards=backwards)
    return None if found is None else (found.step, found.why)


@pytest.mark.parametrize(("text", "script", "expected"), [
    ("offered:plans", "hallucinated-branch.yaml", (2, "plans offered at step 2")),
    ("entered:plans", "wide-walk-out-of-visits.yaml", (4, "plans entered at step 4")),
    ("entered:plans", "hallucinated-branch.yaml", None),
    ("visits-left:1", "wide-walk-out-of-visits.yaml", (33, "1 visit left at step 33")),
    ("wrong-turn:refund-delivery", "hallucinated-branch.yaml",
     (10, "wrong turn at step 10: refund-delivery not taken (toward refund-delivery)")),
    ("wrong-turn:refund-delivery", "wide-walk-out-of-visits.yaml", None),
    ("never-offered", "hallucinated-branch.yaml", (6, "an id never offered at step 6: refund-policy")),
    ("never-offered", "wide-walk-out-of-visits.yaml", None),
    ("failure", "provider-failure.yaml", (9, "navigator failure at step 9")),
    ("failure", "hallucinated-branch.yaml", None),
    ("forced", "hallucinated-branch.yaml", None),
])
def test_each_condition_pauses_at_its_first_step(text, script, expected):
    assert paused(text, script) == expected


def test_a_forced_decision_holds_at_its_answer():
    assert paused("forced", "hallucinated-branch.yaml", forces=[parse_force("start=accounts")]) == (
        3, "forced decision at step 3")


def test_after_and_backwards_step_from_a_cursor():
    assert paused("entered:plans", "wide-walk-out-of-visits.yaml", after=4) is None
    assert paused("visits-left:1", "wide-walk-out-of-visits.yaml", after=33) == (35, "0 visits left at step 35")
    assert paused("visits-left:1", "wide-walk-out-of-visits.yaml", after=35, backwards=True) == (
        33, "1 visit left at step 33")


@pytest.mark.parametrize(("text", "message"), [
    ("plans", f"not a condition; give one of {FORMS}"),
    ("offered:", f"not a condition; give one of {FORMS}"),
    ("forced:x", f"not a condition; give one of {FORMS}"),
    ("offered:nope", "no node 'nope' in the corpus; name a node id of the corpus"),
    ("visits-left:-1", "visits-left:-1: give a whole number of visits, 0 or more"),
    ("visits-left:x", "visits-left:x: give a whole number of visits, 0 or more"),
])
def test_bad_text_says_what_is_accepted(text, message):
    with pytest.raises(UntilError) as raised:
        parse_until(text, HANDBOOK.index)
    assert str(raised.value) == message
