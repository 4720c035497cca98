"""Messages from the walk's worker thread to the screen: small, tagged with the walk's id."""

from __future__ import annotations

from textual.message import Message

from core import WalkEvent

from ..ending import WalkEnd
from ..navigators.manual import PendingDecision


class WalkEventArrived(Message):
    """Event ``seq`` (1-based) of walk ``walk_id``; ``forced`` when a person forced that decision."""

    def __init__(self, walk_id: int, seq: int, event: WalkEvent, forced: bool = False) -> None:
        super().__init__()
        self.walk_id = walk_id
        self.seq = seq
        self.event = event
        self.forced = forced


class WalkEnded(Message):
    """Walk ``walk_id`` is over, and how (with ``error`` when it failed)."""

    def __init__(self, walk_id: int, end: WalkEnd, error: str | None) -> None:
        super().__init__()
        self.walk_id = walk_id
        self.end = end
        self.error = error


class DecisionRequested(Message):
    """The manual navigator waits for the person at the keyboard."""

    def __init__(self, pending: PendingDecision) -> None:
        super().__init__()
        self.pending = pending
