"""A best-first walk on the explorer (issue 37, point 3): its setting in the next walk's note, its walk ranked by path
score, and the frontier (the nodes waiting, with their path scores) drawn on the step panel beside the offer."""

from __future__ import annotations

import re
from pathlib import Path

from core import Policy
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings

from ..test_policy_cli import BEST_FIRST, SCRIPT
from .helpers import HANDBOOK, SIZE, Explorer, make_app, resize, wait_for
from .reading import next_settings


async def test_a_best_first_walk_says_its_policy_and_enters_by_path_score(tmp_path: Path) -> None:
    (tmp_path / "order.yaml").write_text(SCRIPT)
    model = f"script:{tmp_path / 'order.yaml'}"
    settings = WalkSettings("q", model, policy=Policy.BEST_FIRST, alpha=0.9)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator(model), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        assert next_settings(app) == "next walk: script:order.yaml · budget 15 · depth limit 6 · on failure throw · best-first@alpha=0.9"
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        history = app.walk_screen.view.history
        assert [e.node.id for e in history.events if type(e).__name__ == "NodeEntered"] == BEST_FIRST
        assert [d.id for d in history.state().result.documents] == [
            "password-sign-in", "password-reset", "free-plan", "lost-two-factor-device", "account-lockout"]


async def test_the_step_panel_names_the_next_nodes_in_line_with_their_path_scores(tmp_path: Path) -> None:
    """A best-first walk's frontier, beside the offer (issue 37, point 4): after the roots' answer, Accounts (chosen
    first, 1.00) then Plans (0.50); once Accounts is entered, its children join at their path scores."""
    from .reading import step_text

    (tmp_path / "order.yaml").write_text(SCRIPT)
    model = f"script:{tmp_path / 'order.yaml'}"
    settings = WalkSettings("q", model, policy=Policy.BEST_FIRST, alpha=0.9)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator(model), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("n", "n")  # the roots offered, then answered
        await wait_for(pilot, lambda: "Next    Accounts and sign-in 1.00 · Plans and pricing 0.50" in step_text(app))
        await pilot.press("n")  # Accounts entered: it leaves the frontier
        await wait_for(pilot, lambda: "Next    Plans and pricing 0.50" in step_text(app))
        await pilot.press("n", "n")  # its children offered and answered: the two chosen join
        await wait_for(pilot, lambda: "Next    Sign-in methods 1.00 · Account recovery 0.55 · Plans and pricing 0.50"
                       in step_text(app))


async def test_a_depth_first_walk_shows_no_frontier() -> None:
    settings = WalkSettings("refunds", "lexical:default")
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        from .reading import step_text

        assert "Next    " not in step_text(app)


async def test_t_re_walks_in_the_other_order_asking_only_what_was_never_judged_and_compares_the_two() -> None:
    """The miss of a depth-first walk, put to the walk (issue 37, point 4): T re-walks it best-first from its recorded
    decisions (the scores kept with them), asks the navigator only at the node the recording never judged, and puts
    both walks on one tree with the compare panel. At 80×24; then the Results tab and the compare panel are read
    again after the terminal is resized to 120×40."""
    from .helpers import Counting
    from .reading import landed_rows, text_at

    navigator = Counting()
    settings = WalkSettings("How long do refunds take to arrive?", "lexical:default", max_nodes_visited=6)
    app = Explorer(HANDBOOK, settings, navigator=navigator, start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        source = app.walk_screen.view.walk
        assert [d.id for d in source.history.state().result.documents] == ["refund-delivery"]
        asked = navigator.calls
        await pilot.press("T")
        await wait_for(pilot, lambda: len(app.walk_screen.walks) == 2 and list(app.walk_screen.walks)[1].history.end
                       == "finished")
        other = list(app.walk_screen.walks)[1].history
        # The original stays A, as everywhere else (D, diff, an evaluation's baseline); the re-walk is B beside it
        # (issue 45, tried as three kinds of user, point 8: T named the new walk A).
        assert app.walk_screen.view.walk is source and app.walk_screen.view.partner is list(app.walk_screen.walks)[1]
        assert other.settings.policy is Policy.BEST_FIRST
        assert other.name == "walk 2 · walk 1 re-walked with best-first"
        # the same walk as a live best-first walk: the siblings lexical scored, the budget spent on them
        assert [e.node.id for e in other.events if type(e).__name__ == "NodeEntered"] == [
            "billing", "refunds", "refund-delivery", "requesting-a-refund", "refund-exceptions", "annual-plan-refunds"]
        assert [d.id for d in other.state().result.documents] == ["refund-delivery", "requesting-a-refund"]
        assert navigator.calls - asked == other.state().live_calls == 1  # refund-exceptions, never judged before
        assert any(str(note.message).startswith("B: walk 2 · walk 1 re-walked with best-first, beside A: walk 1")
                   for note in app.notes)
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            await wait_for(pilot, lambda: "settings differ: policy depth-first → best-first"
                           in text_at(app.walk_screen, "#compare"))
            assert text_at(app.walk_screen, "#compare").startswith("Comparing A = walk 1 · ")
            # it said "has not ended yet" still once the re-walk had ended
            assert "has not ended yet" not in text_at(app.walk_screen, "#compare")
        await pilot.press("w", "down", "enter")  # B alone: its Results tab ranks them as core does, by path score
        await wait_for(pilot, lambda: app.walk_screen.view.history is other and bool(landed_rows(app)))
        assert [row[1] for row in landed_rows(app)][:2] == ["Refund delivery", "Requesting a refund"]


async def test_scores_are_bars_beside_the_offer_and_in_the_transcript_and_entered_nodes_are_numbered() -> None:
    """Issue 37, points 2 and 4: each candidate the navigator scored shows its score as a bar with its figure (one it
    left unscored reads –), in the step panel and, highest first, in the transcript; the tree numbers the nodes
    entered in the order they were entered, so a best-first walk's jumps read off it. lexical:default scores what it
    matched, scaled by the best of the offer. At 80×24, then again after a resize to 120×40."""
    from .reading import step_text, transcript_text, tree_row

    settings = WalkSettings("How long do refunds take to arrive?", "lexical:default", max_nodes_visited=6,
                            policy=Policy.BEST_FIRST)
    app = Explorer(HANDBOOK, settings, navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("n", "n")  # the roots offered, then answered: lexical matched billing alone
        await wait_for(pilot, lambda: "Chose   billing" in step_text(app))
        rows = step_text(app).splitlines()
        assert "✓  ██████ 1.00  Billing  billing  Invoices, payment methods, failed payments, taxes, refunds and " \
            "account credits." in rows
        assert "✗    –          Plans and pricing  plans  The Free, Team, Business and Enterprise plans, trials, " \
            "seats, plan changes, cancellation and discounts." in rows
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        for size in ((80, 24), (120, 40)):
            await resize(pilot, size)
            await wait_for(pilot, lambda: (tree_row(app, "billing"), tree_row(app, "refunds")) == (
                "• 1 ▼ Billing  billing", "• 2 ▼ Refunds  refunds"))
            # best-first took Refund delivery (3) before Requesting a refund (4), listed above it
            assert (tree_row(app, "refund-delivery") or "").startswith("■ 3 Refund delivery")
            assert (tree_row(app, "requesting-a-refund") or "").startswith("■ 4 Requesting a refund")
            # Open or folded as the repaints of `c` fell (a burst of events is one repaint): its number either way.
            assert re.match(r"• 5 [▶▼] Refund exceptions", tree_row(app, "refund-exceptions") or "")
            assert tree_row(app, "plans") == "✗ ▶ Plans and pricing  plans"  # never entered: no number
        await pilot.press("B", "n", "n", "n", "n", "n")  # the start; the roots offered, answered; Billing entered, its
        # children offered, answered
        await wait_for(pilot, lambda: "Chose   refunds" in step_text(app))
        assert "✓  ██████ 1.00  Refunds  refunds" in step_text(app)
        await pilot.press("right_square_bracket")  # the Transcript tab
        await wait_for(pilot, lambda: "scores  the navigator's, 0 to 1, highest first" in transcript_text(app))
        lines = transcript_text(app).splitlines()
        start = lines.index("scores  the navigator's, 0 to 1, highest first")
        assert lines[start + 1] == "██████ 1.00  Refunds  refunds"


async def test_a_sets_the_next_walk_s_order_and_the_header_says_it() -> None:
    """Issue 37, point 3: A opens a prompt with the next walk's order (depth-first); a word that is no order is refused
    in the prompt in one line; policy=best-first@alpha=0.5 is taken (as the settings line writes it), the query bar's
    note says it, and the walk started next is walked best-first, its header saying so. At 80×24, and the prompt
    again after a resize to 120×40."""
    from textual.widgets import Input

    from explorer.tui.screens.prompt import PromptScreen

    from .helpers import make_app
    from .reading import prompt_error

    app = make_app("How long do refunds take to arrive?", max_nodes_visited=6)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("escape", "A")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        field = app.screen.query_one("#prompt-input", Input)
        assert field.value == "depth-first"
        await pilot.press("end", *["backspace"] * len(field.value), *"sideways", "enter")
        await wait_for(pilot, lambda: bool(prompt_error(app)))
        assert prompt_error(app) == ("'sideways' is no walk policy; write depth-first or best-first "
                                     "(best-first@alpha=0.7)")
        await pilot.press(*["backspace"] * len("sideways"), *"policy=best-first@alpha=0.5", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))
        assert next_settings(app) == ("next walk: lexical:default · budget 6 · depth limit 6 · on failure throw · "
                                      "best-first")
        await pilot.press("slash", "enter")  # the query box, then the walk
        await wait_for(pilot, lambda: app.walk_screen.view.walk is not None)
        assert app.walk_screen.view.history.settings.policy is Policy.BEST_FIRST
        shown = app.walk_screen.view.walk
        assert "best-first" not in shown.name  # the header adds it
        assert app.walk_screen.sub_title == f"{HANDBOOK.title} · {shown.name} · best-first"
        await resize(pilot, (120, 40))
        await pilot.press("escape", "A")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        assert app.screen.query_one("#prompt-input", Input).value == "best-first"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, PromptScreen))
        assert app.walk_screen.next_walk.settings.policy is Policy.BEST_FIRST


async def test_an_old_best_first_trace_shows_the_best_five_waiting_and_how_many_wait_behind_them() -> None:
    """A trace of the format before issue 47 (each event its whole frontier) opens, and the step panel rebuilds the
    frontier from the changes read from it, stepping forward and back: the best five, then the count of the rest."""
    from explorer.trace import read_trace

    from ..test_frontier_formats import OLD_TRACE
    from .reading import step_text

    app = make_app("", opened=[read_trace(OLD_TRACE)])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None)
        title = app.corpus.title_of

        def next_line(*waiting: tuple[str, float], more: int) -> str:
            names = " · ".join(f"{title(node)} {score:.2f}" for node, score in waiting)
            return f"Next    {names} · and {more} more waiting"

        await pilot.press("B", *["f"] * 17)  # step 18: Plans answered, 17 waiting
        await wait_for(pilot, lambda: app.walk_screen.view.history.cursor == 18)
        said = next_line(("free-plan", 0.8), ("team-plan", 0.8), ("discounts", 0.8), ("billing", 0.7),
                         ("people-policies", 0.7), more=12)
        await wait_for(pilot, lambda: said in step_text(app).splitlines())
        await pilot.press("b")  # back to the offer before it: 10 waiting
        said = next_line(("billing", 0.7), ("people-policies", 0.7), ("device-security", 0.65), ("support", 0.6),
                         ("data-privacy", 0.6), more=5)
        await wait_for(pilot, lambda: said in step_text(app).splitlines())
