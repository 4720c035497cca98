"""Regenerate the README's screenshots: a walk compared with its fork on the sample handbook (docs/explorer.svg), and
the evaluation screen's cost/quality curve, the handbook's question set swept under depth-first and best-first with
semantic:hybrid (docs/policy-curve.svg).

Run: .venv/bin/python docs/screenshot.py  (writes both)
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from explorer.corpora import load_corpus  # noqa: E402
from explorer.navigators import resolve_navigator  # noqa: E402
from explorer.tui.app import ExplorerApp  # noqa: E402
from explorer.walk_settings import WalkSettings  # noqa: E402


async def main() -> None:
    os.chdir(ROOT)  # paths as a person types them
    corpus = load_corpus("sample_corpora/handbook.yaml")
    model = "script:sample_corpora/scripts/hallucinated-branch.yaml"
    settings = WalkSettings("How do I get a refund?", model, max_nodes_visited=6)
    app = ExplorerApp(corpus, settings, navigator=resolve_navigator(model), start_walk=True)
    async with app.run_test(size=(150, 42)) as pilot:
        # Walk 1 to its end: billing, then an id never offered (refund-policy) and refunds.
        await pilot.press("c")
        while app.walk_screen.view.history is None or app.walk_screen.view.history.end is None:
            await pilot.pause(0.05)
        first = app.walk_screen.view.history
        # Fork it at billing's offer (step 5): answer invoices instead (the original answer starts ticked: take back
        # refunds, 5, and the id never offered, typed again), and let the walk go on.
        await pilot.press("B", *"ffff", "e", "5", "i", *"refund-policy", "enter", "1", "a")
        while app.walk_screen.view.history is first:
            await pilot.pause(0.05)
        await pilot.press("c")
        while app.walk_screen.view.history.end is None:
            await pilot.pause(0.05)
        # Compare the fork with walk 1: both on the tree, both answers side by side.
        await pilot.press("D", "enter")
        while app.walk_screen.view.comparing is None:
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        app.save_screenshot(filename="explorer.svg", path=str(ROOT / "docs"))


async def policy_curve() -> None:
    """E, Enter (the set beside the corpus), p, Enter (budgets 3,5,8,15): the curve, by keys."""
    from explorer.tui.evaluation_screen import EvaluationScreen
    from explorer.tui.screens.evaluation_sweep import SweepScreen

    os.chdir(ROOT)
    corpus = load_corpus("sample_corpora/handbook.yaml")
    model = "semantic:hybrid"
    app = ExplorerApp(corpus, WalkSettings("", model), navigator=resolve_navigator(model))
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("escape", "E")
        while not getattr(app.screen, "ready", False):
            await pilot.pause(0.05)
        await pilot.press("enter")
        while not (isinstance(app.screen, EvaluationScreen) and app.screen.sides
                   and all(side.over for side in app.screen.sides.values())):
            await pilot.pause(0.05)
        await pilot.press("p")
        while not getattr(app.screen, "ready", False):
            await pilot.pause(0.05)
        await pilot.press("enter")
        while not (isinstance(app.screen, SweepScreen) and app.screen.over):
            await pilot.pause(0.05)
        await pilot.pause(0.5)
        app.save_screenshot(filename="policy-curve.svg", path=str(ROOT / "docs"))


if __name__ == "__main__":
    asyncio.run(main())
    asyncio.run(policy_curve())
