"""The explorer honours the judge a person names (``reasoning-explorer CORPUS --judge ...``): the evaluation screen's
verdict column and totals, the step panel at a miss's first wrong turn, ``b``'s flat line — by BM25 with
``--judge lexical:default`` (its own words, not the embeddings'), and no verdict anywhere with ``--judge none``; a
judge there is not is one line and exit 2, before the screen opens."""

from __future__ import annotations

import html
from dataclasses import replace

from textual.widgets import DataTable, Input

from explorer.corpora.questions import load_questions
from explorer.navigators import resolve_navigator
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.evaluation_sweep import SweepScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.budget_chart import BudgetChartView
from explorer.walk_settings import WalkSettings
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .helpers import HANDBOOK, Explorer, make_app, wait_for
from .reading import shown, step_text, table_rows, text_at

HANDBOOK_SET = load_questions(SAMPLES / "handbook.questions.yaml")
PICKED = ("trial-ends", "eu-vat-number", "money-back", "mistyped-too-often")
"""Two hits (lexical:default lands them), then two misses."""
QUESTIONS = replace(HANDBOOK_SET, questions=tuple(q for name in PICKED for q in HANDBOOK_SET.questions
                                                  if q.id == name))
LEXICAL_ROWS = {"trial-ends": ["✓ hit", "", "1st"], "eu-vat-number": ["✓ hit", "", "1st"],
                "money-back": ["✗ miss", "map hid it · Billing", "8th"],
                "mistyped-too-often": ["✗ miss", "navigator erred", "67th"]}
"""Each row's hit, verdict and flat rank as BM25 judges them (the embeddings say ``navigator erred``, ``4th`` and
``map hid it · Accounts and sign…``, ``2nd``: test_evaluation_verdicts.py)."""
LEXICAL_TOTALS = ("misses by verdict: map hid it 1, navigator erred 1 · flat search hit@3 50% (2 of 4) against the "
                  "walk's 50%")


def judged_all(screen: EvaluationScreen) -> bool:
    return bool(screen.sides) and all(
        side.over and side.verdicts is not None and side.verdicts.left == 0
        and all(o is not None and o.flat is not None for o in side.outcomes) for side in screen.sides.values())


async def to_row(pilot, screen: EvaluationScreen, question: str) -> None:  # type: ignore[no-untyped-def]
    """The table's cursor down to ``question``'s row, by keys (the rows are in the set's order)."""
    for _ in QUESTIONS.questions:
        number = screen.cursor_question()
        if number is not None and QUESTIONS.questions[number].id == question:
            return
        await pilot.press("down")
    raise AssertionError(f"no row for {question}")


def rows(screen: EvaluationScreen) -> dict[str, list[str]]:
    return {row[1]: [row[2], *row[5:7]] for row in table_rows(screen.query_one(DataTable))}


async def test_judge_lexical_judges_the_misses_by_bm25_on_the_evaluation_screen() -> None:
    app = make_app(evaluate=(QUESTIONS, None), judge="lexical:default")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: judged_all(screen), timeout=120)
        assert rows(screen) == LEXICAL_ROWS
        assert " ".join(text_at(screen, "#eval-totals").split()).endswith(LEXICAL_TOTALS)
        # Enter on the miss: the step panel says BM25's verdict at its first wrong turn
        says = next(o.blame.says for o in screen.sides[next(iter(screen.sides))].outcomes
                    if o is not None and o.question.id == "money-back" and o.blame is not None)
        assert says.startswith("the map hid it: ")
        await to_row(pilot, screen, "money-back")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        walk = app.walk_screen.view.walk
        await wait_for(pilot, lambda: walk is not None and walk.judged is not None, timeout=120)
        assert walk is not None and walk.judged is not None and walk.judged[1][0] == says
        step = " ".join(step_text(app).split())
        assert step.startswith("Step 3/") and f"Fault {' '.join(says.split())}" in step


async def test_judge_none_says_no_verdict_on_the_evaluation_screen_nor_on_the_step_panel() -> None:
    app = make_app(evaluate=(QUESTIONS, None), judge="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.sides) and all(side.over for side in screen.sides.values()))
        assert screen.judge is None and all(side.verdicts is None for side in screen.sides.values())
        assert rows(screen) == {"trial-ends": ["✓ hit", "", ""], "eu-vat-number": ["✓ hit", "", ""],
                                "money-back": ["✗ miss", "—", ""], "mistyped-too-often": ["✗ miss", "—", ""]}
        totals = text_at(screen, "#eval-totals")
        assert "verdict" not in totals and "flat search" not in totals
        # Enter on a miss: its walk at the first wrong turn, the step panel with no verdict
        await to_row(pilot, screen, "money-back")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        walk = app.walk_screen.view.walk
        step = step_text(app)
        assert step.startswith("Step 3/") and "Fault" not in step and "Flat" not in step
        assert walk is not None and walk.judged is None


async def test_judge_none_draws_no_flat_line_on_the_budget_sweep() -> None:
    app = make_app(evaluate=(QUESTIONS, None), judge="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: bool(screen.sides) and all(side.over for side in screen.sides.values()))
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*"3,15", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.over)
        sweep = app.screen
        assert isinstance(sweep, SweepScreen) and sweep.judge is None and sweep.flat is None
        assert "flat search" not in text_at(sweep, "#sweep-figures")
        assert [line.name for line in sweep.query_one(BudgetChartView).chart.series] == ["A lexical:default"]
        assert shown(sweep.query_one(BudgetChartView)).splitlines()[-1] == "━━ A lexical:default"


def test_a_judge_there_is_not_is_one_line_and_exit_2() -> None:
    out = run_cli("sample_corpora/handbook.yaml", "--judge", "bogus")
    assert (out.returncode, out.stdout) == (2, "")
    assert out.stderr.splitlines() == [
        "reasoning-explorer: error: --judge: no judge is named 'bogus': a judge is one of semantic:default (the "
        "bundled static embeddings); lexical:default (BM25 over the same texts); or a navigator that scores "
        "(openai:MODEL)"]


QUERY = "How much is the home office budget for new employees?"
"""Question ``home-office-budget`` of the handbook's set (beside the corpus): it expects ``home-office-setup``;
lexical:default with 6 visits turns away from it at the roots (the embeddings say ``the navigator erred``:
test_export_verdict.py)."""
LEXICAL_SAYS = ("the map misled: at the roots, the title and summary of 'Onboarding' rank it 1st of 9 for the query, "
                "but what lies beneath it only 3rd: its summary promises what its content does not hold (the judge "
                "is the navigator's own scoring: this says only whether the map or the walk was at fault)")
"""BM25's verdict on it: BM25 judging the BM25 navigator says so."""


async def exported(pilot, app, out) -> str:  # type: ignore[no-untyped-def]
    """``H`` to ``out``: the page written."""
    await pilot.press("H")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
    app.screen.query_one(Input).value = str(out)
    await pilot.press("enter")
    await wait_for(pilot, lambda: any("Walk exported to" in n.message for n in app.notes), timeout=300)
    return out.read_text(encoding="utf-8")


async def test_judge_lexical_says_bm25s_verdict_on_both_sides_of_t_and_in_the_export(tmp_path) -> None:
    settings = WalkSettings(QUERY, "lexical:default", max_nodes_visited=6)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True,
                   judge="lexical:default")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        walk = app.walk_screen.view.walk
        await wait_for(pilot, lambda: walk.judged is not None, timeout=120)
        assert walk.judged[1] == (LEXICAL_SAYS, "a flat search finds it 1st: the walk lost it")
        await pilot.press("B", "n", "n")  # the first wrong turn: the answer at the roots, step 3
        await wait_for(pilot, lambda: app.walk_screen.view.history.cursor == 3)
        assert f"Fault {LEXICAL_SAYS}" in " ".join(step_text(app).split())
        page = await exported(pilot, app, tmp_path / "walk.html")
        assert f'<p class="verdict" id="verdict">Missed the expected node — {html.escape(LEXICAL_SAYS)}</p>' in page
        await pilot.press("T")
        walks = app.walk_screen.walks
        await wait_for(pilot, lambda: len(walks) == 2 and all(w.history.end == "finished" for w in walks))
        await wait_for(pilot, lambda: all(w.judged is not None for w in walks), timeout=120)
        text = " ".join(text_at(app.walk_screen, "#compare").split())
        assert f"A verdict: {LEXICAL_SAYS}" in text


async def test_judge_none_says_no_verdict_in_the_export_nor_on_the_step_panel(tmp_path) -> None:
    settings = WalkSettings(QUERY, "lexical:default", max_nodes_visited=6)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True,
                   judge="none")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        page = await exported(pilot, app, tmp_path / "walk.html")
        assert 'id="verdict"' not in page and 'id="flat"' not in page
        assert app.walk_screen.view.walk.judged is None
        await pilot.press("B", "n", "n")  # where a verdict would be said
        await wait_for(pilot, lambda: app.walk_screen.view.history.cursor == 3)
        assert "Fault" not in step_text(app) and "Flat" not in step_text(app)
        await pilot.press("T")
        walks = app.walk_screen.walks
        await wait_for(pilot, lambda: len(walks) == 2 and all(w.history.end == "finished" for w in walks))
        assert "verdict" not in " ".join(text_at(app.walk_screen, "#compare").split())
