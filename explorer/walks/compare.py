"""What changed between two walks: where they first part, what each landed, what each cost.

UI-free; the ``diff`` command and the explorer's comparison both read a
:class:`Comparison`. Two walks of the same query over the same corpus take
the same steps until a navigator answers differently (or is offered
something different), so their decisions are compared in order: the first
pair that differs is the first divergence.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from core import NavigatorChose, NavigatorFailed, WalkResult

from .history import Decision, WalkHistory
from .state import Mark, WalkState


class DivergenceKind(StrEnum):
    """How two walks first part."""

    CHOSE_DIFFERENTLY = "chose differently"
    """Both were offered the same candidates at the same node and answered differently."""
    OFFERED_DIFFERENTLY = "offered different candidates"
    """The same decision in order was an offer of different candidates (another corpus, node or budget)."""
    A_ENDED = "walk A ended first"
    """Walk A made fewer decisions; B went on."""
    B_ENDED = "walk B ended first"
    """Walk B made fewer decisions; A went on."""


@dataclass(frozen=True)
class Divergence:
    """The first decision (1-based, in order) at which the walks differ, with each walk's side of it."""

    number: int
    kind: DivergenceKind
    a: Decision | None
    b: Decision | None

    @property
    def node(self) -> str | None:
        """The node judged there (``None``: the roots), from whichever walk reached it."""
        decision = self.a or self.b
        return decision.node if decision is not None else None


@dataclass(frozen=True)
class Landing:
    """A node landed by one walk or both, with each walk's stop reason (``None``: not landed by that walk)."""

    node: str
    a: str | None
    b: str | None


@dataclass(frozen=True)
class Totals:
    visits: int
    calls: int
    chars: int


@dataclass(frozen=True)
class Comparison:
    """Walk A against walk B."""

    a_name: str
    b_name: str
    notes: tuple[str, ...]
    """What differs up front: the corpus, the query, the settings."""
    divergence: Divergence | None
    only_a: tuple[Landing, ...]
    only_b: tuple[Landing, ...]
    both: tuple[Landing, ...]
    a_totals: Totals
    b_totals: Totals
    a_visited: frozenset[str]
    b_visited: frozenset[str]

    @property
    def same_decisions(self) -> bool:
        return self.divergence is None


def _answer_key(answer: NavigatorChose | NavigatorFailed | None) -> tuple[str, ...] | str | None:
    if isinstance(answer, NavigatorChose):
        return answer.selected
    if isinstance(answer, NavigatorFailed):
        return f"failed: {answer.error}"
    return None


def _offer_key(decision: Decision) -> tuple[str | None, tuple[str, ...]]:
    return decision.node, tuple(c.id for c in decision.offer.candidates)


def first_divergence(a: WalkHistory, b: WalkHistory) -> Divergence | None:
    """The first decision at which ``a`` and ``b`` differ, or ``None`` when they made the same decisions."""
    a_decisions, b_decisions = list(a.decisions()), list(b.decisions())
    for number, (da, db) in enumerate(zip(a_decisions, b_decisions, strict=False), start=1):
        if _offer_key(da) != _offer_key(db):
            return Divergence(number, DivergenceKind.OFFERED_DIFFERENTLY, da, db)
        # An offer left unanswered by a walk that ended (a cancel while the navigator thought) is where that
        # walk stopped, not a different choice.
        if da.answer is None and a.end is not None and db.answer is not None:
            return Divergence(number, DivergenceKind.A_ENDED, da, db)
        if db.answer is None and b.end is not None and da.answer is not None:
            return Divergence(number, DivergenceKind.B_ENDED, da, db)
        if _answer_key(da.answer) != _answer_key(db.answer):
            return Divergence(number, DivergenceKind.CHOSE_DIFFERENTLY, da, db)
    shorter = min(len(a_decisions), len(b_decisions))
    if len(a_decisions) < len(b_decisions):
        return Divergence(shorter + 1, DivergenceKind.A_ENDED, None, b_decisions[shorter])
    if len(b_decisions) < len(a_decisions):
        return Divergence(shorter + 1, DivergenceKind.B_ENDED, a_decisions[shorter], None)
    return None


def _totals(state: WalkState) -> Totals:
    return Totals(state.visits_used, state.calls, state.chars_shipped)


def _landed(result: WalkResult | None, state: WalkState) -> dict[str, str]:
    if result is not None:
        return {d.id: str(d.metadata.get("hierarchyStopReason", "")) for d in result.documents}
    return {node: record.reason.value for node, record in state.landed.items()}


def _notes(a: WalkHistory, b: WalkHistory, a_corpus: str | None, b_corpus: str | None) -> tuple[str, ...]:
    notes: list[str] = []
    if a_corpus is not None and b_corpus is not None and a_corpus != b_corpus:
        notes.append(f"the walks were made on different corpora (sha256 {a_corpus[:12]}… and {b_corpus[:12]}…)")
    sa, sb = a.settings, b.settings
    if sa.query != sb.query:
        notes.append(f"the walks answer different queries: {sa.query!r} and {sb.query!r}")
    changed = [f"{what} {x} → {y}" for what, x, y in (
        ("navigator", sa.model, sb.model), ("budget", sa.max_nodes_visited, sb.max_nodes_visited),
        ("depth limit", sa.max_depth, sb.max_depth), ("on failure", sa.on_failure.value, sb.on_failure.value),
    ) if x != y]
    if changed:
        notes.append("settings differ: " + ", ".join(changed))
    for name, history in (("A", a), ("B", b)):
        if history.end is None:
            notes.append(f"walk {name} has not ended yet: compared as far as it went")
    return tuple(notes)


def compare(a: WalkHistory, b: WalkHistory, *, a_corpus: str | None = None,
            b_corpus: str | None = None) -> Comparison:
    """Compare every event of ``a`` and ``b`` (their cursors do not matter). ``*_corpus`` are corpus hashes."""
    state_a = WalkState.from_events(a.events, a.forced)
    state_b = WalkState.from_events(b.events, b.forced)
    landed_a, landed_b = _landed(state_a.result, state_a), _landed(state_b.result, state_b)
    both = tuple(Landing(n, landed_a[n], landed_b[n]) for n in landed_a if n in landed_b)
    only_a = tuple(Landing(n, landed_a[n], None) for n in landed_a if n not in landed_b)
    only_b = tuple(Landing(n, None, landed_b[n]) for n in landed_b if n not in landed_a)
    return Comparison(
        a_name=a.name, b_name=b.name, notes=_notes(a, b, a_corpus, b_corpus),
        divergence=first_divergence(a, b), only_a=only_a, only_b=only_b, both=both,
        a_totals=_totals(state_a), b_totals=_totals(state_b),
        a_visited=frozenset(state_a.entered), b_visited=frozenset(state_b.entered),
    )


def comparison_to_json(comparison: Comparison) -> dict[str, object]:
    """The comparison as a JSON-ready dict (``diff --json``)."""
    divergence = comparison.divergence

    def side(decision: Decision | None) -> dict[str, object] | None:
        if decision is None:
            return None
        answer = decision.answer
        return {
            "offer_step": decision.offer_seq, "answer_step": decision.answer_seq, "node": decision.node,
            "candidates": [c.id for c in decision.offer.candidates],
            "selected": list(answer.selected) if isinstance(answer, NavigatorChose) else None,
            "error": answer.error if isinstance(answer, NavigatorFailed) else None,
            "rationale": answer.rationale if isinstance(answer, NavigatorChose) else None,
            "forced": decision.forced,
        }

    return {
        "a": comparison.a_name, "b": comparison.b_name, "notes": list(comparison.notes),
        "same_decisions": comparison.same_decisions,
        "first_divergence": None if divergence is None else {
            "decision": divergence.number, "kind": divergence.kind.value, "node": divergence.node,
            "a": side(divergence.a), "b": side(divergence.b),
        },
        "landed": {
            "only_a": [{"node": x.node, "reason": x.a} for x in comparison.only_a],
            "only_b": [{"node": x.node, "reason": x.b} for x in comparison.only_b],
            "both": [{"node": x.node, "reason_a": x.a, "reason_b": x.b} for x in comparison.both],
        },
        "totals": {
            name: {"visits": t.visits, "calls": t.calls, "chars_shipped": t.chars}
            for name, t in (("a", comparison.a_totals), ("b", comparison.b_totals))
        },
    }


def tree_marks(comparison: Comparison) -> tuple[dict[str, Mark], dict[str, str]]:
    """Both walks on one tree: each node entered or landed marked A only / B only / both, the divergence marked,
    and beside each landed node its stop reason in each walk."""
    landed_a = {x.node: x.a for x in comparison.only_a + comparison.both}
    landed_b = {x.node: x.b for x in comparison.only_b + comparison.both}
    in_a = comparison.a_visited | landed_a.keys()
    in_b = comparison.b_visited | landed_b.keys()
    marks: dict[str, Mark] = {}
    for node in in_a | in_b:
        marks[node] = Mark.BOTH if node in in_a and node in in_b else Mark.ONLY_A if node in in_a else Mark.ONLY_B
    reasons: dict[str, str] = {}
    for node in landed_a.keys() | landed_b.keys():
        a, b = landed_a.get(node), landed_b.get(node)
        reasons[node] = (f"A {a} · B {b}" if a != b else f"both {a}") if a and b else (f"A {a}" if a else f"B {b}")
    divergence = comparison.divergence
    if divergence is not None and divergence.node is not None:
        marks[divergence.node] = Mark.DIVERGED
        reasons.setdefault(divergence.node, f"walks part here: {divergence.kind.value}")
    return marks, reasons
