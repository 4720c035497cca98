"""Below 80×24 the layout gives way legibly: decoration goes first, the status stays, and a tree row keeps its
title longest (its id shortens first, then its stop reason)."""

from __future__ import annotations

from explorer.tui.widgets.budget_meter import BudgetMeter
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import make_app, script, wait_for
from .reading import drawn_lines, next_settings, tree_rows


async def test_at_80x24_the_status_stays_and_titles_outlast_ids_and_stop_reasons():
    app = make_app("q", model=script("wide-walk-out-of-visits.yaml"), start_walk=True, max_nodes_visited=6)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        tree, meter = app.query_one(WalkTree), app.query_one(BudgetMeter)
        await wait_for(pilot, lambda: any("no visits" in row for row in tree_rows(tree)))
        lines = drawn_lines(meter)
        assert app.screen.region.contains_region(meter.region)  # on screen, as drawn at its width
        assert any("Visits " in line and "6/6 used · 0 left" in line for line in lines)
        assert any("finished · e forks a decision" in line for line in lines)  # the status line, not pushed off
        assert app.screen.region.contains_region(tree.region)
        # As drawn, cut at the tree's edge: the id shortens, then the stop reason (visit_budget_exhausted reads
        # "no visits"), then it goes; every title stays whole.
        assert tree_rows(tree)[1:12] == [
            "├─ ⊘ ▶ Accounts and sign-in",
            "├─ ■ 1 ▼ Plans and pricing",  # entered first (1), then its children (2 to 6)
            "│  ├─ ■ 2 Free plan  free-p…  leaf",
            "│  ├─ ■ 3 Team plan  team-p…  leaf",
            "│  ├─ ■ 4 Business plan  leaf",
            "│  ├─ ■ 5 Enterprise plan  leaf",
            "│  ├─ ■ 6 Free trial  free-…  leaf",
            "│  ├─ ⊘ ▶ Seats  no visits",
            "│  ├─ ⊘ ▶ Changing plans",
            "│  └─ ⊘ Discounts  no visits",
            "├─ ⊘ ▶ Billing  no visits",
        ]


async def test_at_60x20_the_layout_degrades_legibly():
    app = make_app("q", model=script("wide-walk-out-of-visits.yaml"), start_walk=True, max_nodes_visited=6)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        meter = app.query_one(BudgetMeter)
        await wait_for(pilot, lambda: "finished · e forks" in "\n".join(drawn_lines(meter)))
        assert app.screen.region.contains_region(meter.region)
        assert "Visits " in "\n".join(drawn_lines(meter))
        assert next_settings(app) == ""  # decoration goes first: "next walk: ..." is not shown
