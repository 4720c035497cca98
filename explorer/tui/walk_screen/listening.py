"""What the walk screen hears from other threads: the manual navigator asking the person at the keyboard, and a
local model's server loading, ready or failed.

Both are told on the thread that does the work, to the desk and the listeners of the explorer's
:class:`~explorer.walks.session.Wiring` (its own: another explorer's walks are not heard here);
:class:`Listening` posts each to the screen as a message
(:class:`~explorer.tui.messages.DecisionRequested`, :class:`~explorer.tui.messages.LocalModelChanged`), and the
screen's handlers act on its own thread.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from ...navigators.llm.llama_server import LoadPhase, LocalModelStatus
from ...navigators.manual import PendingDecision
from ...walks.session import WalkSession
from ..messages import DecisionRequested, LocalModelChanged
from .shown import Grounds, Part


class Listening(Part):
    """The walk screen's ears on ``wiring``'s desk and listeners (what they hear is posted to it through its
    ``stage``), from :meth:`attach` (on mount) to
    :meth:`detach` (on unmount). A screen drawn in the background (the HTML export's) is given no wiring, so it
    never takes the desk or the local models from the screen a person uses."""

    def __init__(self, grounds: Grounds) -> None:
        super().__init__(grounds)
        self._stop_hearing_models: Callable[[], None] = lambda: None
        self._model: tuple[LocalModelStatus, float] | None = None  # the last status heard, and when (monotonic)

    def attach(self) -> None:
        if self.wiring.desk is not None:
            self.wiring.desk.attach(self._manual)
        if self.wiring.hearing is not None:
            self._stop_hearing_models = self.wiring.hearing.add(self._local_model)

    def detach(self) -> None:
        if self.wiring.desk is not None:
            self.wiring.desk.detach(self._manual)
        self._stop_hearing_models()

    def _manual(self, pending: PendingDecision) -> None:
        self.stage.post(DecisionRequested(pending))

    def _local_model(self, status: LocalModelStatus) -> None:
        self.stage.post(LocalModelChanged(status))

    def local_model_changed(self, status: LocalModelStatus) -> None:
        """A local model loads on the first decision that needs it: say so, and how long it took (on the screen's
        thread)."""
        self._model = (status, time.monotonic())
        # Presenting to a room, a model's loading and readiness (a server's address, its threads) are not toasted:
        # the narration counts the seconds instead. A failure is still said.
        if status.phase is not LoadPhase.FAILED and self.view.presenting:
            return
        if status.phase is LoadPhase.LOADING:
            # Short: a toast cannot be taken back when the model is ready (about 2 s here); "ready" follows it.
            self.say(status.line(), title="Local model", timeout=4)
        elif status.phase is LoadPhase.READY:
            self.say(status.line(), title="Local model", timeout=6)
        elif status.phase is LoadPhase.FAILED:
            self.say(status.line(), title="Local model", severity="error", timeout=12)

    def line(self, session: WalkSession | None) -> str:
        """What the local model does while ``session`` waits for its navigator, for the status line: loading
        (``loading local model smollm2…``), or ready during this wait (``local model smollm2 ready (1.2 s) ·
        working…``); ``""`` otherwise (no wait, no local model, or one loaded before this wait began)."""
        if session is None or not session.busy or self._model is None:
            return ""
        status, heard = self._model
        model = session.history.settings.model
        name = model.removeprefix("local:").split("@", 1)[0] if model.startswith("local:") else status.model
        if status.phase is LoadPhase.LOADING:
            return f"loading local model {name}…"
        if status.phase is LoadPhase.READY and heard >= time.monotonic() - session.busy_seconds:
            return f"local model {name} ready ({status.seconds or 0:.1f} s) · working…"
        return ""
