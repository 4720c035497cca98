"""The answer card and the Results tab rank what a walk landed: the navigator's order, what put each node there,
the best one set apart, and the nodes that landed only because the visits ran out marked as stand-ins. Keys only,
at 80×24 and then, the terminal resized in the same app, at 120×40."""

from __future__ import annotations

import pytest
from rich.cells import cell_len

from explorer.tui.widgets.answer_card import AnswerCard
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import make_app, resize, script, wait_for
from .reading import landed_rows, tree_rows

OUT_OF_VISITS = "wide-walk-out-of-visits.yaml"


async def to_the_end(pilot) -> None:
    screen = pilot.app.walk_screen
    await wait_for(pilot, lambda: screen.view.history is not None and bool(screen.view.history.events))
    for _ in range(30):  # a decision a press; this walk has two
        if screen.view.history.ended and screen.view.history.at_latest and not screen.presenter.advancing:
            return
        await pilot.press("n")
        await wait_for(pilot, lambda: not screen.presenter.advancing)
    raise AssertionError("30 presses of n never reached the answer")


def cut(line: str, width: int) -> str:
    """A row as the card cuts it: its end first, so that the title stays whole, after a whole word (a room reads no
    half word, issue 45), a separator left hanging dropped too."""
    if cell_len(line) <= width:
        return line
    space = line.rfind(" ", 0, width)
    while space > 0 and line[space - 1] in " ·›,;:":
        space -= 1
    return line[:space].rstrip() + "…"


CARD = [
    "The answer: Free plan, and 4 more · 1 stand-in",
    "★ 1. Free plan  named 1st of 8 · \"Every plan may matter: take all eight.\" · free-plan · leaf",
    "Also landed, in the navigator's order",
    "■ 2. Team plan  named 2nd of 8 · \"Every plan may matter: take all eight.\" · team-plan · leaf",
    "■ 3. Business plan  named 3rd of 8 · \"Every plan may matter: take all eight.\" · business-plan · leaf",
    "■ 4. Enterprise plan  named 4th of 8 · \"Every plan may matter: take all eight.\" · enterprise-plan · leaf",
    "■ 5. Free trial  named 5th of 8 · \"Every plan may matter: take all eight.\" · free-trial · leaf",
    "Stand-ins, not answers: the walk never got below them",
    "◌ Plans and pricing  stand-in: 3 chosen children never entered · named 1st of 3 · \"Money questions touch "
    "plans, billing and accounts; take them all.\" · plans · visit_budget_exhausted",
]


SIZES = ((80, 24), (120, 40))


def card_ranks(app) -> None:  # type: ignore[no-untyped-def]
    """The answer card as drawn at its size: the answers in the navigator's order, the stand-in set apart, each row
    cut at the card's edge, all of them in view."""
    card = app.walk_screen.query_one(AnswerCard)
    width = card.content_size.width
    words = card.words.splitlines()
    assert [w for w in words if not w.startswith(" ") and " › " not in w and w != "Plans and pricing"] == [
        cut(line, width) for line in CARD]
    assert len(words) <= card.content_size.height
    assert max(cell_len(w) for w in words) <= width


async def test_the_answer_card_ranks_the_answers_and_sets_the_stand_in_apart():
    app = make_app("everything about money", script(OUT_OF_VISITS), start_walk=True, present=True,
                   max_nodes_visited=6)
    async with app.run_test(size=SIZES[0]) as pilot:
        await to_the_end(pilot)
        for size in SIZES:
            await resize(pilot, size)
            card_ranks(app)


async def test_the_results_tab_ranks_the_same_way():
    app = make_app("everything about money", script(OUT_OF_VISITS), start_walk=True, max_nodes_visited=6)
    async with app.run_test(size=SIZES[0]) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and bool(screen.view.history.events))
        await pilot.press("c")  # continue to the end
        await wait_for(pilot, lambda: screen.view.history.ended and screen.view.history.at_latest)
        for size in SIZES:
            await resize(pilot, size)
            await wait_for(pilot, lambda: bool(landed_rows(app)))
            assert [row[:3] for row in landed_rows(app)] == [
                ["★ 1", "Free plan", "leaf"], ["2", "Team plan", "leaf"], ["3", "Business plan", "leaf"],
                ["4", "Enterprise plan", "leaf"], ["5", "Free trial", "leaf"],
                ["◌", "Plans and pricing", "visit_budget_exhausted"]]
            assert landed_rows(app)[-1][3].startswith("stand-in: 3 chosen children never entered · named 1st of 3")


PRESENTED_ROWS = {
    (80, 24): ["│  │  ├─ ■ 5 Invoice sche…", "│  │  └─ ■ 3 Refund deliv…"],
    (120, 40): ["│  │  ├─ ■ 5 Invoice schedule  invo…  leaf", "│  │  └─ ■ 3 Refund delivery  refun…  leaf"],
}


async def test_presenting_a_tree_row_keeps_its_title_longest():
    """The id shortens first, then the stop reason goes, and only then the title (the room reads the title): at
    80×24, then drawn again at 120×40 once the terminal is resized."""
    app = make_app("How are refunds issued?", "lexical:wide", start_walk=True, present=True)
    async with app.run_test(size=SIZES[0]) as pilot:
        await to_the_end(pilot)
        tree = app.query_one(WalkTree)
        for size in SIZES:
            await resize(pilot, size)
            await presented_rows(pilot, tree, PRESENTED_ROWS[size])


async def presented_rows(pilot, tree: WalkTree, rows: list[str]) -> None:
    await wait_for(pilot, lambda: [row for row in tree_rows(tree) if "■" in row] == rows)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_stand_in_s_reason_grows_on_the_results_tab_as_its_stops_come_in():
    """Stepped one event at a time, the Results tab draws the stand-in when the first of its three chosen children
    is left for want of visits (``1 chosen child``), and draws it again as the other two are left: the row never
    keeps the reason of an earlier step."""
    app = make_app("everything about money", script(OUT_OF_VISITS), start_walk=True, max_nodes_visited=6)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and bool(screen.view.history.events))
        seen: list[str] = []
        for _ in range(60):
            if screen.view.history.ended and screen.view.history.at_latest:
                break
            await pilot.press("n")
            await pilot.pause()
            rows = landed_rows(app)
            if rows and rows[-1][1] == "Plans and pricing":
                reason = rows[-1][3].split(" · ")[0]
                if not seen or seen[-1] != reason:
                    seen.append(reason)
        assert seen == ["stand-in: 1 chosen child never entered", "stand-in: 2 chosen children never entered",
                        "stand-in: 3 chosen children never entered"]
