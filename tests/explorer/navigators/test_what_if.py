"""The prompt what-if, headless, against the real local model: a recorded decision's request, edited, asked
once more (live, the cache untouched), and both answers in one form, side by side."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from core import CandidatesOffered, NavigatorChose
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.answered import Answered, answered_by
from explorer.navigators.llm.options import StructuredOutput
from explorer.navigators.llm.settings import CACHE_DIR_ENV
from explorer.navigators.local_model import LocalModelNavigator
from explorer.navigators.what_if import WhatIfError, ask_again, recorded_answer, request_for, side_by_side
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession
from tests.samples import SAMPLES

from .conftest import MODEL

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
QUERY = "How long do refunds take to arrive?"


def first_decision(navigator: LocalModelNavigator, model: str) -> tuple[CandidatesOffered, NavigatorChose]:
    session = WalkSession(load_corpus(HANDBOOK), WalkSettings(QUERY, model, max_nodes_visited=2), navigator)
    session.run_headless()
    events = session.history.events
    offer = next(e for e in events if isinstance(e, CandidatesOffered))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    return offer, chose


@pytest.mark.model
def test_a_decisions_request_is_the_messages_sent_and_the_settings_of_its_model_id(
        local: LocalModelNavigator) -> None:
    model = f"{MODEL}@temperature=0.3,seed=9,max_tokens=200"
    offer, chose = first_decision(local, model)
    edited = request_for(model, QUERY, offer, chose.transcript, navigator=local)
    sent = dict(chose.transcript or ())
    assert (edited.system, edited.user) == (sent["system"], sent["user"])
    assert (edited.model, edited.temperature, edited.seed, edited.top_p, edited.max_tokens) == (
        MODEL, 0.3, 9, None, 200)
    assert edited.structured_output is StructuredOutput.AUTO
    assert edited.candidates == offer.candidates and edited.remaining_visits == offer.remaining_visits
    assert edited.model_id == "local:smollm2@temperature=0.3,seed=9,max_tokens=200"


@pytest.mark.model
def test_an_edited_request_is_asked_once_live_and_shows_beside_the_original(
        local: LocalModelNavigator, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(CACHE_DIR_ENV, str(tmp_path / "cache"))
    offer, chose = first_decision(local, MODEL)
    cached_before = sorted((tmp_path / "cache").rglob("*.json"))
    edited = request_for(MODEL, QUERY, offer, chose.transcript, navigator=local).but(
        system="You choose sections of a company handbook. Money matters are under billing.", max_tokens=160)
    answer = ask_again(edited, navigator=local)
    assert answer.error is None and answer.live
    offered = [view.id for view in offer.candidates]
    assert set(answer.offered) <= set(offered) and answer.hallucinated == ()
    assert json.loads(answer.raw)["selected"] == list(answer.selected)
    assert answer.prompt_tokens is not None and answer.completion_tokens is not None
    pairs = dict(answer.transcript)
    assert pairs["system"] == "You choose sections of a company handbook. Money matters are under billing."
    assert pairs["user"] == edited.user
    assert json.loads(pairs["parameters"])["max_tokens"] == 160
    assert pairs["cache"] == "not used: asked once, live (a what-if)"
    assert answered_by(answer.transcript) is Answered.LIVE
    assert sorted((tmp_path / "cache").rglob("*.json")) == cached_before  # nothing written

    before = recorded_answer(offer, chose)
    assert not before.live and before.selected == chose.selected
    rows = {row.label: row for row in side_by_side(before, answer)}
    assert list(rows) == ["chosen", "not offered", "rationale", "failure", "tokens", "seconds", "raw answer"]
    assert rows["chosen"].before == ", ".join(chose.selected)
    assert rows["chosen"].after == (", ".join(answer.offered) or "(none)")
    assert rows["raw answer"].after == answer.raw
    assert rows["tokens"].after == f"{answer.prompt_tokens} prompt + {answer.completion_tokens} completion"


@pytest.mark.model
def test_a_failure_is_an_answer_with_its_error_not_an_exception(local: LocalModelNavigator) -> None:
    offer, chose = first_decision(local, MODEL)
    edited = request_for(MODEL, QUERY, offer, chose.transcript, navigator=local).but(
        structured_output=StructuredOutput.OFF, max_tokens=3, user="Say hello.")
    answer = ask_again(edited, navigator=local)
    assert answer.error is not None and "is not the JSON asked for" in answer.error
    assert answer.selected == () and dict(answer.transcript)["structured output"] == "off (schema=off)"


def test_a_navigator_that_is_no_llm_cannot_be_asked_again() -> None:
    offer = CandidatesOffered(None, (), (), 5, 0, 0)
    with pytest.raises(WhatIfError, match="navigator 'lexical:default' is no LLM's"):
        request_for("lexical:default", QUERY, offer, None, navigator=resolve_navigator("lexical:default"))
