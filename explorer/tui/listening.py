"""What the walk screen hears from other threads: the manual navigator asking the person at the keyboard, and a
local model's server loading, ready or failed.

Both are told on the thread that does the work; :class:`Listening` posts each to the screen as a message
(:class:`~explorer.tui.messages.DecisionRequested`, :class:`~explorer.tui.messages.LocalModelChanged`), and the
screen's handlers act on its own thread.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from textual.message import Message

from ..navigators.llm.llama_server import LoadPhase, LocalModelStatus, add_status_listener
from ..navigators.manual import DESK, PendingDecision
from .messages import DecisionRequested, LocalModelChanged
from .say import Severity


class Host(Protocol):
    """What listening needs of the walk screen."""

    def post_message(self, message: Message) -> bool: ...

    def say(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...


class Listening:
    """The walk screen ``host``'s ears, from :meth:`attach` (on mount) to :meth:`detach` (on unmount); with
    ``listen`` off it hears nothing (a screen drawn in the background: the HTML export's, which must not take the
    desk or the local models from the screen a person uses)."""

    def __init__(self, host: Host, *, listen: bool = True) -> None:
        self.host = host
        self.listen = listen
        self._stop_hearing_models: Callable[[], None] = lambda: None

    def attach(self) -> None:
        if not self.listen:
            return
        DESK.attach(self._manual)
        self._stop_hearing_models = add_status_listener(self._local_model)

    def detach(self) -> None:
        DESK.detach(self._manual)
        self._stop_hearing_models()

    def _manual(self, pending: PendingDecision) -> None:
        self.host.post_message(DecisionRequested(pending))

    def _local_model(self, status: LocalModelStatus) -> None:
        self.host.post_message(LocalModelChanged(status))

    def local_model_changed(self, status: LocalModelStatus) -> None:
        """A local model loads on the first decision that needs it: say so, and how long it took (on the screen's
        thread)."""
        if status.phase is LoadPhase.LOADING:
            # Short: a toast cannot be taken back when the model is ready (about 2 s here); "ready" follows it.
            self.host.say(status.line(), title="Local model", timeout=4)
        elif status.phase is LoadPhase.READY:
            self.host.say(status.line(), title="Local model", timeout=6)
        elif status.phase is LoadPhase.FAILED:
            self.host.say(status.line(), title="Local model", severity="error", timeout=12)
