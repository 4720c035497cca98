"""The prompt variants kept for the bundled small model (bench/prompts/, issue 28): each renders with known
placeholders only, holds no placeholder text a model could copy, and asks with a schema whose ``selected``
is the enum of the ids offered (the grammar llama.cpp builds from it lets an answer name only offered ids)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators.llm.prompt import check_template, render
from explorer.navigators.local_model import TUNED_PROMPTS
from explorer.navigators.openai_compat import OLLAMA_BASE_URL_ENV, OpenAICompatibleNavigator

BENCH = Path(__file__).resolve().parents[3] / "bench" / "prompts"
FOLDERS = {path.name.removesuffix(".system.txt"): folder
           for folder in (BENCH, TUNED_PROMPTS) for path in folder.glob("*.system.txt")}
"""Each variant's folder: bench/prompts/ for those measured, the package's for the one local:smollm2 uses."""
VARIANTS = sorted(FOLDERS)
CANDIDATES = (NodeView("billing", "Billing", "Invoices and payment methods."), NodeView("accounts", "Accounts"),
              NodeView("plans", "Plans", "What each plan costs."))
OFFERED = ["billing", "accounts", "plans"]
COPYABLE = ("one or two sentences", "<id>", "...", "ids, most promising first")


def offer(model: str, remaining: int = 5) -> NavigatorRequest:
    return NavigatorRequest("How long do refunds take?", model, None, CANDIDATES, remaining, CancellationToken())


def test_there_are_variants_and_each_has_both_files() -> None:
    assert VARIANTS == ["compact", "ids"]
    assert FOLDERS["ids"] == TUNED_PROMPTS
    for name in VARIANTS:
        assert (FOLDERS[name] / f"{name}.prompt.txt").is_file()


@pytest.mark.parametrize("name", VARIANTS)
def test_a_variant_uses_only_known_placeholders_and_no_copyable_placeholder_text(name: str) -> None:
    template = (FOLDERS[name] / f"{name}.prompt.txt").read_text(encoding="utf-8")
    check_template(template, FOLDERS[name] / f"{name}.prompt.txt")  # raises on an unknown placeholder
    words = (FOLDERS[name] / f"{name}.system.txt").read_text(encoding="utf-8") + render(template, offer("local:x"))
    assert [text for text in COPYABLE if text in words] == []
    assert "{{" not in render(template, offer("local:x"))


def test_the_compact_candidates_are_one_line_each_id_first() -> None:
    assert render("{{candidates_compact}}", offer("local:x")) == (
        "- billing: Billing. Invoices and payment methods.\n- accounts: Accounts\n- plans: Plans. What each plan costs.")


@pytest.mark.parametrize("name", VARIANTS)
def test_a_variant_asks_with_the_enum_of_the_offered_ids_and_an_answer_names_only_those(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OLLAMA_BASE_URL_ENV, "http://ollama.test/v1")
    bodies: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        text = json.dumps({"selected": ["plans", "billing"], "rationale": "refunds"})
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}],
                                         "usage": {"prompt_tokens": 90, "completion_tokens": 12}})

    model = f"ollama:m@system={FOLDERS[name] / f'{name}.system.txt'},prompt={FOLDERS[name] / f'{name}.prompt.txt'}"
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(server)) as navigator:
        decision = navigator.choose(offer(model, remaining=2))
    (body,) = bodies
    selected = body["response_format"]["json_schema"]["schema"]["properties"]["selected"]
    assert selected["items"]["enum"] == OFFERED
    assert selected["maxItems"] == 2
    assert body["messages"][0]["content"] == (FOLDERS[name] / f"{name}.system.txt").read_text(encoding="utf-8")
    assert "- billing: Billing. Invoices and payment methods." in body["messages"][1]["content"]
    assert list(decision.selected) == ["plans", "billing"]


@pytest.mark.parametrize(("option", "rationale", "most"), [("rationale=off", None, 3), ("rationale=40", 40, 3),
                                                           ("rationale=off,max_items=2", None, 2),
                                                           ("max_items=9", 240, 3)])
def test_the_rationale_and_max_items_options_shorten_the_answer_and_keep_the_enum(
        option: str, rationale: int | None, most: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OLLAMA_BASE_URL_ENV, "http://ollama.test/v1")
    bodies: list[dict[str, Any]] = []

    def server(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant",
                                                                  "content": '{"selected": ["plans"]}'}}]})

    with OpenAICompatibleNavigator(transport=httpx.MockTransport(server)) as navigator:
        decision = navigator.choose(offer(f"ollama:m@{option}", remaining=5))
    (body,) = bodies
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["selected"]["items"]["enum"] == OFFERED
    assert schema["properties"]["selected"]["maxItems"] == most
    if rationale is None:
        assert list(schema["properties"]) == ["selected"] and schema["required"] == ["selected"]
    else:
        assert schema["properties"]["rationale"] == {"type": "string", "maxLength": rationale}
    assert list(decision.selected) == ["plans"]


def test_a_bad_rationale_value_is_one_line() -> None:
    from explorer.navigators.llm.options import OptionError, split_options
    with pytest.raises(OptionError) as caught:
        split_options("local:smollm2@rationale=long")
    assert str(caught.value) == ("rationale=long: rationale must be a whole number from 1 to 240, "
                                 "e.g. rationale=off")
