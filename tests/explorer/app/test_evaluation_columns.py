"""No cut column on the evaluation screen (issue 27): at 80×24 and 120×40, one navigator and two, every column of
the table is as wide as its heading and its longest cell (the table scrolls sideways; no cell is cut in its column),
and the totals wrap instead of running off the screen (at 80×24, then at 120×40 after a resize of the same app). The other two rough edges are tested where they live:
Enter on a miss opens at the wrong decision itself (test_evaluation_screen.py), a cached run says ``cached`` and
what it saved live (test_evaluation_cached.py), both at the two sizes."""

from __future__ import annotations

import pytest
from rich.cells import cell_len
from textual.widgets import DataTable, Label

from explorer.corpora.questions import load_questions
from explorer.tui.evaluation_screen import EvaluationScreen
from tests.samples import SAMPLES

from .helpers import make_app, resize, wait_for
from .reading import drawn_lines, table_rows, text_at

QUESTIONS = load_questions(SAMPLES / "handbook.questions.yaml")


@pytest.mark.parametrize("compare", [None, "lexical:wide"])
async def test_every_column_holds_its_heading_and_its_longest_cell_whole(compare):
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_questions(QUESTIONS, compare)
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.sides) and all(side.over for side in screen.sides.values()))
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            columns_whole(screen)


def columns_whole(screen: EvaluationScreen) -> None:
    """Every column of the table as wide as its heading and its longest cell; the totals wrapped, every word on
    screen."""
    table = screen.query_one(DataTable)
    rows = table_rows(table)
    assert len(rows) == 41
    cut = {}
    for number, column in enumerate(table.ordered_columns):
        room = column.get_render_width(table) - 2 * table.cell_padding
        longest = max([cell_len(column.label.plain)] + [cell_len(row[number]) for row in rows])
        if longest > room:
            cut[column.label.plain] = (room, longest)
    assert cut == {}
    totals = text_at(screen, "#eval-totals")
    drawn = " ".join(line.strip() for line in drawn_lines(screen.query_one("#eval-totals", Label)))
    assert drawn.split() == totals.split()  # wrapped, every word on screen
