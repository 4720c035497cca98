"""Behaviours that matter to daily users: history is never thrown away, quick keys all count, nothing
typed in a prompt can crash the app, every stop shows on the tree, wide offers stay fast."""

from __future__ import annotations

from pathlib import Path

import pytest

from core import (
    CancellationToken,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChose,
    NavigatorRequest,
    NodeView,
    RetrievedDocument,
)
from explorer.corpora import Corpus
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.walk_tree import BATCH, WalkTree
from explorer.walks.session import save_history
from explorer.walks.state import Mark

from .helpers import SIZE, Counting, built_nodes, make_app, script, wait_for
from .reading import footer_keys, prompt_error, step_text, tree_row


async def test_continue_while_viewing_history_goes_to_the_latest_step_without_a_new_walk():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        session, total = app.walk_screen.session, len(app.walk_screen.history.events)
        await pilot.press("b", "b", "c")
        assert app.walk_screen.session is session and app.walk_screen.history.cursor == total == len(app.walk_screen.history.events)


async def test_an_opened_trace_is_never_walked_again_and_one_key_too_many_keeps_it(tmp_path):
    first = make_app("How are refunds issued?", start_walk=True)
    async with first.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: first.walk_screen.history.end == "finished")
        path = save_history(first.walk_screen.history, first.corpus, tmp_path / "t.jsonl")
    navigator = Counting()
    app = make_app(example_query="How are refunds issued?", navigator=navigator)
    async with app.run_test(size=SIZE) as pilot:
        from explorer.trace import read_trace

        app.walk_screen.load_trace(read_trace(path))
        trace = app.walk_screen.history
        assert trace.name == "walk 1 · trace t.jsonl · lexical:default"
        await pilot.press("escape", "c")  # c on a trace goes to what already happened: no navigator call
        assert app.walk_screen.session is None and trace.cursor == len(trace.events) and navigator.calls == 0
        assert "walk 1 · trace t.jsonl · lexical:default" in app.walk_screen.sub_title
        # One n too many after the end: a new walk goes into the list, the trace stays one key away.
        await pilot.press("n")
        await wait_for(pilot, lambda: app.walk_screen.history is not trace and len(app.walk_screen.history.events) == 1)
        assert [w.number for w in app.walks] == [1, 2] and app.walks.items[0].history is trace
        assert "walk 1 · trace t.jsonl" in app.notes[-1].message
        await pilot.press("w")
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: app.walk_screen.history is trace)
        assert trace.cursor == len(trace.events)  # switching keeps each walk's step


async def test_quick_next_presses_are_all_honoured_in_order():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 1)
        await pilot.press("n", "n", "n", "n", "n")
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 6)
        assert app.walk_screen.history.cursor == 6


async def test_markup_and_bad_paths_typed_in_prompts_never_crash_the_app(tmp_path):
    app = make_app(example_query="x")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("#prompt-input").value = "script:/tmp/[/x].yaml"
        await pilot.press("enter")
        assert isinstance(app.screen, PromptScreen)  # refused, with the reason shown literally
        assert "[/x].yaml: no such navigator script" in prompt_error(app)
        await pilot.press("escape", "ctrl+e")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        app.screen.query_one("#prompt-input").value = str(tmp_path / "missing" / "[b]x[/b].svg")
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(app.notes) > 0)
        assert app.is_running
        assert "Cannot save" in app.notes[-1].message


async def test_every_stop_shows_on_the_tree_with_its_reason():
    app = make_app("q", model=script("wide-walk-out-of-visits.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end == "finished")
        tree = app.query_one(WalkTree)
        assert tree.marks["accounts"] is Mark.STOPPED  # chosen, never entered: no visit left
        assert tree.reasons["accounts"] == "visit_budget_exhausted"
        assert tree.marks["billing"] is Mark.LANDED and tree.reasons["billing"] == "visit_budget_exhausted"
        assert tree.reasons["free-plan"] == "leaf"
        assert tree_row(app, "accounts") == "⊘ ▶ Accounts and sign-in  accounts  visit_budget_exhausted"
        assert tree_row(app, "free-plan") == "■ Free plan  free-plan  leaf"


async def test_a_branch_waiting_its_turn_keeps_its_chosen_mark():
    app = make_app("q", model=script("provider-failure.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(6):  # ... billing chose refunds and invoices, entered refunds
            await pilot.press("n")
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 7)
        tree = app.query_one(WalkTree)
        assert tree.marks["invoices"] is Mark.CHOSEN
        assert tree.marks["taxes"] is Mark.REJECTED


async def test_the_picker_keys_show_in_the_footer_when_the_navigator_asks_and_numbers_pick_beyond_nine():
    app = make_app("q", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: app.walk_screen.picker is not None)
        await wait_for(pilot, lambda: "a Answer" in footer_keys(app.screen))  # the footer follows the bindings
        footer = footer_keys(app.screen)
        assert "a Answer" in footer and "s Stop here" in footer and "i Type id" in footer
        await pilot.press("i")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("9", "enter")  # a candidate's number works in the prompt too
        assert app.walk_screen.picker.picked == ("offboarding",)
        await pilot.press("a")
        await wait_for(pilot, lambda: isinstance(app.walk_screen.history.events[-1], NavigatorChose))
        assert app.walk_screen.history.events[-1].selected == ("offboarding",)


def wide_corpus(children: int) -> Corpus:
    docs = [RetrievedDocument("", "root", 0.0, {HierarchyMetadata.ID: "root", "reasoningTitle": "Root",
                                                "reasoningSummary": "refund rules"})]
    docs += [RetrievedDocument("", f"c{i}", 0.0, {HierarchyMetadata.ID: f"c{i}", HierarchyMetadata.PARENT_ID: "root",
                                                  "reasoningTitle": f"Child {i}", "reasoningSummary": "refund"})
             for i in range(children)]
    return Corpus(Path("wide"), "synthetic", "s", "Wide", HierarchyIndex(docs), "0" * 64)


async def test_a_node_with_five_thousand_children_opens_in_batches_and_the_walk_reaches_any_of_them():
    app = make_app("refund", corpus=wide_corpus(5000), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.reveal("c3000")  # how long this takes: bench/responsiveness.py
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "c3000")
        assert tree_row(app, "c3000") == "  Child 3000  c3000"
        assert built_nodes(tree) == 1 + 101  # the root, and c3000 with 50 children on each side
        tree.reveal("c10")
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "c10")
        assert built_nodes(tree) == 1 + 101 + BATCH  # the first batch of the run before c2950
        more = [node for node in tree.root.children[0].children if node.data is None]
        assert [row.label.plain for row in more] == [
            "… 2,450 more: Enter shows the next 500",  # c500..c2949
            "… 1,949 more: Enter shows the next 500",  # c3051..c4999
        ]
        before = built_nodes(tree)
        tree.select_node(more[1])
        await wait_for(pilot, lambda: built_nodes(tree) != before)
        assert built_nodes(tree) == before + BATCH
        await pilot.press("n", "n", "n", "n", "n")  # offer the 5,000 children and choose
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 6)
        app.query_one("#step-scroll").scroll_end(animate=False)  # as a person scrolls the step panel
        await wait_for(pilot, lambda: step_text(app).splitlines()[-1].startswith("… and 4,900 more candidates"))


async def test_the_manual_desk_is_released_when_the_app_ends():
    from explorer.navigators.manual import DESK, NoOneToDecide

    app = make_app("refunds", model="manual:", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: "Your choice:" in step_text(app))  # the desk handed the request to the app
    request = NavigatorRequest("q", "manual:", None, (NodeView("a", "A", ""),), 5, CancellationToken())
    with pytest.raises(NoOneToDecide, match="needs the explorer to supply decisions"):
        DESK.submit(request)  # nobody is listening any more: a later manual walk fails at once, it never hangs
