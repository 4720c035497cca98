"""The query box."""

from __future__ import annotations

from typing import ClassVar

from textual.widgets import Input


class QueryInput(Input):
    """The query box, which holds the next walk's query: Enter starts a walk; Escape leaves the box."""

    BINDINGS: ClassVar = [("escape", "leave", "Leave the query box")]

    def action_leave(self) -> None:
        self.screen.query_one("#tree").focus()  # the step keys work at once
