"""Reading what the explorer shows, one widget at a time, as plain text: no screenshot, no cell widths.

A test asks the widget that shows a thing: the step panel for the step, the meter for the budget and the
status, the tree for a node's row, the footer for its keys, a dialog for its labels, ``Explorer.notes`` for what
was said. ``shown`` is a widget's text while it is displayed (a hidden panel, an inactive tab: nothing), so
"X is not on screen" stays a real check; ``drawn_lines`` is a widget as drawn at its size, for the few checks
that are about the layout itself (what still fits at 80x24).
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.padding import Padding
from rich.table import Table
from rich.text import Text
from textual.content import Content
from textual.geometry import Region
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import DataTable, Footer, Input, Label, OptionList, Static, Tree

from explorer.tui.app import ExplorerApp
from explorer.tui.widgets.budget_meter import BudgetMeter
from explorer.tui.widgets.compare_panel import ComparePanel
from explorer.tui.widgets.node_detail import NodeDetail
from explorer.tui.widgets.step_panel import StepPanel
from explorer.tui.widgets.transcript import TranscriptView
from explorer.tui.widgets.walk_tree import WalkTree


def plain(content: Any) -> str:
    """The text of what a widget was given to show (a string, Rich text, a group, a table), without styles."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, Text | Content):
        return content.plain
    if isinstance(content, Group):
        return "\n".join(plain(part) for part in content.renderables)
    if isinstance(content, Padding):
        return plain(content.renderable)
    if isinstance(content, Table):
        columns = [list(column.cells) for column in content.columns]
        rows = [" │ ".join(plain(cells[row]) for cells in columns) for row in range(content.row_count)]
        return "\n".join([plain(content.title), *rows] if content.title else rows)
    raise TypeError(f"no plain text for a {type(content).__name__}: teach reading.plain to read it")


def displayed(widget: Widget) -> bool:
    """Whether ``widget`` is displayed: neither it nor a container of it is hidden (``display: none``, an
    inactive tab, a collapsed dialog part)."""
    return all(node.display and node.visible for node in widget.ancestors_with_self if isinstance(node, Widget))


def text_of(widget: Widget) -> str:
    """What ``widget`` holds to show, as plain text, wherever it is scrolled: an input's value, a table's header
    and rows, a list's prompts, a tree's rows in view, a static's content."""
    if isinstance(widget, Input):
        return widget.value
    if isinstance(widget, DataTable):
        return "\n".join(" │ ".join(row) for row in [table_columns(widget), *table_rows(widget)])
    if isinstance(widget, OptionList):
        return "\n".join(option_prompts(widget))
    if isinstance(widget, Tree):
        return "\n".join(tree_rows(widget))
    if isinstance(widget, Static):
        return plain(widget.content)
    return ""


def shown(widget: Widget) -> str:
    """``text_of(widget)`` while it is displayed, else nothing: what a person can read there."""
    return text_of(widget) if displayed(widget) else ""


def drawn_lines(widget: Widget) -> list[str]:
    """``widget`` as drawn at its size, line by line (borders and padding included), through Textual's own
    rendering: for checks about the layout itself (what still fits, what is cut)."""
    width, height = widget.outer_size
    return [strip.text for strip in widget.render_lines(Region(0, 0, width, height))]


# -- the walk screen's parts ----------------------------------------------------------------------------------


def step_text(app: ExplorerApp) -> str:
    """The step panel: where the walk is, what was offered, what was chosen and why (nothing while comparing)."""
    return shown(app.walk_screen.query_one(StepPanel))


def compare_text(app: ExplorerApp) -> str:
    """The comparison shown in the step panel's place (nothing when no walks are compared)."""
    return shown(app.walk_screen.query_one(ComparePanel))


def meter_text(app: ExplorerApp) -> str:
    """The budget meter's three lines: visits, then depth, calls and characters, then the walk's status."""
    return shown(app.walk_screen.query_one(BudgetMeter))


def status_text(app: ExplorerApp) -> str:
    """The walk's status: the meter's last line."""
    return meter_text(app).splitlines()[-1]


def next_settings(app: ExplorerApp) -> str:
    """The query bar's note of the next walk's settings (nothing where the layout hides it)."""
    return shown(app.walk_screen.query_one("#next-settings", Label))


def results_summary(app: ExplorerApp) -> str:
    """The Results tab's summary line(s) (nothing while another tab is shown)."""
    return shown(app.walk_screen.query_one("#results-summary", Static))


def landed_rows(app: ExplorerApp) -> list[list[str]]:
    """The Results tab's table of landed nodes, row by row (none while another tab is shown)."""
    table = app.walk_screen.query_one("#landed-table", DataTable)
    return table_rows(table) if displayed(table) else []


def stop_rows(app: ExplorerApp) -> list[list[str]]:
    """The Results tab's table of stops, row by row (none while another tab is shown)."""
    table = app.walk_screen.query_one("#stops-table", DataTable)
    return table_rows(table) if displayed(table) else []


def landed_content(app: ExplorerApp) -> str:
    """The Results tab's view of the selected landed node's content."""
    return shown(app.walk_screen.query_one("#landed-content", Static))


def transcript_text(app: ExplorerApp) -> str:
    """The Transcript tab (nothing while another tab is shown)."""
    return shown(app.walk_screen.query_one(TranscriptView))


def node_text(app: ExplorerApp) -> str:
    """The Node tab: the whole of the node under the tree's cursor (nothing while another tab is shown)."""
    return shown(app.walk_screen.query_one(NodeDetail))


def timeline_rows(app: ExplorerApp) -> list[str]:
    """The Timeline tab's rows: one per event, then how the walk ended."""
    return option_prompts(app.walk_screen.query_one("#timeline", OptionList))


def tree_rows(tree: Tree[Any]) -> list[str]:
    """The tree's rows in view, top to bottom, as drawn: guides, then each node's mark, toggle, title, id, stop
    reason, count and ◎ (cut where the tree's edge cuts them)."""
    rows = [tree.render_line(y).text.rstrip() for y in range(tree.scrollable_content_region.height)]
    while rows and not rows[-1]:
        rows.pop()
    return rows


def tree_row(app: ExplorerApp, node_id: str) -> str | None:
    """The row of corpus node ``node_id`` as the tree draws it, without the guides before it: its mark, toggle,
    title, id, stop reason, count and ◎ (``None`` while it is not in view: not built, in a closed branch, or
    scrolled away)."""
    tree = app.walk_screen.query_one(WalkTree)
    node = tree.node_for(node_id)
    if node is None or node.line < 0:
        return None
    y = node.line - tree.scroll_offset.y
    if not 0 <= y < tree.scrollable_content_region.height:
        return None
    levels, parent = 0, node.parent
    while parent is not None:  # one guide per level below the root (and none for the root's children if hidden)
        levels, parent = levels + 1, parent.parent
    guides = (levels - (0 if tree.show_root else 1)) * tree.guide_depth
    return tree.render_line(y).text[guides - tree.scroll_offset.x:].rstrip()


def footer_keys(screen: Screen[Any]) -> list[str]:
    """The keys the footer of ``screen`` shows, each as ``key description`` (``n Next``), left to right; a key
    pushed past the footer's right edge is not shown."""
    footer = screen.query_one(Footer)
    right = footer.region.right
    return [f"{key.key_display} {key.description}".strip() for key in footer.query("FooterKey")
            if key.region.width and key.region.x < right]


def all_text(screen: Screen[Any]) -> str:
    """What every widget of ``screen`` shows, in order, each on its own lines: a dialog's labels, fields, lists and
    tables; on the walk screen, all of it at once (for checks that hold everywhere, such as "no raw control")."""
    return "\n".join(text for text in (shown(widget) for widget in screen.query("*")) if text)


def tree_text(app: ExplorerApp) -> str:
    """The tree's rows in view, one per line (``tree_rows``)."""
    return "\n".join(tree_rows(app.walk_screen.query_one(WalkTree)))


def text_at(node: Widget | Screen[Any], selector: str) -> str:
    """What the one widget matching ``selector`` under ``node`` shows (``shown``)."""
    return shown(node.query_one(selector))


def table_columns(table: DataTable[Any]) -> list[str]:
    """A data table's column headings, left to right."""
    return [column.label.plain for column in table.ordered_columns]


def table_rows(table: DataTable[Any]) -> list[list[str]]:
    """A data table's rows (all of them, wherever it is scrolled), each a list of its cells' text."""
    return [[plain(cell) for cell in table.get_row_at(row)] for row in range(table.row_count)]


def option_prompts(options: OptionList) -> list[str]:
    """An option list's options, by their prompts' text."""
    return [plain(option.prompt) for option in options.options]


def prompt_title(app: ExplorerApp) -> str:
    """The question the prompt on screen asks."""
    return shown(app.screen.query_one("#prompt-title", Label))


def prompt_error(app: ExplorerApp) -> str:
    """Why the prompt on screen refused what was typed (nothing until it refuses)."""
    return shown(app.screen.query_one("#prompt-error", Label))
