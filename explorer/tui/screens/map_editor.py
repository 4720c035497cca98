"""``M``: one node's title and summary, edited as a map variant (the map a navigator is shown, changed in an overlay
file beside the corpus; the corpus file is never written: :mod:`explorer.corpora.map_variant`).

The dialog shows the node's title and summary as the walk saw them, why it was opened (the verdict that named the
node, when it was opened from one), and a summary suggested from what lies beneath the node (extractive, offline);
``ctrl+u`` takes the suggestion into the summary field. ``Enter`` or ``ctrl+s`` keeps the edit (``keep`` writes it
through the one output gate and says what went wrong in one line, shown here: the dialog stays, nothing is lost);
``Escape`` closes it with nothing kept. Every text from the corpus or the verdict is shown literally (rich ``Text``,
control characters made visible), never as markup.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from ...safe_text import safe, visible
from ..widgets.editing import EditableField, EditableText
from .closing_once import ClosesOnce

HINT = "Enter or ctrl+s keeps it in the map variant · ctrl+u takes the suggestion · Escape closes, nothing kept"


@dataclass(frozen=True)
class MapNode:
    """What the dialog edits: the node's id, its title and summary as the walk saw them, the suggested summary, why
    it was opened (a verdict's words, or empty) and the file the edit is kept in."""

    node_id: str
    title: str
    summary: str
    suggestion: str
    why: str
    map_file: Path


class MapEditorScreen(ClosesOnce, ModalScreen[bool]):
    """The node's title and summary in two fields; ``keep(title, summary)`` keeps them (``None``) or says why not
    (one line, shown under the fields). Dismissed with ``True`` once kept, ``False`` when closed."""

    CSS_PATH = Path(__file__).with_name("map_editor.tcss")
    BINDINGS = [
        Binding("escape", "close", "Close", id="map.close"),
        Binding("enter", "keep", "Keep", priority=True, id="map.keep"),
        Binding("ctrl+s", "keep", "Keep", priority=True, id="map.keep_s"),
        Binding("ctrl+u", "suggest", "Use the suggestion", priority=True, id="map.suggest"),
    ]

    def __init__(self, node: MapNode, keep: Callable[[str, str], str | None]) -> None:
        super().__init__()
        self.node = node
        self.keep = keep
        self.problem: str | None = None
        """The last line that refused a keep (``None``: none)."""

    def compose(self) -> ComposeResult:
        node = self.node
        with Vertical(id="map-dialog"):
            heading = Text("Map: ", style="bold")
            heading.append_text(safe(node.title, "bold", width=60))
            heading.append_text(safe(f" ({node.node_id}) · kept in {node.map_file}", width=200))
            yield Label(heading, id="map-heading")
            if node.why:
                why = Text("Why: ", style="bold")
                why.append_text(safe(node.why, width=600))
                yield Static(why, id="map-why")
            yield Label("Title", classes="map-label")
            yield EditableField(node.title, id="map-title")
            yield Label("Summary (what the navigator is shown of everything beneath)", classes="map-label")
            yield EditableText(node.summary, id="map-summary", soft_wrap=True, show_line_numbers=False)
            yield Label("Suggested, from the content beneath (offline) · ctrl+u takes it", classes="map-label")
            with VerticalScroll(id="map-suggestion-scroll"):
                yield Static(safe(node.suggestion or "(nothing beneath says anything to suggest from)",
                                  width=10_000), id="map-suggestion")
            yield Label("", id="map-problem")
            yield Label(HINT, id="map-hint")

    def on_mount(self) -> None:
        self.query_one("#map-summary", EditableText).focus()

    @property
    def title_text(self) -> str:
        return self.query_one("#map-title", EditableField).value

    @property
    def summary_text(self) -> str:
        return self.query_one("#map-summary", EditableText).text

    def action_suggest(self) -> None:
        if self.node.suggestion:
            field = self.query_one("#map-summary", EditableText)
            field.text = self.node.suggestion
            field.focus()

    def action_keep(self) -> None:
        if not self.on_top:
            return
        summary = " ".join(self.summary_text.split())  # one paragraph: a summary is what a navigator reads in a line
        problem = self.keep(self.title_text.strip(), summary)
        if problem is not None:
            self.problem = problem
            self.query_one("#map-problem", Label).update(Text(visible(problem), style="bold red"))
            return
        self.dismiss(True)

    def action_close(self) -> None:
        self.dismiss(False)
