"""The evaluation screen's budget sweep (``b``) and a kept run as its other side (``o``), by keys at 80×24 and
120×40 over the handbook's question set (41 questions): the chart of hit@3 by budget and its figures, the questions by the budget
they need, only the largest budget's calls made for a navigator whose answers cost; the kept run's deltas and the
questions fixed and broken, as ``eval --against`` prints them; a run kept from another question set refused in one
line (issue 26, parts 4 and 5)."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from textual.widgets import DataTable, Input

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.navigators import resolve_navigator
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.evaluation_sweep import SweepScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.budget_chart import BudgetChartView
from explorer.tui.widgets.kept_run_panel import KeptRunPanel
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import KeptRun, RunComparison, evaluate, keep_run
from explorer.walks.evaluation.kept_run import file_sha256
from tests.samples import SAMPLES

from .helpers import HANDBOOK, evaluation_open, make_app, resize, wait_for
from .reading import drawn_lines, prompt_error, prompt_title, shown, table_columns, table_rows, text_at
from .test_evaluation_sweep_sides import Page

SET_PATH = SAMPLES / "handbook.questions.yaml"
QUESTIONS = load_questions(SET_PATH)
SIZES = ((80, 24), (120, 40))
"""A story is read at 80×24, then again after the terminal is resized to 120×40 in the same app."""
FIGURES = [
    "budget   hits  hit@3  prec.  calls",
    "     3   7/41      7    14%      0",
    "     5  10/41     10    17%      0",
    "     8  13/41     13    20%      0",
    "    15  13/41     13    20%    105",
]
"""The handbook's set walked with the lexical navigator's answers at 3, 5, 8 and 15 visits (``eval --budgets``
prints the same figures): the live calls are the largest budget's, the smaller ones re-walked its decisions."""
FLAT_FIGURE = "flat search: hit@3 35/41, any budget"
"""The flat search's figure under the budgets' (the default judge, the bundled embeddings, ranking every node)."""


class Costly(TreeNavigator):
    """The lexical navigator's answers, each counted as a call that costs (as an LLM's do: ``costly_calls``), so a
    sweep asks it for the largest budget only. With ``gate`` set, each call waits until its walk is cancelled (a
    minute at most), and then ends it."""

    costly_calls = True

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.calls = 0
        self.lock = threading.Lock()
        self.gate = False
        self.inside = threading.Event()

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        with self.lock:
            self.calls += 1
        if self.gate:
            self.inside.set()
            request.cancellation.wait(60)
            request.cancellation.raise_if_cancelled()
        return self.inner.choose(request)  # type: ignore[return-value]


async def sweep_typed(pilot, app, budgets: str) -> SweepScreen:
    await pilot.press("b")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
    assert prompt_title(app) == "Budget sweep with costly:lexical: the visit budgets (3,5,8,15)"  # one side: no picker
    await pilot.press(*budgets, "enter")  # the offered budgets are selected: typing replaces them
    await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen))
    return app.screen


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_b_sweeps_the_set_charts_the_hit_rate_by_budget_and_lists_the_questions_by_the_budget_they_need():
    navigator = Costly()
    app = make_app("", "costly:lexical", navigator=navigator)
    async with app.run_test(size=SIZES[0]) as pilot:
        evaluation = await evaluation_open(pilot, app)
        assert navigator.calls == 105  # the evaluation's own run, at the default budget (15)
        screen = await sweep_typed(pilot, app, "8,3,15,5,3")
        await wait_for(pilot, lambda: screen.over)
        for size in SIZES:
            await resize(pilot, size)
            swept(screen, navigator)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is evaluation)
        assert "b budget sweep" in text_at(evaluation, "#eval-hint")


def swept(screen: SweepScreen, navigator: Costly) -> None:
    """The sweep screen once the sweep is over: its title, what it asked, its chart (drawn whole) and its table of
    the questions by the budget they need."""
    assert text_at(screen, "#sweep-title") == ("Budget sweep: handbook.questions.yaml · 41 questions · "
                                               "A costly:lexical · budgets 3, 5, 8, 15")
    assert text_at(screen, "#sweep-how") == ("only the largest budget's navigator calls are made: the smaller "
                                             "budgets re-walk its decisions")
    assert text_at(screen, "#sweep-progress-label") == "done 164/164"
    assert navigator.calls == 105 + 105  # the sweep asked what one walk of the set at 15 visits asks
    # the flat search (the bundled embeddings ranking every node, no tree): its figure, and a level line of its own
    assert text_at(screen, "#sweep-figures").splitlines() == [*FIGURES, FLAT_FIGURE]
    assert [line.rstrip() for line in drawn_lines(screen.query_one("#sweep-figures"))][:6] == [
        *FIGURES, FLAT_FIGURE]  # whole at 80
    chart = screen.query_one(BudgetChartView)
    lines = shown(chart).splitlines()
    assert lines[0].strip() == "hit@3 of 41 questions, by visit budget"
    assert lines[-2:] == ["━━ A costly:lexical", "━━ flat search (no tree)"]
    assert chart.chart.series[1].points == tuple((budget, 35.0) for budget in (3, 5, 8, 15))
    assert lines[-4].split() == ["3", "5", "8", "15"]  # the budgets on the x axis, under their ticks
    table = screen.query_one(DataTable)
    assert table_columns(table) == ["question", "needs", "3", "5", "8", "15", "query"]
    rows = table_rows(table)
    assert len(rows) == 41
    assert rows[0] == ["purchase-order-number", "lands from 3", "✓", "✓", "✓", "✓",
                       "How do we get our purchase order number on an invoice we pa…"]  # clipped, as the
    # evaluation table clips its queries
    assert [row[:6] for row in rows[7:14]] == [
        ["saml-identity-providers", "lands from 5", "·", "✓", "✓", "✓"],
        ["severity-1-business", "lands from 5", "·", "✓", "✓", "✓"],
        ["sla-claim-deadline", "lands from 5", "·", "✓", "✓", "✓"],
        ["removed-seats-refund", "lands from 8", "·", "·", "✓", "✓"],
        ["eu-vat-number", "lands from 8", "·", "·", "✓", "✓"],
        ["enterprise-uptime", "lands from 8", "·", "·", "✓", "✓"],
        ["money-back", "not within 15", "·", "·", "·", "·"],
    ]
    assert {row[1] for row in rows[13:]} == {"not within 15"}


async def test_a_budget_list_that_is_not_one_is_said_under_the_field():
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await evaluation_open(pilot, app)
        await pilot.press("b")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*"3,0,8", "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert prompt_error(app) == "0 is not a visit budget (1-100000); give budgets as whole numbers separated by " \
                                    "commas: 3,5,8,15"
        assert isinstance(app.screen, PromptScreen)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_x_cancels_the_sweep_under_way_and_it_draws_no_chart():
    navigator = Costly()
    app = make_app("", "costly:lexical", navigator=navigator)
    async with app.run_test(size=(120, 40)) as pilot:
        evaluation = await evaluation_open(pilot, app)
        navigator.gate = True
        screen = await sweep_typed(pilot, app, "3,15")
        await wait_for(pilot, navigator.inside.is_set)
        assert text_at(screen, "#sweep-progress-label") == "walking 0/82"
        await pilot.press("x")
        await wait_for(pilot, lambda: screen.over)
        label = text_at(screen, "#sweep-progress-label")
        assert label.startswith("cancelled at ") and label.endswith("/82 walks: Escape, then b sweeps again")
        assert screen.found is None and shown(screen.query_one(BudgetChartView)) == ""
        assert screen.query_one(DataTable).row_count == 0
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is evaluation)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_the_app_quits_with_a_sweep_under_way():
    navigator = Costly()
    app = make_app("", "costly:lexical", navigator=navigator)
    async with app.run_test(size=(80, 24)) as pilot:
        await evaluation_open(pilot, app)
        navigator.gate = True
        await sweep_typed(pilot, app, "3,15")
        await wait_for(pilot, navigator.inside.is_set)
        await pilot.press("q")
    assert app.return_code == 0


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_kept_run_opened_while_the_set_is_walked_compares_on_the_questions_both_hold(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the path typed is short whatever the test runner's temporary folder is
    kept = Path("default.run.json")
    kept_over(kept, SET_PATH, HANDBOOK, "lexical:default")
    navigator = Costly()
    navigator.gate = True
    app = make_app("", "costly:lexical", navigator=navigator)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_questions(QUESTIONS, None)
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, navigator.inside.is_set)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*str(kept), "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        none_yet = ["Nothing to compare yet: no question is held by both runs",  # the sentence first, then figures
                    "Against default.run.json: was lexical:default · now costly:lexical",
                    "  compared on 0 of 41 questions both runs hold",
                    "Was: default.run.json · lexical:default",
                    "Now: A's run · costly:lexical · partial: holds 0 of 41 questions"]
        assert text_at(screen, "#eval-kept-text").splitlines() == none_yet
        await pilot.press("x")
        await wait_for(pilot, lambda: all(side.over for side in screen.sides.values()))
        assert text_at(screen, "#eval-kept-text").splitlines() == none_yet  # the walks cut short are held by neither


def kept_over(path, questions_path, corpus, model: str):
    questions = load_questions(questions_path)
    settings = WalkSettings("", model)
    outcomes = evaluate(corpus, questions.questions, settings, navigator=resolve_navigator(model))
    keep_run(path, questions_path, corpus, settings, outcomes)
    return outcomes


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_o_opens_a_kept_run_as_the_was_side_with_the_deltas_and_the_questions_fixed_and_broken(tmp_path):
    kept_path = tmp_path / "wide.run.json"
    wide = kept_over(kept_path, SET_PATH, HANDBOOK, "lexical:wide")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await evaluation_open(pilot, app)
        panel = screen.query_one(KeptRunPanel)
        assert text_at(screen, "#eval-kept-text") == ""  # hidden until a kept run is opened
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        assert prompt_title(app) == ("Open a kept run (ctrl+s, eval --save-run FILE) as the was side: A lexical:default "
                                     "now against it")
        await pilot.press(*str(kept_path))
        assert app.screen.query_one(Input).value == str(kept_path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen and bool(text_at(screen, "#eval-kept-text")))
        now = screen.sides[next(iter(screen.sides))].outcomes
        sha = file_sha256(SET_PATH)
        expected = RunComparison(KeptRun.of(str(kept_path), WalkSettings("", "lexical:wide"), sha, HANDBOOK, wide),
                                 KeptRun.of("A's run", WalkSettings("", "lexical:default"), sha, HANDBOOK, now))
        lines = text_at(screen, "#eval-kept-text").splitlines()
        assert lines == expected.lines()  # as eval --against prints it
        assert lines[0].startswith("Not fixed: all 26 questions the kept run missed still miss — ")
        assert lines[0].endswith("; broke 2 (home-office-budget, part-time-after-parental-leave)")
        assert lines[1:] == [
            "Against wide.run.json: was lexical:wide · now lexical:default",
            "  compared on 41 of 41 questions both runs hold",
            "  hit        13/41 (was 15/41, -2)",
            "  hit@3      13/41 (was 14/41, -1)",
            "  precision  20% (was 12%, +8 points)",
            "Fixed (0): missed then, hit now",
            "Broken (2): hit then, missed now",
            "  home-office-budget  now: turned away: at step 3, judging the roots, the navigator chose onboarding, "
            "not people-policies",
            "  part-time-after-parental-leave  now: turned away: at step 12, judging parental-leave, the navigator "
            "chose parental-leave-pay, not returning-from-leave",
            f"Was: {kept_path} · lexical:wide",
            "Now: A's run · lexical:default",
        ]
        # At 80×24 a third of the screen holds part of it: Tab to it, End reads the rest.
        for _ in range(4):
            if panel.has_focus:
                break
            await pilot.press("tab")
        assert panel.has_focus and panel.max_scroll_y > 0
        await pilot.press("end")
        await wait_for(pilot, lambda: panel.scroll_y == panel.max_scroll_y)
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: app.size == (120, 40))
        assert text_at(screen, "#eval-kept-text").splitlines() == lines and panel.display


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_run_kept_from_another_question_set_is_refused_in_one_line(tmp_path):
    kept_path = tmp_path / "contract.run.json"
    contract = SAMPLES / "contract.questions.yaml"
    kept_over(kept_path, contract, load_corpus(SAMPLES / "contract.yaml"), "lexical:default")
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await evaluation_open(pilot, app)
        await pilot.press("o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        await pilot.press(*str(kept_path), "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert prompt_error(app) == (f"{kept_path}: kept from another question set (or the set has changed since); "
                                     "compare runs of the same question set")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert text_at(screen, "#eval-kept-text") == ""


async def test_with_files_off_o_ctrl_s_and_r_are_refused_as_the_other_file_keys_are():
    app = make_app(allow_files=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_questions(QUESTIONS, None)  # E is a file key: off too
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        for key in ("o", "ctrl+s", "R"):
            said = len(app.notes)
            await pilot.press(key)
            await wait_for(pilot, lambda said=said: len(app.notes) > said)
            assert app.notes[-1].message == "Opening and saving files is off in this shared session."
            assert app.screen is screen


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_r_refuses_a_run_kept_with_another_model_or_other_settings_under_the_field(tmp_path):
    wide, short = tmp_path / "wide.run.json", tmp_path / "short.run.json"
    kept_over(wide, SET_PATH, HANDBOOK, "lexical:wide")
    questions = load_questions(SET_PATH)
    settings = WalkSettings("", "lexical:default", max_nodes_visited=8)
    keep_run(short, SET_PATH, HANDBOOK, settings, evaluate(HANDBOOK, questions.questions, settings))
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await evaluation_open(pilot, app)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        assert prompt_title(app) == ("Resume a kept run: the questions it holds are kept, only the others walked (on "
                                     "the side with its model)")
        await pilot.press("home", "ctrl+k", *str(wide), "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert prompt_error(app) == (f"{wide}: kept with lexical:wide; this evaluation walks A lexical:default: resume "
                                     f"it with eval --resume {wide}")
        await pilot.resize_terminal(120, 40)
        await wait_for(pilot, lambda: app.size == (120, 40))
        await pilot.press("home", "ctrl+k", *str(short), "enter")
        await wait_for(pilot, lambda: "budget 8" in prompt_error(app))
        assert prompt_error(app) == (
            f"{short}: kept with lexical:default · budget 8 · depth limit 6 · on failure throw, not lexical:default · "
            "budget 15 · depth limit 6 · on failure throw; resume it with the settings it was kept with")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.sides[next(iter(screen.sides))].resumed is None


POLICY_FIGURES = [
    "   budget   hits  hit@3  prec.  calls",
    "DF      3   7/41      7    14%     79",
    "BF      3   7/41      7    20%     79",
    "DF      5  10/41     10    17%     90",
    "BF      5  11/41     11    19%     95",
    "DF      8  13/41     13    20%    102",
    "BF      8  13/41     13    14%    113",
    "DF     15  13/41     13    20%    105",
    "BF     15  16/41     14    11%    135",
]
"""The handbook's set under each policy with the lexical navigator (``eval --compare-policy best-first --budgets
3,5,8,15`` prints the same hit@3: 7, 10, 13, 13 depth-first against 7, 11, 13, 14 best-first)."""


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_p_sweeps_a_under_depth_first_and_best_first_and_charts_the_curve(tmp_path):
    app = make_app()
    async with app.run_test(size=SIZES[0]) as pilot:
        evaluation = await evaluation_open(pilot, app)
        await pilot.press("p")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        assert prompt_title(app) == ("Budget sweep with DF depth-first · lexical:default and BF best-first · "
                                     "lexical:default: the visit budgets (3,5,8,15)")
        await pilot.press("enter")  # the budgets offered
        await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.over)
        screen = app.screen
        for size in SIZES:
            await resize(pilot, size)
            # the flat search (the bundled embeddings ranking every node, no tree): a level line of its own
            assert text_at(screen, "#sweep-figures").splitlines() == [
                *POLICY_FIGURES, "flat search: hit@3 35/41, any budget"]
            lines = shown(screen.query_one(BudgetChartView)).splitlines()
            assert lines[-3:] == ["━━ DF depth-first · lexical:default", "━━ BF best-first · lexical:default",
                                  "━━ flat search (no tree)"]
            assert screen.query_one(BudgetChartView).chart.series[2].points == tuple(
                (budget, 35.0) for budget in (3, 5, 8, 15))
            assert table_columns(screen.query_one(DataTable)) == ["question", "DF needs", "BF needs", "3", "5", "8",
                                                                  "15", "query"]
        # H: the page draws the flat line too, and says its figure under the budgets'
        await pilot.press("H")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        page = tmp_path / "curve.sweep.html"
        await pilot.press("home", "ctrl+k", *str(page), "enter")
        await wait_for(pilot, lambda: page.is_file() and app.screen is screen)
        read = Page()
        read.feed(page.read_text(encoding="utf-8"))
        text = "".join(read.text)
        assert "━━ flat search (no tree)" in text
        assert "\n".join([*POLICY_FIGURES, "flat search: hit@3 35/41, any budget"]) in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is evaluation)
