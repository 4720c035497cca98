"""Notifications of text that may hold anything (paths, ids, errors, a navigator's words): made visible, never
parsed as markup. Every screen says things through :func:`say`.

The same information said again while its toast still shows is not stacked: a key pressed five times at the end
of a walk leaves one toast, not five covering the answer card. Warnings and errors are said each time.
"""

from __future__ import annotations

import time
from typing import Literal, Protocol

from textual.widget import Widget

from ..safe_text import visible

Severity = Literal["information", "warning", "error"]

FILES_OFF = "Opening and saving files is off in this shared session."
"""What every key that would open or save a file says in a shared session (``serve``, files off)."""


def say(node: Widget, message: str, *, title: str = "", severity: Severity = "information",
        timeout: float = 3) -> None:
    """Notify ``message`` from ``node`` (any widget or screen), escaped; an information said again while its toast
    from an earlier call still shows is not said twice (a warning or an error always is: each answers an
    action of its own)."""
    said = getattr(node.app, "said", None)
    if severity == "information" and isinstance(said, Said) and said.again(message, title, timeout):
        return
    node.notify(visible(message), title=visible(title), severity=severity, markup=False, timeout=timeout)


class Said:
    """What an app said last, and when its toast goes: the app keeps one (``app.said``), so that :func:`say`
    leaves out an information said again while its toast still shows. An app without one says everything."""

    def __init__(self) -> None:
        self._last: tuple[tuple[str, str], float] | None = None

    def again(self, message: str, title: str, timeout: float) -> bool:
        """Whether ``message`` under ``title`` still shows; if not, it is said now, for ``timeout`` seconds."""
        now = time.monotonic()
        if self._last is not None and self._last[0] == (message, title) and now < self._last[1]:
            return True
        self._last = ((message, title), now + timeout)
        return False


class Say(Protocol):
    """:func:`say` from a node a part was handed (``functools.partial(say, screen)``)."""

    def __call__(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...
