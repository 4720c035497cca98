"""Notifications of text that may hold anything (paths, ids, errors, a navigator's words): made visible, never
parsed as markup. Every screen says things through :func:`say`."""

from __future__ import annotations

from typing import Literal, Protocol

from textual.widget import Widget

from ..safe_text import visible

Severity = Literal["information", "warning", "error"]


def say(node: Widget, message: str, *, title: str = "", severity: Severity = "information",
        timeout: float = 3) -> None:
    """Notify ``message`` from ``node`` (any widget or screen), escaped."""
    node.notify(visible(message), title=visible(title), severity=severity, markup=False, timeout=timeout)


class Say(Protocol):
    """:func:`say` from a node a part was handed (``functools.partial(say, screen)``)."""

    def __call__(self, message: str, *, title: str = ..., severity: Severity = ..., timeout: float = ...) -> None: ...
