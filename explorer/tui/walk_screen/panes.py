"""The walk screen's panes: widgets that follow the walk on screen, each repainting itself when what it shows
changes.

A pane says which aspects of the walk on screen it shows (``SHOWS``: a :class:`~explorer.walks.history.Change` of
its history, an :class:`~.shown.Aspect` of the view) and paints itself from a :class:`Scene` (the view and what is
read beside it). Mounted, it asks to follow (:class:`FollowWalk`, a message up to its screen); the screen's
:class:`Board` then repaints it once for each change of the view it shows. A change that an event made
(:attr:`Change.GREW`) is painted once after the messages already queued, so a burst of events (``c``) is one repaint;
any other change at once, so what a key changed is on screen before the next key is read. The screen composes the
panes and never pushes into them: a new pane is a widget with ``SHOWS`` and ``paint``, mounted anywhere on it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar, Protocol, cast

from textual.message import Message
from textual.widget import Widget

from ...corpora import Corpus
from ...walk_settings import WalkSettings
from ...walks.compare import Comparison, tree_marks
from ...walks.describe import capped_note, ending_text
from ...walks.habits import habit_notes
from ...walks.history import Change
from ...walks.narration import Narration
from ...walks.ranking import rank_landed
from ...walks.session import WalkSession
from ...walks.state import WalkState
from ..widgets.answer_card import AnswerCard
from ..widgets.budget_meter import BudgetMeter
from ..widgets.compare_panel import ComparePanel
from ..widgets.narration_line import NarrationLine
from ..widgets.offer_card import OfferCard
from ..widgets.query_input import QueryInput
from ..widgets.results_panel import ResultsPanel
from ..widgets.step_panel import ShownStep, StepPanel
from ..widgets.timeline import Timeline
from ..widgets.transcript import TranscriptView
from ..widgets.walk_tree import WalkTree
from .shown import Aspect, ShownWalk
from .status import Moment, moment_of, results_summary, status_line

Shown = Change | Aspect
Changes = frozenset[Shown]
EVERYTHING: Changes = frozenset((*Change, *Aspect))
"""What a pane is painted for when it starts to follow: all of it."""
WALKED: Changes = frozenset((Aspect.WALK, Change.GREW, Change.MOVED, Change.ENDED))
"""The walk on screen and where its cursor is: what every pane of the walk shows."""


@dataclass
class Scene:
    """What a pane reads: the walk on screen (``view``), the corpus, and what is read beside the walk: the next
    walk's settings, the comparison of the walk with its partner, what its local model's server does, presenting's
    words. Its state as of the cursor is made once for all the panes painted for one change."""

    view: ShownWalk
    corpus: Corpus
    settings: Callable[[], WalkSettings]
    comparison: Callable[[], Comparison | None]
    local_model: Callable[[WalkSession | None], str]
    narration: Callable[[], Narration]
    _state: tuple[tuple[object, ...], WalkState] | None = field(default=None, repr=False)

    def state(self) -> WalkState:
        """The walk on screen's state as of its cursor (made again only when the walk or its cursor moved)."""
        history = self.view.history
        if history is None:
            return WalkState()
        key = (history, history.cursor, len(history.events), history.end)  # the history itself: an id is reused
        if self._state is None or self._state[0] != key:
            self._state = (key, history.state())
        return self._state[1]

    def moment(self) -> Moment:
        view = self.view
        return moment_of(view.history, view.session, view.picker, playing=view.playing, pace=view.pace,
                         local_model=self.local_model(view.session))


class Pane(Protocol):
    """A widget that follows the walk on screen: what it shows, and how it paints itself from a scene."""

    SHOWS: ClassVar[Changes]

    @property
    def is_attached(self) -> bool: ...

    def paint(self, scene: Scene, changes: Changes) -> None: ...


class FollowWalk(Message):
    """A pane mounted on the walk screen asks to follow the walk on it."""

    def __init__(self, pane: Pane) -> None:
        super().__init__()
        self.pane = pane


class Following:
    """Mixed into a pane's widget: once mounted, it asks its screen to follow the walk (:class:`FollowWalk`)."""

    def on_mount(self) -> None:
        if isinstance(self, Widget):
            self.post_message(FollowWalk(cast(Pane, self)))


class Board:
    """The panes following the walk on screen, each repainted once per change of the view it shows; ``later``
    calls after the messages already queued (the screen's ``call_later``)."""

    def __init__(self, scene: Scene, later: Callable[[Callable[[], None]], Any]) -> None:
        self.scene = scene
        self.later = later
        self.panes: list[Pane] = []
        self._pending: dict[int, tuple[Pane, Changes]] = {}
        scene.view.watch(self.changed)

    def follow(self, pane: Pane) -> None:
        """``pane`` follows the walk from now on: painted at once with all of it (no walk shown before any is)."""
        if pane not in self.panes:
            self.panes.append(pane)
        self.repaint(pane, EVERYTHING if self.scene.view.walk is not None else EVERYTHING - {Aspect.WALK})

    def repaint(self, pane: Pane, changes: Changes = EVERYTHING) -> None:
        """Paint ``pane`` now (what it holds of its own changed: ``t`` on the tree)."""
        self._pending.pop(id(pane), None)
        if pane.is_attached:  # none once the app shuts down: a late event or timer finds it gone
            pane.paint(self.scene, changes)

    def changed(self, change: Shown) -> None:
        panes = [pane for pane in self.panes if change in pane.SHOWS]
        if change is not Change.GREW:
            for pane in panes:
                held = self._pending.get(id(pane))
                self.repaint(pane, frozenset({change}) | (held[1] if held else frozenset()))
            return
        if not self._pending:
            self.later(self._flush)
        for pane in panes:
            held = self._pending.get(id(pane))
            self._pending[id(pane)] = (pane, (held[1] if held else frozenset()) | {change})

    def _flush(self) -> None:
        pending, self._pending = self._pending, {}
        for pane, changes in pending.values():
            if pane.is_attached:
                pane.paint(self.scene, changes)


class TreePane(Following, WalkTree):
    """The corpus's tree: the walk's marks (or two compared walks'), what lies over them, and where the walk is
    brought into view as it goes."""

    SHOWS: ClassVar[Changes] = WALKED | {Aspect.PARTNER, Aspect.OVERLAY}

    def paint(self, scene: Scene, changes: Changes) -> None:
        view = scene.view
        if Aspect.WALK in changes:
            self.forget_walk()  # the branches following the walk before opened close again
        if Aspect.PARTNER in changes:
            self.refollow()
        if changes & {Aspect.WALK, Aspect.OVERLAY}:
            self.set_overlay(expected=view.expected, counts=view.counts, heat=view.heat)
            for node in (*sorted(view.expected), *view.counts):  # where the answer was, in view beside the walk
                self.reveal(node, move_cursor=False)
        state, comparison = scene.state(), scene.comparison()
        if comparison is not None:
            self.set_marks(*tree_marks(comparison))
        else:
            self.set_marks(state.marks(), state.reasons(), state.visit_numbers())
        self.follow_state(view.walk.number if view.walk is not None else 0, state, comparison)


class MeterPane(Following, BudgetMeter):
    """The budget meter: visits and depth used against the next walk's limits, and the status line."""

    SHOWS: ClassVar[Changes] = WALKED | {Change.PICK, Aspect.FORK, Aspect.PLAYING, Aspect.PACE, Aspect.SETTINGS,
                                         Aspect.CLOCK}

    def paint(self, scene: Scene, changes: Changes) -> None:
        settings = scene.settings()
        self.show(scene.state(), status_line(scene.moment()), settings.max_nodes_visited, settings.max_depth)


class StepPane(Following, StepPanel):
    """The step at the cursor: what happened, the pick open on it, why the walk ended, its verdict and habits."""

    SHOWS: ClassVar[Changes] = WALKED | {Change.PICK, Aspect.FORK, Aspect.JUDGED}

    def paint(self, scene: Scene, changes: Changes) -> None:
        view, state = scene.view, scene.state()
        history, walk = view.history, view.walk
        decision = history.decision_at() if history is not None else None
        judged = walk.judged if walk is not None else None
        at = judged[0] if judged is not None else None
        fault = judged[1] if judged is not None and history is not None \
            and history.cursor == (len(history.events) if at is None else at) else ()  # at its first wrong turn
        self.show(ShownStep(
            state, history.cursor if history else 0, len(history.events) if history else 0, view.picker,
            ending=ending_text(state), capped=capped_note(decision) if decision is not None else "",
            verdict=walk.verdict if walk is not None else "", fault=fault,
            habits=habit_notes(history.events, decision) if history else ()))


class ComparePane(Following, ComparePanel):
    """Two walks compared: what each landed and cost, and where they part (shown while a comparison is)."""

    SHOWS: ClassVar[Changes] = WALKED | {Aspect.PARTNER, Aspect.JUDGED}  # judged: each side says its verdict

    def paint(self, scene: Scene, changes: Changes) -> None:
        comparison = scene.comparison()
        if comparison is not None:
            self.show(comparison, prompts=scene.view.unfolded)


class ResultsPane(Following, ResultsPanel):
    """The Results tab: how the walk ended or that it runs, and what it landed, ranked."""

    SHOWS: ClassVar[Changes] = WALKED

    def paint(self, scene: Scene, changes: Changes) -> None:
        if Aspect.WALK in changes:
            self.reset()
        view, state = scene.view, scene.state()
        history = view.history
        live = view.walk is not None and view.walk.live
        self.show(state, scene.corpus, results_summary(state, scene.moment(), live=live),
                  rank_landed(state, history.events, history.forced) if history else ())


class TranscriptPane(Following, TranscriptView):
    """The Transcript tab: the decision at the cursor, as it was asked and answered."""

    SHOWS: ClassVar[Changes] = WALKED

    def paint(self, scene: Scene, changes: Changes) -> None:
        history = scene.view.history
        decision = history.decision_at() if history else None
        self.show(decision, scene.corpus, habit_notes(history.events, decision) if history else ())


class TimelinePane(Following, Timeline):
    """The Timeline tab: one row per event."""

    SHOWS: ClassVar[Changes] = WALKED

    def paint(self, scene: Scene, changes: Changes) -> None:
        self.show(scene.view.history)


class NarrationPane(Following, NarrationLine):
    """Presenting's narration: the step in words, and the seconds the navigator has been deciding."""

    SHOWS: ClassVar[Changes] = WALKED | {Aspect.PRESENTING, Aspect.CLOCK}

    def paint(self, scene: Scene, changes: Changes) -> None:
        if not scene.view.presenting:
            return
        thinking = scene.moment().busy_seconds
        if changes == {Aspect.CLOCK}:
            self.thinking(thinking)
        else:
            self.show(scene.narration(), thinking=thinking)


def at_end(scene: Scene) -> bool:
    """Whether the walk on screen is over and shown at its end (presenting's answer card replaces the offer)."""
    history = scene.view.history
    return history is not None and history.ended and history.at_latest


class OfferPane(Following, OfferCard):
    """Presenting's offer card: what the navigator is offered at the cursor."""

    SHOWS: ClassVar[Changes] = WALKED | {Aspect.PRESENTING}

    def paint(self, scene: Scene, changes: Changes) -> None:
        if scene.view.presenting and not at_end(scene):
            state = scene.state()
            hint = "Press n: the navigator gets its first offer." if state.offer is None and state.step <= 1 else ""
            self.show(state, hint=hint)


class AnswerPane(Following, AnswerCard):
    """Presenting's answer card: what the walk landed, once it is over."""

    SHOWS: ClassVar[Changes] = WALKED | {Aspect.PRESENTING}

    def paint(self, scene: Scene, changes: Changes) -> None:
        history = scene.view.history
        if scene.view.presenting and at_end(scene) and history is not None:
            self.show(scene.state(), scene.corpus, history.events, history.forced)


class QueryPane(Following, QueryInput):
    """The query box: a walk put on screen from elsewhere (an evaluation's, a trace's) offers its query in it."""

    SHOWS: ClassVar[Changes] = frozenset({Aspect.WALK})

    def paint(self, scene: Scene, changes: Changes) -> None:
        if scene.view.asked is not None:
            self.value = scene.view.asked
