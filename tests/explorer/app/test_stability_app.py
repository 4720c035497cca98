"""Stability in the explorer: S asks how many walks, runs them on a worker with a progress bar, puts `k/N` beside
every chosen node on the tree with a heat class, says the landed sets and the most frequent divergence; x cancels
every walk and the panel says how many finished."""

from __future__ import annotations

import threading

import pytest

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.tui.screens.prompt import PromptClosed, PromptReady, PromptScreen
from explorer.tui.screens.stability import StabilityScreen
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import SIZE, Messages, make_app, wait_for
from .reading import all_text, prompt_error, prompt_title, text_at, tree_row

QUERY = "How are refunds issued?"


class Alternating(TreeNavigator):
    """At the roots, walks 1, 3, 5… (in the order they ask) choose billing and walks 2, 4… choose plans; below, the
    lexical navigator. Whatever order threads take, 5 walks make 3 of one and 2 of the other."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.lock = threading.Lock()
        self.walks = 0

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        if request.current is None:
            with self.lock:
                self.walks += 1
                odd = self.walks % 2 == 1
            return NavigatorChoice(("billing",) if odd else ("plans",), "alternating")
        return self.inner.choose(request)  # type: ignore[return-value]


class Gate(TreeNavigator):
    """The first two walks to ask answer as the lexical navigator; every later walk waits for its token (only a
    cancel ends it). ``blocked`` counts the walks waiting."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.lock = threading.Lock()
        self.walks = 0
        self.blocked = 0

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        if request.current is None:
            with self.lock:
                self.walks += 1
                wait = self.walks > 2
                self.blocked += wait
            if wait:
                request.cancellation.wait(60)
                request.cancellation.raise_if_cancelled()
        return self.inner.choose(request)  # type: ignore[return-value]


def tree_line(app, node_id: str) -> str:
    """The tree's row of ``node_id``, as drawn (it must be in view)."""
    row = tree_row(app, node_id)
    assert row is not None, f"{node_id} is not in view on the tree"
    return row


def panel_text(panel: StabilityScreen) -> str:
    """What the stability panel says, its lines joined: its title, settings, status, summary and hint."""
    return " ".join(all_text(panel).split())


async def ask_for(pilot, app, runs: str) -> StabilityScreen:
    await pilot.press("S")
    await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PromptScreen")
    assert prompt_title(app) == "Stability: walk 'How are refunds issued?' how many times? (2-1000)"
    await pilot.press(*runs, "enter")
    await wait_for(pilot, lambda: isinstance(app.screen, StabilityScreen))
    return app.screen


async def test_stability_of_five_walks_puts_the_counts_on_the_tree():
    app = make_app(QUERY)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")  # out of the query box
        panel = await ask_for(pilot, app, "5")
        await wait_for(pilot, lambda: panel.stability is not None)
        assert text_at(panel, "#stability-title") == "Stability: 'How are refunds issued?' walked 5 times"
        assert text_at(panel, "#stability-status") == "done: 5 of 5 walks finished"
        summary = text_at(panel, "#stability-summary")
        assert "1 distinct landed set(s) · 5 of 5 walks made the most common decisions" in summary
        assert "     5/5  refund-delivery" in summary
        assert "Most frequent first divergence: none — every walk made the same decisions" in summary
        tree = app.query_one(WalkTree)
        assert tree.counts == {"billing": "chosen 5/5 walks", "refunds": "chosen 5/5 walks",
                               "refund-delivery": "chosen 5/5 walks"}
        assert tree.heat == {"billing": 4, "refunds": 4, "refund-delivery": 4}
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, StabilityScreen))
        assert tree_line(app, "billing").endswith("Billing  billing  chosen 5/5 walks")
        assert tree_line(app, "refund-delivery").endswith("Refund delivery  refund-delivery  chosen 5/5 walks")
        assert "5/5" not in tree_line(app, "plans")


async def test_walks_that_part_show_each_share_and_the_divergence():
    app = make_app(QUERY, navigator=Alternating())
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        panel = await ask_for(pilot, app, "5")
        await wait_for(pilot, lambda: panel.stability is not None)
        assert text_at(panel, "#stability-status") == "done: 5 of 5 walks finished"
        summary = text_at(panel, "#stability-summary")
        assert "2 distinct landed set(s) · 3 of 5 walks made the most common decisions" in summary
        assert "     3/5  refund-delivery" in summary
        assert ("Most frequent first divergence: decision 1, at the roots: 2 of 5 walks part from the most common "
                "path there (it chose billing; they chose: plans ×2)") in panel_text(panel)
        tree = app.query_one(WalkTree)
        assert tree.counts["billing"] == "chosen 3/5 walks" and tree.counts["plans"] == "chosen 2/5 walks"
        assert tree.heat["billing"] == 3 and tree.heat["plans"] == 2
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, StabilityScreen))
        assert tree_line(app, "billing").endswith("billing  chosen 3/5 walks")
        assert tree_line(app, "plans").endswith("plans  chosen 2/5 walks")


async def test_x_cancels_every_walk_and_says_how_many_finished():
    gate = Gate()
    app = make_app(QUERY, navigator=gate)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        panel = await ask_for(pilot, app, "5")
        await wait_for(pilot, lambda: gate.blocked == 3)  # two walks done, the three others waiting on their token
        status = text_at(panel, "#stability-status")
        assert status.startswith("walking… ") and status.endswith(" · x cancels them all")
        await pilot.press("x")
        await wait_for(pilot, lambda: panel.stability is not None)
        assert all(session.token.cancelled for session in panel.stability_run.sessions)
        assert text_at(panel, "#stability-status") == "cancelled: 2 of 5 walks finished; the frequencies count those 2"
        assert app.query_one(WalkTree).counts == {"billing": "chosen 2/2 walks", "refunds": "chosen 2/2 walks",
                                                  "refund-delivery": "chosen 2/2 walks"}


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_the_prompt_takes_only_ascii_digits_from_2_to_1000():
    app = make_app(QUERY)
    messages = Messages()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.press("escape", "S")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
        for typed, error in (("1", "1 must be at least 2."), ("1001", "1001 must be at most 1,000."),
                             ("٥", "'٥' is not a whole number."), ("x", "'x' is not a whole number.")):
            refused = messages.count(PromptReady)
            await pilot.press("end", *["backspace"] * 6, *typed, "enter")
            await wait_for(pilot, lambda refused=refused: messages.count(PromptReady) > refused)  # refused, and said why
            assert app.screen.__class__.__name__ == "PromptScreen"
            assert prompt_error(app) == error
        await pilot.press("escape")
        await wait_for(pilot, lambda: messages.count(PromptClosed) == 1)
        assert not isinstance(app.screen, StabilityScreen) and len(app.walks) == 0


async def test_stability_is_in_the_command_palette_and_refuses_the_manual_navigator():
    app = make_app(QUERY, model="manual:")
    async with app.run_test(size=SIZE) as pilot:
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Stability: walk this query N times… · S" in titles
        await pilot.press("escape", "S")
        await wait_for(pilot, lambda: len(app.notes) == 1)
        assert app.screen.__class__.__name__ != "PromptScreen"
        assert "needs a person at the keyboard" in app.notes[-1].message


async def test_cancelled_before_any_walk_finished_counts_nothing():
    gate = Gate()
    gate.walks = 2  # every walk waits for its token
    app = make_app(QUERY, navigator=gate)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        panel = await ask_for(pilot, app, "3")
        await wait_for(pilot, lambda: gate.blocked >= 1)
        await pilot.press("x")
        await wait_for(pilot, lambda: panel.stability is not None)
        assert text_at(panel, "#stability-status") == "cancelled before any of the 3 walks finished: nothing to count"
        assert text_at(panel, "#stability-summary") == "No walk finished: nothing to measure."
        assert app.query_one(WalkTree).counts == {}
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, StabilityScreen))
