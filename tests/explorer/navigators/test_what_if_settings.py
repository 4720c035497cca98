"""The what-if's editable settings as a person types them: read back, refused with the model id's own words."""

from __future__ import annotations

import pytest

from core import NodeView
from explorer.navigators.llm.options import StructuredOutput
from explorer.navigators.what_if import EditedRequest, WhatIfError

OFFER = (NodeView("billing", "Billing", "Invoices and refunds"), NodeView("security", "Security", "Reviews"))


def request(model: str = "local:smollm2", **settings: object) -> EditedRequest:
    return EditedRequest(model=model, system="sys", user="user", query="q", current=None, candidates=OFFER,
                         remaining_visits=3).but(**settings)


def test_the_settings_read_as_text_and_blank_is_the_default() -> None:
    assert request().settings_text() == {"temperature": "", "seed": "", "top_p": "", "max_tokens": "", "schema": ""}
    typed = request(temperature=0.8, seed=7, top_p=0.5, max_tokens=200, structured_output=StructuredOutput.OFF)
    assert typed.settings_text() == {"temperature": "0.8", "seed": "7", "top_p": "0.5", "max_tokens": "200",
                                     "schema": "off"}


def test_typed_settings_make_the_request_and_its_model_id() -> None:
    edited = request().with_settings("local:smollm2@threads=1", {"temperature": " 0.8 ", "seed": "7", "top_p": "",
                                                                  "max_tokens": "", "schema": "off"})
    assert (edited.model, edited.temperature, edited.seed, edited.top_p, edited.max_tokens) == (
        "local:smollm2@threads=1", 0.8, 7, None, None)
    assert edited.structured_output is StructuredOutput.OFF
    assert edited.model_id == "local:smollm2@temperature=0.8,seed=7,schema=off,threads=1"
    assert (edited.system, edited.user, edited.candidates) == ("sys", "user", OFFER)  # the rest is kept
    cleared = edited.with_settings("openai:gpt-4o-mini", {"temperature": ""})
    assert (cleared.model_id, cleared.temperature, cleared.seed) == ("openai:gpt-4o-mini", None, None)


def test_the_model_a_person_edits_leaves_out_the_prompt_files_whose_text_is_in_the_request() -> None:
    edited = request("local:smollm2@system=a.txt,threads=2,prompt=b.txt")
    assert edited.base_model == "local:smollm2@threads=2"


@pytest.mark.parametrize(("model", "settings", "said"), [
    ("local:smollm2", {"temperature": "3"},
     "temperature=3: temperature must be a number from 0 to 2, e.g. temperature=0.7"),
    ("local:smollm2", {"seed": "-1"}, "seed=-1: seed must be a whole number from 0 to 9,223,372,036,854,775,807, "
                                      "e.g. seed=7"),
    ("local:smollm2", {"schema": "maybe"}, "schema=maybe: schema must be auto, on or off"),
    ("local:smollm2@temperature=1", {"temperature": "0.5"},
     "temperature=0.5 is asked for twice, differently: the model id 'local:smollm2@temperature=1' says "
     "temperature=1; say it once"),
    ("  ", {}, "name the model to ask, e.g. local:smollm2"),
    ("local:smollm2", {"threads": "2"}, "threads: not a setting of a request; these are temperature, seed, top_p, "
                                        "max_tokens, schema"),
])
def test_a_setting_that_cannot_be_read_is_refused_in_one_line(model: str, settings: dict[str, str],
                                                              said: str) -> None:
    with pytest.raises(WhatIfError) as refused:
        request().with_settings(model, settings)
    assert str(refused.value) == said
