"""What a walk is run with: one record, from the query box or the command line to a saved trace and back.

The record lies here, at the foot of the explorer beside :mod:`explorer.ending`, rather than in ``walks/``,
because a trace's header carries it (:class:`explorer.trace.TraceHeader`) and the trace layer is below the
navigators and the walks (the replay navigator reads traces): every layer that walks, saves or reads a walk
can hold this one record, and none keeps a renamed copy of its fields. How it reads in a label (the model
with its folders left out) needs the navigators' model-id grammar, so that lives above, in
:mod:`explorer.walks.settings`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from core import OnFailure

__all__ = ["WalkSettings"]


@dataclass(frozen=True)
class WalkSettings:
    """Everything a walk is run with: settable in the app and from the command line, kept in its trace."""

    query: str
    model: str = "lexical:default"
    """The navigator's model id (a trace's header calls it ``navigator``)."""
    max_nodes_visited: int = 15
    max_depth: int = 6
    on_failure: OnFailure = OnFailure.THROW

    def but(self, **changes: object) -> WalkSettings:
        return replace(self, **changes)  # type: ignore[arg-type]
