"""Messages from the walk's worker thread to the screen: small, tagged with the walk's id."""

from __future__ import annotations

from textual.message import Message

from core import WalkEvent

from .navigators.manual import PendingDecision


class WalkEventArrived(Message):
    """Event ``seq`` (1-based) of walk ``walk_id``."""

    def __init__(self, walk_id: int, seq: int, event: WalkEvent) -> None:
        super().__init__()
        self.walk_id = walk_id
        self.seq = seq
        self.event = event


class WalkEnded(Message):
    """Walk ``walk_id`` is over: ``end`` is finished, cancelled or failed (with ``error``)."""

    def __init__(self, walk_id: int, end: str, error: str | None) -> None:
        super().__init__()
        self.walk_id = walk_id
        self.end = end
        self.error = error


class DecisionRequested(Message):
    """The manual navigator waits for the person at the keyboard."""

    def __init__(self, pending: PendingDecision) -> None:
        super().__init__()
        self.pending = pending
