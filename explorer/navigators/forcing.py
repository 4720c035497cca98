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

from .answer_size import capped
from .answered import Answered, answered_pair, never_judged_pair
from .quoting import QuoteError, needs_quotes, quoted, read_field

START = "start"
"""How the command line names the first offer (the roots): ``start`` written bare; ``"start"`` in quotes is a node."""

FORCE_SYNTAX = ("NODE=ID[,ID...] (start for the first offer, NODE= to stop there; an id holding = or a comma, or "
                'with spaces around it, in double quotes: "a=b"=x, "start"=x for a node named start)')
"""The ``--force`` rule in a few words, for every error that says what to write."""


class ForceError(ValueError):
    """A ``--force`` that cannot be read: one line saying what to write instead."""


def quote_id(node_id: str) -> str:
    """``node_id`` as ``--force`` reads it back: bare when it can be, else in double quotes (``""`` for a quote)."""
    if not needs_quotes(node_id, "=,") and node_id != START:
        return node_id
    return quoted(node_id)


@dataclass(frozen=True)
class Force:
    """The answer forced at one offer: ``selected`` ids (empty: stop here), any of them may be unoffered."""

    node: str | None
    selected: tuple[str, ...]
    what_if: Transcript | None = None
    """Not a person's own answer but one taken from a what-if: the transcript of the request that produced it
    (the answer is marked :attr:`Answered.WHAT_IF`, with that transcript after the mark)."""

    @property
    def label(self) -> str:
        return START if self.node is None else self.node

    def spelled(self) -> str:
        """The force as ``--force`` reads it: ``start=a,b``, ``"a=b"=x`` (see :func:`parse_force`)."""
        node = START if self.node is None else quote_id(self.node)
        return f"{node}={','.join(quote_id(i) for i in self.selected)}"

    def describe(self) -> str:
        """``at billing chose invoices`` / ``at the start stopped here``."""
        where = "the start" if self.node is None else self.node
        if not self.selected:
            return f"at {where} stopped here"
        return f"at {where} chose {', '.join(self.selected)}"


def _field(text: str, at: int, stops: str, whole: str) -> tuple[str, bool, int]:
    """One id of a ``--force`` from ``at``: ``(id, quoted, where it ended)``, read as :func:`.quoting.read_field`
    reads a field; a quote that does not read is a :class:`ForceError` saying what to write."""
    try:
        return read_field(text, at, stops)
    except QuoteError as exc:
        if exc.after is None:
            raise ForceError(f"--force {whole!r}: the quote at character {exc.opened + 1} is never closed; write "
                             f"{FORCE_SYNTAX}") from None
        raise ForceError(f"--force {whole!r}: {exc.after!r} after the quoted id at character {exc.opened + 1}; put "
                         f"the whole id in the quotes: {FORCE_SYNTAX}") from None


def parse_force(text: str) -> Force:
    """``NODE=ID[,ID...]``: ``NODE=`` stops there; bare ``start`` names the first offer (the roots).

    Spaces around a bare id are dropped; an id that holds ``=`` or ``,``, has spaces around it, or starts with a
    quote is written in double quotes, with ``""`` for a quote inside (``"a=b"=x``, ``" pad "=x``); ``"start"`` in
    quotes is a node whose id is ``start``. Raises :class:`ForceError` naming what to write instead."""
    node, quoted, at = _field(text, 0, "=", text)
    if at >= len(text) or not node:
        raise ForceError(f"--force {text!r}: write {FORCE_SYNTAX}")
    selected: list[str] = []
    at += 1  # past the =
    while at <= len(text):
        chosen, chosen_quoted, at = _field(text, at, ",", text)
        if chosen_quoted and not chosen:
            raise ForceError(f"--force {text!r}: \"\" is an empty id; name a node, or leave NODE= with nothing "
                             "after it to stop there")
        if chosen:
            selected.append(chosen)
        at += 1  # past the comma (or the end)
    return Force(None if node == START and not quoted else node, tuple(dict.fromkeys(selected)))


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
        *,
        replayed: str = "the answer recorded at this node",
    ) -> None:
        self.inner = inner
        self.replayed = replayed
        """What a replayed answer's transcript says of it (``("answered", "replayed: ...")``)."""
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
            if force.what_if is not None:
                return NavigatorChoice(force.selected, f"taken from a what-if: {what}",
                                       transcript=marked(force.what_if, Answered.WHAT_IF, what))
            return NavigatorChoice(force.selected, f"forced by a person: {what}",
                                   transcript=marked(None, Answered.FORCED, f"by a person, {what}"))
        recorded = self.recorded.get(key)
        if isinstance(recorded, NavigatorChose):
            transcript = marked(recorded.transcript, Answered.REPLAYED, self.replayed)
            answer = NavigatorChoice(recorded.selected, recorded.rationale, recorded.usage, transcript,
                                     scores=recorded.scores)  # a best-first re-walk weighs them as the walk did
            return capped(answer, len(request.candidates))  # as a live answer is cut
        if isinstance(recorded, NavigatorFailed):
            raise _replay_failure(recorded)
        return self.inner.choose(request)

    def not_applied(self) -> list[Force]:
        """The forces the walk never reached, in the order given."""
        used = {force.node for force in self.applied}
        return [force for node, force in self.forces.items() if node not in used]


class RecordOnly(TreeNavigator):
    """Answers every offer it is asked by stopping there, without a call: behind a :class:`ForcingNavigator` that
    replays a whole record, it answers the nodes the record never judged (reachable now with more visits), each
    marked so (:func:`~.answered.never_judged_pair`): the explorer says ``never judged``, not ``navigator_stopped``.
    ``source`` names the record in the rationale (``walk 1``)."""

    def __init__(self, source: str) -> None:
        self.source = source

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        where = "the roots" if request.current is None else repr(request.current.id)
        note = f"{self.source} never judged {where}; stopping here"
        return NavigatorChoice((), note, transcript=(never_judged_pair(note),))


VARIANT_LABEL = "variant"
"""The transcript label that says which prompt variant asked a live answer (``prompt v2 from decision 3``)."""
LIVE_FROM_LABEL = "asked"
"""The transcript label that says a walk continued live asked this answer (``live from step 7 of walk 1``)."""


class SayingVariant(TreeNavigator):
    """Asks ``inner`` and says, at the end of each answer's transcript, the prompt variant it was asked with:
    ``("variant", "prompt v2 from decision 3")`` (or, with another ``label``, ``("asked", "live from step 7 of
    walk 1")``)."""

    def __init__(self, inner: TreeNavigator, said: str, label: str = VARIANT_LABEL) -> None:
        self.inner = inner
        self.said = said
        self.label = label

    def supports(self, model: str) -> bool:
        return self.inner.supports(model)

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        answer = self.inner.choose(request)
        if not isinstance(answer, NavigatorChoice):
            answer = NavigatorChoice(tuple(answer))
        return NavigatorChoice(answer.selected, answer.rationale, answer.usage,
                               (*(answer.transcript or ()), (self.label, self.said)), scores=answer.scores)
