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

from ..walk_settings import policy_text
from .decisions import Decision
from .history import WalkHistory
from .state import Cost, Mark, WalkState

Totals = Cost
"""What each walk cost (visits, live calls and answers without a call, characters really sent)."""


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
    ONLY_A = "judged only in walk A"
    """After the walks parted: a node only walk A judged (B never reached it)."""
    ONLY_B = "judged only in walk B"
    """After the walks parted: a node only walk B judged (A never reached it)."""


@dataclass(frozen=True)
class Divergence:
    """A decision at which the walks differ, with each walk's side of it (``None``: that walk has none there).

    ``number`` is 1-based: for the first divergence, the decision's place in both walks' order; in the list of
    every divergence, its place in walk A (in B when only B judged the node).
    """

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
class ForcedDecision:
    """A decision a person forced in one of the walks (``walk``: ``"A"`` or ``"B"``)."""

    walk: str
    number: int
    """1-based, in that walk's order of decisions."""
    decision: Decision


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
    divergences: tuple[Divergence, ...] = ()
    """Every node where the walks' decisions differ (the first divergence's among them), in the order reached."""
    forced: tuple[ForcedDecision, ...] = ()
    """Every decision a person forced, walk A's then walk B's."""
    landing: str = ""
    """Which walk landed the question's expected node, in one sentence (``best-first landed the expected Final pay;
    depth-first ran out of visits``: :func:`~.evaluation.who_landed.who_landed`); empty when no node is expected."""
    verdicts: tuple[tuple[str, str, str], ...] = ()
    """For each walk that missed the expected node (``diff --expect``): its name (``A``, ``B``), whose fault the miss
    was and where a flat search ranks the node, in words (:mod:`.evaluation.walk_verdict`)."""

    @property
    def same_decisions(self) -> bool:
        return self.divergence is None

    def is_first(self, divergence: Divergence) -> bool:
        """Whether ``divergence`` (one of :attr:`divergences`) is where the walks first part."""
        first = self.divergence  # a node is judged at most once per walk: the node says which
        return first is not None and divergence.node == first.node


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


def every_divergence(a: WalkHistory, b: WalkHistory) -> list[Divergence]:
    """Every node where the two walks' decisions differ: judged by both and offered or answered differently,
    or judged by one walk only; in the order the walks reached them (the earlier step of the two)."""
    a_decisions, b_decisions = list(a.decisions()), list(b.decisions())
    a_by = {d.node: (n, d) for n, d in enumerate(a_decisions, start=1)}
    b_by = {d.node: (n, d) for n, d in enumerate(b_decisions, start=1)}
    found: list[tuple[int, Divergence]] = []
    for node in dict.fromkeys([*a_by, *b_by]):
        a_side, b_side = a_by.get(node), b_by.get(node)
        if a_side is not None and b_side is not None:
            (number, da), (_, db) = a_side, b_side
            if _offer_key(da) != _offer_key(db):
                kind = DivergenceKind.OFFERED_DIFFERENTLY
            elif da.answer is None and db.answer is not None:
                kind = DivergenceKind.A_ENDED
            elif db.answer is None and da.answer is not None:
                kind = DivergenceKind.B_ENDED
            elif _answer_key(da.answer) != _answer_key(db.answer):
                kind = DivergenceKind.CHOSE_DIFFERENTLY
            else:
                continue
            found.append((min(da.offer_seq, db.offer_seq), Divergence(number, kind, da, db)))
        elif a_side is not None:
            found.append((a_side[1].offer_seq, Divergence(a_side[0], DivergenceKind.ONLY_A, a_side[1], None)))
        elif b_side is not None:
            found.append((b_side[1].offer_seq, Divergence(b_side[0], DivergenceKind.ONLY_B, None, b_side[1])))
    return [divergence for _, divergence in sorted(found, key=lambda item: item[0])]


def forced_decisions(a: WalkHistory, b: WalkHistory) -> list[ForcedDecision]:
    """Every decision a person forced, walk A's then walk B's."""
    return [ForcedDecision(name, number, decision)
            for name, history in (("A", a), ("B", b))
            for number, decision in enumerate(history.decisions(), start=1) if decision.forced]


def _totals(state: WalkState) -> Cost:
    return state.cost()


def _landed(result: WalkResult | None, state: WalkState) -> dict[str, str]:
    if result is not None:
        return {d.id: state.reason_of(state.landed[d.id]) if d.id in state.landed
                else str(d.metadata.get("hierarchyStopReason", "")) for d in result.documents}
    return {node: state.reason_of(record) for node, record in state.landed.items()}


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
        ("policy", policy_text(sa.policy, sa.alpha), policy_text(sb.policy, sb.alpha)),
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
        divergences=tuple(every_divergence(a, b)), forced=tuple(forced_decisions(a, b)),
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

    def one(d: Divergence) -> dict[str, object]:
        return {"decision": d.number, "kind": d.kind.value, "node": d.node, "a": side(d.a), "b": side(d.b)}

    expected = {"landing": comparison.landing,
                "verdicts": [{"walk": walk.lower(), "says": says, "flat": flat}
                             for walk, says, flat in comparison.verdicts]} if comparison.landing else {}
    return {
        **expected,
        "a": comparison.a_name, "b": comparison.b_name, "notes": list(comparison.notes),
        "same_decisions": comparison.same_decisions,
        "first_divergence": None if divergence is None else one(divergence),
        "divergences": [{**one(d), "first": comparison.is_first(d)} for d in comparison.divergences],
        "forced": [{"walk": f.walk.lower(), "decision": f.number, **(side(f.decision) or {})}
                   for f in comparison.forced],
        "landed": {
            "only_a": [{"node": x.node, "reason": x.a} for x in comparison.only_a],
            "only_b": [{"node": x.node, "reason": x.b} for x in comparison.only_b],
            "both": [{"node": x.node, "reason_a": x.a, "reason_b": x.b} for x in comparison.both],
        },
        "totals": {
            name: {"visits": t.visits, "calls": t.live_calls, "decisions": t.answers, "answered": t.to_json(),
                   "chars_shipped": t.chars, "prompt_tokens": t.prompt_tokens,
                   "completion_tokens": t.completion_tokens}
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
