"""Each side of a comparison says its own verdict when it missed (issue 46, point 3): after ``T`` on a walk whose
query is a question of the set beside the corpus, the original (A) and the re-walk in the other order (B) are each
judged on a worker once they end, and the comparison says, under each side's landed line, whose fault its miss was and
where a flat search ranks the expected node; a side that landed it says none. At 80×24, then 120×40."""

from __future__ import annotations

import pytest

from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings

from .helpers import HANDBOOK, Explorer, resize, wait_for
from .reading import text_at

QUERY = "How much is the home office budget for new employees?"
"""Question ``home-office-budget`` of the handbook's set: it expects ``home-office-setup``."""
A_SAYS = ("A verdict: the navigator erred: at the roots, what it was shown ranks 'Employee policies' 1st of 9 (its "
          "content 1st), and it chose 'onboarding' · a flat search finds it 1st: the walk lost it")
B_SAYS = ("B verdict: the budget ran out toward remote-work: 2 of 3 visits went to other branches first — onboarding "
          "(2); at step 3, judging the roots, the navigator chose them · a flat search finds it 1st: the walk lost it")


async def compared_after_t(pilot, app) -> str:  # type: ignore[no-untyped-def]
    """``c`` to the walk's end, ``T``, both sides judged: the comparison's words on one line."""
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
    await pilot.press("T")
    walks = app.walk_screen.walks
    await wait_for(pilot, lambda: len(walks) == 2 and all(w.history.end == "finished" for w in walks))
    await wait_for(pilot, lambda: all(w.judged is not None for w in walks), timeout=120)
    return " ".join(text_at(app.walk_screen, "#compare").split())


@pytest.mark.parametrize(("budget", "said", "unsaid"), [(3, (A_SAYS, B_SAYS), ()), (6, (A_SAYS,), ("B verdict",))])
async def test_each_side_of_t_says_its_verdict_when_it_missed(budget, said, unsaid) -> None:
    settings = WalkSettings(QUERY, "lexical:default", max_nodes_visited=budget)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await compared_after_t(pilot, app)
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            await wait_for(pilot, lambda: all(line in " ".join(text_at(app.walk_screen, "#compare").split())
                                              for line in said))
            text = " ".join(text_at(app.walk_screen, "#compare").split())
            assert all(line not in text for line in unsaid)
            # under each side's landed line and its cost, before the other side's
            assert text.index("A landed ") < text.index(A_SAYS) < text.index("B landed ")
            if budget == 3:
                assert text.index("B landed ") < text.index(B_SAYS) < text.index("Landed in both")
