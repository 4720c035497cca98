"""Traces and screenshots in the explorer: saved and opened again, a trace of another corpus refused, one per
finished walk with --trace, an opened trace never walked again; in a shared session the file keys are off."""

from __future__ import annotations

import pytest

from explorer.corpora import load_corpus
from explorer.trace import read_trace
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.session import save_history

from .helpers import (
    HANDBOOK,
    HANDBOOK_PATH,
    SIZE,
    Counting,
    evaluation_open,
    make_app,
    script,
    typed_into_prompt,
    wait_for,
)
from .reading import landed_content, landed_rows, node_text, prompt_error, status_text, step_text


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_saving_a_trace_and_opening_it_again(tmp_path):
    path = tmp_path / "walk.trace.jsonl"
    app = make_app("refund", model=script("hallucinated-branch.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        events = list(app.walk_screen.view.history.events)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        prompt = app.screen.query_one("#prompt-input")
        assert prompt.value == "refund.walk1.trace.jsonl"
        prompt.value = str(path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: path.exists())
    assert read_trace(path).events == tuple(events)

    second = make_app(example_query="something else")
    async with second.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "ctrl+o")
        await wait_for(pilot, lambda: isinstance(second.screen, PromptScreen))
        await pilot.press(*str(path), "enter")
        await wait_for(pilot, lambda: second.walk_screen.view.history.trace is not None)
        assert second.walk_screen.view.history.events == events and second.walk_screen.view.history.cursor == 1
        assert second.query_one("#query").value == "refund"
        await pilot.press("n", "n", "n")
        assert second.walk_screen.view.history.cursor == 4
        assert status_text(second) == f"viewing step 4 of {len(events)} · f forward · F latest · e fork here"
        await pilot.press("F")
        assert second.walk_screen.view.history.cursor == len(events)
        assert "Not offered (hallucinated)" not in step_text(second)
        assert second.walk_screen.view.session is None  # no navigator ran


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_opening_a_trace_made_on_another_corpus_is_refused_with_one_line(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("source: o\nnodes:\n  - id: a\n    summary: refund\n")
    trace = tmp_path / "t.jsonl"
    first = make_app("refund", corpus=load_corpus(other), start_walk=True)
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: first.walk_screen.view.history.end == "finished")
        save_history(first.walk_screen.view.history, first.corpus, trace)
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*str(trace), "enter")
        await wait_for(pilot, lambda: any(n.title == "Cannot open the trace" for n in app.notes))
        assert app.walk_screen.view.history is None
        opening, note = app.notes
        assert opening.message == f"Opening {trace}…"
        assert note.title == "Cannot open the trace"
        assert "the trace was made on a different corpus" in note.message and "\n" not in note.message


async def test_the_trace_option_saves_every_finished_walk(tmp_path):
    path = tmp_path / "auto.jsonl"
    app = make_app("refunds", start_walk=True, trace_path=str(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: path.exists())
        await pilot.press("r", "c")  # a second walk is kept beside the first, never over it
        second = tmp_path / "auto.walk2.jsonl"
        await wait_for(pilot, lambda: second.exists())
    assert read_trace(path, corpus_sha256=HANDBOOK.sha256).end == "finished"
    assert read_trace(second, corpus_sha256=HANDBOOK.sha256).end == "finished"
    assert read_trace(path).header.created <= read_trace(second).header.created


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_open_trace_offers_the_trace_just_saved_and_refuses_an_empty_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        await pilot.press("ctrl+s", "enter")
        saved = tmp_path / app.walk_screen.view.history.suggested_file_name()
        await wait_for(pilot, lambda: saved.exists())
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        field = app.screen.query_one("#prompt-input")
        assert field.value.endswith(saved.name)
        field.value = ""
        await pilot.press("enter")  # nothing typed: the prompt stays and says why
        assert isinstance(app.screen, PromptScreen)
        assert "Type the path of a trace file." in prompt_error(app)
        await pilot.press(*saved.name, "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history.trace is not None)
        assert app.walk_screen.view.history.name.startswith("walk 2 · trace ")


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_an_opened_trace_is_never_walked_again_and_one_key_too_many_keeps_it(tmp_path):
    first = make_app("How are refunds issued?", start_walk=True)
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: first.walk_screen.view.history.end == "finished")
        path = save_history(first.walk_screen.view.history, first.corpus, tmp_path / "t.jsonl")
    navigator = Counting()
    app = make_app(example_query="How are refunds issued?", navigator=navigator)
    async with app.run_test(size=SIZE) as pilot:
        from explorer.trace import read_trace

        app.walk_screen.opening.load_trace(read_trace(path))
        trace = app.walk_screen.view.history
        assert trace.name == "walk 1 · trace t.jsonl · lexical:default"
        await pilot.press("escape", "c")  # c on a trace goes to what already happened: no navigator call
        assert app.walk_screen.view.session is None and trace.cursor == len(trace.events) and navigator.calls == 0
        assert "walk 1 · trace t.jsonl · lexical:default" in app.walk_screen.sub_title
        # One n too many after the end stays on the trace's end and says what goes on; r is a new walk.
        notes = len(app.notes)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.notes) > notes)
        assert app.walk_screen.view.history is trace and trace.cursor == len(trace.events) and navigator.calls == 0
        assert app.notes[-1].message.startswith(f"The end of walk 1, at step {len(trace.events)}: r restarts it")
        await pilot.press("r")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not trace and len(app.walk_screen.view.history.events) == 1)
        assert [w.number for w in app.walks] == [1, 2] and app.walks.items[0].history is trace
        assert "walk 1 · trace t.jsonl" in app.notes[-1].message
        await pilot.press("w")
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is trace)
        assert trace.cursor == len(trace.events)  # switching keeps each walk's step


async def test_saving_a_screenshot(tmp_path):
    target = tmp_path / "shot.svg"
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("#prompt-input").value = str(target)
        await pilot.press("enter")
        await wait_for(pilot, lambda: target.exists())
    assert target.read_text().startswith("<svg")


async def test_a_shared_session_has_its_file_keys_off():
    app = make_app("How are refunds issued?", start_walk=True, allow_files=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        assert not isinstance(app.screen, PromptScreen)
        await pilot.press("ctrl+o", "ctrl+e")
        assert not isinstance(app.screen, PromptScreen)
        assert [n.message for n in app.notes][-1] == "Opening and saving files is off in this shared session."


async def test_a_shared_session_names_the_corpus_not_its_path_on_this_machine():
    app = make_app("How are refunds issued?", start_walk=True, allow_files=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None and app.walk_screen.view.history.end == "finished")
        await wait_for(pilot, lambda: bool(landed_rows(app)) and bool(landed_content(app)))
        landed = app.walk_screen.view.history.state().landed
        first = next(iter(landed))
        assert landed_content(app).splitlines()[1] == f"handbook.yaml:{HANDBOOK.lines[first]}"
        app.query_one("#tabs").active = "tab-node"
        tree = app.query_one(WalkTree)
        tree.move_cursor(tree.node_for(first))
        await wait_for(pilot, lambda: f"handbook.yaml:{HANDBOOK.lines[first]}" in node_text(app))
        for shown in (landed_content(app), node_text(app)):
            assert str(HANDBOOK_PATH.parent) not in shown


def test_serve_turns_file_keys_off_beyond_loopback():
    import argparse

    from explorer.cli.serve import app_argv

    base = dict(corpus=None, query=None, navigator="lexical:default", max_visits=None, max_depth=None,
                on_failure="throw", autoplay=None, no_files=False, trace=None, otlp_endpoint=None, otlp_file=None)
    assert "--no-files" not in app_argv(argparse.Namespace(host="127.0.0.1", **base))
    assert "--no-files" in app_argv(argparse.Namespace(host="0.0.0.0", **base))


async def test_ctrl_s_refuses_in_one_line_to_save_over_the_corpus_or_the_navigators_file_and_writes_nothing(tmp_path):
    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_bytes(HANDBOOK_PATH.read_bytes())
    navigator_file = tmp_path / "walk.yaml"
    navigator_file.write_bytes((HANDBOOK_PATH.parent / "scripts" / "hallucinated-branch.yaml").read_bytes())
    before = {path: path.read_bytes() for path in (corpus_path, navigator_file)}
    app = make_app("refund", model=f"script:{navigator_file}", corpus=load_corpus(corpus_path), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        for target, what in ((corpus_path, "the corpus"), (navigator_file, f"the file script:{navigator_file} reads")):
            await typed_into_prompt(pilot, app, "ctrl+s", target)  # refused under the field, the prompt kept open
            line = f"the trace {target} is {what} ({target}); an output must not overwrite an input: choose another file"
            await wait_for(pilot, lambda line=line: prompt_error(app) == line)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is app.walk_screen)
        saved = tmp_path / "kept.jsonl"
        await typed_into_prompt(pilot, app, "ctrl+s", saved)
        await wait_for(pilot, lambda: any(n.message == f"Trace saved to {saved}" for n in app.notes))
    assert {path: path.read_bytes() for path in before} == before
    assert not any("Trace saved to" in n.message and "kept" not in n.message for n in app.notes)
    assert read_trace(saved).header.settings.model == f"script:{navigator_file}"


async def test_the_evaluations_ctrl_s_refuses_to_save_the_run_over_its_question_set_or_corpus(tmp_path):
    """The run's save checked nothing: typing the question set's path replaced the set being evaluated."""
    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_bytes(HANDBOOK_PATH.read_bytes())
    questions = tmp_path / "handbook.questions.yaml"
    questions.write_text("corpus: handbook.yaml\nquestions:\n  - {id: refunds, query: refunds, expect: [refunds]}\n")
    before = {path: path.read_bytes() for path in (corpus_path, questions)}
    app = make_app("", corpus=load_corpus(corpus_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await evaluation_open(pilot, app)
        for target, what in ((questions, "the question set"), (corpus_path, "the corpus")):
            await typed_into_prompt(pilot, app, "ctrl+s", target)  # refused under the field, the prompt kept open
            line = f"the run {target} is {what} ({target}); an output must not overwrite an input: choose another file"
            await wait_for(pilot, lambda line=line: prompt_error(app) == line)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen)
    assert {path: path.read_bytes() for path in before} == before
