"""What the screen shows at one step of a walk, computed from the events up to that step.

The state is a fold over ``core``'s walk events: the explorer shows any step
(the latest, or an earlier one when stepping back) by folding the events up
to it, so the walk's rules live in ``core`` alone and stepping back never
calls the navigator again.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from enum import StrEnum

from core import (
    CandidatesOffered,
    NavigatorChose,
    NavigatorFailed,
    NodeEntered,
    OnFailure,
    PathStopped,
    Policy,
    StopReason,
    StopRecord,
    WalkEvent,
    WalkFinished,
    WalkResult,
    WalkStarted,
)
from core.policy import DEFAULT_ALPHA

from ..ending import WalkEnd
from ..navigators.answered import Answered
from .decisions import how_answered, judged_never, stop_reason
from .waiting import WaitingNodes


class Mark(StrEnum):
    """How a node shows on the tree at this step (the first that applies, in this order)."""

    CURRENT = "current"
    LANDED = "landed"
    STOPPED = "stopped"
    """Chosen, but never entered: no visit was left for it, or the walk ended (cancelled, failed) first."""
    FORCED = "forced"
    """Chosen by a decision a person forced (a fork, or ``--force``)."""
    CHOSEN = "chosen"
    OFFERED = "offered"
    REJECTED = "rejected"
    VISITED = "visited"
    # Two walks compared (``explorer.walks.compare``): where each went, on one tree.
    DIVERGED = "diverged"
    """The node where the two walks compared first part."""
    BOTH = "both"
    """Entered or landed by both walks compared."""
    ONLY_A = "only-a"
    """Entered or landed by walk A only."""
    ONLY_B = "only-b"
    """Entered or landed by walk B only."""


_WITH_FRONTIER = (CandidatesOffered, NavigatorChose, NodeEntered)
"""The events a best-first walk says its frontier on."""


_CONTAINERS = ("frontier", "entered", "stops", "landed", "stopped_branches", "ever_rejected", "waiting_branches",
               "forced_nodes", "never_judged", "_entered_set")
"""The fields of a state that change in place as events are applied (:meth:`WalkState.copy` copies them)."""


@dataclass
class WalkState:
    """The walk as of ``step`` events."""

    query: str = ""
    model: str = ""
    budget: int = 0
    max_depth: int = 0
    on_failure: OnFailure = OnFailure.THROW
    policy: Policy = Policy.DEPTH_FIRST
    alpha: float = DEFAULT_ALPHA
    frontier: WaitingNodes = field(default_factory=WaitingNodes)
    """A best-first walk's nodes waiting to be entered, with their path scores, as of the last offer, answer or
    entry (empty for a depth-first walk): rebuilt from the change each of them says (``joined``, ``left``)."""
    step: int = 0
    visits_used: int = 0
    live_calls: int = 0
    """Decisions the navigator was really asked for (a call, a model run): not forced, replayed or cached."""
    forced_answers: int = 0
    """Decisions a person forced (``--force``, a fork's own decision): no navigator call."""
    replayed_answers: int = 0
    """Decisions repeated from a record (a trace, the walk a fork or re-walk came from): no navigator call."""
    cached_answers: int = 0
    """Decisions answered from the response cache: no navigator call."""
    what_if_answers: int = 0
    """Decisions taken from a what-if (another navigator's answer, chosen by a person): no call of this walk's."""
    chars_shipped: int = 0
    """Title and summary characters really sent: those of the offers the navigator answered with a call, counted
    when the answer says so (a replayed walk's figure never rises at an offer to fall back at its answer: issue
    45), and those of an offer left unanswered when the walk was cancelled or failed (:meth:`close`)."""
    unanswered_chars: int = 0
    """The characters of the offer on show while its answer is not in yet (sent only if a call answers it)."""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    """Tokens of live calls only (a replayed or cached answer's recorded usage cost nothing now)."""
    current: str | None = None
    current_path: tuple[str, ...] = ()
    offer: CandidatesOffered | None = None
    choice: NavigatorChose | None = None
    failure: NavigatorFailed | None = None
    entered: list[str] = field(default_factory=list)
    stops: list[StopRecord] = field(default_factory=list)
    landed: dict[str, StopRecord] = field(default_factory=dict)
    stopped_branches: dict[str, StopRecord] = field(default_factory=dict)
    """Branches chosen but not entered (budget exhausted before entering, or not offered), by id."""
    ever_rejected: set[str] = field(default_factory=set)
    waiting_branches: set[str] = field(default_factory=set)
    """Branches chosen and not taken yet (depth first: they wait for the branch before them)."""
    forced_nodes: set[str] = field(default_factory=set)
    """Nodes chosen by a forced decision."""
    never_judged: set[str | None] = field(default_factory=set)
    """Nodes (``None``: the roots) whose record never judged them, answered by stopping there
    (:func:`~.decisions.judged_never`): their stops are said ``never judged``, not ``navigator_stopped``."""
    choice_forced: bool = False
    """Whether the decision on show (``choice`` or ``failure``) was forced by a person."""
    _entered_set: set[str] = field(default_factory=set, repr=False)
    _offered: frozenset[str] = field(default_factory=frozenset, repr=False)
    result: WalkResult | None = None
    last: WalkEvent | None = None
    ended: WalkEnd | None = None
    """How the walk ended, once it has and the state is as of its last event (see :meth:`close`)."""
    error: str | None = None

    @property
    def remaining(self) -> int:
        return self.budget - self.visits_used

    @property
    def answers(self) -> int:
        """Every decision answered (choices and failures), however it was answered."""
        return (self.live_calls + self.forced_answers + self.replayed_answers + self.cached_answers
                + self.what_if_answers)

    def cost(self) -> Cost:
        """What the walk cost so far, as data."""
        return Cost(self.visits_used, self.live_calls, self.forced_answers, self.replayed_answers,
                    self.cached_answers, self.chars_shipped, self.prompt_tokens, self.completion_tokens,
                    self.what_if_answers)

    @property
    def depth(self) -> int | None:
        """The depth of the current node (``None`` before any node is entered)."""
        return len(self.current_path) - 1 if self.current_path else None

    @property
    def finished(self) -> bool:
        return self.result is not None

    @classmethod
    def from_events(cls, events: Iterable[WalkEvent], forced: Collection[int] = ()) -> WalkState:
        """The state after ``events``; ``forced`` holds the 1-based numbers of forced decisions."""
        state = cls()
        for event in events:
            state.apply(event, forced=state.step + 1 in forced)
        return state

    def copy(self) -> WalkState:
        """A copy that folds further events apart from this one (a checkpoint of the walk history)."""
        twin = copy.copy(self)
        for name in _CONTAINERS:
            value = getattr(self, name)
            setattr(twin, name, value.copy())
        return twin

    def close(self, end: WalkEnd, error: str | None = None) -> None:
        """The walk ended after the last event applied: branches still waiting will never be entered."""
        self.ended, self.error = end, error
        self.current = None
        if end is not WalkEnd.FINISHED:  # a call cut short by the cancel (or the failure) sent them
            self.chars_shipped += self.unanswered_chars
            self.unanswered_chars = 0

    def apply(self, event: WalkEvent, *, forced: bool = False) -> None:
        self.step += 1
        self.last = event
        if self.policy is not Policy.DEPTH_FIRST and isinstance(event, _WITH_FRONTIER):
            self.frontier.change(event.joined, event.left)
        if isinstance(event, WalkStarted):
            self.query, self.model = event.query, event.model
            self.budget, self.max_depth, self.on_failure = event.max_nodes_visited, event.max_depth, event.on_failure
            self.policy, self.alpha = event.policy, event.alpha
        elif isinstance(event, CandidatesOffered):
            self.offer, self.choice, self.failure, self.choice_forced = event, None, None, False
            self._offered = frozenset(c.id for c in event.candidates)
            self.current = event.current.id if event.current else None
            self.current_path = tuple(event.path)
            # Counted once the answer says a call sent them (not forced, replayed or cached).
            self.unanswered_chars = event.chars_shipped
        elif isinstance(event, NavigatorChose):
            self.choice = event
            self.choice_forced = forced
            if judged_never(event):
                self.never_judged.add(event.current)
            if forced:
                self.forced_nodes.update(event.valid)
            live = self._count_answer(how_answered(event, forced))
            self.ever_rejected.update(event.rejected)
            self.waiting_branches.update(event.valid)
            if live and event.usage:
                self.prompt_tokens += _count(event.usage.get("prompt_tokens"))
                self.completion_tokens += _count(event.usage.get("completion_tokens"))
        elif isinstance(event, NavigatorFailed):
            self.failure = event
            self.choice_forced = forced
            self._count_answer(how_answered(event, forced))
        elif isinstance(event, NodeEntered):
            self.visits_used = event.visits_used
            self.current = event.node.id
            self.current_path = tuple(event.path)
            self.entered.append(event.node.id)
            self._entered_set.add(event.node.id)
            self.waiting_branches.discard(event.node.id)
            self.offer, self.choice, self.failure, self.choice_forced = None, None, None, False
            self._offered = frozenset()
        elif isinstance(event, PathStopped):
            record = event.record
            # The step is where the stop is: the branch that could not be entered, else the node it stopped at
            # (not the node entered last, which may sit in another branch). An id never offered is on no tree:
            # that stop is at the node that offered.
            entering = record.branch is not None and record.reason is not StopReason.INVALID_CHOICE
            self.current_path = tuple(record.path) + ((record.branch,) if entering and record.branch else ())
            self.current = self.current_path[-1] if self.current_path else None
            self.stops.append(record)
            if record.landed is not None:
                self.landed[record.landed] = record
            if record.branch is not None:
                self.stopped_branches.setdefault(record.branch, record)
                self.waiting_branches.discard(record.branch)
                # A best-first walk drains its frontier with stops (no visit left) and says no frontier with them:
                # a branch stopped waits no more (``Next`` listed it still, issue 45).
                self.frontier.change((), (record.branch,))
        elif isinstance(event, WalkFinished):
            self.result = event.result
            self.current = None

    def _count_answer(self, how: Answered) -> bool:
        """Count one answer by how it was given; whether it was a live call (its offer's characters were sent)."""
        if how is Answered.LIVE:
            self.live_calls += 1
            self.chars_shipped += self.unanswered_chars
            self.unanswered_chars = 0
            return True
        if how is Answered.FORCED:
            self.forced_answers += 1
        elif how is Answered.REPLAYED:
            self.replayed_answers += 1
        elif how is Answered.WHAT_IF:
            self.what_if_answers += 1
        else:
            self.cached_answers += 1
        self.unanswered_chars = 0
        return False

    def mark_of(self, node_id: str) -> Mark | None:
        if node_id == self.current:
            return Mark.CURRENT
        if node_id in self.landed:
            return Mark.LANDED
        if node_id in self.stopped_branches:
            return Mark.STOPPED
        if self.ended is not None and node_id in self.waiting_branches:
            return Mark.STOPPED
        if node_id in self._offered:
            if self.choice is None:
                return Mark.OFFERED
            if node_id not in self.choice.selected:
                return Mark.REJECTED
            return Mark.FORCED if self.choice_forced else Mark.CHOSEN
        if node_id in self._entered_set:
            return Mark.FORCED if node_id in self.forced_nodes else Mark.VISITED
        if node_id in self.waiting_branches:
            return Mark.FORCED if node_id in self.forced_nodes else Mark.CHOSEN
        if node_id in self.ever_rejected:
            return Mark.REJECTED
        return None

    def marks(self) -> dict[str, Mark]:
        """Every node with a mark at this step."""
        ids = self._entered_set | self.landed.keys() | self.stopped_branches.keys() | self.ever_rejected
        ids = ids | self.waiting_branches | self._offered
        if self.current is not None:
            ids.add(self.current)
        return {node_id: mark for node_id in ids if (mark := self.mark_of(node_id)) is not None}

    def visit_numbers(self) -> dict[str, int]:
        """Each node entered so far, with its place in the visit order (the first entered is 1)."""
        return {node_id: number for number, node_id in enumerate(self.entered, start=1)}

    def reason_of(self, record: StopRecord, *, brief: bool = False) -> str:
        """How the explorer says why ``record``'s path stopped (:func:`~.decisions.stop_reason`)."""
        return stop_reason(record, self.never_judged, brief=brief)

    def reasons(self) -> dict[str, str]:
        """The stop reason to show beside each node where a path stopped (a landing's, else the branch's)."""
        found = {node_id: self.reason_of(record) for node_id, record in self.stopped_branches.items()}
        if self.ended is not None:
            found.update((node_id, f"never entered: {self.ended.value}") for node_id in self.waiting_branches)
        found.update((node_id, self.reason_of(record)) for node_id, record in self.landed.items())
        return found

    def ending(self) -> Ending | None:
        """Why the walk ended, as data (``None`` until it has)."""
        if self.ended is None:
            return None
        never: dict[str, list[str]] = {}
        hallucinated: list[str] = []
        for node_id, record in self.stopped_branches.items():
            if record.reason is StopReason.INVALID_CHOICE:
                hallucinated.append(node_id)
            else:
                never.setdefault(NO_VISIT_LEFT, []).append(node_id)
        waiting = [node_id for node_id in self.waiting_branches if node_id not in self.stopped_branches]
        if waiting:
            if self.ended is WalkEnd.FINISHED:
                why = "the navigator failed and on-failure empty ended the walk"
            elif self.ended is WalkEnd.CANCELLED:
                why = "the walk was cancelled"
            else:
                why = "the walk failed"
            never.setdefault(why, []).extend(sorted(waiting))
        return Ending(
            end=self.ended,
            step=self.step,
            error=self.error,
            landed_by_reason=Counter(self.reason_of(record, brief=True) for record in self.landed.values()),
            landed=len(self.landed),
            never_entered={why: tuple(ids) for why, ids in never.items()},
            hallucinated=tuple(hallucinated),
            empty_failure=self.result.failure if self.result is not None else None,
            pending_offer=self.offer if self.offer is not None and self.choice is None and self.failure is None
            else None,
        )


NO_VISIT_LEFT = "no visit left"


@dataclass(frozen=True)
class Cost:
    """What a walk cost: visits, the navigator calls really made and the answers that needed none, and the
    characters and tokens really sent (those of live calls)."""

    visits: int
    live_calls: int
    forced: int = 0
    replayed: int = 0
    cached: int = 0
    chars: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    what_if: int = 0

    @property
    def answers(self) -> int:
        """Every decision answered, live or not."""
        return self.live_calls + self.forced + self.replayed + self.cached + self.what_if

    @property
    def without_call(self) -> dict[str, int]:
        """The answers given without a call, by how (only the kinds that happened), in a fixed order."""
        counts = {Answered.FORCED.value: self.forced, Answered.REPLAYED.value: self.replayed,
                  Answered.CACHED.value: self.cached, Answered.WHAT_IF.value: self.what_if}
        return {how: count for how, count in counts.items() if count}

    def to_json(self) -> dict[str, object]:
        """``{"live": 2, "forced": 2, "replayed": 0, "cached": 0}``: how each decision was answered (with
        ``"what-if": N`` after them once a decision was taken from a what-if: a superset of what older readers know)."""
        counts: dict[str, object] = {"live": self.live_calls, "forced": self.forced, "replayed": self.replayed,
                                     "cached": self.cached}
        if self.what_if:
            counts[Answered.WHAT_IF.value] = self.what_if
        return counts


@dataclass(frozen=True)
class Ending:
    """Why a walk ended, said in data: what the step panel and the results' summary put in words.

    ``landed_by_reason`` counts the landed nodes per stop reason;
    ``never_entered`` maps why (``"no visit left"``, ``"the walk was
    cancelled"``...) to the chosen branches never entered for that reason;
    ``hallucinated`` holds the ids returned that were never offered;
    ``empty_failure`` is the failure that emptied the result under
    ``on_failure=empty``; ``pending_offer`` is the offer a cancel or failure
    cut short, before the navigator answered.
    """

    end: WalkEnd
    step: int
    error: str | None
    landed_by_reason: Counter[str]
    landed: int
    never_entered: dict[str, tuple[str, ...]]
    hallucinated: tuple[str, ...]
    empty_failure: str | None
    pending_offer: CandidatesOffered | None


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
