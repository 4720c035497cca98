"""A walk as a session's observer is told of it, with the decisions the session forced and replayed numbered."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import NavigatorChose, NavigatorFailed, WalkEvent

from ...ending import WalkEnd
from ...navigators.forcing import ForcingNavigator
from ...trace import TraceHeader

if TYPE_CHECKING:
    from ..session import SessionEnded, WalkSession

__all__ = ["Observed", "observed"]


@dataclass(frozen=True)
class Observed:
    """A walk a session has told of, ready to export."""

    header: TraceHeader
    events: tuple[WalkEvent, ...]
    end: WalkEnd
    error: str | None
    forced: tuple[int, ...]
    replayed: tuple[int, ...]
    times: tuple[int, ...]
    name: str


def observed(session: WalkSession, ended: SessionEnded, events: Sequence[WalkEvent],
             times: Sequence[int]) -> Observed:
    """What a session's observer is told, with the decisions it forced and replayed numbered."""
    navigator = session.navigator
    recorded = navigator.recorded if isinstance(navigator, ForcingNavigator) else {}
    forced, replayed = [], []
    for seq, event in enumerate(events, start=1):
        if isinstance(event, NavigatorChose | NavigatorFailed):
            if event.current in session.forced_nodes:
                forced.append(seq)
            elif event.current in recorded:
                replayed.append(seq)
    return Observed(session.header(), tuple(events), ended.end, ended.error,
                    tuple(forced), tuple(replayed), tuple(times), session.history.name)
