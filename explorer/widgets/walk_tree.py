"""The corpus as a collapsible tree, built lazily, with each node's walk state shown on its label."""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar

from rich.style import Style
from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ..corpora import Corpus
from ..safe_text import safe
from ..walk_state import Mark

GLYPHS = {
    Mark.CURRENT: "◆ ",
    Mark.LANDED: "■ ",
    Mark.STOPPED: "⊘ ",
    Mark.FORCED: "⚑ ",
    Mark.CHOSEN: "✓ ",
    Mark.OFFERED: "? ",
    Mark.REJECTED: "✗ ",
    Mark.VISITED: "• ",
    Mark.DIVERGED: "⑂ ",
    Mark.BOTH: "= ",
    Mark.ONLY_A: "A ",
    Mark.ONLY_B: "B ",
}
TITLE_WIDTH = 72
ID_WIDTH = 40
MIN_TITLE_CELLS = 4
"""A title is never shortened below this (with the icon), so a row stays recognisable beside its stop reason."""
BATCH = 500
"""Children added at a time: a node with 100,000 children opens as fast as one with 500."""


class WalkTree(Tree[str | None]):
    """A ``Tree`` whose nodes are created only when their branch opens or the walk reaches them.

    Node data is the corpus node id (``None`` for a "more children" row).
    The walk's marks (``current``, ``landed``, ``stopped``, ``chosen``,
    ``offered``, ``rejected``, ``visited``) and stop reasons are kept per id
    and drawn by :meth:`render_label` with the component classes styled in
    ``app.tcss``; changing them repaints only the nodes that changed.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *Tree.COMPONENT_CLASSES,
        "walk-tree--id",
        "walk-tree--reason",
        "walk-tree--more",
        "walk-tree--expected",
        "walk-tree--count",
        *(f"walk-tree--{mark.value}" for mark in Mark),
        *(f"walk-tree--heat-{level}" for level in range(1, 5)),
    }

    def __init__(self, corpus: Corpus, *, id: str | None = None) -> None:
        super().__init__(safe(corpus.title, width=TITLE_WIDTH), data=None, id=id)
        self.corpus = corpus
        self.marks: dict[str, Mark] = {}
        self.reasons: dict[str, str] = {}
        self.expected: frozenset[str] = frozenset()
        """Nodes a question set expects (an evaluation's walk): marked ◎."""
        self.counts: dict[str, str] = {}
        """Text shown after a node's label, e.g. ``7/10`` (how often N walks chose it)."""
        self.heat: dict[str, int] = {}
        """A heat level 1-4 per node, styled by ``walk-tree--heat-N``."""
        self.follow = True
        self.guide_depth = 3
        self._by_id: dict[str, TreeNode[str | None]] = {}
        self._id_width: dict[str, int] = {}
        self._next_child: dict[int, int] = {}  # tree node id -> index of the first child not yet added
        # "more children" row id -> (that row, the node whose children it continues)
        self._more: dict[int, tuple[TreeNode[str | None], TreeNode[str | None]]] = {}

    def on_mount(self) -> None:
        self._load(self.root, self.corpus.index.root_ids())
        self.root.expand()

    # -- lazy building ------------------------------------------------------------------------------

    def _label(self, node_id: str) -> Text:
        label = safe(self.corpus.title_of(node_id), width=TITLE_WIDTH)
        label.append("  ")
        shown_id = safe(node_id, width=ID_WIDTH)
        self._id_width[node_id] = len(shown_id)
        label.append_text(shown_id)
        return label

    def _load(self, parent: TreeNode[str | None], child_ids: tuple[str, ...], *, through: str | None = None) -> None:
        """Add the next batch of children (or every batch up to the one holding ``through``)."""
        start = self._next_child.get(parent.id, 0)
        if start >= len(child_ids) and parent.id in self._next_child:
            return
        index = self.corpus.index
        end = min(len(child_ids), start + BATCH)
        if through is not None and through not in self._by_id:
            end = max(end, child_ids.index(through, start) + 1)
        for child in child_ids[start:end]:
            self._by_id[child] = parent.add(self._label(child), data=child, allow_expand=index.has_children(child))
        self._next_child[parent.id] = end
        for row_id, (row, owner) in list(self._more.items()):
            if owner is parent:
                del self._more[row_id]
                row.remove()
        if end < len(child_ids):
            left = len(child_ids) - end
            row = parent.add_leaf(Text(f"… {left:,} more: Enter shows the next {min(BATCH, left):,}"), data=None)
            self._more[row.id] = (row, parent)

    def _children_of(self, node: TreeNode[str | None]) -> tuple[str, ...]:
        return self.corpus.index.root_ids() if node is self.root else self.corpus.index.child_ids(node.data or "")

    def _ensure(self, node_id: str) -> TreeNode[str | None]:
        """The tree node for a corpus node, creating its ancestors' children as needed."""
        found = self._by_id.get(node_id)
        if found is not None:
            return found
        index = self.corpus.index
        path = index.path(node_id)
        self._load(self.root, index.root_ids(), through=path[0])
        for ancestor, child in pairwise(path):
            self._load(self._by_id[ancestor], index.child_ids(ancestor), through=child)
        return self._by_id[node_id]

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[str | None]) -> None:
        if event.node.data is not None and event.node.id not in self._next_child:
            self._load(event.node, self.corpus.index.child_ids(event.node.data))

    def on_tree_node_selected(self, event: Tree.NodeSelected[str | None]) -> None:
        more = self._more.get(event.node.id)
        if more is not None:
            self._load(more[1], self._children_of(more[1]))

    # -- following the walk ---------------------------------------------------------------------------

    def reveal(self, node_id: str, *, expand: bool = False, move_cursor: bool = True) -> None:
        """Open the branches down to ``node_id`` (and the node itself with ``expand``), and put the cursor on it."""
        if node_id not in self.corpus.index:
            return
        target = self._ensure(node_id)
        # expand() invalidates the whole tree even on an open node: only open what is closed.
        for ancestor in self.corpus.index.path(node_id)[:-1]:
            if not self._by_id[ancestor].is_expanded:
                self._by_id[ancestor].expand()
        if expand and target.allow_expand:
            if target.id not in self._next_child:
                self._load(target, self.corpus.index.child_ids(node_id))
            if not target.is_expanded:
                target.expand()
        if move_cursor:
            # Right after expand() the node has no line yet: move once the tree has refreshed.
            self.call_after_refresh(self.move_cursor, target)

    def node_for(self, node_id: str) -> TreeNode[str | None] | None:
        return self._by_id.get(node_id)

    # -- marks ------------------------------------------------------------------------------------------

    def set_marks(self, marks: dict[str, Mark], reasons: dict[str, str] | None = None) -> None:
        """Show a new set of marks and stop reasons, repainting only the nodes that changed."""
        reasons = reasons or {}
        changed = {k for k in self.marks.keys() | marks.keys() if self.marks.get(k) != marks.get(k)}
        changed |= {k for k in self.reasons.keys() | reasons.keys() if self.reasons.get(k) != reasons.get(k)}
        self.marks, self.reasons = marks, reasons
        for node_id in changed:
            node = self._by_id.get(node_id)
            if node is not None:
                node.refresh()

    def set_overlay(self, *, expected: frozenset[str] | None = None, counts: dict[str, str] | None = None,
                    heat: dict[str, int] | None = None) -> None:
        """Show (or, with empty values, clear) what lies over the walk's marks: expected nodes, counts, heat."""
        changed: set[str] = set()
        if expected is not None:
            changed |= self.expected ^ expected
            self.expected = expected
        if counts is not None:
            changed |= self.counts.keys() | counts.keys()
            self.counts = counts
        if heat is not None:
            changed |= self.heat.keys() | heat.keys()
            self.heat = heat
        for node_id in changed:
            node = self._by_id.get(node_id)
            if node is not None:
                node.refresh()

    def render_label(self, node: TreeNode[str | None], base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        node_id = node.data
        if node_id is None:
            if node.id in self._more:
                label.stylize(self.get_component_rich_style("walk-tree--more", partial=True))
            return label
        id_width = self._id_width.get(node_id, 0)
        reason = self.reasons.get(node_id)
        reason_first = False
        if reason is not None:
            label, id_width, reason_first = self._fit(label, node_id, id_width, len(reason) + 2)
        if id_width:
            label.stylize(self.get_component_rich_style("walk-tree--id", partial=True), len(label) - id_width)
        mark = self.marks.get(node_id)
        if mark is None:
            label = Text("  ") + label
        else:
            label = Text(GLYPHS[mark]) + label
            label.stylize(self.get_component_rich_style(f"walk-tree--{mark.value}", partial=True))
        if reason is not None:
            reason_style = self.get_component_rich_style("walk-tree--reason", partial=True)
            if reason_first:  # too narrow for the title and the reason: the reason first, whole
                label = label[:2] + Text(reason, style=reason_style) + Text("  ") + label[2:]
            else:
                label.append(f"  {reason}", style=reason_style)
        level = self.heat.get(node_id)
        if level is not None:
            label.stylize(self.get_component_rich_style(f"walk-tree--heat-{level}", partial=True))
        count = self.counts.get(node_id)
        if count is not None:
            label.append(f"  {count}", style=self.get_component_rich_style("walk-tree--count", partial=True))
        if node_id in self.expected:
            label.append("  ◎ expected", style=self.get_component_rich_style("walk-tree--expected", partial=True))
        return label

    def _room(self) -> int:
        """Cells a line may use: the content region less the scrollbar gutter kept for it."""
        return self.scrollable_content_region.width - (self.styles.scrollbar_size_vertical or 0)

    def _fit(self, label: Text, node_id: str, id_width: int, reason_width: int) -> tuple[Text, int, bool]:
        """Shorten the title, then drop the id, never the stop reason, so the whole line fits the tree's width.

        Returns the label, the cells its id now takes, and whether the reason must go first (the row is too
        narrow for even a few letters of the title beside it: the title then runs off the edge instead).
        """
        room = self._room()
        if room <= 0:
            return label, id_width, False
        depth = self.corpus.index.depth(node_id) if node_id in self.corpus.index else 0
        indent = (depth + 1) * self.guide_depth + 2  # guides, then the glyph
        spare = room - indent - label.cell_len - reason_width
        if spare >= 0:
            return label, id_width, False
        # The label is [toggle icon] title "  " id: cut the title's end first, then drop the id (the Node tab
        # shows it), so the reason stays whole.
        title_end = len(label) - id_width - 2
        keep_title = min(title_end, max(MIN_TITLE_CELLS, title_end + spare - 1))
        shortened = label[:keep_title]
        if keep_title < title_end:
            shortened.append("…")
        if shortened.cell_len + 2 + id_width + reason_width + indent <= room:
            shortened.append_text(label[title_end:])
            return shortened, id_width, False
        spare = room - indent - reason_width - label[:title_end].cell_len
        keep_title = min(title_end, max(MIN_TITLE_CELLS, title_end + spare - 1))
        if indent + keep_title + 1 + reason_width > room:
            return label[:title_end], 0, True
        shortened = label[:keep_title]
        if keep_title < title_end:
            shortened.append("…")
        return shortened, 0, False

    def get_label_width(self, node: TreeNode[str | None]) -> int:
        # Cheaper than rendering every label to measure it (see TEXTUAL_NOTES): prefix + glyph + label + reason.
        node_id = node.data
        reason = self.reasons.get(node_id) if node_id is not None else None
        label = node.label
        width = label.cell_len if isinstance(label, Text) else len(label)
        extra = len(reason) + 2 if reason else 0
        room = self._room()
        if reason and node_id is not None and room > 0:
            # render_label shortens this label to fit (the reason stays whole): measure it as drawn, or the
            # tree would scroll sideways for width it never uses.
            depth = self.corpus.index.depth(node_id) if node_id in self.corpus.index else 0
            return min(width + 4 + extra, max(room - (depth + 1) * self.guide_depth, len(reason) + 8))
        if node_id is not None:
            count = self.counts.get(node_id)
            extra += len(count) + 2 if count else 0
            extra += 12 if node_id in self.expected else 0
        return width + 4 + extra
