"""How many ids one answer may hold: enough for every candidate offered, and the junk beyond bounded.

An LLM's answer is cut here as it is read (:mod:`.llm.answer`); so is a ``py:`` navigator's, a ``script:`` file's and
a walk rebuilt from spans, which had no bound: 100,000 ids took a walk 33 s and 506 MB, and held the explorer for
12 s at 1,000. The ids past the bound are never looked at, so they are neither checked nor recorded. A walk drawn
from its record (``export --html``, ``H``) has its recorded answers cut the same way (:func:`cut_answers`): one
answer of 100,000 ids took an export 23 s and 440 MB, against 5 s and 170 MB for the same walk uncut.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Final

from core import CandidatesOffered, NavigatorChoice, NavigatorChose, WalkEvent

MIN_IDS_KEPT: Final = 100
IDS_PER_CANDIDATE: Final = 3


def ids_kept(candidates: int) -> int:
    """How many of the ids in one answer are kept: enough for every candidate, and the junk beyond bounded."""
    return max(MIN_IDS_KEPT, IDS_PER_CANDIDATE * candidates)


def capped(choice: NavigatorChoice | Iterable[str], candidates: int) -> NavigatorChoice | Iterable[str]:
    """``choice`` with at most :func:`ids_kept` ids (an iterable is read only that far); what is no iterable of
    ids (``None``, a number, a bare ``str``) is left for ``core`` to refuse in its own words."""
    most = ids_kept(candidates)
    if isinstance(choice, NavigatorChoice):
        return choice if len(choice.selected) <= most else replace(choice, selected=choice.selected[:most])
    if isinstance(choice, str) or not isinstance(choice, Iterable):
        return choice  # None, a number, a bare string: core says what is wrong with it, as before
    return tuple(itertools.islice(choice, most))


@dataclass(frozen=True)
class Cut:
    """One recorded answer cut: at ``step`` (the 1-based number of its event), ``ids`` selected, ``kept`` kept."""

    step: int
    ids: int
    kept: int

    def said(self) -> str:
        """``the answer at step 3 selected 100,001 ids: the first 100 are shown, …``."""
        return (f"the answer at step {self.step} selected {self.ids:,} ids: the first {self.kept:,} are shown, as a "
                "live answer is cut")


def cut_answers(events: Sequence[WalkEvent]) -> tuple[tuple[WalkEvent, ...], tuple[Cut, ...]]:
    """``events`` with every recorded answer holding more ids than :func:`ids_kept` of the offer before it cut to
    those (its ``hallucinated`` to the ones kept), and where each was cut; the same events when none is over."""
    offered = 0
    kept: list[WalkEvent] = []
    cuts: list[Cut] = []
    for step, event in enumerate(events, start=1):
        if isinstance(event, CandidatesOffered):
            offered = len(event.candidates)
        elif isinstance(event, NavigatorChose) and len(event.selected) > ids_kept(offered):
            selected = event.selected[:ids_kept(offered)]
            shown = set(selected)
            cuts.append(Cut(step, len(event.selected), len(selected)))
            event = replace(event, selected=selected,
                            hallucinated=tuple(node for node in event.hallucinated if node in shown))
        kept.append(event)
    return (tuple(events) if not cuts else tuple(kept)), tuple(cuts)
