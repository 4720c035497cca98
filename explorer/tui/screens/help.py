"""The help screen: every key, from the same table the bindings are made from, and every tree mark."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ..keymap import ANALYSIS_KEYS, MORE_KEYS, PICKER_KEYS, SHOWING_KEYS, WALK_KEYS, Key, shown_key
from .closing_once import ClosesOnce


def _keys_table(title: str, keys: Sequence[Key]) -> Table:
    table = Table(title=title, title_justify="left", show_header=False, box=None, expand=True, pad_edge=False)
    table.add_column(style="bold", no_wrap=True, width=12)
    table.add_column()
    for key in keys:
        table.add_row(Text(shown_key(key.keys)), Text(key.help))
    return table


class HelpScreen(ClosesOnce, ModalScreen[None]):
    """Every key, from the same table the bindings are made from."""

    CSS_PATH = Path(__file__).with_name("help.tcss")

    BINDINGS = [Binding("escape,q,question_mark", "dismiss", "Close", id="help.close")]

    def compose(self) -> ComposeResult:
        with Vertical(id="help-dialog"):
            yield Label("reasoning-explorer — keys", id="help-title")
            with VerticalScroll():
                yield Static(_keys_table("Walk", WALK_KEYS))
                yield Static(_keys_table("The picker (the manual navigator asks, or a fork)", PICKER_KEYS))
                yield Static(_keys_table("More", MORE_KEYS))
                yield Static(_keys_table("Across walks", ANALYSIS_KEYS))
                yield Static(_keys_table("Showing a walk: in a room, or as a file", SHOWING_KEYS))
                yield Static(Text(
                    "Tree marks, for the walk on screen: ◆ current · ? offered · ✓ chosen · ⚑ chosen by a forced "
                    "decision · ✗ not chosen · • visited · ■ landed (with its stop reason) · ⊘ chosen but never "
                    "entered; a number after the mark is the node's place in the visit order (■ 3: the third entered). "
                    "Comparing two walks: A / B only in one, = in both, ⑂ where they part. ◎ expected by a "
                    "question. After S, \"chosen 7/10 walks\" at a row's end (and its heat colour) counts the "
                    "stability run's walks, not the one on screen: a ✗ row can say \"chosen 3/3 walks\".\n"
                    "Every action is also in the command palette (ctrl+p).", style="dim"))
            yield Label("Escape closes", id="help-hint")
