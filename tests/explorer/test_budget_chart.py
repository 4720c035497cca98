"""The one chart by visit budget (``explorer/walks/evaluation/chart.py``): plotext's drawing, exact, a line per series
with a legend under it; plain unless colour is asked; a name's escape sequence made visible, never drawn."""

from __future__ import annotations

from rich.text import Text

from explorer.walks.evaluation import BudgetChart, Series, draw_chart

CHART = BudgetChart("hit@3 of 8 questions, by visit budget",
                    (Series("depth-first", ((3, 2), (5, 4), (8, 6))),
                     Series("best-first\x1b[2J", ((3, 3), (5, 5), (8, 8)))), 8)


def test_a_chart_is_drawn_as_plain_text_with_a_line_per_series_and_a_legend():
    assert draw_chart(CHART, 40, 14).splitlines() == [
        "  hit@3 of 8 questions, by visit budget",
        " ┌─────────────────────────────────────┐",
        "8┤                                    x│",
        " │                             xxxxxxx │",
        "6┤                      xxxxxxx       •│",
        "4┤              xxxxxxxx•••••••••••••• │",
        " │xxxxxxxxxxxxxx                       │",
        "2┤•••••••                              │",
        " │                                     │",
        " └┬─────────────┬─────────────────────┬┘",
        "  3             5                     8",
        "              visit budget",
        "•• depth-first",
        "xx best-first\\x1b[2J",  # the name's escape sequence shown, not sent to the terminal
    ]  # the axis from a question under the lowest figure to one over the highest (at most all 8): lines apart;
    # the ticks evenly spaced, a step of 1, 2 or 5 times a power of ten (issue 45: 9, 13, 16, 20, 24 read unevenly)


def test_lines_a_question_apart_are_drawn_apart_on_a_scale_of_many_questions():
    close = BudgetChart("hit@3 of 41", (Series("DF", ((3, 10), (8, 19), (15, 19))),
                                        Series("BF", ((3, 11), (8, 20), (15, 21)))), 41)
    rows = draw_chart(close, 60, 14).splitlines()
    assert [row.split("┤")[0].strip() for row in rows if "┤" in row] == ["20", "16", "12"]
    assert any("•" in row for row in rows[2:-5]) and any("x" in row for row in rows[2:-5])  # neither hides the other


def test_in_colour_each_line_has_its_colour_and_no_escape_of_a_name_survives():
    drawn = draw_chart(CHART, 40, 14, colour=True)
    text = Text.from_ansi(drawn)
    assert "\x1b[2J" not in drawn
    assert text.plain.splitlines()[-2:] == ["━━ depth-first", "━━ best-first\\x1b[2J"]
    colours = {str(span.style.color.name) for span in text.spans if span.style and span.style.color}
    assert len(colours) == 2


def test_nothing_is_drawn_without_budgets_or_without_room():
    assert draw_chart(BudgetChart("t", (), 4), 40, 14) == ""
    assert draw_chart(CHART, 20, 14) == "" and draw_chart(CHART, 40, 9) == ""


def test_the_size_asked_is_drawn_whatever_terminal_the_process_has(monkeypatch):
    """plotext limits a figure to the process's terminal (COLUMNS, LINES; 80×24 with none): a served session's
    screen, a wide evaluation screen and the HTML page draw at their own size."""
    monkeypatch.setenv("COLUMNS", "40")
    monkeypatch.setenv("LINES", "10")
    rows = draw_chart(CHART, 120, 30).splitlines()
    assert len(rows) == 30 and max(len(row) for row in rows[:-2]) == 120


def test_no_two_ticks_share_a_row_so_the_drawing_does_not_depend_on_the_hash_seed():
    """A flat search's line far above the walk's (35 of 41 against 7 to 13) makes the span wide on a short plot: the
    ticks 10, 20 and 30 fell two on a row, and plotext drew either label as the process's hash seed fell."""
    walk = BudgetChart("hit@3 of 41", (Series("A", ((3, 7), (5, 10), (8, 13), (15, 13))),), 41).level("flat", 35)
    labels = {height: [row.split("┤")[0].strip() for row in draw_chart(walk, 40, height).splitlines() if "┤" in row]
              for height in (10, 11, 14, 20)}
    assert labels == {10: ["20"], 11: ["20"], 14: ["30", "20", "10"], 20: ["30", "20", "10"]}
