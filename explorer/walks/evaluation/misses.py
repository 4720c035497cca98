"""Why a question was missed: the reason (:class:`MissReason`), and the step of its walk to look at (:class:`Miss`).

:func:`miss_of` follows the best path to an expected node (the one the walk
went deepest on) to the first node the walk did not enter, and asks what
happened at its parent.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from core import HierarchyIndex, NavigatorChose, NavigatorFailed, PathStopped, StopReason, WalkEvent

from ...corpora.questions import Question
from ...ending import WalkEnd
from ...walk_settings import WalkSettings
from ..history import WalkHistory

__all__ = ["Miss", "MissReason", "best_miss_path", "brief_words", "miss_of"]


class MissReason(StrEnum):
    """Why a question was missed: one of these, said in the evaluation table, ``eval`` and the step panel."""

    TURNED_AWAY = "turned away"
    """Offered the next node on the way to an expected node, the navigator chose others (or nothing)."""
    NEVER_OFFERED = "id never offered"
    """Offered the next node on the way, the navigator answered only with ids that were not offered."""
    BUDGET = "budget ran out"
    """No visit was left to go on toward the expected node: the visits went to other branches first."""
    DEPTH = "depth limit"
    """The depth limit stopped the walk on the way to the expected node."""
    FAILED = "navigator failed"
    """The navigator failed on the way to the expected node (or a failure ended or emptied the walk)."""
    CANCELLED = "cancelled"
    """The walk was cancelled before it reached the expected node."""
    WENT_PAST = "went past it"
    """The walk entered the expected node and went on below it: an expected node with children lands only when
    the navigator stops there (``validate`` warns of such a question)."""

    @property
    def wrong_turn(self) -> bool:
        """Whether this miss is a first wrong turn: the navigator, offered the way on, did not take it (not a
        limit, an end, or a walk that went past the expected node it had entered)."""
        return self in (MissReason.TURNED_AWAY, MissReason.NEVER_OFFERED)


@dataclass(frozen=True)
class Miss:
    """Why one question was missed, and the step of its walk to look at.

    ``step`` (1-based; ``None``: the end of the walk) is the step panel's numbering (:attr:`Decision.step`): for
    a decision the navigator made, its answer; for the budget, the decision where the branch that spent most of
    the visits was chosen (the first ``visit_budget_exhausted`` stop when the visits all went to the way itself);
    for the depth limit, its stop; for a failure, the failed answer. ``node`` is where (the node judged,
    ``None``: the roots; or the node the walk stopped at), ``missed`` the next node on the way to the expected one
    that the walk did not enter, ``chose`` what the navigator chose instead, ``spent`` the branches that took the
    visits (each with its visits, in the order entered), ``error`` a failure's message.
    """

    reason: MissReason
    step: int | None
    node: str | None = None
    missed: str | None = None
    chose: tuple[str, ...] = ()
    spent: tuple[tuple[str, int], ...] = ()
    error: str | None = None
    budget: int = 0
    depth_limit: int = 0

    def sentence(self) -> str:
        """The reason in words, plain (ids are corpus text: pass it through ``safe_text``):

        ``turned away: at step 8, judging sign-in-methods, the navigator chose nothing, not single-sign-on``.
        """
        where = "the roots" if self.node is None else self.node
        at = f"at step {self.step}, " if self.step is not None else ""
        toward = f" toward {self.missed}" if self.missed else ""
        reason = self.reason
        if reason is MissReason.TURNED_AWAY:
            chose = ", ".join(self.chose) if self.chose else "nothing"
            return f"turned away: {at}judging {where}, the navigator chose {chose}, not {self.missed}"
        if reason is MissReason.NEVER_OFFERED and self.missed is None:
            return "an id never offered: no expected id is in the corpus"
        if reason is MissReason.NEVER_OFFERED:
            return (f"an id never offered: {at}judging {where}, the navigator answered {', '.join(self.chose)}, "
                    f"ids that were not offered, not {self.missed}")
        if reason is MissReason.WENT_PAST:
            chose = ", ".join(self.chose) if self.chose else "nothing"
            return f"went past it: {at}judging {where} (expected), the navigator chose {chose} below it"
        if reason is MissReason.BUDGET:
            if not self.spent:
                none_left = f"; none was left at step {self.step}" if self.step is not None else ""
                return f"the budget ran out{toward}: all {self.budget} visits went to the way itself{none_left}"
            used = sum(visits for _, visits in self.spent)
            spent = ", ".join(f"{branch} ({visits})" for branch, visits in self.spent)
            return (f"the budget ran out{toward}: {used} of {self.budget} visits went to other branches first — "
                    f"{spent}; {at}judging {where}, the navigator chose them")
        if reason is MissReason.DEPTH:
            return f"the depth limit ({self.depth_limit}) stopped the walk at {where}{toward}"
        if reason is MissReason.FAILED:
            return f"the navigator failed{toward}: {at}judging {where}: {self.error or 'no message'}"
        return f"cancelled{toward}: the walk ended {at.rstrip(', ')}" if at else f"cancelled{toward}"

    def brief(self) -> str:
        """The reason in a few words, for a sentence that leads (``turned away at the roots``): :func:`brief_words`."""
        return brief_words(self.reason, self.node)

    def to_json(self) -> dict[str, object]:
        return {"reason": self.reason.value, "step": self.step, "node": self.node, "missed": self.missed,
                "chose": list(self.chose), "spent": [{"branch": b, "visits": v} for b, v in self.spent],
                "error": self.error, "says": self.sentence()}

    @classmethod
    def from_json(cls, data: Mapping[str, Any], settings: WalkSettings) -> Miss:
        """A miss as :meth:`to_json` wrote it (a kept run's), walked with ``settings`` (its budget and depth limit,
        which its words name); ``ValueError`` saying which field is not one."""
        try:
            reason = MissReason(str(data.get("reason")))
        except ValueError:
            raise ValueError(f"miss reason {data.get('reason')!r} is none this explorer knows") from None
        step, node, missed, error = (data.get(key) for key in ("step", "node", "missed", "error"))
        chose, spent = data.get("chose", []), data.get("spent", [])
        if not (step is None or (isinstance(step, int) and not isinstance(step, bool))):
            raise ValueError("the miss's step is not a whole number")
        if not all(value is None or isinstance(value, str) for value in (node, missed, error)):
            raise ValueError("the miss's node, missed node and error are not text")
        if not isinstance(chose, list) or not all(isinstance(c, str) for c in chose):
            raise ValueError("the miss's chose is not a list of ids")
        if not isinstance(spent, list) or not all(isinstance(s, dict) and isinstance(s.get("branch"), str)
                                                  and isinstance(s.get("visits"), int) for s in spent):
            raise ValueError("the miss's spent is not a list of branches and visits")
        return cls(reason, step, node, missed, tuple(chose), tuple((s["branch"], s["visits"]) for s in spent), error,
                   settings.max_nodes_visited, settings.max_depth)


_BRIEF = {MissReason.TURNED_AWAY: "turned away at {where}",
          MissReason.NEVER_OFFERED: "answered ids never offered at {where}",
          MissReason.BUDGET: "ran out of visits", MissReason.DEPTH: "stopped by the depth limit at {where}",
          MissReason.FAILED: "the navigator failed at {where}", MissReason.CANCELLED: "cancelled",
          MissReason.WENT_PAST: "went past it at {where}"}


def brief_words(reason: MissReason, node: str | None) -> str:
    """A miss's reason in a few words, where it happened (``turned away at the roots``, ``ran out of visits``); the
    node id is corpus text: pass the words through ``safe_text``."""
    return _BRIEF[reason].format(where="the roots" if node is None else node)


def best_miss_path(index: HierarchyIndex, expected: Sequence[str],
                   entered: set[str]) -> tuple[tuple[str, ...], str | None]:
    """The path (root first) to the expected node that the walk followed deepest (a tie: the first expected), and
    its first node the walk did not enter (``None``: it entered the whole path)."""
    best: tuple[str, ...] = ()
    missed: str | None = None
    reached = -1
    for e in expected:
        path = tuple(index.path(e))
        depth = 0
        while depth < len(path) and path[depth] in entered:
            depth += 1
        if depth > reached:
            best, reached = path, depth
            missed = path[depth] if depth < len(path) else None
    return best, missed


def miss_of(index: HierarchyIndex, question: Question, events: Sequence[WalkEvent], end: WalkEnd,
            error: str | None = None, forced: set[int] | frozenset[int] = frozenset()) -> Miss:
    """Why a walk missed ``question`` (call it for a walk that landed no expected node).

    Follows the best path to an expected node (the one the walk went deepest on) to the first node the walk
    did not enter, and asks what happened at its parent: the navigator turned away there (or answered ids never
    offered), no visit was left, the depth limit stopped it, the navigator failed, or the walk was cancelled.
    """
    history = WalkHistory(WalkSettings(""))
    for seq, event in enumerate(events, start=1):
        history.append(event, forced=seq in forced)
    state = history.state()
    path, missed = best_miss_path(index, [e for e in question.expect if e in index], set(state.entered))
    emptied = state.result.failure if state.result is not None else None

    def miss(reason: MissReason, step: int | None, node: str | None, chose: tuple[str, ...] = (),
             spent: tuple[tuple[str, int], ...] = (), failure: str | None = None) -> Miss:
        return Miss(reason, step, node, missed, chose, spent, failure, state.budget, state.max_depth)

    def ended_early(node: str | None, step: int | None) -> Miss:
        """The walk ended (a cancel, a failure) before it went on toward ``missed``."""
        if end is WalkEnd.CANCELLED:
            return miss(MissReason.CANCELLED, step, node)
        return miss(MissReason.FAILED, step, node, failure=error or emptied)

    def out_of_visits(node: str | None) -> Miss:
        """No visit was left to go on: which branches off the way took the visits, and where they were chosen."""
        spent = _spent_off(index, path, state.entered)
        if not spent:
            return miss(MissReason.BUDGET, history.budget_ran_out_at(), node)
        biggest = max(spent, key=lambda head: spent[head])  # the first of the biggest: dicts keep their order
        chooser = next((d for d in history.decisions() if d.node == _parent_of(index, biggest)), None)
        at = chooser.node if chooser is not None else None
        heads = tuple(h for h in spent if _parent_of(index, h) == at)
        return miss(MissReason.BUDGET, chooser.step if chooser is not None else None, at, heads,
                    tuple(spent.items()))

    if not path:  # no expected id is in the corpus (``fit_problem`` refuses such a set before any walk)
        return miss(MissReason.NEVER_OFFERED, None, None)
    decisions = {d.node: d for d in history.decisions()}
    if missed is None:  # the whole way entered, the expected node too, and it did not land
        node = path[-1] if path else None
        decision = decisions.get(node)
        step = decision.step if decision is not None else None
        if end is not WalkEnd.FINISHED or emptied is not None or decision is None:
            return ended_early(node, step)
        answer = decision.answer
        return miss(MissReason.WENT_PAST, step, node, answer.valid if isinstance(answer, NavigatorChose) else ())
    position = path.index(missed)
    parent = path[position - 1] if position > 0 else None
    decision = decisions.get(parent)
    if decision is not None:
        answer = decision.answer
        if isinstance(answer, NavigatorFailed):
            return miss(MissReason.FAILED, decision.step, parent, failure=answer.error)
        if isinstance(answer, NavigatorChose) and missed not in answer.valid:
            if answer.hallucinated and not answer.valid:
                return miss(MissReason.NEVER_OFFERED, decision.step, parent, answer.hallucinated)
            return miss(MissReason.TURNED_AWAY, decision.step, parent, answer.valid)
        stop = state.stopped_branches.get(missed)  # chosen, never entered
        if isinstance(answer, NavigatorChose) and stop is not None \
                and stop.reason is StopReason.VISIT_BUDGET_EXHAUSTED:
            return out_of_visits(parent)
        return ended_early(parent, decision.step)  # chosen and never entered, or never answered
    # The parent was entered but never judged: the depth limit, no visit left to go deeper, or the walk ended.
    for seq, event in enumerate(history.events, start=1):
        if isinstance(event, PathStopped) and event.record.branch is None and event.record.node == parent \
                and parent is not None:
            if event.record.reason is StopReason.MAX_DEPTH:
                return miss(MissReason.DEPTH, seq, parent)
            if event.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED:
                return out_of_visits(parent)
    return ended_early(parent, None)


def _spent_off(index: HierarchyIndex, way: Sequence[str], entered: Sequence[str]) -> dict[str, int]:
    """The visits spent off ``way``: per branch off it (its top node), in the order first entered."""
    on_way = set(way)
    spent: dict[str, int] = {}
    for node in entered:
        if node not in on_way:
            head = next(n for n in index.path(node) if n not in on_way)
            spent[head] = spent.get(head, 0) + 1
    return spent


def _parent_of(index: HierarchyIndex, node: str) -> str | None:
    path = index.path(node)
    return path[-2] if len(path) > 1 else None
