"""The evaluation screen's runs (:mod:`.evaluation`): each side's run and what it found so far
(:class:`SideRun`), and the messages its workers post as each question is walked, as the run ends and as each of
its outcomes is judged (whose fault a miss was, where a flat search ranks the expected node)."""

from __future__ import annotations

from dataclasses import dataclass, field

from textual.message import Message

from core import TreeNavigator

from ...navigators.prompt_variants import model_label
from ...numbers import counted
from ...walk_settings import MapRef
from ...walks.evaluation import EvaluationRun, KeptRun, Pace, QuestionOutcome, Side, holds
from ...walks.evaluation.kept_run import few_ids, map_label
from ...walks.evaluation.verdict_run import VerdictRun


@dataclass
class QuestionWalked(Message):
    """Question ``number`` (0-based) of side ``side``'s run ``generation`` was walked."""

    side: Side
    generation: int
    number: int
    outcome: QuestionOutcome


@dataclass
class QuestionJudged(Message):
    """Question ``number``'s outcome of side ``side``'s run ``generation``, judged (its verdict, its flat rank); or
    the judge broke with ``error`` (``outcome`` is ``None``)."""

    side: Side
    generation: int
    number: int
    outcome: QuestionOutcome | None
    error: str | None = None


@dataclass
class EvaluationEnded(Message):
    """Side ``side``'s run ``generation`` is over (every question walked, or cancelled), or broke with ``error``."""

    side: Side
    generation: int
    error: str | None = None


@dataclass
class SideRun:
    """One navigator's run over the set, and what it found so far (``resumed``: the kept run it holds questions of).
    """

    model: str
    navigator: TreeNavigator
    run: EvaluationRun
    generation: int
    outcomes: list[QuestionOutcome | None]
    pace: Pace
    resumed: KeptRun | None = None
    over: bool = False
    error: str | None = None
    map: MapRef | None = None
    """The map variant this side walks with (``None``: the corpus as its file holds it)."""
    verdicts: VerdictRun | None = field(default=None, repr=False)
    """Its outcomes judged as they come, once a miss comes (none before)."""

    @property
    def done(self) -> int:
        return sum(o is not None for o in self.outcomes)

    @property
    def left(self) -> int:
        """The questions not walked yet (while it runs)."""
        return sum(o is None for o in self.outcomes)

    @property
    def held(self) -> list[str]:
        """The questions it holds: their walks ended on their own (a walk a cancel cut short is walked again)."""
        return [o.question_id for o in self.outcomes if o is not None and holds(o)]

    @property
    def label(self) -> str:
        return model_label(self.model) + map_label(self.map)

    def holding(self) -> str:
        """``partial: holds 2 of 4 questions (a, b)``: what a run not walked whole holds."""
        held = self.held
        return (f"partial: holds {len(held)} of {counted(len(self.outcomes), 'question')}"
                + (f" ({few_ids(held)})" if held else ""))
