"""The corpus as a collapsible tree, built lazily, with each node's walk state shown on its label."""

from __future__ import annotations

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
    Mark.CHOSEN: "✓ ",
    Mark.OFFERED: "? ",
    Mark.REJECTED: "✗ ",
    Mark.VISITED: "• ",
}
TITLE_WIDTH = 72


class WalkTree(Tree[str]):
    """A ``Tree`` whose nodes are created only when their branch opens or the walk reaches them.

    Node data is the corpus node id. The walk's marks (``current``,
    ``landed``, ``chosen``, ``offered``, ``rejected``, ``visited``) are kept
    per id and drawn by :meth:`render_label` with the component classes
    styled in ``app.tcss``; changing them repaints only the nodes that changed.
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        *Tree.COMPONENT_CLASSES,
        "walk-tree--id",
        *(f"walk-tree--{mark.value}" for mark in Mark),
    }

    def __init__(self, corpus: Corpus, *, id: str | None = None) -> None:
        super().__init__(safe(corpus.title, width=TITLE_WIDTH), data=None, id=id)
        self.corpus = corpus
        self.marks: dict[str, Mark] = {}
        self.follow = True
        self._by_id: dict[str, TreeNode[str]] = {}
        self._loaded: set[int] = set()
        self._id_width: dict[str, int] = {}
        self.guide_depth = 3

    def on_mount(self) -> None:
        self._load(self.root, self.corpus.index.root_ids())
        self.root.expand()

    # -- lazy building ------------------------------------------------------------------------------

    def _label(self, node_id: str) -> Text:
        label = safe(self.corpus.title_of(node_id), width=TITLE_WIDTH)
        label.append("  ")
        shown_id = safe(node_id, width=40)
        self._id_width[node_id] = len(shown_id)
        label.append_text(shown_id)
        return label

    def _load(self, parent: TreeNode[str], child_ids: tuple[str, ...]) -> None:
        if parent.id in self._loaded:
            return
        self._loaded.add(parent.id)
        index = self.corpus.index
        for child in child_ids:
            self._by_id[child] = parent.add(self._label(child), data=child, allow_expand=index.has_children(child))

    def _ensure(self, node_id: str) -> TreeNode[str]:
        """The tree node for a corpus node, creating its ancestors' children as needed."""
        found = self._by_id.get(node_id)
        if found is not None:
            return found
        index = self.corpus.index
        for ancestor in index.path(node_id)[:-1]:
            node = self._by_id[ancestor]
            self._load(node, index.child_ids(ancestor))
        return self._by_id[node_id]

    def on_tree_node_expanded(self, event: Tree.NodeExpanded[str]) -> None:
        if event.node.data is not None:
            self._load(event.node, self.corpus.index.child_ids(event.node.data))

    # -- following the walk ---------------------------------------------------------------------------

    def reveal(self, node_id: str, *, expand: bool = False, move_cursor: bool = True) -> None:
        """Open the branches down to ``node_id`` (and the node itself with ``expand``), and put the cursor on it."""
        if node_id not in self.corpus.index:
            return
        target = self._ensure(node_id)
        for ancestor in self.corpus.index.path(node_id)[:-1]:
            self._by_id[ancestor].expand()
        if expand and target.allow_expand:
            self._load(target, self.corpus.index.child_ids(node_id))
            target.expand()
        if move_cursor:
            # Right after expand() the node has no line yet: move once the tree has refreshed.
            self.call_after_refresh(self.move_cursor, target)

    def node_for(self, node_id: str) -> TreeNode[str] | None:
        return self._by_id.get(node_id)

    # -- marks ------------------------------------------------------------------------------------------

    def set_marks(self, marks: dict[str, Mark]) -> None:
        """Show a new set of marks, repainting only the nodes whose mark changed."""
        old = self.marks
        self.marks = marks
        for node_id in {k for k in old.keys() | marks.keys() if old.get(k) != marks.get(k)}:
            node = self._by_id.get(node_id)
            if node is not None:
                node.refresh()

    def render_label(self, node: TreeNode[str], base_style: Style, style: Style) -> Text:
        label = super().render_label(node, base_style, style)
        node_id = node.data
        if node_id is None:
            return label
        id_width = self._id_width.get(node_id, 0)
        label.stylize(self.get_component_rich_style("walk-tree--id", partial=True), len(label) - id_width)
        mark = self.marks.get(node_id)
        if mark is None:
            return Text("  ") + label
        marked = Text(GLYPHS[mark]) + label
        marked.stylize(self.get_component_rich_style(f"walk-tree--{mark.value}", partial=True))
        return marked

    def get_label_width(self, node: TreeNode[str]) -> int:
        # Cheaper than rendering every label to measure it (see TEXTUAL_NOTES): prefix + glyph + label.
        return node.label.cell_len + 4
