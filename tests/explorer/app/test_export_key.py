"""`H` (and the palette's "Export"): the walk on screen as one HTML file, drawn in the explorer's own process by the
code of the `export` command, page for page what that command writes from the walk's trace; with files off it is
refused in one line, like every key that writes a file, and so is a file that cannot take it."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys

import pytest
from textual.app import App
from textual.widgets import Input

from explorer.cli.main import main
from explorer.navigators.answer_size import ids_kept
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.walk_screen import WalkScreen
from explorer.walk_settings import WalkSettings
from explorer.walks.walk_list import WalkList
from tests.command_line import run_cli

from .helpers import HANDBOOK, HANDBOOK_PATH, explorer_made_here, make_app, script, wait_for
from .reading import prompt_error

QUERY = "How are refunds issued?"


async def walked_to_the_end(pilot) -> None:
    screen = pilot.app.walk_screen
    await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
    await pilot.press("c")
    await wait_for(pilot, lambda: screen.view.history.ended)


async def test_files_off_refuses_the_export_in_one_line():
    app = make_app(QUERY, start_walk=True, allow_files=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await pilot.press("H")
        await wait_for(pilot, lambda: bool(app.notes))
        assert [n.message for n in app.notes] == ["Opening and saving files is off in this shared session."]
        assert not isinstance(app.screen, PromptScreen)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_h_writes_the_walk_as_one_html_file(tmp_path):
    out = tmp_path / "refunds.html"
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        field = app.screen.query_one(Input)
        assert field.value == "how-are-refunds-issued.walk1.html"
        field.value = str(out)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
        assert [n.message for n in app.notes if "export" in n.message] == [f"Walk exported to {out}"]
    text = out.read_text()
    assert "<title>How are refunds issued?</title>" in text and 'id="walk-data"' in text


def without_nonce(page: str) -> str:
    """The page with its one random part (the script's nonce, new in every file) made constant."""
    (nonce,) = set(re.findall(r'<script nonce="([^"]+)"', page))
    return page.replace(nonce, "NONCE")


class NoProcess:
    """``subprocess.Popen`` while the explorer runs: a process started is a test failed."""

    def __init__(self, *args, **kwargs) -> None:
        raise AssertionError(f"a process was started: {args}")


async def press_h_to(pilot, out) -> None:
    await pilot.press("H")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, PromptScreen))
    pilot.app.screen.query_one(Input).value = str(out)
    await pilot.press("enter")


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_h_draws_in_this_process_the_page_export_writes_from_the_trace(tmp_path, monkeypatch):
    trace, by_key, by_command = tmp_path / "walk.trace.jsonl", tmp_path / "key.html", tmp_path / "command.html"
    monkeypatch.setattr(subprocess, "Popen", NoProcess)
    app = make_app(QUERY, start_walk=True, trace_path=str(trace))
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await press_h_to(pilot, by_key)
        await wait_for(pilot, lambda: any("export" in n.message for n in app.notes), timeout=300)
        assert [n.message for n in app.notes if "export" in n.message] == [f"Walk exported to {by_key}"]
    monkeypatch.undo()
    # export draws the page with asyncio.run: from this test's own loop, it runs on a thread of its own
    done = await asyncio.to_thread(run_cli, "export", trace, "--html", by_command, columns=None)
    assert done.returncode == 0, done.stderr
    assert without_nonce(by_key.read_text()) == without_nonce(by_command.read_text())


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_h_on_a_trace_whose_answer_selects_100000_ids_draws_it_cut_and_says_so(tmp_path, monkeypatch):
    """H draws what export does: a recorded answer cut to the ids a live one keeps, said on the page."""
    trace, out = tmp_path / "t.jsonl", tmp_path / "t.html"
    done = await asyncio.to_thread(run_cli, "walk", HANDBOOK_PATH, QUERY, "--navigator", "lexical:default", "--trace",
                                   trace)
    assert done.returncode == 0, done.stderr
    lines = trace.read_text().splitlines()
    first = next(n for n, line in enumerate(lines) if json.loads(line).get("event") == "navigator_chose")
    event = json.loads(lines[first])
    junk = [f"junk-{n}" for n in range(100_000)]
    event["selected"], event["hallucinated"] = [*event["selected"], *junk], junk
    lines[first] = json.dumps(event)
    trace.write_text("\n".join(lines) + "\n")
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(trace)]) == 0
    app = made[-1]
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.walk is not None)
        await press_h_to(pilot, out)
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
    assert re.findall(r'<p class="meta" id="cut">([^<]*)</p>', out.read_text()) == [
        f"The answer at step {first} selected 100,001 ids: the first {ids_kept(9)} are shown, as a live answer is cut."]


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_h_on_a_fork_says_in_the_header_which_walk_it_forked_and_what_was_forced(tmp_path):
    out = tmp_path / "fork.html"
    app = make_app("annual refund formula", model=script("depth-limit.yaml"), start_walk=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await walked_to_the_end(pilot)
        original = app.walk_screen.view.history
        await pilot.press("B", "f", "f", "f", "f")  # step 5: billing's children are offered
        await pilot.press("e", "5", "1", "a")  # fork: refunds off, invoices on
        await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.ended)
        await press_h_to(pilot, out)
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
    header = re.findall(r'<p class="fork" id="fork">(.*?)</p>', out.read_text())
    assert header == ["fork of walk 1 at decision 2 · forced invoices"]


async def test_h_to_a_file_that_cannot_take_it_says_why_in_one_line(tmp_path):
    """Said under the field, as every save dialog says what the one gate refuses; the dialog stays for another."""
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await press_h_to(pilot, tmp_path)
        await wait_for(pilot, lambda: prompt_error(app) == (
            f"cannot write the HTML to {tmp_path}: it is a folder; name a file in it, e.g. {tmp_path / 'walk.html'}"))
        app.screen.query_one(Input).value = str(tmp_path / "no-such-folder" / "walk.html")
        await pilot.press("enter")
        await wait_for(pilot, lambda: prompt_error(app) == (
            f"cannot write the HTML to {tmp_path / 'no-such-folder' / 'walk.html'}: no folder "
            f"{tmp_path / 'no-such-folder'}"))
        assert isinstance(app.screen, PromptScreen)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_the_manual_navigator_still_asks_this_screen_after_an_export(tmp_path):
    """The export's own walk screen hears nothing: the desk the manual navigator asks stays with this one."""
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        screen = app.walk_screen
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: screen.view.picker is not None)
        await pilot.press("s", "c")
        await wait_for(pilot, lambda: screen.view.history.end == "finished")
        await press_h_to(pilot, tmp_path / "manual.html")
        await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
        await pilot.press("r", "n", "n")
        await wait_for(pilot, lambda: screen.view.history.number == 2 and screen.view.picker is not None)
        assert [n.message for n in app.notes if n.severity == "error"] == []


async def test_quitting_while_the_export_is_drawn_gives_the_streams_back(tmp_path):
    """The export's app holds sys.stdout and sys.stderr while it draws: a quit stops it and waits, so what the
    explorer found there when it started is there after it, whichever ends first."""
    streams = sys.stdout, sys.stderr
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await walked_to_the_end(pilot)
        await press_h_to(pilot, tmp_path / "quit.html")
        await pilot.press("q")
    assert (sys.stdout, sys.stderr) == streams


async def test_a_walk_screen_made_without_a_navigator_resolves_the_model_when_a_walk_needs_it():
    """The export's screen is made with no navigator; one that is asked for a walk after all gets its model's."""
    screen = WalkScreen(HANDBOOK, WalkList(), WalkSettings("", "lexical:strict"), start_query=QUERY)

    class Bare(App[None]):
        CSS_PATH = WalkScreen.CSS_PATH

        def get_default_screen(self) -> WalkScreen:
            return screen

    async with Bare().run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        assert screen.view.history.settings.model == "lexical:strict"
        assert screen.view.walk.navigator is screen.next_walk.navigator
        await pilot.press("c")  # to the end: its worker leaves
        await wait_for(pilot, lambda: screen.view.history.ended)
