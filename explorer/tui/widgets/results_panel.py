"""Results: the summary line, every stop with its reason and path, the landed nodes ranked, and the selected one's
content."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import DataTable, Static

from core import StopReason

from ...corpora import Corpus
from ...safe_text import safe, styled
from ...walks.decisions import NEVER_JUDGED
from ...walks.ranking import RankedNode
from ...walks.state import WalkState
from .long_text import PART, shown_part


class ResultsPanel(Vertical):
    """Filled from a :class:`WalkState`; selecting a landed node shows its content below.

    Stepping forward only adds rows, so they are appended; :meth:`reset` starts over for a new walk.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {f"results--{reason.value}" for reason in StopReason} | {
        "results--never_judged"}

    def __init__(self, *, full_paths: bool = True, id: str | None = None) -> None:
        super().__init__(id=id)
        self.full_paths = full_paths
        """Whether a landed node's place names the corpus's path on this machine (off in a shared session)."""

    def compose(self) -> ComposeResult:
        yield Static(id="results-summary")
        yield DataTable(id="landed-table", cursor_type="row", zebra_stripes=True)
        yield DataTable(id="stops-table", cursor_type="row")
        with VerticalScroll(id="landed-content-scroll"):
            yield Static(id="landed-content")

    def on_mount(self) -> None:
        landed = self.query_one("#landed-table", DataTable)
        landed.add_columns("#", "landed node", "stop reason", "why", "depth", "path")
        stops = self.query_one("#stops-table", DataTable)
        stops.add_columns("stop", "reason", "at", "branch", "landed", "detail")
        self._corpus: Corpus | None = None
        self._landed_ids: list[str] = []
        self._content_id: str | None = None
        self._content_limit = PART

    def show(self, state: WalkState, corpus: Corpus, summary: Text, ranked: Sequence[RankedNode] = ()) -> None:
        """The summary, the landed nodes ``ranked`` (:func:`~explorer.walks.ranking.rank_landed`: the best first,
        marked ``★``, the stand-ins last, ``◌``, each with what put it there) and every stop."""
        self._corpus = corpus
        self.query_one("#results-summary", Static).update(summary)
        landed = self.query_one("#landed-table", DataTable)
        ids = [node.node for node in ranked]
        if ids != self._landed_ids:
            # A node that lands can rank above those before it: the rows are drawn again, the cursor kept on its node.
            keep = self._landed_ids[landed.cursor_row] if 0 <= landed.cursor_row < len(self._landed_ids) else None
            landed.clear()
            for node in ranked:
                record = node.record
                title = corpus.title_of(node.node) if node.node in corpus.index else node.node
                place = "◌" if node.place is None else f"★ {node.place}" if node.best else str(node.place)
                why = node.reasons if node.stand_in is None else f"{node.stand_in} · {node.reasons}"
                reason = state.reason_of(record)
                landed.add_row(
                    place,
                    safe(title, "bold" if node.best else "", width=50),
                    self._reason(reason),
                    safe(why, width=120),
                    str(len(record.path) - 1),
                    safe(" › ".join(record.path), width=80),
                    key=node.node,
                )
            self._landed_ids = ids
            if keep in ids:
                landed.move_cursor(row=ids.index(keep))
            self._show_content(ids[landed.cursor_row] if ids and landed.cursor_row >= 0 else None)
        stops = self.query_one("#stops-table", DataTable)
        shown = stops.row_count
        if shown > len(state.stops):
            stops.clear()
            shown = 0
        for number, record in enumerate(state.stops[shown:], start=shown + 1):
            reason = state.reason_of(record)
            stops.add_row(
                str(number),
                self._reason(reason),
                safe(" › ".join(record.path) or "(start)", width=60),
                safe(record.branch or "-", width=30),
                safe(record.landed or "-", width=30),
                safe(record.detail or "", width=80),
            )

    def reset(self) -> None:
        """Forget the rows shown: a new walk (or trace) starts."""
        self.query_one("#landed-table", DataTable).clear()
        self.query_one("#stops-table", DataTable).clear()
        self._landed_ids = []
        self._show_content(None)

    def _reason(self, reason: str) -> Text:
        kind = "never_judged" if reason == NEVER_JUDGED else reason
        return Text(reason, style=self.get_component_rich_style(f"results--{kind}"))

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if event.data_table.id == "landed-table" and event.row_key is not None:
            self._show_content(event.row_key.value)

    def more(self) -> bool:
        """Draw the next part of the landed node's content; whether there was more."""
        corpus, node_id = self._corpus, self._content_id
        if corpus is None or node_id is None or node_id not in corpus.index:
            return False
        if len(corpus.index[node_id].content) <= self._content_limit:
            return False
        self._content_limit += PART
        self._show_content(node_id)
        return True

    def _show_content(self, node_id: str | None) -> None:
        content = self.query_one("#landed-content", Static)
        corpus = self._corpus
        if node_id != getattr(self, "_content_id", None):
            self._content_limit = PART
        self._content_id = node_id
        if node_id is None or corpus is None or node_id not in corpus.index:
            content.update(styled("Landed nodes show their content here.", "dim"))
            return
        text = safe(corpus.title_of(node_id), "bold")
        text.append("\n")
        text.append_text(safe(corpus.where(node_id, full_path=self.full_paths), "dim"))
        text.append("\n\n")
        body = corpus.index[node_id].content
        text.append_text(shown_part(body, self._content_limit) if body else Text("(no content)"))
        content.update(text)
