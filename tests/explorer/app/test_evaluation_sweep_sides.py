"""``b`` sweeps A, B or both (issue 36, point 4), by keys over the OpenAI-compatible stub on 127.0.0.1 that answers
by the system message it is sent: the original as A, its prompt variant v2 as B. A picker asks which side (Down enters
the list, Enter accepts), the chart draws hit@3 by budget with a line per side beside each budget's figures, only the
largest budget's calls are made (the stub's requests are counted), and ``H`` writes the same chart as an HTML page.
One app at 80×24, resized to 120×40."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser
from itertools import pairwise
from pathlib import Path

import pytest
from rich.text import Text
from textual.widgets import DataTable, OptionList

from core import TreeNavigator
from explorer.corpora.questions import load_questions
from explorer.navigators.folders import Folders
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.evaluation_sweep import SweepScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.budget_chart import BudgetChartView
from explorer.walks.evaluation import Side, draw_chart, flat_line, hit_at_3_chart

from ..http_stub import StubServer
from .helpers import HANDBOOK_PATH, make_app, resize, wait_for
from .llm_stub import MODEL, QUERY, SMALL, small_set_and_money_variant
from .reading import option_prompts, prompt_title, shown, table_columns, table_rows, text_at

A, B = f"A {MODEL}", f"B {MODEL} with prompt v2"
BOTH_FIGURES = [
    "  budget  hits  hit@3  prec.  calls",
    "A      2   0/4      0     0%      0",
    "B      2   0/4      0     0%      0",
    "A     15   2/4      2    50%     12",
    "B     15   1/4      1    25%     12",
]
"""Each side's figures at budgets 2 and 15: at 15 what the evaluation itself found (A hits 2 of 4, B 1), at 2 the
largest budget's decisions re-walked (no call)."""
FLAT = ["flat search: hit@3 2/4, any budget"]
"""The flat search's figure under them (the default judge ranking every node, no tree; either side alike)."""
FLAT_LEGEND = "━━ flat search (no tree)"


class Page(HTMLParser):
    """The text of an HTML page, and whether it holds a script."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.script = self.script or tag == "script"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


async def side_picked(pilot, app, keys: tuple[str, ...]) -> None:  # type: ignore[no-untyped-def]
    """``b``, then the side picker answered with ``keys`` (Down enters its list, Enter accepts)."""
    await pilot.press("b")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
    assert prompt_title(app) == f"Budget sweep of which side? {A}, {B}, or both"
    assert option_prompts(app.screen.query_one(OptionList)) == ["both", "A", "B"]
    await pilot.press(*keys)
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready
                   and prompt_title(app).startswith("Budget sweep with"))


def charted(screen: SweepScreen, legend: list[str]) -> None:
    """The chart on screen is the chart module's drawing of the sweep at the widget's size, with the flat search's
    level line (2 of 4 questions), its legend ``legend``."""
    view = screen.query_one(BudgetChartView)
    size = view.content_size
    assert screen.flat == 2
    chart = flat_line(hit_at_3_chart(screen.named()), screen.flat)
    assert chart.series[-1].name == "flat search (no tree)" and {v for _, v in chart.series[-1].points} == {2.0}
    drawn = Text.from_ansi(draw_chart(chart, size.width, size.height, colour=True)).plain
    lines = shown(view).splitlines()
    assert shown(view) == drawn and lines[-len(legend):] == legend
    assert lines[0].strip() == "hit@3 of 4 questions, by visit budget"
    top = max(value for line in hit_at_3_chart(screen.named()).series for _, value in line.points)
    ticks = [int(line.split("┤")[0]) for line in lines if "┤" in line]
    assert ticks[0] <= min(top + 1, 4)  # the axis tops a question over the best figure, at most all
    assert len({a - b for a, b in pairwise(ticks)}) <= 1  # evenly spaced (issue 45)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_b_sweeps_a_b_or_both_with_a_line_per_side_and_h_writes_the_chart_as_a_page(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders,
        tmp_path: Path) -> None:
    small, variant = small_set_and_money_variant(tmp_path)
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders,
                   evaluate=(load_questions(small), variant))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        assert isinstance(evaluation, EvaluationScreen)
        await wait_for(pilot, lambda: Side.B in evaluation.sides and all(s.over for s in evaluation.sides.values()))
        asked = len(variant_server.requests)

        # Both: Down enters the list at "both", Enter accepts it; then the budgets.
        await side_picked(pilot, app, ("down", "enter"))
        assert prompt_title(app) == f"Budget sweep with {A} and {B}: the visit budgets (3,5,8,15)"
        await pilot.press(*"15,2", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.over)
        screen = app.screen
        assert isinstance(screen, SweepScreen)
        assert len(variant_server.requests) == 2 * asked  # each side's walks at 15 asked again; none at 2
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            assert text_at(screen, "#sweep-title") == (
                f"Budget sweep: small.questions.yaml · 4 questions · {A} and {B} · budgets 2, 15")
            assert text_at(screen, "#sweep-progress-label") == "done 16/16"
            assert text_at(screen, "#sweep-figures").splitlines() == [*BOTH_FIGURES, *FLAT]
            charted(screen, [f"━━ {A}", f"━━ {B}", FLAT_LEGEND])
            table = screen.query_one(DataTable)
            assert table_columns(table) == ["question", "A needs", "B needs", "2", "15", "query"]
            assert [row[:5] for row in table_rows(table)] == [
                ["password-billing", "lands from 15", "not within 15", "··", "✓·"],
                ["sign-in", "lands from 15", "not within 15", "··", "✓·"],
                ["refunds-arrive", "not within 15", "lands from 15", "··", "·✓"],
                ["money-back", "not within 15", "not within 15", "··", "··"],
            ]

        # H: the same chart, figures and questions as one page, offered beside the question set.
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        page = tmp_path / "small.sweep.html"
        assert (prompt_title(app), app.screen.initial) == ("Write the budget sweep as an HTML page in", str(page))
        await pilot.press("home", "ctrl+k", *str(small), "enter")  # over the question set: refused in place
        await wait_for(pilot, lambda: text_at(app.screen, "#prompt-error") != "")
        assert text_at(app.screen, "#prompt-error") == (
            f"the HTML {small} is the question set ({small}); an output must not overwrite an input: choose another "
            "file")
        await pilot.press("home", "ctrl+k", *str(page), "enter")
        await wait_for(pilot, lambda: page.is_file() and app.screen is screen)
        read = Page()
        read.feed(page.read_text(encoding="utf-8"))
        text = "".join(read.text)
        assert not read.script
        assert "hit@3 of 4 questions, by visit budget" in text and f"━━ {A}" in text and f"━━ {B}" in text
        assert "\n".join([*BOTH_FIGURES, *FLAT]) in text and FLAT_LEGEND in text
        assert "  password-billing  A lands from 15 · B not within 15" in text

        # A alone: Down, Down, Enter; one line, one column of marks.
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is evaluation)
        await side_picked(pilot, app, ("down", "down", "enter"))
        assert prompt_title(app) == f"Budget sweep with {A}: the visit budgets (3,5,8,15)"
        await pilot.press(*"2,15", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.over)
        alone = app.screen
        assert isinstance(alone, SweepScreen)
        assert text_at(alone, "#sweep-figures").splitlines() == [
            "budget  hits  hit@3  prec.  calls", *(line[2:] for line in BOTH_FIGURES[1::2]), *FLAT]
        charted(alone, [f"━━ {A}", FLAT_LEGEND])
        assert table_columns(alone.query_one(DataTable)) == ["question", "needs", "2", "15", "query"]


async def test_the_side_picker_refuses_a_side_that_is_not_one_under_the_field(
        variant_server: StubServer, resolved: Callable[[str], TreeNavigator], folders: Folders,
        tmp_path: Path) -> None:
    small = tmp_path / "small.questions.yaml"
    small.write_text(SMALL.format(corpus=HANDBOOK_PATH), encoding="utf-8")
    app = make_app(QUERY, MODEL, navigator=resolved(MODEL), folders=folders,
                   evaluate=(load_questions(small), f"{MODEL}@temperature=0.5"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        evaluation = app.screen
        await wait_for(pilot, lambda: Side.B in evaluation.sides)
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*"C", "enter")
        await wait_for(pilot, lambda: text_at(app.screen, "#prompt-error") != "")
        assert text_at(app.screen, "#prompt-error") == "'C' is no side; type A, B or both"
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is evaluation)
