"""Who found it, in words (issue 46, point 7): ``T`` on a walk whose query is a question of a set beside the corpus
keeps its expected node marked on the tree and says which order landed it."""

from __future__ import annotations

from core import Policy
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings

from .helpers import HANDBOOK, Explorer, resize, wait_for
from .reading import text_at, tree_row

QUERY = "How much is the home office budget for new employees?"
"""Question ``home-office-budget`` of the handbook's set: it expects ``home-office-setup``."""


async def test_t_keeps_the_expected_node_marked_and_says_which_order_landed_it() -> None:
    settings = WalkSettings(QUERY, "lexical:default", max_nodes_visited=6)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        await pilot.press("T")
        await wait_for(pilot, lambda: len(app.walk_screen.walks) == 2
                       and list(app.walk_screen.walks)[1].history.end == "finished")
        assert list(app.walk_screen.walks)[1].history.settings.policy is Policy.BEST_FIRST
        assert app.walk_screen.view.expected == frozenset({"home-office-setup"})
        said = ("Expected: best-first landed the expected Home office setup; depth-first turned away at the roots")
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            await wait_for(pilot, lambda: said in " ".join(text_at(app.walk_screen, "#compare").split()))
            # B alone entered and landed it, and it stays marked expected (it lost its mark on T before).
            await wait_for(pilot, lambda: (tree_row(app, "home-office-setup") or "").startswith("B Home offic")
                           and (tree_row(app, "home-office-setup") or "").endswith("◎ expected"))
