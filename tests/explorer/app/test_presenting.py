"""Presenting mode, driven as a presenter would: `P` (or --present), `n` a decision at a time, `b` back, `p` play,
and what a room reads at 80×24 and at 200×60 — the query, the footer's keys, every candidate offered, the
narration and, at the end, the answer card — read from the widgets, never from the SVG."""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text

from core import NavigatorChose, WalkFinished
from explorer.tui.keymap import PRESENTING_ACTIONS
from explorer.tui.walk_screen.presenting import AT_END, PRESENTING
from explorer.tui.widgets.answer_card import AnswerCard
from explorer.tui.widgets.narration_line import NarrationLine
from explorer.tui.widgets.offer_card import OfferCard
from explorer.tui.widgets.query_input import QueryInput
from explorer.walks.decision_steps import decision_steps

from .helpers import make_app, resize, script, wait_for

QUERY = "How long do refunds take to arrive?"
ROOTS = ("Accounts and sign-in", "Plans and pricing", "Billing", "Support and service levels", "Data and privacy",
         "Security", "Employee policies", "Onboarding", "Offboarding")


def shown_lines(widget, text: Text) -> int:
    """How many rows ``text`` takes in ``widget`` at its width (what must fit its height to be read whole)."""
    return len(text.wrap(widget.app.console, widget.content_size.width))


def fits(widget) -> bool:
    """The widget is on screen and its content fits it: nothing cut, nothing to scroll."""
    region = widget.region
    screen = widget.screen.size
    return (widget.display and region.width > 0 and region.right <= screen.width
            and region.bottom <= screen.height)


async def settled(pilot) -> None:
    screen = pilot.app.walk_screen
    await wait_for(pilot, lambda: not screen.presenter.advancing)


SMALL, LARGE = (80, 24), (200, 60)
SHORT = (80, 18)
"""Too short for every candidate of the roots' offer."""


def the_start_reads(screen, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """Before the first decision, at ``size``: the query whole, the presenting keys only in the footer, each on
    screen, and the narration saying what the navigator is asked."""
    width, height = size
    assert (screen.size.width, screen.size.height) == (width, height)
    assert screen.presenting and screen.has_class(PRESENTING)
    # The query, whole.
    query = screen.query_one(QueryInput)
    assert query.value == QUERY and fits(query)
    assert query.content_region.width >= cell_len(QUERY)
    # The footer: the presenting keys only, every one of them on screen.
    keys = list(screen.query("FooterKey"))
    actions = {key.action for key in keys if not key.has_class("-command-palette")}
    assert actions == set(PRESENTING_ACTIONS)
    for key in keys:
        assert key.region.width > 0 and key.region.right <= width, key.action
    narration = screen.query_one(NarrationLine)
    assert narration.words == (f"The navigator (semantic:hybrid) is asked “{QUERY}”, with 15 visits to spend and a "
                               "depth limit of 6. Press n for the first decision.")


def the_first_decision_reads(screen) -> None:  # type: ignore[no-untyped-def]
    """At the first decision: the narration read whole, and the offer card with every candidate, one per row, all
    of them in view."""
    narration = screen.query_one(NarrationLine)
    if screen.size.width < 100:  # the reason would not fit with what the decision entered: said briefly
        assert narration.words == ("The navigator starts at the top. It was offered 9 sections and chose Billing, "
                                   "Onboarding and Offboarding. It entered Billing (visit 1 of 15).")
        return the_offer_card_reads(screen)
    assert narration.words.startswith("The navigator starts at the top. It was offered 9 sections and chose Billing, "
                                      "Onboarding and Offboarding: most similar to the query:")
    # the reason cut at a clause, not a word; then what the decision entered
    assert narration.words.endswith(", onboarding 0.30, offboarding 0.20. It entered Billing (visit 1 of 15).")
    assert shown_lines(narration, Text(narration.words)) <= narration.content_size.height  # read whole
    the_offer_card_reads(screen)


def the_offer_card_reads(screen) -> None:  # type: ignore[no-untyped-def]
    card = screen.query_one(OfferCard)
    lines = card.content.plain.splitlines()
    assert lines[0] == "Offered 9 sections at the top · 15 visits left"
    assert [line[4:] for line in lines[1:]] == list(ROOTS)  # every candidate, one per row
    assert [line[:4] for line in lines[1:]] == [" ✗  ", " ✗  ", " ✓  ", " ✗  ", " ✗  ", " ✗  ", " ✗  ", " ✓  ", " ✓  "]
    assert len(lines) <= card.content_size.height and fits(card)  # all of them in view
    for line in lines:
        assert cell_len(line) <= card.content_size.width


def the_offer_fits_a_short_card(screen) -> None:  # type: ignore[no-untyped-def]
    """The offer card, filled at a taller terminal, is filled again at its new height once the terminal is made
    too short for every candidate: the chosen ones kept, the others counted, nothing past its bottom edge."""
    card = screen.query_one(OfferCard)
    lines = card.content.plain.splitlines()
    assert len(lines) <= card.content_size.height and fits(card)
    assert lines[0] == "Offered 9 sections at the top · 15 visits left"
    assert [line for line in lines if line.startswith(" ✓ ")] == [" ✓  Billing", " ✓  Onboarding", " ✓  Offboarding"]
    assert lines[-1] == f"   … and {9 - (len(lines) - 2)} more not chosen"  # the heading and this line aside


def the_answer_reads(screen, size: tuple[int, int]) -> None:  # type: ignore[no-untyped-def]
    """At the end, the answer card: every landed node with its stop reason, path and content, all of it in view;
    the best answer's content where it fits whole, else from the sentence that answers the query (at 80×24, the
    days a refund takes, not the first sentence cut before them); the narration says what landed."""
    card = screen.query_one(OfferCard)
    answer = screen.query_one(AnswerCard)
    assert not card.display and fits(answer)
    words = answer.words.splitlines()
    assert words[0] == "The answer: Refund delivery, and 2 more"

    def cut(line: str) -> str:  # a row as the card cuts it: its end first, after a whole word (issue 45, point 4)
        if cell_len(line) <= answer.content_size.width:
            return line
        return line[: line.rfind(" ", 0, answer.content_size.width - 1)].rstrip(" ·") + "…"

    kind = "cosine similarity + BM25 share"
    assert [w for w in words if w[:2] in ("★ ", "■ ", "◌ ")] == [
        cut(f"★ 1. Refund delivery  score 1.06 · {kind} · refund-delivery · leaf"),
        cut(f"■ 2. First day  score 0.23 · {kind} · first-day · leaf"),
        cut(f"■ 3. Returning equipment  score 0.28 · {kind} · returning-equipment · leaf")]
    also = words.index("Also landed, in the navigator's order")  # the best one set apart, before the others
    assert words[1].startswith("★ 1. ") and words[also + 1].startswith("■ 2. ")
    assert "Billing › Refunds › Refund delivery" in words
    assert "Onboarding › First day" in words and "Offboarding › Returning equipment" in words
    at = words.index("Billing › Refunds › Refund delivery")
    if size == SMALL:  # its content from the sentence that answers the query, each of its words in view
        assert words[at + 1: at + 5] == [
            "  … After we issue a card refund, banks", "  usually take 5 to 10 business days to show",
            "  it on the statement; ACH and SEPA refunds", "  take 3 to 5 business days. If the…"]
    else:
        assert words[at + 1].startswith("  Refunds go back to the payment method used")  # its content, whole
    assert len(words) <= answer.content_size.height
    assert max(cell_len(w) for w in words) <= answer.content_size.width
    assert screen.query_one(NarrationLine).words == (
        "The walk is over: 3 landed — Refund delivery (leaf), First day (leaf) and Returning equipment (leaf). It "
        "used 7 of 15 visits.")


async def test_presenting_a_walk_reads_whole_at_each_size():
    """What the room reads at 80×24 and at 200×60, in one app: at the start, at the first decision and at the
    answer card, the terminal is resized from one size to the other and each is read at both. At the first
    decision it is also made too short for the offer (80×18) and back: the offer card follows each resize."""
    app = make_app(QUERY, "semantic:hybrid", start_walk=True, present=True)
    async with app.run_test(size=SMALL) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        for size in (SMALL, LARGE):
            await resize(pilot, size)
            the_start_reads(screen, size)

        # n: the first decision, at once — the offer and the choice, not the bookkeeping.
        await pilot.press("n")
        await settled(pilot)
        history = screen.view.history
        assert isinstance(history.events[history.cursor - 1], NavigatorChose)
        for size in (LARGE, SHORT, SMALL):
            await resize(pilot, size)
            if size == SHORT:
                the_offer_fits_a_short_card(screen)
            else:
                the_first_decision_reads(screen)

        # n to the end, one decision a press: each lands on an answer, the last on the end.
        presses = 1
        while not (history.ended and history.at_latest):
            await pilot.press("n")
            await settled(pilot)
            presses += 1
            event = history.events[history.cursor - 1]
            assert isinstance(event, NavigatorChose | WalkFinished), type(event).__name__
            assert presses < 30
        steps = decision_steps(history.events)
        assert presses == len(steps) - 1 < len(history.events) // 2  # a decision per press, not an event
        assert screen.has_class(AT_END)
        for size in (SMALL, LARGE):
            await resize(pilot, size)
            the_answer_reads(screen, size)

        # b: back one decision (the last answer), the offer card again.
        await pilot.press("b")
        assert history.cursor == steps[-2].shown and not screen.has_class(AT_END)
        assert screen.query_one(OfferCard).display
        await pilot.press("b", "b")
        assert history.cursor == steps[-4].shown


async def test_p_turns_presenting_on_and_off_and_the_footer_follows():
    app = make_app(QUERY, "lexical:default", start_walk=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        everything = {key.action for key in screen.query("FooterKey")}
        assert not screen.presenting and not screen.query_one(NarrationLine).display
        await pilot.press("P")
        await wait_for(pilot, lambda: {k.action for k in screen.query("FooterKey")} != everything)
        assert screen.presenting and screen.query_one(NarrationLine).display
        assert {k.action for k in screen.query("FooterKey")} - {"command_palette"} == set(PRESENTING_ACTIONS)
        await pilot.press("n")
        await settled(pilot)
        assert screen.view.history.cursor == 3  # the roots offered and billing chosen: one decision
        await pilot.press("P")
        await wait_for(pilot, lambda: {k.action for k in screen.query("FooterKey")} == everything)
        assert not screen.presenting and not screen.has_class(PRESENTING)
        await pilot.press("n")
        await wait_for(pilot, lambda: len(screen.view.history.events) >= 4)
        assert screen.view.history.cursor == 4  # out of presenting mode, n is one event again


async def test_a_hallucinated_id_and_a_forced_look_in_presenting_mode(tmp_path):
    app = make_app("How do I get a refund?", script("hallucinated-branch.yaml"), start_walk=True, present=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        await pilot.press("n")
        await settled(pilot)
        await pilot.press("n")
        await settled(pilot)
        lines = screen.query_one(OfferCard).content.plain.splitlines()
        assert lines[0] == "Offered 6 sections under Billing · 14 visits left"
        assert " ✓  Refunds" in lines
        assert " ✗  refund-policy — never offered (hallucinated)" in lines
        assert "It named refund-policy, which was never offered (hallucinated)" in screen.query_one(NarrationLine).words


async def test_play_in_presenting_mode_goes_a_decision_a_beat_to_the_answer_card():
    app = make_app(QUERY, "lexical:default", start_walk=True, present=True, autoplay=0.1)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and screen.view.history.ended
                       and screen.view.history.at_latest and screen.has_class(AT_END))
        await wait_for(pilot, lambda: not screen.view.playing)  # play stops at the end
        assert screen.query_one(AnswerCard).words.splitlines()[:3] == [
            "The answer: Refund delivery", "★ 1. Refund delivery  score 2.73 · bm25…",
            "Billing › Refunds › Refund delivery"]


async def test_quick_presses_are_each_a_decision_none_lost():
    app = make_app(QUERY, "lexical:default", start_walk=True, present=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        await pilot.press(*"nnnn")  # typed faster than the walk answers: three decisions, then the end
        await wait_for(pilot, lambda: screen.view.history.ended and screen.view.history.at_latest and not
                       screen.presenter.advancing)
        assert screen.has_class(AT_END)
        assert screen.query_one(NarrationLine).words == ("The walk is over: 1 landed — Refund delivery (leaf). It used "
                                                          "3 of 15 visits.")


async def test_a_live_walk_is_told_with_what_each_decision_entered_and_landed_before_the_end_card():
    """The room heard of an answer first on the end card (issue 45, tried as three kinds of user, point 4): a live
    walk stopped at each answer, before the nodes it entered and what landed had arrived. Each decision is now told
    with them, as docs/explorer.md promises, and only the next n asks the navigator again."""
    app = make_app(QUERY, "lexical:default", start_walk=True, present=True)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.walk_screen
        narration = screen.query_one(NarrationLine)
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        told = []
        for _ in range(3):
            await pilot.press("n")
            await wait_for(pilot, lambda: not screen.presenter.advancing and narration.words.startswith(
                "The navigator") and narration.words not in told)
            told.append(narration.words)
            assert not screen.has_class(AT_END)
        assert told[0].startswith("The navigator starts at the top. It was offered 9 sections and chose Billing")
        assert told[0].endswith(" It entered Billing (visit 1 of 15).")
        assert told[1] == ("The navigator is at Billing. It was offered 6 sections and chose Refunds: matched refunds "
                           "2.64 (refund). It entered Refunds (visit 2 of 15).")
        assert told[2].endswith(" It entered Refund delivery (visit 3 of 15). Refund delivery has no children: it "
                                "lands (leaf).")
        history = screen.view.history
        assert sum(isinstance(e, NavigatorChose) for e in history.events) == 3
        await pilot.press("n")
        await wait_for(pilot, lambda: screen.has_class(AT_END))
        assert narration.words == "The walk is over: 1 landed — Refund delivery (leaf). It used 3 of 15 visits."
