"""Options in a model id (``MODEL@key=value,...``) and prompt files (a system prompt, a user template with
``{{placeholders}}``), read, checked and used."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import pytest

from core import CancellationToken, NavigatorRequest, NodeView
from explorer.navigators import NavigatorConfigError, resolve_navigator
from explorer.navigators.llm.options import (
    ModelOptions,
    OptionError,
    StructuredOutput,
    short_model_id,
    split_options,
    with_options,
)
from explorer.navigators.llm.prompt import SYSTEM_PROMPT, PromptFileError, check_template, render
from explorer.navigators.openai_compat import OPENAI_API_KEY_ENV, OPENAI_BASE_URL_ENV, OpenAICompatibleNavigator
from explorer.walk_settings import WalkSettings
from explorer.walks.settings import describe_settings, short_model

REQUEST = NavigatorRequest("When is my refund paid?", "openai:m", NodeView("billing", "Billing", "Money\nmatters"),
                           (NodeView("refunds", "Refunds", "Money back"), NodeView("invoices", "Invoices", "")), 3,
                           CancellationToken())


def test_options_after_the_last_at_are_read_and_the_model_is_what_comes_before() -> None:
    split = split_options("ollama:llama3.1:8b@temperature=0.8,seed=7,top_p=0.9,max_tokens=300,schema=OFF")
    assert split.base == "ollama:llama3.1:8b"
    assert split.options == ModelOptions(temperature=0.8, seed=7, top_p=0.9, max_tokens=300,
                                         schema=StructuredOutput.OFF)
    assert split.written == (("temperature", "0.8"), ("seed", "7"), ("top_p", "0.9"), ("max_tokens", "300"),
                             ("schema", "OFF"))


@pytest.mark.parametrize("model", ["local:/models/v@2/model.gguf", "openai:gpt-4o", "script:a@b.yaml",
                                   "user@example:thing"])
def test_an_at_whose_tail_is_no_options_is_part_of_the_model(model: str) -> None:
    assert split_options(model).base == model
    assert split_options(model).options == ModelOptions()


@pytest.mark.parametrize(("model", "message"), [
    ("local:smollm2@seed=1,seed=2", "'local:smollm2@seed=1,seed=2': option 'seed' is given twice; give it once"),
    ("local:smollm2@top_p=0", "top_p=0: top_p must be a number above 0 to 1, e.g. top_p=0.7"),
    ("local:smollm2@max_tokens=0", "max_tokens=0: max_tokens must be a whole number from 1 to 100,000, e.g. "
                                   "max_tokens=300"),
    ("local:smollm2@temperature=nan", "temperature=nan: temperature must be a number from 0 to 2, e.g. "
                                      "temperature=0.7"),
    ("local:smollm2@system=", "system=: name a file, e.g. system=prompts/system.txt"),
])
def test_a_bad_option_says_which_and_what_to_write(model: str, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        split_options(model)
    assert str(caught.value) == message


def test_options_added_go_after_the_ids_own_and_a_conflict_is_refused() -> None:
    assert with_options("local:smollm2@seed=7", {"temperature": "0.8"}) == "local:smollm2@seed=7,temperature=0.8"
    assert with_options("local:smollm2@seed=7", {"seed": "7"}) == "local:smollm2@seed=7"
    with pytest.raises(OptionError, match="seed=8 is asked for twice, differently: the model id "
                                          "'local:smollm2@seed=7' says seed=7; say it once"):
        with_options("local:smollm2@seed=7", {"seed": "8"})


def test_a_temperature_above_0_without_a_seed_is_not_cacheable() -> None:
    assert ModelOptions().cacheable and ModelOptions(temperature=0.0).cacheable
    assert not ModelOptions(temperature=0.7).cacheable
    assert ModelOptions(temperature=0.7, seed=1).cacheable


def test_a_walks_short_name_keeps_the_options_and_drops_the_folders() -> None:
    assert short_model_id("local:/models/x.gguf@system=/p/a.txt,temperature=0.8") == (
        "local:x.gguf@system=a.txt,temperature=0.8")
    assert describe_settings(WalkSettings("q", "local:smollm2@prompt=/team/b.txt")) == (
        "local:smollm2@prompt=b.txt · budget 15 · depth limit 6 · on failure throw")
    assert short_model(WalkSettings("q", "script:/a/b/case.yaml")) == "script:case.yaml"


# -- prompt files ------------------------------------------------------------------------------------------


def test_a_template_fills_every_placeholder() -> None:
    template = ("Q={{query}}|{{ current_title }}|{{current_summary}}|{{ids}}|{{remaining_visits}}|"
                "{{max_selected}}|{{position}}|{{candidates}}|{not a placeholder}")
    assert render(template, REQUEST) == (
        "Q=When is my refund paid?|Billing|Money matters|refunds, invoices|3|2|You are in: Billing\n"
        "Its summary: Money matters|1. id: refunds\n   title: Refunds\n   summary: Money back\n2. id: invoices\n"
        "   title: Invoices\n   summary: (none)|{not a placeholder}")


def test_an_unknown_placeholder_names_the_file_and_line() -> None:
    with pytest.raises(PromptFileError) as caught:
        check_template("Query: {{query}}\n\nCandidates: {{candidate}}\n", Path("b.txt"))
    assert str(caught.value) == "b.txt:3: unknown placeholder {{candidate}}; did you mean 'candidates'?"


@pytest.fixture
def llm(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(OPENAI_API_KEY_ENV, "sk-prompt-files-1")
    monkeypatch.setenv(OPENAI_BASE_URL_ENV, "http://llm.test/v1")


def test_prompt_files_in_the_model_id_are_what_is_sent(tmp_path: Path, llm: None) -> None:
    system, template = tmp_path / "system.txt", tmp_path / "user.txt"
    system.write_text("Pick sections. Be brief.")
    template.write_text("Question: {{query}}\nChoose among: {{ids}} (at most {{max_selected}})")
    bodies: list[dict[str, object]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        text = json.dumps({"selected": ["refunds"], "rationale": "money back"})
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})

    model = f"openai:m@system={system},prompt={template}"
    resolve_navigator(model)  # read and checked when resolved
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        choice = nav.choose(NavigatorRequest(REQUEST.query, model, REQUEST.current, REQUEST.candidates, 3,
                                             CancellationToken()))
    assert bodies[0]["messages"] == [
        {"role": "system", "content": "Pick sections. Be brief."},
        {"role": "user", "content": "Question: When is my refund paid?\nChoose among: refunds, invoices (at most 2)"},
    ]
    assert dict(choice.transcript)["system"] == "Pick sections. Be brief."
    template.write_text("Changed: {{query}}")  # read again when it changes
    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        nav.choose(NavigatorRequest(REQUEST.query, model, None, REQUEST.candidates, 3, CancellationToken()))
    assert bodies[1]["messages"][1]["content"] == "Changed: When is my refund paid?"


@pytest.mark.parametrize(("write", "message"), [
    (None, "{path}: no such system prompt file; check the path"),
    ("", "{path}: the system prompt file is empty; write the prompt in it"),
    (b"\xff\xfe\x00bad", "{path}: the system prompt file is not UTF-8 text"),
])
def test_a_prompt_file_that_cannot_be_used_is_one_line_when_resolved(tmp_path: Path, llm: None,
                                                                     write: str | bytes | None, message: str) -> None:
    path = tmp_path / "system.txt"
    if isinstance(write, bytes):
        path.write_bytes(write)
    elif write is not None:
        path.write_text(write)
    with pytest.raises(NavigatorConfigError) as caught:
        resolve_navigator(f"openai:m@system={path}")
    assert str(caught.value) == message.format(path=path)


def test_a_template_with_an_unknown_placeholder_is_refused_when_resolved(tmp_path: Path, llm: None) -> None:
    template = tmp_path / "user.txt"
    template.write_text("{{query}}\n{{visits}}")
    with pytest.raises(NavigatorConfigError, match=r"user\.txt:2: unknown placeholder \{\{visits\}\}"):
        resolve_navigator(f"openai:m@prompt={template}")


def test_the_built_in_prompt_is_used_without_files() -> None:
    assert OpenAICompatibleNavigator().reads_file("openai:m@temperature=1") is False
    assert OpenAICompatibleNavigator().reads_file("openai:m@system=a.txt") is True
    assert SYSTEM_PROMPT.startswith("You guide a search down a hierarchy")


# -- an options tail that does not read (issue 30, point 4) -----------------------------------------------------

SYNTAX = ('write MODEL@key=value[,key=value...] (a value holding a comma, an @ or a quote, or with spaces around '
          'it, in double quotes: system="prompts/a,b.txt")')


@pytest.mark.parametrize(("model", "message"), [
    ("openai:gpt-x@temperature=1.5,",
     f"'openai:gpt-x@temperature=1.5,': an empty option after the comma at character 29 (a comma too many?); "
     f"{SYNTAX}"),
    ("openai:gpt-x@,system=sys.txt",  # was read as the model "gpt-x@,system=sys.txt" (issue 38, point 16)
     f"'openai:gpt-x@,system=sys.txt': an empty option after the @ (a comma too many?); {SYNTAX}"),
    ("local:smollm2@ ,temperature=0.5",
     f"'local:smollm2@ ,temperature=0.5': an empty option after the @ (a comma too many?); {SYNTAX}"),
    ("openai:gpt-x@temperature=1.5,,seed=3",
     f"'openai:gpt-x@temperature=1.5,,seed=3': an empty option after the comma at character 29 (a comma too "
     f"many?); {SYNTAX}"),
    ("openai:m@system=a,b.txt",
     f"'openai:m@system=a,b.txt': 'b.txt' is not key=value; if it belongs to system, put that value in double "
     f'quotes: system="a,b.txt"; {SYNTAX}'),
    ("openai:m@system=a@b.txt",
     "'openai:m@system=a@b.txt': system=a@b.txt: a value holding '@' is written in double quotes: "
     'system="a@b.txt"'),
    ('openai:m@system="a.txt',
     f"'openai:m@system=\"a.txt': the quote at character 17 (in system=) is never closed; {SYNTAX}"),
    ('openai:m@system="a"b.txt',
     f"'openai:m@system=\"a\"b.txt': the quote at character 17 (in system=) is followed by 'b'; put the whole "
     f"value in the quotes; {SYNTAX}"),
    ("openai:m@seed=1,2x=3", f"'openai:m@seed=1,2x=3': '2x' is not an option's name; {SYNTAX}"),
])
def test_an_options_tail_that_does_not_read_is_one_line_never_part_of_the_model(model: str, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        split_options(model)
    assert str(caught.value) == message


@pytest.mark.parametrize(("model", "base", "system"), [
    ('openai:m@system="a,b.txt"', "openai:m", "a,b.txt"),
    ('openai:m@system="a@b.txt"', "openai:m", "a@b.txt"),
    ('openai:m@system=" pad ""q"".txt"', "openai:m", ' pad "q".txt'),
    ('local:/models/v@2/x.gguf@system="/p/a,b@c.txt"', "local:/models/v@2/x.gguf", "/p/a,b@c.txt"),
])
def test_a_value_holding_a_comma_an_at_or_a_quote_is_read_whole_in_quotes(model: str, base: str,
                                                                          system: str) -> None:
    split = split_options(model)
    assert (split.base, split.options.system, split.written) == (base, Path(system), (("system", system),))


def test_an_id_put_back_together_quotes_what_would_not_read_back_whole() -> None:
    joined = with_options("openai:m@seed=3", {"system": "/p/a,b.txt", "prompt": '/p/"u"@2.txt'})
    assert joined == 'openai:m@seed=3,system="/p/a,b.txt",prompt="/p/""u""@2.txt"'
    assert split_options(joined).written == (("seed", "3"), ("system", "/p/a,b.txt"), ("prompt", '/p/"u"@2.txt'))
    assert short_model_id('local:/m/x.gguf@system="/p/a,b.txt"') == 'local:x.gguf@system="a,b.txt"'


def test_a_prompt_file_whose_path_holds_a_comma_is_sent_when_quoted(tmp_path: Path, llm: None) -> None:
    system = tmp_path / "a,b@c.txt"
    system.write_text("Quoted prompt.")
    with pytest.raises(NavigatorConfigError):
        resolve_navigator(f"openai:m@system={system}")
    resolve_navigator(f'openai:m@system="{system}"')
    bodies: list[dict[str, object]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        text = json.dumps({"selected": ["refunds"], "rationale": "money back"})
        return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": text}}]})

    with OpenAICompatibleNavigator(transport=httpx.MockTransport(handler)) as nav:
        nav.choose(NavigatorRequest(REQUEST.query, f'openai:m@system="{system}"', REQUEST.current,
                                    REQUEST.candidates, 3, CancellationToken()))
    assert bodies[0]["messages"][0] == {"role": "system", "content": "Quoted prompt."}
