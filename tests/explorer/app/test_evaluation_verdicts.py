"""Whose fault each miss was, on the evaluation screen (issue 46, points 2-3): a verdict column and the flat
search's rank, the misses counted by verdict beside the flat search's hit@3 in the totals, and ``v`` showing one
verdict's rows at a time — judged on a worker once a miss comes (the screen takes keys meanwhile), nothing judged
when no question missed."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import DataTable

from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.evaluation_screen.cells import flat_cell, verdict_cell, verdict_totals
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import Blame, BlameKind, Side, evaluate
from tests.samples import SAMPLES

from .helpers import HANDBOOK, make_app, resize, wait_for
from .reading import table_columns, table_rows, text_at

QUESTIONS = load_questions(SAMPLES / "handbook.questions.yaml")
TOTALS = ("misses by verdict: map hid it 17, map misled 3, navigator erred 6, no signal 2 · flat search hit@3 85% "
          "(35 of 41) against the walk's 32%")
"""lexical:default over the handbook's 41 questions, judged by the bundled embeddings: 28 misses."""


def judged_all(screen: EvaluationScreen) -> bool:
    """Every side walked and every outcome walked here judged."""
    return bool(screen.sides) and all(
        side.over and side.verdicts is not None and side.verdicts.left == 0
        and all(o is not None and o.flat is not None for o in side.outcomes) for side in screen.sides.values())


def row_of(screen: EvaluationScreen, question: str) -> list[str]:
    return next(row for row in table_rows(screen.query_one(DataTable)) if row[1] == question)


@pytest.mark.slow  # a whole story over 41 walks and their verdicts
async def test_each_miss_says_whose_fault_it_was_and_v_shows_one_verdict_at_a_time() -> None:
    app = make_app(evaluate=(QUESTIONS, None))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: judged_all(screen), timeout=180)  # the judge's first look reads the corpus
        table = screen.query_one(DataTable)
        assert table_columns(table)[2:7] == ["hit", "why missed", "landed", "verdict", "flat"]
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            assert row_of(screen, "mistyped-too-often")[2:7] == ["✗ miss", "turned away", "0",
                                                                 "map hid it · Accounts and sign…", "2nd"]
            assert row_of(screen, "money-back")[5:7] == ["navigator erred", "4th"]
            assert row_of(screen, "chargeback-dispute")[5] == "map misled · Requesting a refu…"
            assert row_of(screen, "charity-pay-less")[5:7] == ["no signal", "21st"]
            assert row_of(screen, "trial-ends")[2:3] + row_of(screen, "trial-ends")[5:7] == ["✓ hit", "", "1st"]
            totals = " ".join(text_at(screen, "#eval-totals").split())
            assert totals.endswith(TOTALS)
        # v: each verdict some row holds, in turn, then every row again; the hint says which is shown.
        for kind, count in ((BlameKind.MAP_HID, 17), (BlameKind.MAP_MISLED, 3), (BlameKind.NAVIGATOR, 6),
                            (BlameKind.NO_SIGNAL, 2)):
            await pilot.press("v")
            await wait_for(pilot, lambda kind=kind: screen.verdict is kind)
            assert table.row_count == count
            assert {row[5].split(" · ")[0] for row in table_rows(table)} == {kind.short}
            assert text_at(screen, "#eval-hint").startswith(f"showing the misses whose verdict is {kind.words} · ")
            assert app.notes[-1].message == (f"Showing the misses whose verdict is {kind.words} ({count}); v for the "
                                             "next verdict")
        await pilot.press("v")
        await wait_for(pilot, lambda: screen.verdict is None)
        assert table.row_count == 41
        assert not text_at(screen, "#eval-hint").startswith("showing")
        assert app.notes[-1].message == "Showing every row: the verdict filter is off."
        # with m too: the misses only, one verdict of them
        await pilot.press("m", "v")
        await wait_for(pilot, lambda: screen.verdict is BlameKind.MAP_HID)
        assert table.row_count == 17
        assert text_at(screen, "#eval-hint").startswith(
            "showing misses only, the misses whose verdict is the map hid it · ")


async def test_an_evaluation_with_no_miss_judges_nothing(tmp_path) -> None:
    (tmp_path / "handbook.yaml").write_text(HANDBOOK.path.read_text())
    hits = tmp_path / "hits.questions.yaml"
    hits.write_text("corpus: handbook.yaml\nquestions:\n"
                    + "".join(f"  - id: {q.id}\n    query: {q.query!r}\n    expect: [{', '.join(q.expect)}]\n"
                              for q in QUESTIONS.questions if q.id in ("trial-ends", "eu-vat-number")))
    app = make_app(corpus=load_corpus(tmp_path / "handbook.yaml"))
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_file(hits)
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: all(side.over for side in screen.sides.values()) and bool(screen.sides))
        await pilot.press("v")
        await wait_for(pilot, lambda: bool(app.notes)
                       and app.notes[-1].message == "No verdict to filter by: no miss was judged.")
        assert not screen.judge.made and not screen.sides[next(iter(screen.sides))].verdicts.begun
        assert [row[2:3] + row[5:7] for row in table_rows(screen.query_one(DataTable))] == [["✓ hit", "", ""]] * 2
        totals = text_at(screen, "#eval-totals")
        assert "verdict" not in totals and "flat search" not in totals


def test_a_verdict_cell_shows_the_node_it_names_literally_and_short() -> None:
    """A node's title is corpus text: shown literally, markup and control characters made visible, cut in cells
    with …; a miss not judged yet says …, one held from a kept run with no verdict —."""
    missed = next(o for o in evaluate(HANDBOOK, QUESTIONS.questions[:3], WalkSettings("", "lexical:default"))
                  if not o.hit)
    blamed = replace(missed, blame=Blame(BlameKind.MAP_HID, "x", "the map hid it: …"), flat=12)
    assert verdict_cell(blamed, lambda _: "[b]x\x1b[/b]").plain == "map hid it · [b]x\\x1b[/b]"
    assert verdict_cell(blamed, lambda _: "退款" * 10).plain == "map hid it · 退款退款退款退款 …"  # cut in cells
    assert verdict_cell(replace(missed, blame=None), str).plain == "…"
    assert verdict_cell(replace(missed, blame=None, history=None), str).plain == "—"
    assert verdict_cell(replace(blamed, blame=Blame(BlameKind.BUDGET, None, "…")), str).plain == "budget"
    assert flat_cell(blamed).plain == "12th" and flat_cell(missed).plain == ""


def test_the_totals_count_the_misses_by_verdict_and_say_what_is_left_to_judge() -> None:
    walked = evaluate(HANDBOOK, QUESTIONS.questions[:3], WalkSettings("", "lexical:default"))
    assert verdict_totals(walked) == "" and verdict_totals(walked, 2) == " · judging: 2 questions left"
    judged = [replace(walked[0], blame=Blame(BlameKind.NAVIGATOR, None, "…"), flat=2),
              replace(walked[1], blame=Blame(BlameKind.MAP_HID, "x", "…"), flat=9), walked[2]]
    assert verdict_totals(judged, 1) == (" · misses by verdict: map hid it 1, navigator erred 1 · flat search hit@3 "
                                         "50% (1 of 2) against the walk's 0% · judging: 1 question left")


async def test_a_verdict_that_comes_for_a_row_the_differences_filter_hides_changes_no_row() -> None:
    """A verdict is judged on a worker and can come after ``d`` hid its question's row (the two sides landed the
    same): the screen stays, the rows shown stay, and the verdict is there when the row shows again."""
    from explorer.tui.evaluation_screen.sides import QuestionJudged

    app = make_app(evaluate=(QUESTIONS, "lexical:wide"))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: judged_all(screen), timeout=180)
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.differences_only)
        table = screen.query_one(DataTable)
        shown = table_rows(table)
        side = screen.sides[Side.A]
        hidden = next(n for n, o in enumerate(side.outcomes)
                      if o is not None and not o.hit and str(n) not in table.rows)
        outcome = side.outcomes[hidden]
        kind = BlameKind.NO_SIGNAL if outcome.blame is not None and outcome.blame.kind is BlameKind.NAVIGATOR \
            else BlameKind.NAVIGATOR
        late = replace(outcome, blame=Blame(kind, None, "judged late"))
        screen.post_message(QuestionJudged(Side.A, side.generation, hidden, late))
        await wait_for(pilot, lambda: side.outcomes[hidden] is late)
        assert app.screen is screen and table_rows(table) == shown
        await pilot.press("d")
        await wait_for(pilot, lambda: not screen.differences_only)
        assert row_of(screen, QUESTIONS.questions[hidden].id)[5] == kind.short
