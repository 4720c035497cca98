"""Presenting to a room at 80×24 and at 120×40, one app resized: a navigator that takes its time shows
``thinking… N s`` under the narration, a long reason is said briefly where the whole would not fit (never a
sentence cut in the middle), and no key pressed past the end puts a toast over the answer card."""

from __future__ import annotations

import re

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.tui.walk_screen.presenting import AT_END
from explorer.tui.widgets.narration_line import ROWS, NarrationLine

from .helpers import Blocking, make_app, resize, wait_for

QUERY = "How long do refunds take to arrive?"
THINKING = re.compile(r"\nthinking… (\d+) s$")
REASON = ("the query asks how long a refund takes to reach a card or a bank account, and Billing is the only "
          "section whose summary names refunds; payments, invoices and taxes come under it too")


class Wordy(TreeNavigator):
    """The lexical navigator's choices and two ids never offered, each given with :data:`REASON`
    (a long reason, in three clauses)."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        choice = self.inner.choose(request)
        return NavigatorChoice((*choice.selected, "refund-policy", "refund-timelines"), REASON)  # type: ignore[union-attr]


def narration(app) -> NarrationLine:  # type: ignore[no-untyped-def]
    return app.walk_screen.query_one(NarrationLine)


async def test_while_the_navigator_decides_the_narration_counts_the_seconds():
    navigator = Blocking()
    app = make_app(QUERY, "lexical:default", navigator=navigator, start_walk=True, present=True)
    async with app.run_test(size=(80, 24)) as pilot:
        try:
            screen = app.walk_screen
            await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
            start = narration(app).words
            assert "thinking" not in start
            await pilot.press("n")
            assert navigator.inside.wait(30)
            await wait_for(pilot, lambda: THINKING.search(narration(app).words) is not None)
            said = narration(app).words
            assert said.startswith(start) and int(THINKING.search(said).group(1)) >= 1  # under the step shown
            assert len(said.splitlines()) <= narration(app).content_size.height  # in view, not cut
            await resize(pilot, (120, 40))
            said = narration(app).words
            assert THINKING.search(said) is not None and said.startswith(start)
            assert len(said.splitlines()) <= narration(app).content_size.height
        finally:
            navigator.release.set()
        await wait_for(pilot, lambda: screen.view.history.cursor >= 3 and not screen.view.session.busy)
        assert "thinking" not in narration(app).words
        assert narration(app).words == ("The navigator starts at the top. It was offered 9 sections and chose "
                                        "Billing: matched billing 1.99 (refund). It entered Billing (visit 1 of 15).")


async def test_a_long_reason_is_said_briefly_where_the_whole_would_not_fit():
    app = make_app(QUERY, "lexical:default", navigator=Wordy(), start_walk=True, present=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        await pilot.press("n")
        await wait_for(pilot, lambda: not screen.presenter.advancing and screen.view.history.cursor >= 3)
        ghosts = ("It named refund-policy and refund-timelines, which were never offered (hallucinated): that "
                  "branch stops there. It entered Billing (visit 1 of 15).")
        whole = ("The navigator starts at the top. It was offered 9 sections and chose Billing: the query asks how "
                 "long a refund takes to reach a card or a bank account, and Billing is the only section whose "
                 f"summary names refunds. {ghosts}")
        brief = f"The navigator starts at the top. It was offered 9 sections and chose Billing. {ghosts}"
        line = narration(app)
        assert line.content_size.width < 50
        assert line.words == brief  # the reason would take more than the narration's rows here
        await resize(pilot, (120, 40))
        assert narration(app).words == whole  # the reason cut at its clause, never mid-word
        assert len(narration(app).words.splitlines()) == 1 and narration(app).content_size.height <= ROWS


async def test_a_step_key_past_the_end_puts_no_toast_over_the_answer_card():
    app = make_app(QUERY, "lexical:default", start_walk=True, present=True)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None and len(screen.view.history.events) == 1)
        for _ in range(30):
            if screen.has_class(AT_END):
                break
            await pilot.press("n")
            await wait_for(pilot, lambda: not screen.presenter.advancing)
        assert screen.has_class(AT_END)
        before = len(app.notes)
        await pilot.press("n", "n")
        await resize(pilot, (120, 40))
        await pilot.press("n")
        await pilot.pause()
        assert [note.message for note in app.notes[before:]] == []
        assert screen.has_class(AT_END)
