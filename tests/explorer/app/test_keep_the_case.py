"""`K` (and the palette's "Questions: keep…"): the walk on screen kept as a question — its query, answered by the node
under the tree's cursor (put there with `g`) — appended to a question set the person names (the corpus's own by
default), made when missing, never overwriting an id; the file then passes `validate`. With files off it is refused
in one line, like every key that writes a file (issue 26, part 6). Keys only."""

from __future__ import annotations

import shutil
import subprocess

import pytest
import yaml
from textual.widgets import Input

from explorer.corpora import load_corpus
from explorer.corpora.questions import today
from explorer.tui.screens.prompt import PromptScreen
from tests.command_line import run_cli

from .helpers import HANDBOOK_PATH, SIZE, cursor_to, make_app, wait_for
from .reading import prompt_title

QUERY = "How are refunds issued?"


def corpus_copy(tmp_path):
    """The bundled handbook, alone in a folder of its own (its own question set is not there yet)."""
    path = tmp_path / "handbook.yaml"
    shutil.copyfile(HANDBOOK_PATH, path)
    return load_corpus(path)


async def walked_and_marked(pilot, node_id: str, find: str) -> None:
    """Walk to the end, then mark ``node_id`` with the find prompt (it puts the tree's cursor on it)."""
    app = pilot.app
    screen = app.walk_screen
    await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
    await pilot.press("c")
    await wait_for(pilot, lambda: screen.view.history.ended)
    await cursor_to(pilot, node_id, find)


def validate(path) -> subprocess.CompletedProcess[str]:
    return run_cli("validate", path, columns=None)  # type: ignore[return-value]


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_k_keeps_the_case_in_the_corpus_own_question_set_made_new(tmp_path):
    corpus = corpus_copy(tmp_path)
    kept = tmp_path / "handbook.questions.yaml"
    app = make_app(QUERY, corpus=corpus, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walked_and_marked(pilot, "refund-exceptions", "Refund exceptions")
        await pilot.press("K")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert prompt_title(app) == ("Keep the case “How are refunds issued?” → refund-exceptions as a question in "
                                     "(a question set, made if missing)")
        assert app.screen.query_one(Input).value == str(kept)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.message.startswith("Kept question") for n in app.notes))
        assert [n.message for n in app.notes if n.message.startswith("Kept")] == [
            f"Kept question 'how-are-refunds-issued' in {kept}: “How are refunds issued?” → refund-exceptions"]
    assert kept.read_text() == ('corpus: "handbook.yaml"\nquestions:\n  - id: "how-are-refunds-issued"\n'
                                '    query: "How are refunds issued?"\n    expect: ["refund-exceptions"]\n'
                                f'    kept: "{today()}"\n')  # the day it was kept with K: the check set holds it
    checked = validate(kept)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_k_appends_to_an_existing_set_keeping_its_comments_and_never_its_ids(tmp_path):
    corpus = corpus_copy(tmp_path)
    named = tmp_path / "refunds.questions.yaml"
    named.write_text("# Refund questions, kept by hand.\ncorpus: handbook.yaml\nquestions:\n"
                     "  - id: how-are-refunds-issued   # the first one\n    query: how are refunds issued\n"
                     "    expect: [refunds]\n")
    app = make_app(QUERY, corpus=corpus, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await walked_and_marked(pilot, "refund-exceptions", "Refund exceptions")
        await pilot.press("K")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*str(named))  # the default is selected: typing replaces it
        assert app.screen.query_one(Input).value == str(named)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(n.message.startswith("Kept question") for n in app.notes))
        assert [n.message for n in app.notes if n.message.startswith("Kept")] == [
            f"Kept question 'how-are-refunds-issued-2' in {named}: “How are refunds issued?” → refund-exceptions"]
    text = named.read_text()
    assert text.startswith("# Refund questions, kept by hand.\n") and "# the first one" in text
    assert yaml.safe_load(text)["questions"] == [
        {"id": "how-are-refunds-issued", "query": "how are refunds issued", "expect": ["refunds"]},
        {"id": "how-are-refunds-issued-2", "query": "How are refunds issued?", "expect": ["refund-exceptions"],
         "kept": today()}]
    checked = validate(named)
    assert checked.returncode == 0, checked.stdout + checked.stderr


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_files_off_refuses_keeping_the_case_in_one_line(tmp_path):
    corpus = corpus_copy(tmp_path)
    app = make_app(QUERY, corpus=corpus, start_walk=True, allow_files=False)
    async with app.run_test(size=SIZE) as pilot:
        await walked_and_marked(pilot, "refund-exceptions", "Refund exceptions")
        await pilot.press("K")
        await wait_for(pilot, lambda: bool(app.notes))
        assert [n.message for n in app.notes if "Found" not in n.message] == [
            "Opening and saving files is off in this shared session."]
        assert not isinstance(app.screen, PromptScreen)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["handbook.yaml"]


async def test_k_with_no_node_on_the_tree_cursor_says_what_to_do(tmp_path):
    corpus = corpus_copy(tmp_path)
    app = make_app("", corpus=corpus)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "K")
        await wait_for(pilot, lambda: bool(app.notes))
        assert [n.message for n in app.notes] == [
            "No walk to keep yet: walk a query first, then mark the node that answers it on the tree."]
        assert not isinstance(app.screen, PromptScreen)
