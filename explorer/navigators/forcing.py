"""Forcing decisions: answer some offers from a person or a record, and leave the rest to a navigator.

A fork of a walk is the same walk run again: the decisions before the fork
point come from the record (no navigator call), the fork's own decision is
the forced one, and every later decision comes from the walk's navigator. A
node is judged at most once in a walk, so decisions are keyed by the id of
the node whose children are offered (``None`` for the roots, written
``start`` on the command line). ``core``'s rules need no change, and the
budget and depth left at the fork come out right by construction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from core import (
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    Transcript,
    TreeNavigator,
)

from .answered import Answered, answered_pair

START = "start"
"""How the command line names the first offer (the roots)."""


class ForceError(ValueError):
    """A ``--force`` that cannot be read: one line saying what to write instead."""


@dataclass(frozen=True)
class Force:
    """The answer forced at one offer: ``selected`` ids (empty: stop here), any of them may be unoffered."""

    node: str | None
    selected: tuple[str, ...]

    @property
    def label(self) -> str:
        return START if self.node is None else self.node

    def describe(self) -> str:
        """``at billing chose invoices`` / ``at the start stopped here``."""
        where = "the start" if self.node is None else self.node
        if not self.selected:
            return f"at {where} stopped here"
        return f"at {where} chose {', '.join(self.selected)}"


def parse_force(text: str) -> Force:
    """``NODE=ID[,ID...]``; ``NODE=`` means stop here; ``start`` names the first offer."""
    node, equals, ids = text.partition("=")
    node = node.strip()
    if not equals or not node:
        raise ForceError(f"--force {text!r}: write NODE=ID[,ID...] (NODE is the node being judged, 'start' for "
                         "the first offer; NODE= with nothing after it stops there)")
    selected = tuple(dict.fromkeys(part.strip() for part in ids.split(",") if part.strip()))
    return Force(None if node == START else node, selected)


class RecordedFailure(Exception):
    """A navigator failure replayed from a record; its class name is the recorded one."""

    def __init__(self, message: str, transcript: Transcript | None) -> None:
        super().__init__(message)
        self.transcript = transcript


def marked(transcript: Transcript | None, how: Answered, detail: str = "") -> Transcript:
    """``transcript`` with the pair that says how it was answered in front (read first by ``answered_by``)."""
    return (answered_pair(how, detail), *(transcript or ()))


def _replay_failure(failed: NavigatorFailed) -> RecordedFailure:
    name, colon, message = failed.error.partition(": ")
    if not colon or not name.isidentifier():
        name, message = "RecordedFailure", failed.error
    kind: type[RecordedFailure] = RecordedFailure if name == "RecordedFailure" else type(name, (RecordedFailure,), {})
    return kind(message, marked(failed.transcript, Answered.REPLAYED, "the failure recorded at this node"))


class ForcingNavigator(TreeNavigator):
    """Answers forced and recorded offers itself, and asks ``inner`` for every other.

    ``recorded`` maps a node (``None``: the roots) to the decision recorded
    there, replayed as it was (a recorded failure raises again, with the same
    message and transcript). ``forces`` maps a node to the answer a person
    forced there. A force wins over a record. :attr:`applied` says which
    forces were used: one the walk never reached did not apply.
    """

    def __init__(
        self,
        inner: TreeNavigator,
        forces: Iterable[Force] = (),
        recorded: Mapping[str | None, NavigatorChose | NavigatorFailed] | None = None,
    ) -> None:
        self.inner = inner
        self.forces = {force.node: force for force in forces}
        self.recorded = dict(recorded or {})
        self.applied: list[Force] = []
        self._lock = threading.Lock()

    def supports(self, model: str) -> bool:
        return self.inner.supports(model)

    def choose(self, request: NavigatorRequest) -> NavigatorChoice | Iterable[str]:
        key = request.current.id if request.current is not None else None
        force = self.forces.get(key)
        if force is not None:
            with self._lock:
                self.applied.append(force)
            offered = {c.id for c in request.candidates}
            unoffered = [i for i in force.selected if i not in offered]
            what = force.describe() + (f" ({', '.join(unoffered)} not offered)" if unoffered else "")
            return NavigatorChoice(force.selected, f"forced by a person: {what}",
                                   transcript=marked(None, Answered.FORCED, f"by a person, {what}"))
        recorded = self.recorded.get(key)
        if isinstance(recorded, NavigatorChose):
            transcript = marked(recorded.transcript, Answered.REPLAYED, "the answer recorded at this node")
            return NavigatorChoice(recorded.selected, recorded.rationale, recorded.usage, transcript)
        if isinstance(recorded, NavigatorFailed):
            raise _replay_failure(recorded)
        return self.inner.choose(request)

    def not_applied(self) -> list[Force]:
        """The forces the walk never reached, in the order given."""
        used = {force.node for force in self.applied}
        return [force for node, force in self.forces.items() if node not in used]


class RecordOnly(TreeNavigator):
    """Answers every offer it is asked by stopping there, without a call: behind a :class:`ForcingNavigator` that
    replays a whole record, it answers the nodes the record never judged (reachable now with more visits).
    ``source`` names the record in the rationale (``walk 1``)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        where = "the roots" if request.current is None else repr(request.current.id)
        note = f"{self.source} never judged {where}; stopping here"
        return NavigatorChoice((), note, transcript=marked(None, Answered.REPLAYED, note))
