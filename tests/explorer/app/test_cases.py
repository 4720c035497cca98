"""The scripted cases, cancelling, quitting, the manual picker, traces, help and the palette."""

from __future__ import annotations

import pytest
from textual.widgets.input import Selection

from core import NavigatorChose, OnFailure
from explorer.corpora import load_corpus
from explorer.trace import read_trace
from explorer.tui.screens.help import HelpScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.session import save_history
from explorer.walks.state import Mark

from .helpers import HANDBOOK, SIZE, Blocking, hour_long_script, make_app, script, wait_for
from .reading import (
    all_text,
    footer_keys,
    landed_rows,
    next_settings,
    prompt_error,
    results_summary,
    status_text,
    step_text,
    stop_rows,
)


async def test_a_hallucinated_branch_is_shown_as_such_and_lands_the_parent():
    app = make_app("refund", model=script("hallucinated-branch.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(5):  # offered roots, chose billing, entered billing, offered its children, chose
            await pilot.press("n")
        await wait_for(pilot, lambda: sum(isinstance(e, NavigatorChose) for e in app.walk_screen.history.events) == 2)
        step = step_text(app)
        assert "Step 6/6  navigator chose refund-policy, refunds (1 not offered)" in step
        assert "Not offered (hallucinated): refund-policy" in step
        assert "Chose   refunds" in step
        await pilot.press("n")
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 7)
        step = step_text(app)
        assert "Step 7/7  invalid_choice at refund-policy" in step
        assert "Stopped ■ invalid_choice at branch refund-policy" in step
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        assert [(s.reason.value, s.branch, s.landed) for s in app.walk_screen.history.state().stops] == [
            ("invalid_choice", "refund-policy", "billing"), ("leaf", None, "requesting-a-refund")]
        assert ("invalid_choice", "refund-policy") in [(row[1], row[3]) for row in stop_rows(app)]  # reason, branch
        assert app.query_one(WalkTree).marks["billing"] is Mark.LANDED


@pytest.mark.parametrize(("policy", "end", "landed"), [
    ("throw", "failed", []),
    ("empty", "finished", []),
    ("partial", "finished", ["refunds", "invoice-schedule"]),
])
async def test_a_provider_failure_under_each_policy(policy, end, landed):
    app = make_app("q", model=script("provider-failure.yaml"), on_failure=OnFailure(policy), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end is not None)
        assert app.walk_screen.history.end == end
        step = step_text(app)
        if policy != "partial":  # the walk ends at the failure, which stays on screen
            assert "Failed  ScriptedFailure: upstream timeout after 30 s (HTTP 504 from the model gateway)" in step
            assert f"on failure: {policy} — the walk " in step
        else:  # in the results: refunds landed that way, and the walk went on
            assert ("Refunds", "navigator_failed") in [(row[1], row[2]) for row in landed_rows(app)]
        if policy == "throw":
            assert status_text(app) == "failed · see the step panel · e forks · r restarts"
            assert "navigator 'script:" in app.walk_screen.history.error and "upstream timeout after 30 s" in app.walk_screen.history.error
            assert app.walk_screen.history.state().result is None
        else:
            assert [d.id for d in app.walk_screen.history.state().result.documents] == landed
        if policy == "empty":
            assert "Finished: no documents — the navigator failed under on-failure empty: ScriptedFailure" in step
        assert list(app.walk_screen.history.state().landed) == (["refunds", "invoice-schedule"] if policy == "partial" else [])


async def test_cancel_during_a_slow_step_shows_at_once_keeps_the_partial_walk_and_stays_usable():
    navigator = Blocking()  # ignores the token: the screen cannot wait for the navigator to notice the cancel
    app = make_app("parental leave", navigator=navigator, start_walk=True)
    try:
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("n", "n")  # offered roots, then the decision blocks
            await wait_for(pilot, lambda: app.walk_screen.session.busy and navigator.inside.is_set())
            await wait_for(pilot, lambda: status_text(app).startswith("working… "))  # the clock ticks while it waits
            cancelled = app.walk_screen.session
            await pilot.press("x")  # how long this takes: bench/responsiveness.py
            assert app.walk_screen.history.end == "cancelled"
            assert cancelled.token.cancelled
            assert status_text(app) == "cancelled · b steps back · e forks · r restarts"
            assert not navigator.left.is_set()  # shown while the navigator was still blocked
            assert len(app.walk_screen.history.events) == 2 and "offered 9 roots" in step_text(app)  # the partial walk stays
            assert "cancelled · visits used 0/15 · navigator calls 0 · characters shipped 1,003" in results_summary(app)
            await pilot.press("n")  # usable: a new walk starts while the old navigator is still blocked
            await wait_for(pilot, lambda: app.walk_screen.history.end is None and len(app.walk_screen.history.events) == 1)
            assert app.walk_screen.session is not cancelled and not navigator.left.is_set()
            navigator.release.set()  # the late answer is dropped: the old worker ends cancelled
            await wait_for(pilot, lambda: cancelled.over)
            assert cancelled.history.end == "cancelled"
            assert len(app.walk_screen.history.events) == 1
    finally:
        navigator.release.set()


async def test_quitting_while_the_navigator_is_blocked_wakes_it_and_exits(tmp_path):
    app = make_app("parental leave", model=hour_long_script(tmp_path), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.session.busy)  # an hour-long decision: only the quit can end it
        session = app.walk_screen.session
        await pilot.press("q")  # how long quitting takes: bench/responsiveness.py
        await wait_for(pilot, lambda: session.over)
    assert session.history.end == "cancelled" and not session.busy
    assert app.return_code == 0


async def test_quitting_while_paused_ends_the_walk_and_exits():
    app = make_app("refunds", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 1)
        session = app.walk_screen.session
        await pilot.press("q")  # how long quitting takes: bench/responsiveness.py
    assert session.over and session.history.end == "cancelled"  # the worker left its gate and ended before the app
    assert app.return_code == 0


# The manual navigator -----------------------------------------------------------------------------------


async def test_manual_picking_choosing_stopping_and_typing_an_id_that_was_not_offered():
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.picker is not None)
        step = step_text(app)
        assert "Your choice: 1-9 toggle · i type an id or a number (even one not offered) · a answer" in step
        assert " 3 [ ] Billing  billing" in step
        assert status_text(app).startswith("your turn: 1-9 pick · a answer")
        await pilot.press("3", "5", "5")  # billing on, support on then off
        assert app.walk_screen.picker.picked == ("billing",)
        assert " 3 [x] Billing  billing" in step_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.walk_screen.history.events[-1], NavigatorChose))
        assert app.walk_screen.history.events[-1].selected == ("billing",)
        assert app.walk_screen.history.events[-1].rationale == "picked by hand"
        await pilot.press("n", "n", "n")  # entered billing, offered its children, then the picker again
        await wait_for(pilot, lambda: app.walk_screen.picker is not None)
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"ghost", "enter")
        await wait_for(pilot, lambda: app.walk_screen.picker.picked == ("ghost",))
        assert "Typed   ghost" in step_text(app)
        await pilot.press("a")
        await wait_for(pilot, lambda: app.walk_screen.history.events[-1].__class__ is NavigatorChose)
        assert app.walk_screen.history.events[-1].hallucinated == ("ghost",)
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        assert [(s.reason.value, s.landed) for s in app.walk_screen.history.state().stops] == [("invalid_choice", "billing")]


async def test_manual_stop_here_lands_the_current_node():
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.picker is not None)
        await pilot.press("s")
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        assert [(s.reason.value, s.landed) for s in app.walk_screen.history.state().stops] == [("navigator_stopped", None)]


async def test_manual_cancel_while_the_picker_waits():
    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.picker is not None)
        session = app.walk_screen.session
        await pilot.press("x")
        assert app.walk_screen.history.end == "cancelled" and app.walk_screen.picker is None
        assert app.walk_screen.session is None  # a cancelled walk keeps no live session
        await wait_for(pilot, lambda: session.over)


# Traces ---------------------------------------------------------------------------------------------------


async def test_saving_a_trace_and_opening_it_again(tmp_path):
    path = tmp_path / "walk.trace.jsonl"
    app = make_app("refund", model=script("hallucinated-branch.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        events = list(app.walk_screen.history.events)
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
        await wait_for(pilot, lambda: second.walk_screen.history.trace is not None)
        assert second.walk_screen.history.events == events and second.walk_screen.history.cursor == 1
        assert second.query_one("#query").value == "refund"
        await pilot.press("n", "n", "n")
        assert second.walk_screen.history.cursor == 4
        assert status_text(second) == f"viewing step 4 of {len(events)} · f forward · F latest · e fork here"
        await pilot.press("F")
        assert second.walk_screen.history.cursor == len(events)
        assert "Not offered (hallucinated)" not in step_text(second)
        assert second.walk_screen.session is None  # no navigator ran


async def test_opening_a_trace_made_on_another_corpus_is_refused_with_one_line(tmp_path):
    other = tmp_path / "other.yaml"
    other.write_text("source: o\nnodes:\n  - id: a\n    summary: refund\n")
    trace = tmp_path / "t.jsonl"
    first = make_app("refund", corpus=load_corpus(other), start_walk=True)
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: first.walk_screen.history.end == "finished")
        save_history(first.walk_screen.history, first.corpus, trace)
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*str(trace), "enter")
        await wait_for(pilot, lambda: any(n.title == "Cannot open the trace" for n in app.notes))
        assert app.walk_screen.history is None
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


# Help, palette, focus --------------------------------------------------------------------------------------


async def test_help_lists_every_key_and_closes_with_escape():
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "question_mark")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        screen = all_text(app.screen)
        for text in ("Next step", "Continue to the end", "Step back through what already happened",
                     "Cancel the walk: trips its cancellation token", "Set the visit budget", "Save the walk as a "
                     "trace file", "toggle candidate 1-9"):
            assert text in screen, text
        from rich.console import Console

        from explorer.tui.keymap import ALL_KEYS

        console = Console(width=200, record=True, file=__import__("io").StringIO())
        for table in app.screen.query("Static"):
            console.print(table.content)
        listed = " ".join(console.export_text().split())
        for key in ALL_KEYS:  # every key is in the help, scrolled to or not
            assert " ".join(key.help.split()) in listed, key.help
        await pilot.press("escape")
        assert not isinstance(app.screen, HelpScreen)


async def test_the_footer_shows_the_main_keys():
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # out of the query box, whose own keys the footer shows while it has focus
        await wait_for(pilot, lambda: "n Next" in footer_keys(app.screen))  # the footer follows the focus
        footer = footer_keys(app.screen)
        for key in ("n Next", "c Continue", "p Play", "b Back", "f Fwd", "x Cancel", "r Restart", "/ Query",
                    "? Help", "q Quit"):
            assert key in footer


async def test_the_palette_has_every_action():
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        for wanted in ("Settings: switch navigator…", "Settings: set the visit budget…",
                       "Settings: set the depth limit…", "Trace: save the walk as a trace file…",
                       "Trace: open a trace and step through it…", "Screenshot: save an SVG of the screen…",
                       "Walk: cancel (trip the cancellation token)", "Settings: on failure partial"):
            assert any(t.startswith(wanted) for t in titles), wanted


async def test_switching_navigator_from_the_prompt_checks_it(tmp_path):
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press(*"nobody:x", "enter")
        assert isinstance(app.screen, PromptScreen)
        assert "no navigator supports 'nobody:x'" in prompt_error(app)
        app.screen.query_one("#prompt-input").value = "lexical:strict"
        await pilot.press("enter")
        assert app.walk_screen.next_walk.settings.model == "lexical:strict"
        assert "next walk: lexical:strict · budget 15" in next_settings(app)


async def test_escape_leaves_the_query_box_and_slash_returns_to_it():
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        assert app.focused.id == "query"
        await pilot.press("escape")
        assert isinstance(app.focused, WalkTree)
        await pilot.press("slash")
        query = app.query_one("#query")
        assert app.focused is query
        # The box selects its text as it takes the focus (Input.select_on_focus), so what is typed next replaces the
        # query; that happens when the box handles its Focus event, which a key pressed at once used to race.
        await wait_for(pilot, lambda: query.selection == Selection(0, len(query.value)))
        await pilot.press("n")  # typed into the box, not a step
        assert query.value == "n"
        assert app.walk_screen.session is None


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


