"""What just happened in a walk, in plain words: presenting mode's narration line, one decision step at a time.

UI-free and plain text: ``The navigator is at Billing. It was offered 6 sections and chose Refunds: …``,
then what followed (the nodes entered, what landed and why). Corpus and navigator text is put in as it is;
whoever shows the line escapes it (``safe_text.safe`` on screen). Titles come from the walk's own events
(the offers and the nodes entered), so a trace narrates without its corpus.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from core import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    OnFailure,
    PathStopped,
    StopReason,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkStarted,
)

from ..ending import WalkEnd
from ..navigators.answered import Answered
from ..safe_text import clip, clip_words, one_line
from .decision_steps import DecisionStep, StepKind
from .decisions import NEVER_JUDGED, decisions_of, how_answered, stop_reason
from .habits import Habit, Habits, decision_habits

RATIONALE_SHOWN = 150
"""Characters of a rationale the narration keeps (the step panel and the transcript have it whole)."""
CLAUSE_ENDS = (". ", "; ", " — ", " - ", ", ")
"""Where a long rationale may be cut, the strongest first: a room reads a whole clause, never half a word."""


def shortened(text: str, limit: int = RATIONALE_SHOWN) -> str:
    """``text`` whole when it fits ``limit``; else cut at the last clause end before it (a sentence's, then a
    semicolon's, a dash's, a comma's), in its second half; else at the last space, with ``…``."""
    if len(text) <= limit:
        return text
    for end in CLAUSE_ENDS:
        cut = text.rfind(end, limit // 2, limit)
        if cut > 0:
            return text[:cut].rstrip(" .;,—-") + "."
    return clip_words(text, limit)
NAMES_SHOWN = 4
"""Nodes named in one list of the narration; the rest are counted."""


def names(items: Sequence[str], limit: int = NAMES_SHOWN) -> str:
    """``Refunds``, ``Refunds and Invoices``, ``A, B and C``, ``A, B, C, D and 3 more``."""
    shown = list(items[:limit])
    if len(items) > limit:
        shown.append(f"{len(items) - limit:,} more")
    if len(shown) <= 1:
        return "".join(shown)
    return f"{', '.join(shown[:-1])} and {shown[-1]}"


def sections(count: int) -> str:
    return f"{count:,} section" if count == 1 else f"{count:,} sections"


def titles_in(events: Sequence[WalkEvent]) -> dict[str, str]:
    """Every node's title as the walk's events show it (offers and nodes entered)."""
    found: dict[str, str] = {}
    for event in events:
        if isinstance(event, CandidatesOffered):
            found.update((c.id, c.title) for c in event.candidates)
            if event.current is not None:
                found[event.current.id] = event.current.title
        elif isinstance(event, NodeEntered):
            found[event.node.id] = event.node.title
    return found


@dataclass(frozen=True, slots=True)
class Narration:
    """One step said in sentences, and the same step said briefly: the navigator's reason and its habits left out
    (what a narrow screen shows when the whole does not fit; never a sentence cut in the middle)."""

    sentences: tuple[str, ...]
    brief: tuple[str, ...]

    @property
    def words(self) -> str:
        return " ".join(self.sentences)


class _Narrator:
    def __init__(self, events: Sequence[WalkEvent], forced: Collection[int]) -> None:
        self.briefly: dict[str, str] = {}
        """A sentence said in full → the same said briefly (``""``: left out of the brief)."""
        self.events = events
        self.forced = forced
        self.titles = titles_in(events)
        start = next((e for e in events if isinstance(e, WalkStarted)), None)
        self.budget = start.max_nodes_visited if start is not None else 0
        self.query = start.query if start is not None else ""
        decisions = decisions_of(events, forced)
        self.unjudged = {d.node for d in decisions if d.never_judged}
        self.answered = {d.answer_seq: d for d in decisions if d.answer_seq is not None}

    def title(self, node_id: str | None) -> str:
        if node_id is None:
            return "the start"
        return one_line(self.titles.get(node_id) or node_id)

    def start(self, event: WalkStarted) -> str:
        return (f"The navigator ({clip(one_line(event.model), 40)}) is asked “{one_line(event.query)}”, with "
                f"{event.max_nodes_visited:,} visits to spend and a depth limit of {event.max_depth}.")

    def decision(self, step: DecisionStep) -> list[str]:
        offer = self.events[step.first - 1]
        assert isinstance(offer, CandidatesOffered)
        if offer.current is None:
            where = "The navigator starts at the top."
        else:
            where = f"The navigator is at {self.title(offer.current.id)}."
        offered = sections(len(offer.candidates))
        answer = self.events[step.shown - 1] if step.shown != step.first else None
        if not isinstance(answer, NavigatorChose | NavigatorFailed):
            return [where, f"It is choosing among {offered}…"]
        how = how_answered(answer, step.shown in self.forced)
        said = [where]
        if isinstance(answer, NavigatorFailed):
            said.append(f"It was offered {offered} and the navigator failed: {clip(one_line(answer.error), 200)}.")
            said.append({
                OnFailure.THROW: "The walk stops with this error.",
                OnFailure.EMPTY: "The walk ends with no documents (on failure: empty).",
                OnFailure.PARTIAL: "The walk goes on (on failure: partial).",
            }[answer.policy])
        else:
            decision = self.answered.get(step.shown)
            habits = (decision_habits(decision, self.query) if decision is not None else None) or Habits()
            said.append(self._choice(offered, answer, how, habits))
            others = [note for habit, note in habits.described().items() if habit is not Habit.COPIED_PROMPT]
            if others:
                said.append(f"Its habits: {'; '.join(others)}.")
                self.briefly[said[-1]] = ""
            if answer.hallucinated:
                ghosts = names([one_line(i) for i in answer.hallucinated])
                was = "was" if len(answer.hallucinated) == 1 else "were"
                said.append(f"It named {ghosts}, which {was} never offered (hallucinated): that branch stops there.")
        if how is Answered.REPLAYED:
            said.append("(The answer is replayed from the record: no navigator call.)")
        elif how is Answered.CACHED:
            said.append("(The answer came from the cache: no navigator call.)")
        elif how is Answered.WHAT_IF:
            said.append("(The answer was taken from a what-if: no call of this walk's navigator.)")
        said.extend(self._after(step))
        return said

    def _choice(self, offered: str, answer: NavigatorChose, how: Answered, habits: Habits) -> str:
        valid = [self.title(i) for i in answer.valid]
        if how is Answered.FORCED:
            if not answer.selected:
                return f"It was offered {offered}; a person forced the answer: stop here."
            text = f"It was offered {offered}; a person forced the answer: {names(valid) or 'no id that was offered'}"
        elif not answer.selected:
            text = f"It was offered {offered} and chose none of them: the path stops here"
        elif not valid:
            text = f"It was offered {offered} and chose no id that was offered"
        else:
            text = f"It was offered {offered} and chose {names(valid)}"
        rationale = one_line(answer.rationale).strip()
        if habits.copied:  # never read out as a reason: it is the prompt's words, not the navigator's
            said = f"{text} (its reason copies the prompt)."
        elif rationale and how is not Answered.FORCED:  # a forced answer's rationale only repeats what was forced
            rationale = shortened(rationale)
            said = f"{text}: {rationale}" + ("" if rationale[-1] in ".!?…" else ".")
        else:
            return f"{text}."
        self.briefly[said] = f"{text}."
        return said

    def _after(self, step: DecisionStep) -> list[str]:
        """The bookkeeping folded into the step: the nodes entered, then the stops grouped by reason."""
        said: list[str] = []
        entered = [e for e in self.events[step.shown: step.last] if isinstance(e, NodeEntered)]
        if entered:
            said.append(f"It entered {names([self.title(e.node.id) for e in entered])} "
                        f"(visit {entered[-1].visits_used:,} of {self.budget:,}).")
        by_reason: dict[tuple[StopReason, str], list[StopRecord]] = {}
        for event in self.events[step.shown: step.last]:
            if isinstance(event, PathStopped):
                key = event.record.reason, stop_reason(event.record, self.unjudged)
                by_reason.setdefault(key, []).append(event.record)
        for (reason, words), records in by_reason.items():
            said.extend(self.stops(reason, records, words))
        return said

    def stops(self, reason: StopReason, records: list[StopRecord], words: str) -> list[str]:
        """What the stops of one ``reason`` in one step did, in a sentence or two ending with the reason as the
        explorer says it (``words``: :func:`~.decisions.stop_reason`)."""
        landed = [self.title(r.landed) for r in records if r.landed is not None]
        branches = [r.branch for r in records if r.branch is not None]
        said: list[str] = []
        if reason is StopReason.VISIT_BUDGET_EXHAUSTED and branches:
            said.append(f"No visit was left to enter {names([self.title(b) for b in branches])}")
        elif reason is StopReason.INVALID_CHOICE and branches:
            said.append(f"{names([one_line(b) for b in branches])} {'was' if len(branches) == 1 else 'were'} "
                        "never offered")
        if landed:
            who, one = names(landed), len(landed) == 1
            lands = "it lands" if one else "they land"
            said.append({
                StopReason.LEAF: f"{who} {'has' if one else 'have'} no children: {lands}",
                StopReason.NAVIGATOR_STOPPED: f"The recording never judged {who}, and no navigator was asked: {lands}"
                if words == NEVER_JUDGED else f"The navigator chose nothing below {who}: {lands}",
                StopReason.MAX_DEPTH: f"{who} {'is' if one else 'are'} at the depth limit: {lands}",
                StopReason.NAVIGATOR_FAILED: f"{who} {'lands' if one else 'land'} where the navigator failed",
            }.get(reason, f"{who} {'lands' if one else 'land'}"))
        if not said:
            said.append(f"The path stops at {names([self.title(r.node) for r in records])}; nothing new lands")
        return [f"{sentence}." for sentence in said[:-1]] + [f"{said[-1]} ({words})."]

    def end(self, result: WalkFinished | None, end: WalkEnd | None, error: str | None) -> list[str]:
        if end is WalkEnd.CANCELLED:
            return ["The walk was cancelled here."]
        if end is WalkEnd.FAILED:
            return [f"The walk failed: {clip(one_line(error or 'the navigator failed'), 200)}."]
        if result is None:
            return []
        outcome = result.result
        documents = outcome.documents
        if outcome.failure:
            return [f"The walk is over: no documents — the navigator failed and on-failure empty ended it: "
                    f"{clip(one_line(outcome.failure), 200)}."]
        spent = f"It used {outcome.visits_used:,} of {self.budget:,} visits."
        if not documents:
            return ["The walk is over: nothing landed.", spent]
        reasons = {record.landed: stop_reason(record, self.unjudged) for record in outcome.stops
                   if record.landed is not None}
        landed = [f"{self.title(d.id)} ({reasons.get(d.id, 'landed')})" for d in documents]
        return [f"The walk is over: {len(documents):,} landed — {names(landed)}.", spent]


def narrate(events: Sequence[WalkEvent], step: DecisionStep, *, forced: Collection[int] = (),
            end: WalkEnd | None = None, error: str | None = None) -> str:
    """The narration of decision ``step`` of the walk ``events`` (``forced``: the 1-based numbers of the decisions
    a person forced; ``end`` and ``error``: how the walk ended, said at its last step)."""
    return narration(events, step, forced=forced, end=end, error=error).words


def narration(events: Sequence[WalkEvent], step: DecisionStep, *, forced: Collection[int] = (),
              end: WalkEnd | None = None, error: str | None = None) -> Narration:
    """:func:`narrate`'s sentences, and the brief of them."""
    narrator = _Narrator(events, forced)
    said: list[str] = []
    if step.kind is StepKind.START:
        first = events[step.first - 1]
        said.append(narrator.start(first) if isinstance(first, WalkStarted) else "The walk starts.")
    elif step.kind is StepKind.DECISION:
        said.extend(narrator.decision(step))
    last_step = step.last == len(events)
    if step.kind is StepKind.END or (last_step and end is not None and end is not WalkEnd.FINISHED):
        finished = events[step.last - 1] if isinstance(events[step.last - 1], WalkFinished) else None
        assert finished is None or isinstance(finished, WalkFinished)
        said.extend(narrator.end(finished, end, error))
    brief = (narrator.briefly.get(sentence, sentence) for sentence in said)
    return Narration(tuple(said), tuple(sentence for sentence in brief if sentence))
