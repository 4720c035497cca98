"""The evaluation's table of questions, one row per question: its columns (each side's, from :mod:`.cells`, and
``A vs B`` or the query), each question's cells, which rows the filters let through, and their order (the questions
that flipped first). A new column is a column of :mod:`.cells` (``SIDE_COLUMNS`` and its labels and widths) and a
cell there; this module lays them out."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from rich.text import Text
from textual.widgets import DataTable

from ...corpora.questions import Question
from ...safe_text import safe
from ...walks.evaluation import BlameKind, Change, Difference, QuestionOutcome, Side, differs
from .cells import CELL_WIDTHS, CHANGE_STYLE, COMPARED, LABELS, SHORT_LABELS, SIDE_COLUMNS, side_cells
from .sides import SideRun

_FLIP_ORDER = {Change.B_HITS: 0, Change.A_HITS: 1}
"""Where the questions that flipped come in the table when comparing: fixed (only B hits), then broken."""


class ResultsTable:
    """The table of ``questions`` walked by the ``sides`` (the screen's, as they change), filtered as ``filters``
    says now (misses only, differences only, one verdict only), drawn into the data table ``widget`` gives; a
    verdict names a node by its title, ``title_of``'s."""

    def __init__(self, questions: Sequence[Question], sides: dict[Side, SideRun],
                 filters: Callable[[], tuple[bool, bool, BlameKind | None]], widget: Callable[[], DataTable[Text]],
                 title_of: Callable[[str], str]) -> None:
        self.questions = questions
        self.sides = sides
        self.filters = filters
        self.widget = widget
        self.title_of = title_of
        self.shown: list[int] = []
        """The question numbers of the rows shown, in order."""
        self._changed: set[int] = set()
        self._moves = False

    @property
    def comparing(self) -> bool:
        return Side.B in self.sides

    @property
    def side_columns(self) -> tuple[str, ...]:
        """Each side's columns: all of them for one navigator, the deciding ones for two."""
        return tuple(c for c in SIDE_COLUMNS if not self.comparing or c in COMPARED)

    @property
    def filtering(self) -> bool:
        return any(self.filters())

    def build_columns(self) -> None:
        table = self.widget()
        table.clear(columns=True)
        table.add_column("#", key="number")
        table.add_column("question", key="question")
        for name in self.sides:
            for column, label, short, width in zip(SIDE_COLUMNS, LABELS, SHORT_LABELS, CELL_WIDTHS, strict=True):
                if column in self.side_columns:
                    label = f"{name} {short}" if self.comparing else label
                    table.add_column(label, key=f"{name}:{column}", width=max(width, len(label)))
        if self.comparing:
            table.add_column("A vs B", key="change", width=18)
        else:
            table.add_column("query", key="query")  # as wide as its longest (clipped) query: never cut

    def row_wanted(self, number: int) -> bool:
        misses_only, differences_only, verdict = self.filters()
        a = self.sides[Side.A].outcomes[number]
        b = self.sides[Side.B].outcomes[number] if self.comparing else None
        if verdict is not None and not any(o is not None and o.blame is not None and o.blame.kind is verdict
                                           for o in (a, b)):
            return False
        if misses_only:
            missed = (a is not None and not a.hit) or (b is not None and not b.hit)
            if not missed:
                return False
        if differences_only:
            return a is not None and b is not None and differs(a, b)
        return True

    def cells(self, number: int) -> list[Text]:
        question = self.questions[number]
        cells = [Text(str(number + 1), style="dim"), safe(question.id, width=40)]
        for name in self.sides:
            run = self.sides[name]
            side = side_cells(run.outcomes[number], run.over, self.title_of, judging=run.verdicts is not None)
            cells.extend(cell for column, cell in zip(SIDE_COLUMNS, side, strict=True) if column in self.side_columns)
        if self.comparing:
            difference = self.difference(number)
            cells.append(Text(difference.change.value, style=CHANGE_STYLE[difference.change]) if difference
                         else Text(""))
        else:
            cells.append(safe(question.query, width=60))
        return cells

    def rebuild(self) -> None:
        """Show the rows the filters let through, keeping the cursor on the same question when it stays."""
        table = self.widget()
        keep = self.cursor_question()
        table.clear()
        self.shown = sorted((n for n in range(len(self.questions)) if self.row_wanted(n)), key=self.flip_order)
        for number in self.shown:
            table.add_row(*self.cells(number), key=str(number))
        if keep is not None and keep in self.shown:
            table.move_cursor(row=self.shown.index(keep))

    def flipped(self, number: int) -> bool:
        """Whether question ``number`` flipped between the two sides: fixed (only B hits) or broken (only A)."""
        difference = self.difference(number) if self.comparing else None
        return difference is not None and difference.change in _FLIP_ORDER

    def flip_order(self, number: int) -> tuple[int, int]:
        """The flipped questions first, fixed then broken, then the rest, each in question order."""
        difference = self.difference(number) if self.comparing else None
        rank = _FLIP_ORDER.get(difference.change, 2) if difference is not None else 2
        return rank, number

    def update_row(self, number: int) -> None:
        """Redraw question ``number``'s row, when a row of it is shown: a filter may hide it (a verdict that comes
        for a question ``d`` hides changes no row; the next rebuild draws it)."""
        table = self.widget()
        if str(number) not in table.rows:
            return
        for key, cell in zip(self.column_keys(), self.cells(number), strict=True):
            table.update_cell(str(number), key, cell)

    def changed(self, number: int, *, moves: bool) -> None:
        """Question ``number``'s outcome changed (``moves``: its row may come, go or move among the flipped): its
        row is drawn at the next :meth:`draw_changes` (a screen draws a burst of changes once)."""
        self._changed.add(number)
        self._moves |= moves

    def draw_changes(self, *, everything: bool = False) -> bool:
        """Draw the rows that changed since the last draw, or every row, in order, when one may have moved or
        ``everything`` is asked for; whether every row was drawn."""
        rows, rebuild = sorted(self._changed), self._moves or everything
        self._changed, self._moves = set(), False
        if rebuild:
            self.rebuild()
        for number in () if rebuild else rows:
            self.update_row(number)
        return rebuild

    def verdicts(self) -> list[BlameKind]:
        """The verdicts some row holds now, in their kinds' order: what the verdict filter cycles through."""
        held = {o.blame.kind for side in self.sides.values() for o in side.outcomes
                if o is not None and o.blame is not None}
        return [kind for kind in BlameKind if kind in held]

    def column_keys(self) -> list[str]:
        keys = ["number", "question"] + [f"{name}:{column}" for name in self.sides for column in self.side_columns]
        return keys + (["change"] if self.comparing else ["query"])

    # -- reading it ---------------------------------------------------------------------------------------------------

    def cursor_question(self) -> int | None:
        """The question number of the row under the cursor (``None`` when no row is shown)."""
        table = self.widget()
        if not self.shown or table.row_count == 0:
            return None
        row = min(max(table.cursor_row, 0), len(self.shown) - 1)
        return self.shown[row]

    def outcome(self, side: Side, number: int) -> QuestionOutcome | None:
        found = self.sides.get(side)
        return found.outcomes[number] if found is not None else None

    def difference(self, number: int) -> Difference | None:
        a, b = self.outcome(Side.A, number), self.outcome(Side.B, number)
        return Difference(number, a, b) if a is not None and b is not None and differs(a, b) else None
