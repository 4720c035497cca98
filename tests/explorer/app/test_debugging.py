"""Debugging one walk to the bottom: forks, the walk list, the transcript, and why the walk ended."""

from __future__ import annotations

import pytest
from textual.widgets import OptionList

from explorer.ending import WalkEnd
from explorer.tui.screens.choose_walk import WalksScreen
from explorer.tui.widgets.walk_tree import WalkTree
from explorer.walks.history import Origin
from explorer.walks.state import Mark

from .helpers import SIZE, make_app, resize, script, wait_for
from .reading import all_text, compare_text, option_prompts, results_summary, step_text, transcript_text, tree_row


def landed(history):
    """What the whole walk landed, wherever its cursor is."""
    return [document.id for document in history.events[-1].result.documents]


async def finish(pilot, app):
    await pilot.press("c")
    await wait_for(pilot, lambda: app.walk_screen.view.history is not None and app.walk_screen.view.history.end is not None)
    await pilot.pause()


async def test_fork_at_a_decision_lands_elsewhere_and_leaves_the_original_untouched():
    """One app, a walk of depth-limit to its end:

    - Escape closes the fork picker without forking;
    - a fork at a decision lands elsewhere and leaves the original untouched.
    """
    app = make_app("annual refund formula", model=script("depth-limit.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot, app)
        await pilot.press("b", "e")
        assert app.walk_screen.view.picker is not None
        await pilot.press("escape")
        assert app.walk_screen.view.picker is None and len(app.walks) == 1 and app.walk_screen.view.history.at_latest

        original = app.walk_screen.view.history
        events_before = list(original.events)
        assert landed(original) == ["annual-proration-formula"]
        await pilot.press("B", "f", "f", "f", "f")  # step 5: billing's children are offered
        assert original.cursor == 5
        await pilot.press("e")
        assert app.walk_screen.view.picker is not None and app.walk_screen.view.picker.forking
        assert app.walk_screen.view.picker.picked == ("refunds",)  # a fork starts from what the navigator chose
        step = step_text(app)
        assert "Fork here: 1-9 toggle" in step and " 1 [ ] Invoices" in step and " 5 [x] Refunds" in step
        await pilot.press("5", "1", "a")  # refunds off, invoices on
        await wait_for(pilot, lambda: app.walk_screen.view.history is not original and len(app.walk_screen.view.history.events) >= 6)
        fork = app.walk_screen.view.history
        assert fork.origin is Origin.FORK and fork.name == "walk 2 · fork of walk 1: at billing chose invoices"
        assert fork.cursor == 6 and fork.forced == {6}
        assert "⚑ Forced invoices" in step_text(app)
        assert tree_row(app, "invoices") == "⚑ ▶ Invoices  invoices"  # the forced branch on the tree
        await finish(pilot, app)
        assert landed(fork) == ["invoices"]  # the script has nothing for invoices: it stops there
        assert fork.end is WalkEnd.FINISHED
        # The original is as it was: same events, same landing, its cursor where it was left.
        assert original.events == events_before and landed(original) == ["annual-proration-formula"]
        assert original.cursor == 5
        assert app.walk_screen.sub_title.endswith("walk 2 · fork of walk 1: at billing chose invoices")


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_fork_with_a_typed_id_shows_a_hallucination():
    app = make_app("annual refund formula", model=script("depth-limit.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot, app)
        await pilot.press("B", "f", "f", "f", "f", "e", "5", "i")  # refunds off: only the typed id
        await pilot.press(*"ghost", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.picker is not None and app.walk_screen.view.picker.picked == ("ghost",))
        await pilot.press("a")
        await wait_for(pilot, lambda: app.walk_screen.view.history.number == 2)
        await finish(pilot, app)
        assert [(s.reason.value, s.branch) for s in app.walk_screen.view.history.state().stops] == [("invalid_choice", "ghost")]
        assert "1 returned but never offered (hallucinated): ghost" in step_text(app)


async def test_one_walk_then_a_second_compare_transcript_and_switching():
    """One app, a walk of "How are refunds issued?", then a second:

    - compare with a single walk says what to do;
    - the Transcript tab shows what the navigator was sent and said at the first decision;
    - switching walks keeps each one's step.
    """
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("D")
        assert app.walk_screen.view.comparing is None
        assert "Only one walk so far" in app.notes[-1].message

        await pilot.press("n", "n", "right_square_bracket")  # the first offer and its answer; the Transcript tab
        await wait_for(pilot, lambda: transcript_text(app) != "")  # the tab is shown
        transcript = transcript_text(app)
        assert "Decision at the roots  (step 3, offered at step 2)" in transcript
        assert "terms" in transcript and "scores" in transcript
        await pilot.press("left_square_bracket")  # back to the Results tab
        await wait_for(pilot, lambda: transcript_text(app) == "")

        await finish(pilot, app)
        first = app.walk_screen.view.history
        await pilot.press("b", "b")
        first_cursor = first.cursor
        await pilot.press("r")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not first)
        second = app.walk_screen.view.history
        assert second.origin is Origin.RESTART and second.name == "walk 2 · restart · “How are refunds issued?” · lexical:default"
        await finish(pilot, app)
        await pilot.press("w")
        assert isinstance(app.screen, WalksScreen)
        listed = option_prompts(app.screen.query_one(OptionList))
        assert listed[0].startswith("  walk 1 · “How are refunds issued?” · lexical:default · budget 15")
        assert listed[1].startswith("▶ walk 2 · restart")  # the walk on screen
        await pilot.press("up", "enter")
        await wait_for(pilot, lambda: app.walk_screen.view.history is first)
        assert first.cursor == first_cursor
        assert f"(as of step {first_cursor})" in results_summary(app)


@pytest.mark.parametrize(
    ("case", "options", "lines"),
    [
        ("wide-walk-out-of-visits.yaml", {"max_nodes_visited": 6},
         ["Finished: 6 landed — leaf ×5, visit_budget_exhausted ×1",
          "5 chosen but never entered, no visit left: seats, changing-plans, discounts, billing, accounts"]),
        ("depth-limit.yaml", {"max_depth": 2}, ["Finished: 1 landed — max_depth ×1"]),
        ("hallucinated-branch.yaml", {},
         ["Finished: 2 landed — invalid_choice ×1, leaf ×1",
          "1 returned but never offered (hallucinated): refund-policy"]),
        ("provider-failure.yaml", {"on_failure": "partial"},
         ["Finished: 2 landed — leaf ×1, navigator_failed ×1"]),
        ("provider-failure.yaml", {"on_failure": "empty"},
         ["Finished: no documents — the navigator failed under on-failure empty: ScriptedFailure: upstream",
          "1 chosen but never entered, the navigator failed and on-failure empty ended the walk: invoices"]),
        ("provider-failure.yaml", {"on_failure": "throw"},
         ["Failed at step 9: nothing landed", "Why: navigator 'script:",
          "1 chosen but never entered, the walk failed: invoices"]),
    ],
)
async def test_the_end_of_each_scripted_case_is_said_plainly(case, options, lines):
    from core import OnFailure

    if "on_failure" in options:
        options = {**options, "on_failure": OnFailure(options["on_failure"])}
    app = make_app("q", model=script(case), start_walk=True, **options)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot, app)
        step = step_text(app)
        for line in lines:
            assert line in step


async def test_cancel_says_where_and_marks_branches_never_entered():
    app = make_app("q", model=script("provider-failure.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press(*"nnnnn")  # offer, billing chosen, entered, offer, refunds+invoices chosen
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 6)
        await pilot.press("x")
        assert app.walk_screen.view.history.end is WalkEnd.CANCELLED
        state = app.walk_screen.view.history.state()
        assert state.mark_of("refunds") is Mark.STOPPED and state.mark_of("invoices") is Mark.STOPPED
        step = step_text(app)
        assert "Cancelled at step 6: nothing landed" in step
        assert "2 chosen but never entered, the walk was cancelled: invoices, refunds" in step
        tree = app.query_one(WalkTree)
        assert tree.marks["refunds"] is Mark.STOPPED and tree.reasons["refunds"] == "never entered: cancelled"
        assert tree_row(app, "refunds") == "⊘ ▶ Refunds  refunds  never entered: cancelled"


@pytest.mark.parametrize("key", ["n", "c", "p"])
async def test_one_key_too_many_after_the_end_stays_on_the_end_and_says_what_goes_on(key):
    """The key pressed at 80×24; the terminal resized to 120×40, where the end of walk 1 is still on screen and r
    starts another walk."""
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await finish(pilot, app)
        ended = app.walk_screen.view.history
        end = ended.cursor
        notes = len(app.notes)
        await pilot.press(key)
        await wait_for(pilot, lambda: len(app.notes) > notes)
        assert app.walk_screen.view.history is ended and ended.cursor == end == len(ended.events)
        assert [h.number for h in app.walks] == [1] and ended.end is WalkEnd.FINISHED
        assert app.notes[-1].message == (
            f"The end of walk 1, at step {end}: r restarts it · / then Enter walks a new query · b steps back · "
            "w switches walk.")
        assert f"Step {end}/{end}" in step_text(app)  # the end of walk 1 stays on screen
        await resize(pilot, (120, 40))
        assert app.walk_screen.view.history is ended and ended.cursor == end
        assert f"Step {end}/{end}" in step_text(app)  # and at the new size
        await pilot.press("r")  # another walk takes its own key
        await wait_for(pilot, lambda: app.walk_screen.view.history is not ended)
        assert [h.number for h in app.walks] == [1, 2]
        assert "walk 1 · “How are refunds issued?” · lexical:default · budget 15" in app.notes[-1].message


async def test_a_step_key_pressed_again_and_again_at_the_end_leaves_one_toast():
    """Five presses of n at the end say the end once: the same words are not stacked over the answer card while
    their toast still shows; other words are said as usual."""
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await finish(pilot, app)
        notes = len(app.notes)
        for _ in range(5):
            await pilot.press("n")
            await pilot.pause()
        await wait_for(pilot, lambda: len(app.notes) > notes)
        assert [n.message.split(":")[0] for n in app.notes[notes:]] == ["The end of walk 1, at step "
                                                                         f"{app.walk_screen.view.history.cursor}"]
        app.walk_screen.say("Something else.")  # other words are said as usual, beside it
        app.walk_screen.say("Something else.")
        await wait_for(pilot, lambda: len(app.notes) > notes + 1)
        await pilot.pause()
        assert [n.message for n in app.notes[notes + 1:]] == ["Something else."]


async def test_n_with_no_walk_at_all_starts_the_first():
    """No walk at 80×24, nor once the terminal is resized to 120×40; n there starts the first."""
    app = make_app("How are refunds issued?")
    async with app.run_test(size=(80, 24)) as pilot:
        assert app.walk_screen.view.history is None
        await pilot.press("escape")  # out of the query box
        await resize(pilot, (120, 40))
        assert app.walk_screen.view.history is None
        await pilot.press("n")  # the step key
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        assert [h.number for h in app.walks] == [1]


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_compare_a_walk_with_its_fork_shows_both_on_the_tree_and_both_answers():
    app = make_app("annual refund formula", model=script("depth-limit.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await finish(pilot, app)
        original = app.walk_screen.view.history
        await pilot.press("B", "f", "f", "f", "f", "e", "5", "1", "a")  # refunds off, invoices on
        await wait_for(pilot, lambda: app.walk_screen.view.history is not original)
        await finish(pilot, app)
        fork = app.walk_screen.view.history
        await pilot.press("D")
        assert isinstance(app.screen, WalksScreen)
        assert "Compare walk 2 · fork of walk 1: at billing chose invoices with…" in all_text(app.screen)
        await pilot.press("enter")  # the only other walk: walk 1
        await wait_for(pilot, lambda: app.walk_screen.view.comparing is not None)
        assert app.walk_screen.view.comparing == (fork, original)
        assert fork.cursor == 6  # at the first divergence: billing's offer and the forced answer
        comparison = compare_text(app)
        assert "First divergence: decision 2, at billing — chose differently" in comparison
        assert "⚑ forced invoices" in comparison and "chose refunds" in comparison
        assert "A landed invoices (navigator_stopped)" in comparison  # landed by A only: B landed elsewhere
        assert "B landed annual-proration-formula (leaf)" in comparison
        assert "Landed in both: none" in comparison
        tree = app.query_one(WalkTree)
        assert tree.marks["billing"] is Mark.DIVERGED
        assert tree.marks["invoices"] is Mark.ONLY_A and tree.marks["refunds"] is Mark.ONLY_B
        assert tree_row(app, "billing") == "⑂ ▼ Billing  billing  walks part here: chose differently"
        await pilot.press("D")
        await wait_for(pilot, lambda: step_text(app) != "")  # the step panel is back in the comparison's place
        assert app.walk_screen.view.comparing is None and "First divergence" not in compare_text(app)
        assert tree.marks["invoices"] is Mark.FORCED  # the fork as of its cursor: the forced answer


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_an_answer_arriving_while_the_fork_picker_is_open_does_not_move_it():
    app = make_app("parental leave pay", model=script("slow-navigator.yaml"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # the roots offered; the slow navigator starts thinking
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 2 and app.walk_screen.view.session.busy)
        await pilot.press("e")  # fork the offer still waiting for its answer
        assert app.walk_screen.view.picker is not None and app.walk_screen.view.picker.forking and app.walk_screen.view.history.cursor == 2
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 3)  # the navigator's answer arrives
        assert app.walk_screen.view.history.cursor == 2 and app.walk_screen.view.picker is not None and app.walk_screen.view.picker.forking
        assert "Fork here: 1-9 toggle" in step_text(app)
