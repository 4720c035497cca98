"""The evaluation screen: a question set walked on a worker, one row per question filled as the walks finish, a
filter for misses, the totals; Enter opens a miss in the main view at its first wrong turn with the expected nodes
marked, Escape comes back; a second navigator in a second set of columns, and D opens both walks side by side."""

from __future__ import annotations

import threading

import pytest
from textual.widgets import DataTable

from core import CandidatesOffered, NavigatorChoice, NavigatorChose, NavigatorRequest, TreeNavigator
from explorer.corpora import load_corpus
from explorer.corpora.questions import load_questions
from explorer.navigators import resolve_navigator
from explorer.tui.evaluation_screen import EvaluationScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walk_settings import WalkSettings
from explorer.walks.compare import compare
from explorer.walks.evaluation import Side, evaluate
from tests.samples import SAMPLES

from .helpers import HANDBOOK, SIZE, make_app, resize, wait_for
from .reading import (
    all_text,
    compare_text,
    prompt_title,
    step_text,
    table_columns,
    table_rows,
    text_at,
    text_of,
    tree_row,
)

SET_PATH = SAMPLES / "handbook.questions.yaml"
QUESTIONS = load_questions(SET_PATH)
EXPECTED = evaluate(HANDBOOK, QUESTIONS.questions, WalkSettings("", "lexical:default"))
WIDE = evaluate(HANDBOOK, QUESTIONS.questions, WalkSettings("", "lexical:wide"))


def all_walked(screen: EvaluationScreen) -> bool:
    return all(side.over for side in screen.sides.values()) and bool(screen.sides)


async def open_evaluation(pilot, app, compare: str | None = None) -> EvaluationScreen:
    app.walk_screen.next_walk.evaluate_questions(QUESTIONS, compare)
    await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
    screen = app.screen
    await wait_for(pilot, lambda: all_walked(screen))
    return screen


async def cursor_to(pilot, screen: EvaluationScreen, question_id: str) -> None:
    """Move the table's cursor to a question's row, with the arrow keys (from the top: when comparing, the
    questions that flipped come first, so a row may be above the cursor)."""
    for _ in range(len(QUESTIONS.questions)):
        if screen.query_one(DataTable).cursor_row == 0:
            break
        await pilot.press("up")
    for _ in range(len(QUESTIONS.questions)):
        number = screen.cursor_question()
        if number is not None and QUESTIONS.questions[number].id == question_id:
            return
        await pilot.press("down")
    raise AssertionError(f"no row for {question_id}")


def totals_line(outcomes) -> str:
    count = len(outcomes)
    hits, at_3 = sum(o.hit for o in outcomes), sum(o.hit_at_3 for o in outcomes)
    landed, correct = sum(o.landed_count for o in outcomes), sum(o.correct for o in outcomes)
    branches = sum(o.branch_entered for o in outcomes)
    return (f"{count}/{count} walked · hit rate {hits / count:.0%} ({hits}) · hit@3 {at_3 / count:.0%} ({at_3}) · "
            f"{landed / count:.1f} landed · precision {correct / landed:.0%} · "
            f"branch-entry rate {branches / count:.0%} · valid answers 100%")


async def test_the_palette_command_offers_the_question_sets_beside_the_corpus_and_fills_one_row_per_question():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Evaluate: walk a question set and find where the navigator goes wrong… · E" in titles
        await pilot.press("escape", "E")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        assert "Evaluate: walk a question set (a .questions.yaml for this corpus)" in prompt_title(app)
        prompt = all_text(app.screen)  # the field and the suggestions below it
        assert str(SET_PATH) in prompt  # offered: it names handbook.yaml
        assert "contract.questions.yaml" not in prompt  # beside it, but for another corpus
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: all_walked(screen))
        title = f"Evaluation: handbook.questions.yaml · {len(EXPECTED)} questions on Northwind Cloud handbook"
        assert text_at(screen, "#eval-title").startswith(title)
        assert "A lexical:default · " + totals_line(EXPECTED) in text_at(screen, "#eval-totals")
        assert text_at(screen, "#eval-progress-label") == f"done {len(EXPECTED)}/{len(EXPECTED)}"
        table = screen.query_one(DataTable)
        # What decides a row comes first, the long query last (at 80×24 the first columns are what shows).
        assert table_columns(table) == ["#", "question", "hit", "why missed", "landed", "verdict", "flat", "@3",
                                        "prec.", "br.", "turn", "vis.", "calls", "chars", "query"]
        money = next(row for row in table_rows(table) if "money-back" in row)
        assert "How long until I get my money back?" in money and "✗ miss" in money
        assert table.row_count == len(EXPECTED)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_m_shows_only_the_misses_and_enter_opens_one_at_its_first_wrong_turn():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        screen = await open_evaluation(pilot, app)
        await pilot.press("m")
        misses = [o for o in EXPECTED if not o.hit]
        table = screen.query_one("DataTable")
        await wait_for(pilot, lambda: screen.misses_only)
        assert table.row_count == len(misses)
        assert text_at(screen, "#eval-hint").startswith("showing misses only")
        rows = text_of(table)
        assert "✓ hit" not in rows and "✗ miss" in rows
        await cursor_to(pilot, screen, "scim-deprovisioning")
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, EvaluationScreen))
        history = app.walk_screen.view.history
        assert history.label.startswith("question scim-deprovisioning · lexical:default")
        # The wrong decision itself (the step panel's numbering): the answer at sign-in-methods, right after its
        # offer, where single-sign-on was passed over.
        assert history.cursor == 9
        offer, answer = history.events[history.cursor - 2], history.events[history.cursor - 1]
        assert isinstance(offer, CandidatesOffered) and offer.current.id == "sign-in-methods"
        assert isinstance(answer, NavigatorChose) and answer.current == "sign-in-methods" and answer.valid == ()
        assert "single-sign-on" in answer.rejected  # passed over
        tree = app.query_one(WalkTree)
        assert tree.expected == frozenset({"scim-provisioning"})
        # Revealed and marked expected, its title whole (the id gives way first), beside the wrong decision.
        await wait_for(pilot, lambda: tree_row(app, "scim-provisioning") == (
            "  SCIM user provisioning  scim-provis…  ◎ expected"))
        step = step_text(app)
        assert "Step 9/11  navigator chose nothing" in step
        assert "Chose   nothing: the path stops here" in step
        assert "✗  Single sign-on  single-sign-on" in step  # offered there, and passed over (not chosen)
        assert app.notes[-1].message.startswith(
            "scim-deprovisioning: missed: turned away: at step 9, judging sign-in-methods, the navigator chose "
            "nothing, not single-sign-on · ◎ marks what it expects")
        verdict = "Verdict turned away: at step 9, judging sign-in-methods, the navigator chose nothing, not"
        assert verdict in step  # said beside the walk in the step panel too
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.misses_only and table.row_count == len(misses)  # as it was left
        assert QUESTIONS.questions[screen.cursor_question()].id == "scim-deprovisioning"
        await pilot.press("m")
        await wait_for(pilot, lambda: not screen.misses_only)
        assert table.row_count == len(EXPECTED)
        assert QUESTIONS.questions[screen.cursor_question()].id == "scim-deprovisioning"


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_opening_the_same_question_twice_keeps_one_walk_in_the_list():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        screen = await open_evaluation(pilot, app)
        await cursor_to(pilot, screen, "money-back")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        first = app.walk_screen.view.history
        assert first.cursor == 3 and len(app.walks) == 1  # a wrong turn at the roots: the answer to the first offer
        await pilot.press("f", "f", "escape")
        await wait_for(pilot, lambda: app.screen is screen)
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is not screen)
        assert app.walk_screen.view.history is first and len(app.walks) == 1 and first.cursor == 3
        assert app.query_one(WalkTree).expected == frozenset({"refund-delivery"})


async def test_rows_fill_in_as_the_walks_finish():
    class Gate(TreeNavigator):
        """The lexical navigator for the first three questions; the others wait until the test opens the gate."""

        def __init__(self) -> None:
            self.inner = resolve_navigator("lexical:default")
            self.gate = threading.Event()
            self.lock = threading.Lock()
            self.queries: list[str] = []

        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            with self.lock:
                if request.query not in self.queries:
                    self.queries.append(request.query)
                late = self.queries.index(request.query) >= 3
            if late:  # until the gate opens or the walk is cancelled; a minute at most, so a bug fails, not hangs
                for _ in range(1200):
                    if self.gate.wait(0.05):
                        break
                    request.cancellation.raise_if_cancelled()
            return self.inner.choose(request)  # type: ignore[return-value]

    gate = Gate()
    app = make_app(navigator=gate)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_questions(QUESTIONS)
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: screen.sides[Side.A].done == 3)
        # the screen draws a burst of walks ending a beat later (at most 5 times a second), then holds still
        await wait_for(pilot, lambda: text_at(screen, "#eval-progress-label") == f"walking 3/{len(EXPECTED)}")
        assert "3/41 walked" in text_at(screen, "#eval-totals")
        table = screen.query_one(DataTable)
        hit = table_columns(table).index("hit")  # a walked miss shows … too, in its verdict cell while it is judged
        waiting = [row[1] for row in table_rows(table) if row[hit] == "…"]
        walked = set(gate.queries[:3])  # every row still waiting says so, and only those
        assert waiting == [o.question.id for o in EXPECTED if o.question.query not in walked]
        assert len(waiting) == len(EXPECTED) - 3
        gate.gate.set()
        await wait_for(pilot, lambda: all_walked(screen))
        assert text_at(screen, "#eval-progress-label") == f"done {len(EXPECTED)}/{len(EXPECTED)}"


async def test_x_cancels_the_walks_and_the_app_quits_with_an_evaluation_under_way():
    class Stuck(TreeNavigator):
        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            request.cancellation.wait(60)
            request.cancellation.raise_if_cancelled()
            return NavigatorChoice(())

    app = make_app(navigator=Stuck())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_questions(QUESTIONS)
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await pilot.press("x")
        await wait_for(pilot, lambda: all_walked(screen))
        assert screen.sides[Side.A].run.cancelled
        assert text_at(screen, "#eval-totals").endswith(" · cancelled: partial: holds 0 of 41 questions")
        assert text_at(screen, "#eval-progress-label") == f"done {screen.sides[Side.A].done}/{len(EXPECTED)}"
        assert app.notes[-1].message == ("Evaluation cancelled: what was walked stays, a partial run (ctrl+s keeps it; R "
                                         "resumes a kept run, walking only what it does not hold).")
        app.walk_screen.next_walk.evaluate_questions(QUESTIONS)  # a new evaluation replaces it; this one is left walking when the app quits
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen) and app.screen is not screen)
        await pilot.press("q")
    assert app.return_code == 0


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_second_navigator_fills_a_second_set_of_columns_and_d_opens_both_walks_side_by_side():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        screen = await open_evaluation(pilot, app)
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        await pilot.press("end", *["backspace"] * 30, *"lexical:wide", "enter")
        await wait_for(pilot, lambda: app.screen is screen and "B" in screen.sides and all_walked(screen))
        differ = [a.question.id for a, b in zip(EXPECTED, WIDE, strict=True)
                  if a.hit != b.hit or set(a.landed) != set(b.landed)]
        totals = text_at(screen, "#eval-totals")
        assert "B lexical:wide · " + totals_line(WIDE) in totals
        assert f"{len(differ)} question(s) where A and B land differently" in totals
        columns = table_columns(screen.query_one(DataTable))
        assert "A hit" in columns and "B hit" in columns and "B turn" in columns and "A vs B" in columns
        await pilot.press("d")
        await wait_for(pilot, lambda: screen.differences_only)
        assert screen.query_one("DataTable").row_count == len(differ)
        assert text_at(screen, "#eval-hint").startswith("showing differences only")
        first = differ[0]
        await cursor_to(pilot, screen, first)
        await pilot.press("D")
        await wait_for(pilot, lambda: app.walk_screen.view.comparing is not None)
        a_walk, b_walk = app.walk_screen.view.comparing
        assert a_walk.label.startswith(f"question {first} · lexical:default")
        assert b_walk.label.startswith(f"question {first} · lexical:wide")
        assert app.walk_screen.view.history is a_walk and len(app.walks) == 2
        assert app.query_one(WalkTree).expected == frozenset(next(q for q in QUESTIONS.questions
                                                                  if q.id == first).expect)
        divergence = compare(a_walk, b_walk).divergence
        where = "the roots" if divergence.node is None else divergence.node
        said = f"First divergence: decision {divergence.number}, at {where} — {divergence.kind.value}"
        await wait_for(pilot, lambda: said in compare_text(app))  # the two walks, side by side from where they part
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_compare_from_the_start_and_d_on_a_row_where_they_agree_says_so():
    app = make_app(evaluate=(QUESTIONS, "lexical:wide"))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        screen = app.screen
        await wait_for(pilot, lambda: "B" in screen.sides and all_walked(screen))
        assert screen.sides[Side.B].model == "lexical:wide"
        same = next(a.question.id for a, b in zip(EXPECTED, WIDE, strict=True)
                    if a.hit == b.hit and set(a.landed) == set(b.landed))
        await cursor_to(pilot, screen, same)
        said = len(app.notes)
        await pilot.press("D")
        await wait_for(pilot, lambda: len(app.notes) > said)
        assert app.screen is screen and app.walk_screen.view.comparing is None
        assert f"{same}: A and B landed the same nodes." in app.notes[-1].message
        other = next(a.question.id for a, b in zip(EXPECTED, WIDE, strict=True) if a.hit != b.hit)
        await cursor_to(pilot, screen, other)
        await pilot.press("D")
        await wait_for(pilot, lambda: app.walk_screen.view.comparing is not None)
        assert isinstance(app.focused, WalkTree)  # not the query box the app started in: Escape comes back
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen)


async def test_question_ids_and_queries_are_shown_literally(tmp_path):
    (tmp_path / "handbook.yaml").write_text(HANDBOOK.path.read_text())
    hostile = tmp_path / "hostile.questions.yaml"
    hostile.write_text('corpus: handbook.yaml\nquestions:\n'
                       '  - id: "[bold]x[/bold]\\e]0;owned\\a"\n    query: "refunds [link=http://x]y[/link] \\u202e"\n'
                       '    expect: [refunds]\n')
    app = make_app(corpus=load_corpus(tmp_path / "handbook.yaml"))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        app.walk_screen.next_walk.evaluate_file(hostile)
        await wait_for(pilot, lambda: isinstance(app.screen, EvaluationScreen))
        await wait_for(pilot, lambda: all_walked(app.screen))
        row = table_rows(app.screen.query_one(DataTable))[0]
        assert "[bold]x[/bold]\\x1b]0;owned\\x07" in row
        assert row[-1] == "refunds [link=http://x]y[/link] \\u202e"  # the query is the last column


async def test_a_question_set_for_another_corpus_is_refused_with_one_line():
    app = make_app()
    async with app.run_test(size=SIZE) as pilot:
        app.walk_screen.next_walk.evaluate_file(SAMPLES / "contract.questions.yaml")
        await wait_for(pilot, lambda: len(app.notes) == 1)
        assert not isinstance(app.screen, EvaluationScreen)
        message = app.notes[-1].message
        assert "contract.questions.yaml is a question set for" in message and "contract.yaml" in message


async def test_enter_on_a_miss_opens_at_the_wrong_decision_with_the_step_panels_number():
    """At 80×24; then, resized to 120×40 on the walk screen, Escape back to the table and Enter on the same miss
    again."""
    app = make_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape")
        screen = await open_evaluation(pilot, app)
        await cursor_to(pilot, screen, "money-back")
        for size in ((80, 24), (120, 40)):
            if size != (80, 24):
                await resize(pilot, size)
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is screen)
                assert QUESTIONS.questions[screen.cursor_question()].id == "money-back"
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is not screen)
            history = app.walk_screen.view.history
            assert history.cursor == 3 and isinstance(history.events[2], NavigatorChose)  # the answer at the roots
            step = step_text(app)
            assert step.startswith(f"Step 3/{len(history.events)}")
            assert "turned away: at step 3, judging the roots" in step  # the verdict names the step on screen
