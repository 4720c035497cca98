"""What a walk's header says of where it came from: a fork, what a person forced there, or the prompt variant it
was re-walked with (``fork of walk 1 at decision 3 · forced plans``, ``fork · prompt v2 from decision 3``).

It is read from the walk's decisions alone (:attr:`~.decisions.Decision.how`, and the transcript pair a prompt
variant's answers carry), so a saved trace says it as the walk on screen does: the walk a fork came from is named
when it is known (the explorer knows it; a trace does not record it).
"""

from __future__ import annotations

from collections.abc import Sequence

from core import NavigatorChose

from ..navigators.answered import Answered
from ..navigators.forcing import VARIANT_LABEL
from .decisions import Decision

__all__ = ["fork_line"]

_WITHOUT_A_CALL = (Answered.FORCED, Answered.REPLAYED, Answered.WHAT_IF)


def _variant(decision: Decision) -> str | None:
    answer = decision.answer
    for label, text in (answer.transcript or ()) if answer is not None else ():
        if label == VARIANT_LABEL:
            return text
    return None


def _what(decision: Decision) -> str:
    """``forced plans, billing`` / ``forced a stop`` / ``a what-if chose plans``."""
    answer = decision.answer
    chosen = ", ".join(answer.selected) if isinstance(answer, NavigatorChose) else ""
    if decision.how is Answered.WHAT_IF:
        return f"a what-if chose {chosen}" if chosen else "a what-if stopped here"
    return f"forced {chosen}" if chosen else "forced a stop"


def fork_line(decisions: Sequence[Decision], fork_of: int | None = None) -> str | None:
    """What the walk of ``decisions`` is, when it is more than a walk (``None``: a plain one).

    ``fork_of``: the number of the walk it was forked from, when known (then it is a fork even at its first
    decision). Otherwise a walk is a fork when it replays recorded decisions up to one a person forced."""
    numbered = list(enumerate(decisions, start=1))
    for _, decision in numbered:
        said = _variant(decision)
        if said is not None:
            return f"{'fork' if fork_of is None else f'fork of walk {fork_of}'} · {said}"
    chosen = [(n, d) for n, d in numbered if d.how in (Answered.FORCED, Answered.WHAT_IF)]
    if not chosen:
        return None
    # The fork point: the last decision a person chose before the walk went on live (a fork of a fork keeps the
    # decisions forced before it forced, and replays the rest).
    point = 0
    for n, decision in numbered:
        if decision.how not in _WITHOUT_A_CALL:
            break
        if decision.how is not Answered.REPLAYED:
            point = n
    replayed = any(d.how is Answered.REPLAYED for _, d in numbered[:point])
    if point and (fork_of is not None or replayed):
        at = decisions[point - 1]
        name = "fork" if fork_of is None else f"fork of walk {fork_of}"
        line = f"{name} at decision {point} · {_what(at)}"
        before = [n for n, _ in chosen if n < point]
        later = [(n, d) for n, d in chosen if n > point]
        if before:
            line += f" · forced before it: decision {', '.join(map(str, before))}"
        return line + "".join(f" · decision {n} {_what(d)}" for n, d in later)
    return " · ".join(f"decision {n} {_what(d)}" for n, d in chosen)
