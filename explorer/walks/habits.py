"""An LLM navigator's habits, flagged from one decision: a rationale that copies the prompt, ids repeated, the first
candidates taken in the order offered, every candidate taken.

UI-free, and read from what any LLM navigator's decision records, not from one navigator's code: the request sent
(the transcript's ``system`` and ``user`` messages), the offered ids in order (the offer), the answer (its parsed
ids and rationale) and the count of repeated ids the navigator's parser made (:data:`~explorer.navigators.answered.
DUPLICATES_LABEL`: the walk keeps each id once, so only the parser can count them). The step panel, the narration,
the transcript, ``walk --json`` / ``replay --json``, the spans and the evaluation all say them from
:func:`habits_of`; a trace keeps what they are read from, so an older trace loads the same (its repeated ids were
never counted: none said).

**The rationale copies the prompt** when it shares a run of words with the prompt that the offer's own text does
not hold. Both are normalised the same way: case folded, each word a run of letters and digits (punctuation,
quotes and spacing ignored). The run is :data:`COPIED_RUN` words long, or the whole rationale when it is shorter
(but at least :data:`COPIED_LEAST` words): ``"one or two sentences on why"`` (the built-in prompt's placeholder)
and an instruction sentence copied into a longer reason are flagged; a reason that quotes a candidate's title or
summary, the current node's or the query (the offer's text, which the prompt also holds) is not. The longest such
run is said (``one or two sentences on why``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Final

from core import NavigatorChose, WalkEvent, WalkStarted

from ..navigators.answered import Answered, duplicates_in
from .decisions import Decision, decisions_of

__all__ = ["COPIED_LEAST", "COPIED_RUN", "PROMPT_LABELS", "Habit", "HabitCounts", "Habits", "copied_text",
           "count_habits", "decision_habits", "habit_notes", "habits_by_answer", "habits_of", "habits_to_json",
           "walk_habits"]

COPIED_RUN: Final = 6
"""Words in a row a rationale shares with the prompt (and not with the offer's text) to count as copied."""
COPIED_LEAST: Final = 3
"""A rationale shorter than :data:`COPIED_RUN` is copied when all of it is in the prompt, if it has this many."""
PROMPT_LABELS: Final = frozenset({"system", "developer", "user"})
"""The transcript labels of the chat messages sent: the prompt a rationale may copy."""
_RATIONALE_WORDS: Final = 400
"""Words of a rationale looked at: a megabyte of reason costs no more than a paragraph."""
_WORD = re.compile(r"[^\W_]+")


class Habit(StrEnum):
    """One habit, as ``--json``, the spans and the evaluation name it."""

    COPIED_PROMPT = "copied_prompt"
    """The rationale repeats text from the prompt (its placeholder, an instruction)."""
    DUPLICATE_IDS = "duplicate_ids"
    """The answer named an id more than once (the repeats dropped)."""
    FIRST_IN_ORDER = "first_in_order"
    """The answer is the first k candidates in the order offered (2 ≤ k < all offered)."""
    TOOK_EVERYTHING = "took_everything"
    """The answer took every candidate offered (more than one)."""


@dataclass(frozen=True)
class Habits:
    """What one LLM decision's answer shows of its navigator's habits (each empty or zero when absent)."""

    copied: str = ""
    """The prompt's words the rationale repeats (normalised: ``one or two sentences on why``)."""
    duplicates: int = 0
    """Ids the answer repeated (dropped: the walk keeps each once)."""
    first: int = 0
    """k, when the answer took the first k candidates in the order offered."""
    everything: int = 0
    """How many candidates were offered, when the answer took every one of them."""

    def __bool__(self) -> bool:
        return bool(self.flagged)

    @property
    def flagged(self) -> tuple[Habit, ...]:
        """The habits shown, in :class:`Habit`'s order."""
        shown = (self.copied, self.duplicates, self.first, self.everything)
        return tuple(habit for habit, value in zip(Habit, shown, strict=True) if value)

    def described(self) -> dict[Habit, str]:
        """Each habit shown, in words: ``its reason copies the prompt: “one or two sentences on why”``, ``7
        duplicate ids dropped``, ``took the first 3 in the order offered``, ``took every candidate offered (6)``."""
        said: dict[Habit, str] = {}
        if self.copied:
            said[Habit.COPIED_PROMPT] = f"its reason copies the prompt: “{self.copied}”"
        if self.duplicates:
            said[Habit.DUPLICATE_IDS] = (f"{self.duplicates:,} duplicate id dropped" if self.duplicates == 1
                                         else f"{self.duplicates:,} duplicate ids dropped")
        if self.first:
            said[Habit.FIRST_IN_ORDER] = f"took the first {self.first:,} in the order offered"
        if self.everything:
            said[Habit.TOOK_EVERYTHING] = f"took every candidate offered ({self.everything:,})"
        return said

    def notes(self) -> tuple[str, ...]:
        """:meth:`described`'s words, in :class:`Habit`'s order."""
        return tuple(self.described().values())


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _joined(words: Sequence[str]) -> str:
    return f" {' '.join(words)} "


def copied_text(rationale: str, prompt: Sequence[str], offer_text: Sequence[str] = ()) -> str:
    """The longest run of ``rationale``'s words that ``prompt`` (the messages sent) holds and no text of
    ``offer_text`` does (the query, titles and summaries the prompt carries), normalised; ``""`` when there is
    none of :data:`COPIED_RUN` words (or, for a shorter rationale of :data:`COPIED_LEAST` words or more, all of
    it). See the module's docstring."""
    words = _words(rationale)[:_RATIONALE_WORDS]
    run = min(COPIED_RUN, len(words))
    if run < COPIED_LEAST:
        return ""
    sent = [_joined(_words(text)) for text in prompt]
    theirs = [_joined(_words(text)) for text in offer_text]

    def copied(start: int, end: int) -> bool:
        piece = _joined(words[start:end])
        return any(piece in text for text in sent) and not any(piece in text for text in theirs)

    best = ""
    start = 0
    while start + run <= len(words):
        if not copied(start, start + run):
            start += 1
            continue
        end = start + run
        while end < len(words) and copied(start, end + 1):
            end += 1
        found = " ".join(words[start:end])
        best = found if len(found) > len(best) else best
        start = end
    return best


def habits_of(prompt: Sequence[str], offered: Sequence[str], selected: Sequence[str], rationale: str,
              duplicates: int = 0, offer_text: Sequence[str] = ()) -> Habits:
    """The habits of one LLM decision: ``prompt`` the messages sent, ``offered`` the candidates' ids in the order
    offered, ``selected`` the answer's ids (each once, in its order), ``rationale`` its reason, ``duplicates`` the
    repeated ids its parser counted, ``offer_text`` the offer's own text (:func:`copied_text`)."""
    first = everything = 0
    if len(offered) > 1 and selected:
        if set(selected) == set(offered):
            everything = len(offered)
        elif 2 <= len(selected) < len(offered) and tuple(selected) == tuple(offered[:len(selected)]):
            first = len(selected)
    return Habits(copied_text(rationale, prompt, offer_text), duplicates, first, everything)


def decision_habits(decision: Decision, query: str = "") -> Habits | None:
    """The habits of ``decision`` (``query``: the walk's, which its prompt quotes); ``None`` for a decision that
    is no LLM's answer: awaited, failed, forced by a person, or with no chat messages in its transcript."""
    answer = decision.answer
    if not isinstance(answer, NavigatorChose) or decision.how is Answered.FORCED or not answer.transcript:
        return None
    prompt = [text for label, text in answer.transcript if label in PROMPT_LABELS]
    if not prompt:
        return None
    offer = decision.offer
    offer_text = [query, *(text for view in offer.candidates for text in (view.title, view.summary, view.id))]
    if offer.current is not None:
        offer_text += [offer.current.title, offer.current.summary]
    return habits_of(prompt, [view.id for view in offer.candidates], answer.valid, answer.rationale,
                     duplicates_in(answer.transcript), [text for text in offer_text if text])


def walk_habits(events: Sequence[WalkEvent], decision: Decision) -> Habits | None:
    """:func:`decision_habits` of ``decision``, a decision of the walk ``events`` (whose start names the query)."""
    start = events[0] if events else None
    return decision_habits(decision, start.query if isinstance(start, WalkStarted) else "")


def habit_notes(events: Sequence[WalkEvent], decision: Decision | None) -> tuple[str, ...]:
    """The words of :func:`walk_habits` (the step panel's ``Habits`` line); ``()`` for no decision, or none shown."""
    habits = walk_habits(events, decision) if decision is not None else None
    return habits.notes() if habits is not None else ()


def habits_to_json(habits: Habits | None) -> dict[str, object] | None:
    """The habits as ``--json`` prints them: only those shown, ``{"copied_prompt": "one or two sentences on why",
    "duplicate_ids": 7, "first_in_order": 3, "took_everything": 6}`` (``{}``: none; ``None``: no LLM decision)."""
    if habits is None:
        return None
    values = {Habit.COPIED_PROMPT: habits.copied, Habit.DUPLICATE_IDS: habits.duplicates,
              Habit.FIRST_IN_ORDER: habits.first, Habit.TOOK_EVERYTHING: habits.everything}
    return {habit.value: values[habit] for habit in habits.flagged}


def habits_by_answer(events: Sequence[WalkEvent], forced: Collection[int] = ()) -> dict[int, Habits]:
    """The habits of each LLM decision of the walk ``events``, by its answer's event number (1-based; ``forced``
    numbers the answers a person forced, which have none)."""
    return {decision.answer_seq: habits for decision in decisions_of(events, forced)
            if decision.answer_seq is not None and (habits := walk_habits(events, decision)) is not None}


@dataclass(frozen=True)
class HabitCounts:
    """Each habit counted over LLM decisions (a walk's, an evaluation's): how many decisions showed it."""

    decisions: int = 0
    """The LLM decisions looked at (answered by a model, not forced)."""
    flagged: dict[str, int] = field(default_factory=lambda: dict.fromkeys([habit.value for habit in Habit], 0))
    """Decisions that showed each habit, by :class:`Habit` value, every habit named (0: none)."""
    ids_dropped: int = 0
    """Repeated ids dropped, over all those decisions."""

    def __add__(self, other: HabitCounts) -> HabitCounts:
        return HabitCounts(self.decisions + other.decisions,
                           {name: count + other.flagged.get(name, 0) for name, count in self.flagged.items()},
                           self.ids_dropped + other.ids_dropped)

    def to_json(self) -> dict[str, object]:
        """``{"decisions": 12, "copied_prompt": 12, "duplicate_ids": 3, "first_in_order": 7, "took_everything": 1,
        "duplicate_ids_dropped": 21}``."""
        return {"decisions": self.decisions, **self.flagged, "duplicate_ids_dropped": self.ids_dropped}

    @classmethod
    def from_json(cls, data: object) -> HabitCounts:
        """The counts as :meth:`to_json` wrote them (a kept run's); what is missing or not a count reads as 0."""
        if not isinstance(data, dict):
            return cls()

        def count(key: str) -> int:
            value = data.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0

        return cls(count("decisions"), {habit.value: count(habit.value) for habit in Habit},
                   count("duplicate_ids_dropped"))

    def words(self) -> str:
        """``habits over 12 LLM decisions: copied the prompt 12 · repeated ids 3 (21 dropped) · first k in order
        7 · took everything 1``; ``""`` when no LLM decision was looked at."""
        if not self.decisions:
            return ""
        flagged = self.flagged
        decisions = "1 LLM decision" if self.decisions == 1 else f"{self.decisions:,} LLM decisions"
        return (f"habits over {decisions}: copied the prompt {flagged[Habit.COPIED_PROMPT]:,} · repeated ids "
                f"{flagged[Habit.DUPLICATE_IDS]:,} ({self.ids_dropped:,} dropped) · first k in order "
                f"{flagged[Habit.FIRST_IN_ORDER]:,} · took everything {flagged[Habit.TOOK_EVERYTHING]:,}")


def count_habits(found: Iterable[Habits]) -> HabitCounts:
    """The habits of these decisions, counted."""
    decisions = dropped = 0
    flagged: dict[str, int] = dict.fromkeys([habit.value for habit in Habit], 0)
    for habits in found:
        decisions += 1
        dropped += habits.duplicates
        for habit in habits.flagged:
            flagged[habit.value] += 1
    return HabitCounts(decisions, flagged, dropped)
