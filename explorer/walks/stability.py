"""How stable is a navigator on one query: the same walk run N times, and how often each node was chosen.

UI-free; the ``walk --runs`` command and the explorer's stability run both
read a :class:`Stability`. A :class:`StabilityRun` walks the query ``runs``
times (``jobs`` at a time, on threads: the walks share nothing but the
corpus and the resolved navigator), and can be cancelled as a whole.

The first divergence of a run is measured against the **most common decision
sequence** (the walk most runs made, decision for decision; a tie goes to
the one run first), not against run 1: run 1 of a navigator that wanders is
as likely to be the odd one out as any other, and which run comes first is
an accident of scheduling. Each run that differs from that reference parts
from it at one decision (:func:`explorer.walks.compare.first_divergence`, the rule
``diff`` uses); runs that part at the same decision, at the same node and in
the same way are counted together, and the most frequent such point is *the*
most frequent first divergence.
"""

from __future__ import annotations

import math
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from core import HierarchyIndex, NavigatorChose, NavigatorFailed, TreeNavigator

from ..corpora import Corpus
from ..ending import WalkEnd
from ..navigators import resolve_navigator, shared_across_threads
from ..navigators.forcing import Force
from ..safe_text import clip, visible
from ..walk_settings import WalkSettings, policy_fields
from .compare import DivergenceKind, first_divergence
from .decisions import Decision
from .history import WalkHistory
from .session import NO_SINKS, EndHook, WalkSession, run_each
from .settings import describe_settings
from .state import WalkState

HEAT_LEVELS = 4

Answer = tuple[str, ...] | str | None
"""A decision's answer, comparable: the ids selected, ``"failed: ERROR"``, or ``None`` (never answered)."""
DecisionSequence = tuple[tuple[str | None, tuple[str, ...], Answer], ...]
"""A walk's decisions, comparable: per decision the node judged, the ids offered and the answer."""


@dataclass(frozen=True)
class NodeFrequency:
    """In how many of the runs a node was chosen (a valid id in an answer), entered, and landed."""

    node: str
    chosen: int
    entered: int
    landed: int


@dataclass(frozen=True)
class LandedSet:
    """One distinct set of landed nodes (corpus order), and the runs (1-based) that landed exactly it."""

    nodes: tuple[str, ...]
    runs: tuple[int, ...]

    @property
    def count(self) -> int:
        return len(self.runs)


@dataclass(frozen=True)
class DivergencePoint:
    """Where some runs first part from the most common decision sequence, and what they answered there.

    ``decision`` is the 1-based number of the decision, ``node`` the node judged
    there (``None``: the roots); ``reference`` is the common sequence's answer
    and ``answers`` each answer the parting runs gave, with how many gave it.
    """

    decision: int
    node: str | None
    kind: DivergenceKind
    reference: Answer
    answers: tuple[tuple[Answer, int], ...]
    runs: tuple[int, ...]

    @property
    def count(self) -> int:
        return len(self.runs)


@dataclass(frozen=True)
class Stability:
    """N walks of one query compared.

    ``runs`` counts the walks measured (every one that ended on its own,
    finished or failed: a cancelled walk is left out), of ``asked``; every
    frequency is out of ``runs``.
    """

    settings: WalkSettings
    asked: int
    runs: int
    finished: int
    failed: int
    cancelled: int
    nodes: tuple[NodeFrequency, ...]
    """Every node chosen in any run, in corpus order."""
    landed_sets: tuple[LandedSet, ...]
    """Most frequent first (a tie: the one landed first)."""
    reference_runs: tuple[int, ...]
    """The runs that made the most common decision sequence."""
    reference: tuple[tuple[str | None, Answer], ...]
    """The most common decision sequence: the node judged and the answer, decision by decision."""
    divergences: tuple[DivergencePoint, ...]
    """Most frequent first (a tie: the earlier decision)."""

    @property
    def most_frequent_divergence(self) -> DivergencePoint | None:
        return self.divergences[0] if self.divergences else None

    def frequency(self, node: str) -> NodeFrequency | None:
        return next((f for f in self.nodes if f.node == node), None)

    def counts(self) -> dict[str, str]:
        """``7/10`` beside each node chosen in 7 of 10 runs (what the explorer's tree shows)."""
        return {f.node: f"{f.chosen}/{self.runs}" for f in self.nodes if f.chosen}

    def heat(self) -> dict[str, int]:
        """A heat level 1-4 per chosen node, from its share of the runs (up to 25 %: 1, … over 75 %: 4)."""
        return {f.node: heat_level(f.chosen, self.runs) for f in self.nodes if f.chosen}


def heat_level(count: int, total: int) -> int:
    """1 for a share up to a quarter, 2 up to a half, 3 up to three quarters, 4 above."""
    if total <= 0 or count <= 0:
        return 1
    return max(1, min(HEAT_LEVELS, math.ceil(count * HEAT_LEVELS / total)))


# -- running -------------------------------------------------------------------------------------------------


class StabilityRun:
    """``runs`` walks of ``settings.query``, each its own :class:`WalkSession` (and its own token).

    :meth:`run` walks them (``jobs`` at a time) and returns the :class:`Stability`
    of those that ended on their own; :meth:`cancel`, from any thread, trips
    every walk's token: walks under way end at once, walks not started never
    start. ``on_done(run_number, session)`` is told of each walk as it ends,
    on the thread that walked it.
    """

    def __init__(
        self,
        corpus: Corpus,
        settings: WalkSettings,
        navigator: TreeNavigator,
        runs: int,
        *,
        jobs: int = 1,
        forces: Iterable[Force] = (),
        hook: EndHook = NO_SINKS,
    ) -> None:
        if runs < 1:
            raise ValueError(f"runs must be at least 1, not {runs}")
        self.corpus = corpus
        self.settings = settings
        self.jobs = max(1, min(jobs, runs))
        forces = tuple(forces)
        shared = self.jobs == 1 or shared_across_threads(navigator)  # else each walk resolves its own
        self.sessions = [WalkSession(corpus, settings, navigator if shared else resolve_navigator(settings.model),
                                     forces=forces, hook=hook)
                         for _ in range(runs)]
        self._lock = threading.Lock()
        self._ended = 0
        self._cancelled = False

    @property
    def asked(self) -> int:
        return len(self.sessions)

    @property
    def ended(self) -> int:
        """Walks over so far (however they ended)."""
        with self._lock:
            return self._ended

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def cancel(self) -> None:
        self._cancelled = True
        for session in self.sessions:
            session.cancel()

    def run(self, on_done: Callable[[int, WalkSession], None] | None = None) -> Stability:
        def walk(number: int) -> None:
            session = self.sessions[number - 1]
            session.run_headless()
            with self._lock:
                self._ended += 1
            if on_done is not None:
                on_done(number, session)

        run_each(walk, range(1, len(self.sessions) + 1), jobs=self.jobs, cancel=self.cancel, thread_name="stability")
        return self.result()

    def result(self) -> Stability:
        """The stability of the walks that have ended on their own so far."""
        return stability_of([s.history for s in self.sessions if s.history.ended], self.settings,
                            self.corpus.index, asked=len(self.sessions))


# -- measuring ------------------------------------------------------------------------------------------------


def answer_of(decision: Decision) -> Answer:
    answer = decision.answer
    if isinstance(answer, NavigatorChose):
        return answer.selected
    if isinstance(answer, NavigatorFailed):
        return f"failed: {answer.error}"
    return None


def decision_sequence(history: WalkHistory) -> DecisionSequence:
    """A walk's decisions as comparable data: the node judged, the ids offered, the answer (as ``diff`` compares)."""
    return tuple((d.node, tuple(c.id for c in d.offer.candidates), answer_of(d)) for d in history.decisions())


def landed_of(state: WalkState) -> tuple[str, ...]:
    """What a walk landed: its result's documents, or (a walk that failed) what had landed by then."""
    if state.result is not None:
        return tuple(d.id for d in state.result.documents)
    return tuple(state.landed)


def stability_of(histories: Sequence[WalkHistory], settings: WalkSettings, index: HierarchyIndex, *,
                 asked: int | None = None) -> Stability:
    """Compare ``histories`` (run 1, run 2, … in order); cancelled ones are counted, not measured."""
    measured = [(number, h) for number, h in enumerate(histories, start=1) if h.end is not WalkEnd.CANCELLED]
    cancelled = len(histories) - len(measured)
    chosen: Counter[str] = Counter()
    entered: Counter[str] = Counter()
    landed: Counter[str] = Counter()
    by_set: dict[frozenset[str], list[int]] = {}
    set_nodes: dict[frozenset[str], tuple[str, ...]] = {}
    sequences: dict[DecisionSequence, list[int]] = {}
    for number, history in measured:
        state = WalkState.from_events(history.events, history.forced)
        picked = {node for e in history.events if isinstance(e, NavigatorChose) for node in e.valid}
        chosen.update(picked)
        entered.update(set(state.entered))
        lands = landed_of(state)
        landed.update(set(lands))
        key = frozenset(lands)
        by_set.setdefault(key, []).append(number)
        set_nodes.setdefault(key, lands)
        sequences.setdefault(decision_sequence(history), []).append(number)
    order = _corpus_order(index, chosen.keys() | entered.keys() | landed.keys())
    nodes = tuple(NodeFrequency(n, chosen[n], entered[n], landed[n]) for n in sorted(order, key=order.__getitem__))
    landed_sets = tuple(sorted(
        (LandedSet(tuple(sorted(set_nodes[key], key=lambda n: order.get(n, (math.inf,)))), tuple(runs))
         for key, runs in by_set.items()),
        key=lambda s: (-s.count, s.runs[0])))
    reference_runs: tuple[int, ...] = ()
    reference: tuple[tuple[str | None, Answer], ...] = ()
    divergences: tuple[DivergencePoint, ...] = ()
    if sequences:
        sequence, runs = min(sequences.items(), key=lambda item: (-len(item[1]), item[1][0]))
        reference_runs = tuple(runs)
        reference = tuple((node, answer) for node, _, answer in sequence)
        divergences = _divergences(dict(measured), reference_runs[0], set(reference_runs))
    return Stability(
        settings=settings,
        asked=asked if asked is not None else len(histories),
        runs=len(measured),
        finished=sum(1 for _, h in measured if h.end is WalkEnd.FINISHED),
        failed=sum(1 for _, h in measured if h.end is WalkEnd.FAILED),
        cancelled=cancelled,
        nodes=nodes,
        landed_sets=landed_sets,
        reference_runs=reference_runs,
        reference=reference,
        divergences=divergences,
    )


def _divergences(histories: dict[int, WalkHistory], reference_run: int, same: set[int]) -> tuple[DivergencePoint, ...]:
    reference = histories[reference_run]
    groups: dict[tuple[int, str | None, DivergenceKind], tuple[Answer, list[int], Counter[Answer]]] = {}
    for number, history in histories.items():
        if number in same:
            continue
        divergence = first_divergence(reference, history)
        if divergence is None:  # the same decisions, yet another sequence: cannot happen, but never miscount
            continue
        ours = answer_of(divergence.a) if divergence.a is not None else None
        theirs = answer_of(divergence.b) if divergence.b is not None else None
        key = (divergence.number, divergence.node, divergence.kind)
        _, runs, answers = groups.setdefault(key, (ours, [], Counter()))
        runs.append(number)
        answers[theirs] += 1
    points = [DivergencePoint(number, node, kind, ours, tuple(answers.most_common()), tuple(runs))
              for (number, node, kind), (ours, runs, answers) in groups.items()]
    return tuple(sorted(points, key=lambda p: (-p.count, p.decision, p.runs[0])))


def _corpus_order(index: HierarchyIndex, nodes: Iterable[str]) -> dict[str, tuple[float, ...]]:
    """A sort key per node that lists nodes in corpus order (depth first, siblings in order)."""
    positions: dict[str | None, dict[str, int]] = {}

    def position(parent: str | None, child: str) -> int:
        table = positions.get(parent)
        if table is None:
            ids = index.root_ids() if parent is None else index.child_ids(parent)
            table = positions[parent] = {c: i for i, c in enumerate(ids)}
        return table.get(child, len(table))

    keys: dict[str, tuple[float, ...]] = {}
    for node in nodes:
        if node not in index:
            keys[node] = (math.inf,)
            continue
        path = index.path(node)
        keys[node] = tuple(position(parent, child) for parent, child in zip((None, *path[:-1]), path, strict=True))
    return keys


# -- saying it ---------------------------------------------------------------------------------------------------


def describe_answer(answer: Answer) -> str:
    """``billing, refunds`` · ``nothing (stop here)`` · ``failed: …`` · ``no answer (the walk had ended)``."""
    if answer is None:
        return "no answer (the walk had ended)"
    if isinstance(answer, str):
        return answer
    return ", ".join(answer) if answer else "nothing (stop here)"


def describe_node(node: str | None) -> str:
    return "the roots" if node is None else node


def describe_divergence(point: DivergencePoint, runs: int) -> str:
    """One line: where the runs part, what the common path answered there, what they answered instead."""
    where = f"decision {point.decision}, at {describe_node(point.node)}"
    if point.kind in (DivergenceKind.A_ENDED, DivergenceKind.B_ENDED):
        how = ("the most common path ends before it; they go on" if point.kind is DivergenceKind.A_ENDED
               else "they end there; the most common path goes on")
        return f"{where}: {point.count} of {runs} walks — {how}"
    instead = "; ".join(f"{describe_answer(answer)} ×{count}" for answer, count in point.answers)
    verb = "were offered other candidates" if point.kind is DivergenceKind.OFFERED_DIFFERENTLY else "chose"
    return (f"{where}: {point.count} of {runs} walks part from the most common path there (it chose "
            f"{describe_answer(point.reference)}; they {verb}: {instead})")


def report_lines(stability: Stability, titles: Callable[[str], str] | None = None) -> list[str]:
    """The stability as lines of plain text, every id and title made visible (never markup)."""
    s = stability
    lines = [visible(f"Stability: {s.settings.query!r} walked {s.asked} times with {describe_settings(s.settings)}")]
    ended = f"{s.finished} finished · {s.failed} failed"
    if s.cancelled:
        ended += f" · {s.cancelled} cancelled (left out)"
    lines.append(f"{ended} · {len(s.landed_sets)} distinct landed set(s) · "
                 f"{len(s.reference_runs)} of {s.runs} walks made the most common decisions")
    if not s.runs:
        lines.append("No walk ended on its own: nothing to measure.")
        return lines
    lines.append("")
    lines.append("Landed sets, most frequent first:")
    for landed in s.landed_sets:
        nodes = ", ".join(landed.nodes) if landed.nodes else "(nothing landed)"
        lines.append(visible(f"  {landed.count:>5}/{s.runs}  {nodes}"))
    lines.append("")
    point = s.most_frequent_divergence
    if point is None:
        lines.append("Every walk made the same decisions: no divergence.")
    else:
        lines.append(visible(f"Most frequent first divergence: {describe_divergence(point, s.runs)}"))
        if len(s.divergences) > 1:
            lines.append(f"  ({len(s.divergences)} divergence points in all; --json lists them)")
    lines.append("")
    width = max([len(visible(f.node)) for f in s.nodes] + [4])
    lines.append(f"Per node, of {s.runs} walks:")
    lines.append(f"  {'node':<{width}}  chosen  entered  landed" + ("  title" if titles is not None else ""))
    for f in s.nodes:
        title = f"  {clip(visible(titles(f.node)), 60)}" if titles is not None else ""
        lines.append(f"  {visible(f.node):<{width}}  {f.chosen:>6}  {f.entered:>7}  {f.landed:>6}{title}")
    return lines


def _answer_json(answer: Answer) -> dict[str, object] | None:
    if answer is None:
        return None
    if isinstance(answer, str):
        return {"error": answer.removeprefix("failed: ")}
    return {"selected": list(answer)}


def stability_to_json(stability: Stability) -> dict[str, object]:
    """The stability as a JSON-ready dict (``walk --runs --json``)."""
    s = stability
    return {
        "query": s.settings.query,
        "navigator": s.settings.model,
        "settings": {"max_nodes_visited": s.settings.max_nodes_visited, "max_depth": s.settings.max_depth,
                     "on_failure": s.settings.on_failure.value, **policy_fields(s.settings)},
        "runs": {"asked": s.asked, "measured": s.runs, "finished": s.finished, "failed": s.failed,
                 "cancelled": s.cancelled},
        "nodes": [{"node": f.node, "chosen": f.chosen, "entered": f.entered, "landed": f.landed} for f in s.nodes],
        "landed_sets": [{"nodes": list(x.nodes), "count": x.count, "runs": list(x.runs)} for x in s.landed_sets],
        "most_common_decisions": {
            "runs": list(s.reference_runs),
            "decisions": [{"node": node, "answer": _answer_json(answer)} for node, answer in s.reference],
        },
        "first_divergences": [
            {"decision": p.decision, "node": p.node, "kind": p.kind.value, "count": p.count, "runs": list(p.runs),
             "most_common_answer": _answer_json(p.reference),
             "answers": [{"answer": _answer_json(a), "count": c} for a, c in p.answers]}
            for p in s.divergences
        ],
        "most_frequent_first_divergence": None if s.most_frequent_divergence is None else {
            "decision": s.most_frequent_divergence.decision, "node": s.most_frequent_divergence.node,
            "count": s.most_frequent_divergence.count,
        },
    }
