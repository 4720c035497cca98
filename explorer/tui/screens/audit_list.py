"""The map audit's weakest nodes (``I`` on the walk screen), each with its figure and what it says; Enter on one
opens it on the tree."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, OptionList

from ...numbers import counted
from ...safe_text import safe, visible
from ...walks.audit import MapFit
from .closing_once import ClosesOnce

TITLE_CELLS = 60
"""A title is cut to this many cells in the list (its line says it whole where the words quote it)."""


def audit_entry(rank: int, fit: MapFit, title: str) -> Text:
    """One node of the list: its rank, title, id and fit on a first line, what it says below (untrusted text made
    visible, never markup)."""
    entry = Text(f"{rank:>2}. ")
    entry.append_text(safe(title, "bold", width=TITLE_CELLS))
    entry.append("  ·  ")
    entry.append_text(safe(fit.id, width=40))
    entry.append(f"  ·  fit {fit.fit:.3f}\n    ")
    entry.append_text(safe(fit.says))
    return entry


class AuditScreen(ClosesOnce, ModalScreen[str | None]):
    """The map's weakest nodes, weakest first; Enter (or a click) on one returns its id, Escape nothing; q quits."""

    CSS_PATH = Path(__file__).with_name("audit_list.tcss")

    BINDINGS = [Binding("escape", "dismiss(None)", "Close", id="audit.close"),
                Binding("q", "app.quit", "Quit", id="audit.quit")]

    def __init__(self, fits: Sequence[MapFit], titles: Sequence[str], *, nodes: int, judge: str,
                 compared: str) -> None:
        super().__init__()
        self.fits = tuple(fits)
        self._titles = tuple(titles)
        self._heading = (f"Map audit: the {counted(len(self.fits), 'node', grouped=True)} of {nodes:,} whose title "
                         f"and summary describe their subtree worst ({judge}), marked △ on the tree · Enter opens "
                         "one · Escape closes · q quits")
        self._compared = f"Compared: {compared}. fit: the node's worst place on any measure, as a share of the " \
                         f"corpus (0: the worst)."

    def compose(self) -> ComposeResult:
        with Vertical(id="audit-dialog"):
            yield Label(Text(visible(self._heading)), id="audit-title")
            yield Label(Text(visible(self._compared)), id="audit-compared")
            yield OptionList(*(audit_entry(rank, fit, title) for rank, (fit, title)
                               in enumerate(zip(self.fits, self._titles, strict=True), 1)), id="audit-list")

    def on_mount(self) -> None:
        listed = self.query_one("#audit-list", OptionList)
        listed.focus()
        if listed.option_count:
            listed.highlighted = 0

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(self.fits[event.option_index].id)
