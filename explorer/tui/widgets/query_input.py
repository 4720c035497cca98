"""The query box."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Input

from ...safe_text import visible


class QueryInput(Input):
    """The query box, which holds the next walk's query: Enter starts a walk; Escape leaves the box.

    A query is untrusted text (``--query``, a trace's, a paste): the box shows it with its control characters
    made visible (``\\x1b``), as everywhere else on screen, so none of them reaches the terminal; the walk is
    asked :attr:`exact_value`, the query as it was given, byte for byte. Once the box is edited, what it shows is
    what it holds.
    """

    BINDINGS: ClassVar = [("escape", "leave", "Leave the query box")]

    _exact: str | None = None
    """The query as given, while the box shows it escaped (``None``: the box holds what it shows)."""

    def validate_value(self, value: str) -> str:
        shown = visible(value)
        self._exact = value if shown != value else None
        return shown

    @property
    def exact_value(self) -> str:
        """The query to walk: as it was given, control characters and all (:attr:`value` is what is shown)."""
        return self._exact if self._exact is not None else self.value

    def action_leave(self) -> None:
        self.screen.query_one("#tree").focus()  # the step keys work at once
