"""The corpus tree beside the walk: every stop marked with its reason, a branch waiting its turn keeps its chosen
mark, and a node found by its title."""

from __future__ import annotations

from textual.widgets import Input, OptionList

from explorer.tui.screens.find import FindScreen
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.state import Mark

from .helpers import SIZE, make_app, script, wait_for
from .reading import option_prompts, text_at, tree_row


async def test_every_stop_shows_on_the_tree_with_its_reason():
    app = make_app("q", model=script("wide-walk-out-of-visits.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        tree = app.query_one(WalkTree)
        assert tree.marks["accounts"] is Mark.STOPPED  # chosen, never entered: no visit left
        assert tree.reasons["accounts"] == "visit_budget_exhausted"
        assert tree.marks["billing"] is Mark.LANDED and tree.reasons["billing"] == "visit_budget_exhausted"
        assert tree.reasons["free-plan"] == "leaf"
        assert tree_row(app, "accounts") == "⊘ ▶ Accounts and sign-in  accounts  visit_budget_exhausted"
        assert tree_row(app, "free-plan") == "■ 2 Free plan  free-plan  leaf"  # the second node entered


async def test_a_branch_waiting_its_turn_keeps_its_chosen_mark():
    app = make_app("q", model=script("provider-failure.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(6):  # ... billing chose refunds and invoices, entered refunds
            await pilot.press("n")
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 7)
        tree = app.query_one(WalkTree)
        assert tree.marks["invoices"] is Mark.CHOSEN
        assert tree.marks["taxes"] is Mark.REJECTED


async def test_find_a_node_by_title_and_go_to_it():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "g")
        assert isinstance(app.screen, FindScreen)
        # It opens empty, the nodes listed in corpus order: no value-like placeholder, no blank list (issue 45,
        # tried as three kinds of user, point 3).
        field = app.screen.query_one(Input)
        assert (field.value, field.placeholder) == ("", "type part of a title or id")
        await wait_for(pilot, lambda: text_at(app.screen, "#find-count") ==
                       "Every node, in corpus order (the first 50: type to narrow)")
        listed = option_prompts(app.screen.query_one(OptionList))
        assert len(listed) == 50 and listed[0] == "Accounts and sign-in  ·  accounts"
        await pilot.press(*"proration")
        await wait_for(pilot, lambda: text_at(app.screen, "#find-count") == "1 match")
        assert option_prompts(app.screen.query_one(OptionList)) == ["Cancelling within 90 days  ·  annual-proration-formula"]
        await pilot.press("enter")
        tree = app.query_one(WalkTree)
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data ==
                       "annual-proration-formula")
