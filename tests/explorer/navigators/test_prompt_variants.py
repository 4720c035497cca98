"""Prompt variants, headless: the edited user message turned back into a template, kept as two files with a
model id that reads them; a name taken with other words, or a bad name, refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import NavigatorRequest, NodeView
from explorer.navigators.folders import CACHE_DIR_ENV, Folders, folders_for, user_folders
from explorer.navigators.llm.prompt import SYSTEM_PROMPT, read_prompts, render, user_prompt
from explorer.navigators.local_model import TUNED_PROMPTS
from explorer.navigators.prompt_variants import (
    VariantError,
    builtin_prompt,
    keep_variant,
    kept_variants,
    template_from,
    variant_diff,
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


def test_the_small_models_ids_template_edited_renders_every_later_offer_too() -> None:
    """local:smollm2 is asked with the ids template (one line per candidate, "Visits left: N"): an edit of its
    request becomes a template, not the first offer frozen into the variant."""
    ids = (TUNED_PROMPTS / "ids.prompt.txt").read_text(encoding="utf-8")
    user = render(ids, REQUEST) + "Money paid back is a refund, under Billing."
    template = template_from(user, REQUEST)
    assert template == ("Query: {{query}}\n\n{{position}}\n\nSections below:\n{{candidates_compact}}\n\n"
                        "Visits left: {{remaining_visits}}.\nMoney paid back is a refund, under Billing.")
    assert render(template, LATER) == render(ids, LATER) + "Money paid back is a refund, under Billing."


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


def test_the_variants_kept_are_listed_by_name_each_with_its_unified_diff_against_the_built_in(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    assert kept_variants(folder) == [] and kept_variants(None) == []
    keep_variant(edited(user_prompt(REQUEST) + "\nPrefer money.", "Be brief.\n" + SYSTEM_PROMPT), "v2", folder)
    keep_variant(edited(user_prompt(REQUEST), SYSTEM_PROMPT), "same", folder)
    (folder / "v10.system.txt").write_text("Only this.\n")  # a system file alone: the built-in template is used
    (folder / "notes.txt").write_text("not a variant\n")
    assert kept_variants(folder) == ["same", "v10", "v2"]
    system, template = builtin_prompt(LATER)
    assert system == SYSTEM_PROMPT and render(template, LATER) == user_prompt(LATER)
    assert variant_diff(folder, "v2", LATER) == (
        "--- the built-in system prompt\n+++ v2.system.txt\n@@ -1 +1,2 @@\n+Be brief.\n " + SYSTEM_PROMPT + "\n\n"
        "--- the built-in user template\n+++ v2.prompt.txt\n@@ -8,3 +8,4 @@\n"
        " Remaining visits: {{remaining_visits}}. Entering a section costs one visit, and so does every section below "
        "it that you enter later, so select only the sections worth it.\n \n"
        ' Answer with JSON only: {"selected": ["<id>", ...], "rationale": "..."}. Use only the ids listed above, '
        "most promising first; an empty list stops here.\n+Prefer money.\n")
    assert variant_diff(folder, "same", LATER) == ("same.system.txt: the built-in system prompt, unchanged\n\n"
                                                   "same.prompt.txt: the built-in user template, unchanged\n")
    assert variant_diff(folder, "v10", LATER) == (
        "--- the built-in system prompt\n+++ v10.system.txt\n@@ -1 +1 @@\n-" + SYSTEM_PROMPT + "\n+Only this.\n\n"
        "v10.prompt.txt: not kept; the built-in user template is used\n")


def test_local_smollm2s_variants_are_diffed_against_the_ids_prompt_it_is_asked_with(tmp_path: Path) -> None:
    folder = tmp_path / "prompts"
    later = NavigatorRequest(LATER.query, "local:smollm2", LATER.current, LATER.candidates, LATER.remaining_visits)
    ids_system = (TUNED_PROMPTS / "ids.system.txt").read_text(encoding="utf-8")
    ids_template = (TUNED_PROMPTS / "ids.prompt.txt").read_text(encoding="utf-8")
    assert builtin_prompt(later) == (ids_system, ids_template)
    folder.mkdir()
    (folder / "v2.system.txt").write_text("Money back is a refund.\n" + ids_system, encoding="utf-8")
    (folder / "v2.prompt.txt").write_text(ids_template, encoding="utf-8")
    assert variant_diff(folder, "v2", later) == (
        "--- the built-in system prompt\n+++ v2.system.txt\n@@ -1 +1,2 @@\n+Money back is a refund.\n "
        + ids_system.rstrip("\n") + "\n\nv2.prompt.txt: the built-in user template, unchanged\n")
