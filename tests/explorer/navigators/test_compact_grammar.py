"""``grammar=compact`` (issue 28: a short answer): a ``local:`` model is asked by a GBNF grammar of its answer's
JSON with no whitespace and at least one id, in place of the JSON schema whose grammar lets a small model put a
newline and an indent before every id. The ids are still the enum of those offered."""

from __future__ import annotations

import json

import pytest

from core import NavigatorChose, NodeView
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.llm.errors import NavigatorHTTPError
from explorer.navigators.llm.options import OptionError, split_options
from explorer.navigators.llm.schema import choice_schema, compact_grammar
from explorer.navigators.llm.settings import settings_for
from explorer.navigators.local_model import LocalModelNavigator
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession

from .conftest import MODEL
from .test_local_model import HANDBOOK, needs_model

CANDIDATES = (NodeView("billing", "Billing"), NodeView("accounts", "Accounts"), NodeView('café "x"', "Café"))


def test_the_grammar_holds_the_offered_ids_the_most_allowed_and_the_bounded_rationale() -> None:
    assert compact_grammar(choice_schema(CANDIDATES, 5)) == (
        'root ::= "{\\"selected\\":[" id ("," id){0,2} "]" ",\\"rationale\\":\\"" char{0,240} "\\"" "}"\n'
        'id ::= "\\"billing\\"" | "\\"accounts\\"" | "\\"caf\\u00e9 \\\\\\"x\\\\\\"\\""\n'
        'char ::= [^"\\\\\\x00-\\x1f] | "\\\\" ["\\\\/bfnrt]\n')


def test_without_a_rationale_and_with_one_visit_left_it_is_one_id_alone() -> None:
    assert compact_grammar(choice_schema(CANDIDATES, 1, 0)) == (
        'root ::= "{\\"selected\\":[" id "]" "}"\n'
        'id ::= "\\"billing\\"" | "\\"accounts\\"" | "\\"caf\\u00e9 \\\\\\"x\\\\\\"\\""\n')
    assert compact_grammar(choice_schema(CANDIDATES, 5, 0, max_items=2)).splitlines()[0] == (
        'root ::= "{\\"selected\\":[" id ("," id){0,1} "]" "}"')


def test_a_bad_value_and_a_server_that_is_not_llama_cpp_are_one_line_each() -> None:
    assert split_options(f"{MODEL}@grammar=compact").options.grammar == "compact"
    with pytest.raises(OptionError) as caught:
        split_options(f"{MODEL}@grammar=json")
    assert str(caught.value) == ("grammar=json: grammar must be compact (the answer's JSON with no whitespace, at "
                                 "least one id) or off (the JSON schema)")
    assert split_options(f"{MODEL}@grammar=off,max_items=all").options.grammar == "off"
    assert settings_for("vllm:m@grammar=off").options.grammar == "off"  # the JSON schema, as without it
    with pytest.raises(NavigatorHTTPError) as refused:
        settings_for("vllm:m@grammar=compact")
    assert str(refused.value) == ("model 'vllm:m@grammar=compact': grammar=compact is llama.cpp's (a local: model); "
                                  "a vllm: server is asked for a JSON schema")


@needs_model
@pytest.mark.model
def test_a_walk_on_the_bundled_model_answers_compact_json_naming_offered_ids() -> None:
    model = f"{MODEL}@rationale=off,max_items=2,grammar=compact"
    navigator = resolve_navigator(model)
    assert isinstance(navigator, LocalModelNavigator)
    try:
        session = WalkSession(load_corpus(HANDBOOK), WalkSettings("How long do refunds take to arrive?", model,
                                                                  max_nodes_visited=3), navigator)
        session.run_headless()
    finally:
        navigator.close()
    events = session.history.events
    offers = {e.current.id if e.current else None: e for e in events if type(e).__name__ == "CandidatesOffered"}
    chose = [e for e in events if isinstance(e, NavigatorChose)]
    assert chose
    for decision in chose:
        offered = [view.id for view in offers[decision.current].candidates]
        pairs = dict(decision.transcript or ())
        raw = pairs["answer"]
        assert raw == json.dumps(json.loads(raw), separators=(",", ":"), ensure_ascii=False)  # no whitespace
        assert 1 <= len(json.loads(raw)["selected"]) <= 2 and set(json.loads(raw)["selected"]) <= set(offered)
        assert pairs["grammar"].splitlines()[1] == "id ::= " + " | ".join(f'"\\"{i}\\""' for i in offered)
        assert "schema" not in pairs and json.loads(pairs["parameters"])["structured_output"] is True


@needs_model
@pytest.mark.model
def test_a_served_session_takes_it_as_it_takes_rationale_off() -> None:
    """The option names no file, so a served session (files off) takes it."""
    navigator = resolve_navigator(f"{MODEL}@grammar=compact", allow_files=False)
    assert isinstance(navigator, LocalModelNavigator)
    navigator.close()
