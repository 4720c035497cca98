"""Results: the summary line, every stop with its reason and path, the landed nodes ranked, and the selected one's
content."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
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

Cells = tuple[Text, ...]
PADDING = 2
"""Cells a DataTable column takes beyond its width (one each side)."""


@dataclass(frozen=True)
class Columns:
    """A table's columns: their headings, those that shorten when the table is too narrow (the widest first, to
    their heading's width; the last named, the title, only once the others are), and the order in which they go
    when even that does not fit."""

    table: str
    headings: tuple[str, ...]
    shorten: tuple[int, ...]
    drop: tuple[int, ...]


LANDED = Columns("landed-table", ("#", "landed node", "stop reason", "why", "depth", "path"),
                 shorten=(5, 3, 2, 1), drop=(5, 4, 3))
STOPS = Columns("stops-table", ("stop", "reason", "at", "branch", "landed", "detail"),
                shorten=(5, 2, 3, 4, 1), drop=(5, 4, 3))


def fit_columns(shape: Columns, rows: Sequence[Cells], room: int) -> tuple[int | None, ...]:
    """Each column's width so that the table fits ``room`` cells with every heading whole: ``None`` (its content's
    own width) when all of it fits or the table has no room yet, else the widest of ``shape.shorten`` shortened
    a cell at a time down to their heading's width (its last, the title, once the others are), and past that
    columns left out (``0``) in ``shape.drop``'s order. A shortened cell shows its start; the whole of it stays
    in the row, and ``z`` gives the table the whole width."""
    headings = shape.headings
    natural = [max([len(h), *(row[i].cell_len for row in rows)]) for i, h in enumerate(headings)]
    if room <= 0 or sum(natural) + PADDING * len(natural) <= room:
        return tuple(None for _ in headings)
    widths = list(natural)
    kept = set(range(len(headings)))

    def over() -> int:
        return sum(widths[i] + PADDING for i in kept) - room

    *first, last = shape.shorten
    while over() > 0:  # the widest of the columns that may shorten gives a cell at a time; the title goes last
        longer = [c for c in first if widths[c] > len(headings[c])]
        column = max(longer, key=lambda c: (widths[c], -first.index(c))) if longer else last
        if widths[column] <= len(headings[column]):
            break
        widths[column] -= 1
    for column in shape.drop:
        if over() <= 0:
            break
        kept.discard(column)
    return tuple(widths[i] if i in kept else 0 for i in range(len(headings)))


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
        landed.add_columns(*LANDED.headings)
        stops = self.query_one("#stops-table", DataTable)
        stops.add_columns(*STOPS.headings)
        self._rows: dict[str, list[tuple[Cells, str | None]]] = {"landed-table": [], "stops-table": []}
        self._widths: dict[str, tuple[int | None, ...]] = {}
        self._corpus: Corpus | None = None
        self._landed_ids: list[str] = []
        self._ranked: tuple[tuple[RankedNode, str], ...] = ()
        self._content_id: str | None = None
        self._content_limit = PART

    def show(self, state: WalkState, corpus: Corpus, summary: Text, ranked: Sequence[RankedNode] = ()) -> None:
        """The summary, the landed nodes ``ranked`` (:func:`~explorer.walks.ranking.rank_landed`: the best first,
        marked ``★``, the stand-ins last, ``◌``, each with what put it there) and every stop."""
        self._corpus = corpus
        self.query_one("#results-summary", Static).update(summary)
        landed = self.query_one("#landed-table", DataTable)
        ids = [node.node for node in ranked]
        drawn = tuple((node, state.reason_of(node.record)) for node in ranked)
        if drawn != self._ranked:
            # A node that lands can rank above those before it, and a stand-in's reason grows as the stops under it
            # come in (``1 chosen child never entered``, then ``3 chosen children``): the rows are drawn again
            # whenever any of them changes, the cursor kept on its node.
            keep = self._landed_ids[landed.cursor_row] if 0 <= landed.cursor_row < len(self._landed_ids) else None
            rows: list[tuple[Cells, str | None]] = []
            for node in ranked:
                record = node.record
                title = corpus.title_of(node.node) if node.node in corpus.index else node.node
                place = "◌" if node.place is None else f"★ {node.place}" if node.best else str(node.place)
                why = node.reasons if node.stand_in is None else f"{node.stand_in} · {node.reasons}"
                reason = state.reason_of(record)
                rows.append(((
                    Text(place),
                    safe(title, "bold" if node.best else "", width=50),
                    self._reason(reason),
                    safe(why, width=120),
                    Text(str(len(record.path) - 1)),
                    safe(" › ".join(record.path), width=80),
                ), node.node))
            self._draw(landed, LANDED, rows)
            self._landed_ids = ids
            self._ranked = drawn
            if keep in ids:
                landed.move_cursor(row=ids.index(keep))
            self._show_content(ids[landed.cursor_row] if ids and landed.cursor_row >= 0 else None)
        stops = self.query_one("#stops-table", DataTable)
        stop_rows = self._rows["stops-table"]
        if len(stop_rows) > len(state.stops):
            stop_rows = []
        for number, record in enumerate(state.stops[len(stop_rows):], start=len(stop_rows) + 1):
            reason = state.reason_of(record)
            stop_rows = [*stop_rows, ((
                Text(str(number)),
                self._reason(reason),
                safe(" › ".join(record.path) or "(start)", width=60),
                safe(record.branch or "-", width=30),
                safe(record.landed or "-", width=30),
                safe(record.detail or "", width=80),
            ), None)]
        if stop_rows != self._rows["stops-table"] or stops.row_count != len(stop_rows):
            self._draw(stops, STOPS, stop_rows)

    # -- columns that fit: no heading is ever cut at the table's edge ------------------------------------------------

    def _draw(self, table: DataTable[Text], shape: Columns, rows: list[tuple[Cells, str | None]]) -> None:
        """Show ``rows`` in ``table``, its columns sized to fit its width (:func:`fit_columns`)."""
        self._rows[table.id or ""] = rows
        widths = fit_columns(shape, [cells for cells, _ in rows], self._room(table))
        if widths != self._widths.get(table.id or ""):
            self._widths[table.id or ""] = widths
            table.clear(columns=True)
            for heading, width in zip(shape.headings, widths, strict=True):
                if width != 0:
                    table.add_column(heading, width=width)
        else:
            table.clear()
        for cells, key in rows:
            table.add_row(*(cell for cell, width in zip(cells, widths, strict=True) if width != 0), key=key)

    @staticmethod
    def _room(table: DataTable[Text]) -> int:
        """The cells the table's columns may take, a vertical scroll bar's kept free (0 or less: not laid out yet,
        so nothing to fit)."""
        return table.content_region.width - (table.styles.scrollbar_size_vertical or 0)

    def on_resize(self) -> None:
        self.call_after_refresh(self._refit)

    def _refit(self) -> None:
        """The panel's width changed: the columns fit it again (the cursor kept on its row)."""
        for shape in (LANDED, STOPS):
            table = self.query_one(f"#{shape.table}", DataTable)
            rows = self._rows[shape.table]
            if fit_columns(shape, [cells for cells, _ in rows], self._room(table)) != self._widths.get(shape.table):
                row = table.cursor_row
                self._draw(table, shape, rows)
                if 0 <= row < table.row_count:
                    table.move_cursor(row=row)

    def reset(self) -> None:
        """Forget the rows shown: a new walk (or trace) starts."""
        self.query_one("#landed-table", DataTable).clear()
        self.query_one("#stops-table", DataTable).clear()
        self._rows = {"landed-table": [], "stops-table": []}
        self._landed_ids = []
        self._ranked = ()
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
