"""After S, the tree tells the stability run's counts from the walk on screen's own marks: the walk's mark (✗ not
chosen) stays the walk on screen's, and the count says in words that it counts other walks
(``chosen 3/3 walks``), whole at 80x24 and 120x40 (the id gives way first): the tree and the help's legend are read
at 80x24, then again after the terminal is resized to 120x40 in the same app."""

from __future__ import annotations

import threading

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.tui.screens.help import HelpScreen
from explorer.tui.screens.stability import StabilityScreen

from .helpers import make_app, resize, wait_for
from .reading import all_text, text_at, tree_row

QUERY = "How are refunds issued?"


class BillingFirst(TreeNavigator):
    """The first walk to ask chooses billing at the roots; every later one, plans. Below the roots, lexical."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.lock = threading.Lock()
        self.walks = 0

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        if request.current is None:
            with self.lock:
                self.walks += 1
                first = self.walks == 1
            return NavigatorChoice(("billing",) if first else ("plans",), "first billing, then plans")
        return self.inner.choose(request)  # type: ignore[return-value]


PLANS = {
    (80, 24): "✗ ▶ Plans and prici…  3/3 walks",  # the word 'chosen' goes first, then the id
    (120, 40): "✗ ▶ Plans and pricing  chosen 3/3 walks",  # the id gives way to the count
}


async def test_a_node_the_walk_on_screen_did_not_choose_says_how_many_stability_walks_did():
    app = make_app(QUERY, navigator=BillingFirst(), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        assert tree_row(app, "plans") == "✗ ▶ Plans and pricing  plans"  # the walk on screen chose billing
        await pilot.press("S")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PromptScreen")
        await pilot.press("3", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, StabilityScreen))
        panel = app.screen
        await wait_for(pilot, lambda: panel.stability is not None)
        assert " ".join(text_at(panel, "#stability-hint").split()) == (
            "The tree says \"chosen k/N walks\" beside each node these walks chose; its marks stay the walk on "
            "screen's · Escape closes")
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, StabilityScreen))
        for size, plans in PLANS.items():
            await resize(pilot, size)
            await counts_and_legend(pilot, plans)


async def counts_and_legend(pilot, plans: str) -> None:
    """The plans row as ``plans`` (not chosen by the walk on screen, chosen by all 3 of S's), billing's row its own
    mark and no count; the help's legend of both; Escape closes the help."""
    app = pilot.app
    assert tree_row(app, "plans") == plans
    billing = tree_row(app, "billing")
    assert billing is not None and billing.startswith("• 1 ▼ Billing") and "chosen" not in billing
    await pilot.press("question_mark")
    await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
    legend = " ".join(all_text(app.screen).split())
    assert ("Tree marks, for the walk on screen: ◆ current · ? offered · ✓ chosen · ⚑ chosen by a forced "
            "decision · ✗ not chosen ·") in legend
    assert ("After S, \"chosen 7/10 walks\" at a row's end (and its heat colour) counts the stability run's "
            "walks, not the one on screen: a ✗ row can say \"chosen 3/3 walks\".") in legend
    await pilot.press("escape")
    await wait_for(pilot, lambda: not isinstance(app.screen, HelpScreen))
