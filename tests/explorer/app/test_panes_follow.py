"""Panes follow the walk on screen (issue 44, point 1): each says what it shows and repaints itself when that
changes, the screen composing them without pushing into any; the shown walk keeps its own rules.

A probe pane, mounted on the walk screen with no edit of the screen, is repainted on the walk's events; one
``view.walk = w`` while a walk plays and is compared is one repaint of each pane, and leaves nothing of the walk
before (its play, its partner)."""

from __future__ import annotations

from collections import Counter
from typing import ClassVar

from textual.widgets import Static

from explorer.tui.screens.choose_walk import WalksScreen
from explorer.tui.walk_screen.panes import Changes, Following, Scene
from explorer.tui.walk_screen.shown import Aspect
from explorer.walks.history import Change

from .helpers import SIZE, make_app, wait_for

QUERY = "How long do refunds take?"


class Probe(Following, Static):
    """A pane for tests: it shows the walk's cursor and events, and notes each paint and what it was painted for."""

    SHOWS: ClassVar[Changes] = frozenset({Change.GREW, Change.MOVED, Aspect.WALK})

    def __init__(self) -> None:
        super().__init__()
        self.painted: list[Changes] = []

    def paint(self, scene: Scene, changes: Changes) -> None:
        self.painted.append(changes)
        history = scene.view.history
        self.update(f"step {history.cursor} of {len(history.events)}" if history is not None else "no walk")


class PresentingProbe(Probe):
    """A pane that shows only whether the walk is presented."""

    SHOWS: ClassVar[Changes] = frozenset({Aspect.PRESENTING})


async def test_a_probe_pane_mounted_on_the_screen_is_repainted_on_the_walks_events_and_only_for_what_it_shows():
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.history is not None)
        probe, presenting = Probe(), PresentingProbe()
        await screen.mount(probe)
        await screen.mount(presenting)
        await wait_for(pilot, lambda: probe.painted and presenting.painted)  # painted whole once it follows
        assert len(probe.painted) == 1 and len(presenting.painted) == 1
        history = screen.view.history
        for _ in range(3):
            await pilot.press("n")
        await wait_for(pilot, lambda: len(history.events) == 4 and str(probe.render()) == "step 4 of 4")
        assert all(changes <= Probe.SHOWS for changes in probe.painted[1:])
        assert any(Change.GREW in changes for changes in probe.painted[1:])
        assert len(presenting.painted) == 1  # the walk's steps are not what it shows
        await pilot.press("b")  # back a step: the cursor moves over what happened
        await wait_for(pilot, lambda: str(probe.render()) == "step 3 of 4")
        assert probe.painted[-1] == {Change.MOVED}
        await pilot.press("P")  # presenting: the second probe repaints, the first does not
        await wait_for(pilot, lambda: len(presenting.painted) == 2)
        assert presenting.painted[-1] == {Aspect.PRESENTING}
        assert probe.painted[-1] == {Change.MOVED}


async def test_one_walk_shown_while_a_walk_plays_and_is_compared_is_one_repaint_of_each_pane():
    app = make_app(QUERY, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.walk_screen
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.view.history.end is not None)
        first = screen.view.walk
        await pilot.press("r")  # walk 2, the same query
        await wait_for(pilot, lambda: screen.view.walk is not first)
        await pilot.press("D")
        await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.view.partner is first)
        await pilot.press("minus", "minus", "minus", "minus", "minus", "minus", "minus")  # the slowest pace
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.view.playing)
        panes = list(screen.board.panes)
        assert {type(pane).__name__ for pane in panes} == {
            "TreePane", "QueryPane", "NarrationPane", "MeterPane", "StepPane", "ComparePane", "OfferPane",
            "AnswerPane", "ResultsPane", "TranscriptPane", "TimelinePane"}
        painted: Counter[str] = Counter()
        for pane in panes:
            def counting(scene: Scene, changes: Changes, pane=pane, paint=pane.paint) -> None:
                painted[type(pane).__name__] += 1
                paint(scene, changes)
            pane.paint = counting  # type: ignore[method-assign]
        second = screen.view.walk
        screen.view.walk = first
        assert painted == Counter({type(pane).__name__: 1 for pane in panes})  # one each, at once
        assert (screen.view.playing, screen.view.partner, screen.view.fork) == (False, None, None)
        await pilot.pause()
        assert painted == Counter({type(pane).__name__: 1 for pane in panes})  # and nothing more after
        assert not screen.query_one("#side").has_class("comparing")
        assert second is not first
