"""An evaluation answered from the response cache, at 80×24 and 120×40 by keys: the calls column is whole
(``cached``, never ``0 of``), and the totals say the run was cached and what it saved live (issue 27). Read at 80×24,
then again after the terminal is resized to 120×40."""

from __future__ import annotations

from textual.widgets import DataTable

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.navigators.answered import Answered, answered_pair
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.prompt import PromptScreen

from .helpers import make_app, resize, wait_for
from .reading import table_columns, table_rows, text_at


class Cached(TreeNavigator):
    """Every answer read from a response cache: no call made, the first candidate taken."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), "cached", None,
                               (answered_pair(Answered.CACHED, "an identical request"),))


async def test_a_cached_evaluation_says_cached_in_whole_cells_and_what_it_saved():
    app = make_app("", "cached:test", navigator=Cached())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("enter")  # the question set beside the corpus, offered first
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.sides) and all(side.over for side in screen.sides.values()))
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            says_cached(screen)


def says_cached(screen: EvaluationScreen) -> None:
    """The calls column says ``cached`` in every row, whole; the totals say how many answers were cached and what
    that saved live."""
    table = screen.query_one(DataTable)
    calls = table_columns(table).index("calls")
    rows = table_rows(table)
    assert rows and {row[calls] for row in rows} == {"cached"}
    column = table.ordered_columns[calls]
    assert column.get_render_width(table) - 2 * table.cell_padding >= len("cached")  # whole, not "0 of"
    outcomes = [o for o in screen.sides[next(iter(screen.sides))].outcomes if o is not None]
    cached = sum(o.cached for o in outcomes)
    saved = sum(o.chars_saved for o in outcomes) / len(outcomes)
    assert cached > 0 and saved > 0
    assert (f"cached: {cached} answers from the response cache · saved live: {cached / len(outcomes):.1f} "
            f"calls and {saved:,.0f} chars a question") in text_at(screen, "#eval-totals").replace("\n", " ")
