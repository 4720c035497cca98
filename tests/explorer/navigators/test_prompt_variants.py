"""Prompt variants, headless: the edited user message turned back into a template, kept as two files with a
model id that reads them; a name taken with other words, or a bad name, refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import NavigatorRequest, NodeView
from explorer.navigators.folders import CACHE_DIR_ENV, Folders, folders_for, user_folders
from explorer.navigators.llm.prompt import read_prompts, render, user_prompt
from explorer.navigators.prompt_variants import (
    VariantError,
    keep_variant,
    template_from,
)
from explorer.navigators.what_if import EditedRequest

CANDIDATES = (NodeView("billing", "Billing", "Invoices and refunds"), NodeView("plans", "Plans", "Pricing"))
REQUEST = NavigatorRequest("How long do refunds take?", "openai:m", None, CANDIDATES, 7)
LATER = NavigatorRequest("How long do refunds take?", "openai:m", NodeView("billing", "Billing", "Invoices"),
                         (NodeView("refunds", "Refunds", "Money back"),), 4)


def edited(user: str, system: str = "Be brief.") -> EditedRequest:
    return EditedRequest(model="openai:m", system=system, user=user, query=REQUEST.query, current=None,
                         candidates=CANDIDATES, remaining_visits=7, temperature=0.5)


def test_the_edited_user_message_becomes_a_template_that_renders_every_later_offer() -> None:
    user = user_prompt(REQUEST) + "\nPrefer money."
    template = template_from(user, REQUEST)
    assert render(template, REQUEST) == user
    assert render(template, LATER) == user_prompt(LATER) + "\nPrefer money."
    assert "Remaining visits: {{remaining_visits}}." in template and "{{candidates}}" in template


def test_a_variant_is_kept_as_two_files_and_a_model_id_that_reads_them(tmp_path: Path) -> None:
    user = user_prompt(REQUEST) + "\nPrefer money."
    variant = keep_variant(edited(user), "", tmp_path / "prompts")
    system, prompt = tmp_path / "prompts" / "v2.system.txt", tmp_path / "prompts" / "v2.prompt.txt"
    assert (variant.name, variant.system_file, variant.prompt_file) == ("v2", system, prompt)
    assert variant.model_id == f"openai:m@temperature=0.5,system={system},prompt={prompt}"
    prompts = read_prompts(system, prompt)
    assert prompts.system == "Be brief."
    assert prompts.template is not None and render(prompts.template, LATER) == user_prompt(LATER) + "\nPrefer money."
    assert keep_variant(edited(user), "v2", tmp_path / "prompts") == variant  # the same words: the same variant


def test_a_name_taken_with_other_words_or_a_bad_name_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    keep_variant(edited("one"), "v2", folder)
    with pytest.raises(VariantError) as taken:
        keep_variant(edited("two"), "v2", folder)
    assert str(taken.value) == f"{folder / 'v2.prompt.txt'}: a variant v2 with other words is kept there; type another name"
    assert (folder / "v2.prompt.txt").read_text(encoding="utf-8") == "one"
    with pytest.raises(VariantError) as bad:
        keep_variant(edited("one"), "../up", folder)
    assert str(bad.value) == "variant name '../up': use letters, digits, '.', '_' or '-' (e.g. v2)"


def test_the_prompts_folder_is_beside_the_corpus_never_the_cache_unless_a_program_names_one(tmp_path: Path) -> None:
    corpus = tmp_path / "work" / "handbook.yaml"
    users = user_folders({CACHE_DIR_ENV: str(tmp_path / "cache" / "llm")})
    assert users == Folders(tmp_path / "cache" / "llm")
    assert users.prompts_for(corpus) == tmp_path / "work" / "prompts"  # the person's work, beside the corpus
    assert folders_for(tmp_path / "given" / "llm").prompts_for(corpus) == tmp_path / "work" / "prompts"
    assert user_folders({CACHE_DIR_ENV: "off"}).prompts_for(corpus) == tmp_path / "work" / "prompts"
    named = Folders(None, tmp_path / "mine")  # --prompts DIR
    assert named.prompts_for(corpus) == tmp_path / "mine"
