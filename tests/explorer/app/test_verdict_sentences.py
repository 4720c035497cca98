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


async def test_the_step_panel_says_whose_fault_a_miss_was_at_its_first_wrong_turn() -> None:
    """Issue 46, point 3: a walk whose query is a question of the set beside the corpus, missed, is judged on a worker
    once it ends (the screen keeps taking keys); at its first wrong turn the step panel says whose fault it was and
    where a flat search ranks the expected node, at no other step. At 80×24, then 120×40."""
    from .reading import step_text

    settings = WalkSettings(QUERY, "lexical:default", max_nodes_visited=6)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        walk = app.walk_screen.view.walk
        await wait_for(pilot, lambda: walk.judged is not None, timeout=120)  # the judge's first look reads the corpus
        step, said = walk.judged
        assert said == ("the navigator erred: at the roots, what it was shown ranks 'Employee policies' 1st of 9 (its "
                        "content 1st), and it chose 'onboarding'", "a flat search finds it 1st: the walk lost it")
        history = walk.history
        assert step == 3 and history.cursor == len(history.events)  # the answer at the roots; the walk at its end
        assert "Fault   " not in step_text(app)
        await pilot.press("B")  # the first step, then on to the wrong turn, a key at a time
        await wait_for(pilot, lambda: history.cursor == 1)
        await pilot.press("n", "n")
        await wait_for(pilot, lambda: history.cursor == step)
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            await wait_for(pilot, lambda: "Fault   the navigator erred: at the roots" in
                           " ".join(step_text(app).split("\n")))
            text = " ".join(step_text(app).split())
            assert "Flat a flat search finds it 1st: the walk lost it" in text
            assert "ranks 'Employee policies' 1st of 9 (its content 1st), and it chose 'onboarding'" in text
        await pilot.press("n")
        await wait_for(pilot, lambda: history.cursor == step + 1)
        assert "Fault   " not in step_text(app)
