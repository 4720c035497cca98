"""Notifications of text that may hold anything (paths, ids, errors, a navigator's words): made visible, never
parsed as markup. Every screen says things through :func:`say`.

The same information said again while its toast still shows is not stacked: a key pressed five times at the end
of a walk leaves one toast, not five covering the answer card. Warnings and errors are said each time.
"""

from __future__ import annotations

import time
from typing import Literal, Protocol
from weakref import WeakKeyDictionary

from textual.app import App
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
    if severity == "information":
        app = node.app
        said = (message, title)
        now = time.monotonic()
        last = _showing.get(app)
        if last is not None and last[0] == said and now < last[1]:
            return
        _showing[app] = (said, now + timeout)
    node.notify(visible(message), title=visible(title), severity=severity, markup=False, timeout=timeout)


_showing: WeakKeyDictionary[App[object], tuple[tuple[str, str], float]] = WeakKeyDictionary()
"""Per app, the last words said and when their toast goes."""


class Say(Protocol):
    """:func:`say` from a node a part was handed (``functools.partial(say, screen)``)."""

    def __call__(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...
