"""The corpus as a collapsible tree, built lazily, with each node's walk state shown on its label."""

from __future__ import annotations

import sys
from collections.abc import Hashable, Iterable, Iterator
from itertools import pairwise
from typing import ClassVar, Self

from rich.style import Style
from rich.text import Text, TextType
from textual.geometry import Region
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from ...corpora import Corpus
from ...safe_text import clip, safe, visible
from ...walks.compare import Comparison
from ...walks.state import Mark, WalkState

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
EXPECTED = "  ◎ expected"
MIN_ID_CELLS = 4
"""An id is cut only while this much of it (with its ellipsis) stays; past that it goes."""
SHORT_REASONS = {
    "visit_budget_exhausted": "no visits",
    "navigator_stopped": "stopped",
    "max_depth": "depth",
    "invalid_choice": "invalid",
    "navigator_failed": "failed",
}
"""A stop reason's short form, for a row too narrow for it and the title: the title gives way last. Branches the
walk never reached (``never entered: cancelled``) read ``not entered``."""
"""A title is never shortened below this (with the icon), so a row stays recognisable beside its stop reason."""
COUNT_WORD = "chosen "
"""How a count of other walks begins (``chosen 3/3 walks``); a row too narrow for it drops this word first."""
BATCH = 500
"""Children added at a time: a node with 100,000 children opens as fast as one with 500."""
AROUND = 50
"""Reaching a child far past the rows shown (``g``, the walk) adds this many on each side of it, not every row
before it: the 10,000th child of a wide node costs what the 100th does."""
STACK_BEYOND_DEPTH = 1_000
"""Frames of Python's stack kept free beyond the deepest open branch (see :meth:`WalkTree._allow_depth`)."""

# The children a "more" row stands for: their parent, the position of the first and the end (exclusive).
_Run = tuple[TreeNode[str | None], int, int]


class WalkTree(Tree[str | None]):
    """A ``Tree`` whose nodes are created only when their branch opens or the walk reaches them.

    Node data is the corpus node id (``None`` for a "more children" row).
    A node's children are added :data:`BATCH` at a time; a child reached
    far past them (by ``g`` or by the walk) is shown with :data:`AROUND`
    rows on each side. Every run of children not yet shown is one "… N
    more: Enter shows the next K" row where they would be.
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
        "walk-tree--visit",
        "walk-tree--weak",
        *(f"walk-tree--{mark.value}" for mark in Mark),
        *(f"walk-tree--heat-{level}" for level in range(1, 5)),
    }

    _adding = False
    """Rows are being added in a batch (a class default: Tree refreshes while it is made)."""

    def __init__(self, corpus: Corpus, *, id: str | None = None) -> None:
        super().__init__(safe(corpus.title, width=TITLE_WIDTH), data=None, id=id)
        self.corpus = corpus
        self.marks: dict[str, Mark] = {}
        self.reasons: dict[str, str] = {}
        self.visits: dict[str, int] = {}
        """Each entered node's place in the walk's visit order (1 for the first entered), drawn after its mark: a
        best-first walk's jumps between branches read off the tree."""
        self.expected: frozenset[str] = frozenset()
        """Nodes a question set expects (an evaluation's walk): marked ◎."""
        self.counts: dict[str, str] = {}
        """Text shown after a node's label, whole (its id and stop reason shorten first), e.g. ``chosen 7/10 walks``
        (how often a stability run's N walks chose it: other walks than the one whose marks the tree shows)."""
        self.heat: dict[str, int] = {}
        """A heat level 1-4 per node, styled by ``walk-tree--heat-N``."""
        self.weak: dict[str, str] = {}
        """The map audit's weakest nodes (``I``), each with its mark (``△ weak 3``), drawn last on its row; empty
        while no audit ran, and then no row looks it up."""
        self.follow = True
        """Whether the tree brings where the walk is into view as it goes (``t`` toggles)."""
        self.guide_depth = 3
        self._followed: Hashable = None  # the place last brought into view (once per place)
        self._walk_opened: dict[str, None] = {}  # branches following the walk opened (in order), not the person
        self._opening: set[int] = set()  # tree node ids being expanded by the walk: their NodeExpanded is ours
        self._by_id: dict[str, TreeNode[str | None]] = {}
        self._id_width: dict[str, int] = {}
        self._opened: set[int] = set()  # tree node ids whose children have been added (some of them)
        # "more children" row id -> (the node whose children it stands for, the first and the end of that run)
        self._more: dict[int, _Run] = {}
        self._label_cells: dict[int, int] = {}  # tree node id -> its label's width in cells
        self._room_now = -1  # the cells a line may use, read when Tree measures its first line (-1: not yet)

    def on_mount(self) -> None:
        self._load(self.root, self.corpus.index.root_ids())
        self.root.expand()

    # -- lazy building ------------------------------------------------------------------------------

    def _label(self, node_id: str) -> Text:
        # One plain Text, "title  id": the id's style is laid on when the row is drawn (render_label).
        shown_id = clip(visible(node_id), ID_WIDTH)
        self._id_width[node_id] = len(shown_id)
        return Text(f"{clip(visible(self.corpus.title_of(node_id)), TITLE_WIDTH)}  {shown_id}")

    def process_label(self, label: TextType) -> Text:
        # Tree cuts every label at its first line, copying it; ours are one line already (newlines are made
        # visible), so the copy is skipped: it was a third of the cost of adding a node.
        if isinstance(label, Text) and "\n" not in label.plain:
            return label
        return super().process_label(label)

    def _add_rows(self, parent: TreeNode[str | None], rows: list[tuple[Text, str | None, bool]],
                  at: int) -> list[TreeNode[str | None]]:
        """Insert ``(label, data, allow_expand)`` rows among ``parent``'s children at ``at``, collapsed; the tree
        is refreshed once for the batch, not once a row (``TreeNode.add`` asks for a layout every time)."""
        add = parent.add
        self._adding = True
        try:
            return [add(label, data, before=at + offset, allow_expand=allow_expand)
                    for offset, (label, data, allow_expand) in enumerate(rows)]
        finally:
            self._adding = False
            self.refresh(layout=True)

    def refresh(self, *regions: Region, repaint: bool = True, layout: bool = False, recompose: bool = False) -> Self:
        if self._adding:  # a batch of rows is being added: _add_rows refreshes once at its end
            return self
        return super().refresh(*regions, repaint=repaint, layout=layout, recompose=recompose)

    @staticmethod
    def _allow_depth(depth: int) -> None:
        """Let branches open ``depth`` levels down be drawn.

        Textual's ``Tree`` builds its lines with one nested call per open level, so a chain of nodes deeper than
        Python's recursion limit (1,000) would stop the build. The limit is only ever raised, and only when a
        branch that deep is about to be filled: no shipped corpus comes near it. (Since Python 3.11 a call from
        Python to Python takes no C stack, so a higher limit costs nothing until it is used.)
        """
        needed = depth + STACK_BEYOND_DEPTH
        if sys.getrecursionlimit() < needed:
            sys.setrecursionlimit(needed)

    def _load(self, parent: TreeNode[str | None], child_ids: tuple[str, ...], *, through: str | None = None) -> None:
        """Show more of ``parent``'s children: the first batch, or the run of them that holds ``through``.

        The first time, the run is all of them; later it is a "more" row's.
        Rows are added from the run's start, a batch of them, or, for a
        ``through`` further in than that, :data:`AROUND` on each side of it;
        what is left of the run either side stays a "more" row.
        """
        if parent.id in self._opened:
            if through is None or through in self._by_id:
                return
            # The run holding ``through``: a linear scan of the ids, cheaper than the rows it saves creating.
            position = child_ids.index(through)
            row, start, end = next(
                (row, start, end) for row, (_, start, end) in self._runs(parent) if start <= position < end
            )
        else:
            self._opened.add(parent.id)
            row, start, end = None, 0, len(child_ids)
            position = child_ids.index(through) if through is not None else 0
        if position - start < BATCH:
            first, last = start, min(end, start + BATCH)
        else:
            first, last = max(start, position - AROUND), min(end, position + AROUND + 1)
        self._allow_depth(0 if parent is self.root else self.corpus.index.depth(parent.data or "") + 2)
        has_children = self.corpus.index.has_children
        shown = child_ids[first:last]
        rows: list[tuple[Text, str | None, bool]] = []
        runs: list[tuple[int, int]] = []
        if first > start:
            rows.append(self._more_label(first - start))
            runs.append((start, first))
        rows += [(self._label(child), child, has_children(child)) for child in shown]
        if last < end:
            rows.append(self._more_label(end - last))
            runs.append((last, end))
        at = len(parent.children)
        if row is not None:  # the new rows go where the "more" row was
            at = parent.children.index(row)
            del self._more[row.id]
            self._label_cells.pop(row.id, None)
            row.remove()
        added = self._add_rows(parent, rows, at)
        new_rows = added[1:] if first > start else added
        self._by_id.update(zip(shown, new_rows, strict=False))
        more_rows = [node for node in added if node.data is None]
        for node, (run_start, run_end) in zip(more_rows, runs, strict=True):
            self._more[node.id] = (parent, run_start, run_end)

    @staticmethod
    def _more_label(left: int) -> tuple[Text, None, bool]:
        return Text(f"… {left:,} more: Enter shows the next {min(BATCH, left):,}"), None, False

    def _runs(self, parent: TreeNode[str | None]) -> Iterator[tuple[TreeNode[str | None], _Run]]:
        """``parent``'s "more" rows and the runs of children they stand for, in order."""
        more = self._more
        for child in parent.children:
            if child.data is None and child.id in more:
                yield child, more[child.id]

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
        if event.node.id in self._opening:
            self._opening.discard(event.node.id)
        elif event.node.data is not None:
            self._walk_opened.pop(event.node.data, None)  # the person opened it: it stays open
        if event.node.data is not None and event.node.id not in self._opened:
            self._load(event.node, self.corpus.index.child_ids(event.node.data))

    def on_tree_node_selected(self, event: Tree.NodeSelected[str | None]) -> None:
        more = self._more.get(event.node.id)
        if more is not None:
            parent, start, _ = more
            child_ids = self._children_of(parent)
            self._load(parent, child_ids, through=child_ids[start])  # the next batch from the run's start
            # The first new child takes the row's line, so the cursor's line stays and Tree announces no
            # highlight: announce it, or what follows the highlight (the Node tab) keeps showing the row.
            self.call_after_refresh(self._announce_cursor, event.node)

    def _announce_cursor(self, replaced: TreeNode[str | None]) -> None:
        node = self.cursor_node
        if node is not None and node is not replaced:
            self.post_message(Tree.NodeHighlighted(node))

    # -- following the walk ---------------------------------------------------------------------------

    def follow_walk(self, place: Hashable, target: str | None, *, also: Iterable[str] = (),
                    expand: bool = False, unfold: Iterable[str] = ()) -> None:
        """Bring where the walk is into view: ``target`` (with its children when ``expand``), ``also`` and ``unfold``
        (with their children: landed branches), without moving the cursor there; once per ``place``, so a person's
        own scrolling is left alone."""
        if self.follow and place != self._followed and target is not None:
            for node_id in also:
                self.reveal(node_id, move_cursor=False, by_walk=True)
            for node_id in unfold:
                self.reveal(node_id, expand=True, move_cursor=False, by_walk=True)
            self.reveal(target, expand=expand, by_walk=True)
        self._followed = place

    def follow_state(self, walk: int, state: WalkState, comparison: Comparison | None = None) -> None:
        """Bring walk number ``walk`` into view as of ``state``: where it is; at the end, where it landed; after a
        cancel or a failure, where it happened; comparing, where the two walks part."""
        target = state.current
        if target is None and state.finished and state.landed:
            target = next(iter(state.landed))
        elif target is None and state.current_path:
            target = state.current_path[-1]
        if comparison is not None:
            # Both walks' landed nodes open, with their children: a branch one walk landed on is seen, not folded.
            # Followed again whenever either walk lands more (a walk compared while it runs).
            nodes = tuple(node.node for node in (*comparison.only_a, *comparison.only_b, *comparison.both))
            target = comparison.divergence.node if comparison.divergence is not None else target
            self.follow_walk((-1, target, nodes), target, unfold=nodes)
        else:
            also = list(state.landed) if state.finished else []
            self.follow_walk((walk, target, state.offer is not None), target, also=also, expand=state.offer is not None)

    def forget_walk(self) -> None:
        """Another walk is shown: close the branches following the last one opened (the person's own stay open),
        so the new walk's path is not pushed down the screen."""
        self._followed = None
        for node_id in reversed(list(self._walk_opened)):
            node = self._by_id.get(node_id)
            if node is not None and node.is_expanded:
                node.collapse()
        self._walk_opened.clear()

    def refollow(self) -> None:
        """Bring the walk's place into view again at the next :meth:`follow_walk`."""
        self._followed = None

    def reveal(self, node_id: str, *, expand: bool = False, move_cursor: bool = True, by_walk: bool = False) -> None:
        """Open the branches down to ``node_id`` (and the node itself with ``expand``), and put the cursor on it;
        ``by_walk``: following the walk opens them (a new walk closes them again)."""
        if node_id not in self.corpus.index:
            return
        target = self._ensure(node_id)
        # expand() invalidates the whole tree even on an open node: only open what is closed. The tree's own root
        # (the corpus's title) is no corpus node, so no path names it: Enter on it folds it (the cursor starts
        # there when the tree has the focus at once, as with --query or a trace opened), and it opens again here.
        if not self.root.is_expanded:
            self.root.expand()
        for ancestor in self.corpus.index.path(node_id)[:-1]:
            if not self._by_id[ancestor].is_expanded:
                self._expand(self._by_id[ancestor], by_walk)
        if expand and target.allow_expand:
            if target.id not in self._opened:
                self._load(target, self.corpus.index.child_ids(node_id))
            if not target.is_expanded:
                self._expand(target, by_walk)
        if move_cursor:
            # Right after expand() the node has no line yet: move once the tree has refreshed.
            self.call_after_refresh(self.move_cursor, target)

    def _expand(self, node: TreeNode[str | None], by_walk: bool) -> None:
        if by_walk and node.data is not None:
            self._walk_opened[node.data] = None
            self._opening.add(node.id)
        node.expand()

    def relabel(self, corpus: Corpus) -> None:
        """Read ``corpus`` from now on: the same tree with titles a map variant changed (``M``); the rows made so
        far say their titles as it reads them."""
        self.corpus = corpus
        for node_id, node in self._by_id.items():
            label = self._label(node_id)
            if str(node.label) != str(label):
                self._label_cells.pop(node.id, None)
                node.set_label(label)

    def node_for(self, node_id: str) -> TreeNode[str | None] | None:
        return self._by_id.get(node_id)

    # -- marks ------------------------------------------------------------------------------------------

    @property
    def cursor_id(self) -> str | None:
        """The corpus id of the node under the cursor (``None``: none, or a "more children" row)."""
        node = self.cursor_node
        return node.data if node is not None else None

    def set_marks(self, marks: dict[str, Mark], reasons: dict[str, str] | None = None,
                  visits: dict[str, int] | None = None) -> None:
        """Show a new set of marks, stop reasons and visit numbers, repainting only the nodes that changed."""
        reasons, visits = reasons or {}, visits or {}
        changed = {k for k in self.marks.keys() | marks.keys() if self.marks.get(k) != marks.get(k)}
        changed |= {k for k in self.reasons.keys() | reasons.keys() if self.reasons.get(k) != reasons.get(k)}
        changed |= {k for k in self.visits.keys() | visits.keys() if self.visits.get(k) != visits.get(k)}
        self.marks, self.reasons, self.visits = marks, reasons, visits
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

    def set_weak(self, weak: dict[str, str]) -> None:
        """Mark the map audit's weakest nodes (node id: its mark), repainting only the rows that changed."""
        changed = self.weak.keys() ^ weak.keys() | {k for k in weak.keys() & self.weak.keys()
                                                    if self.weak[k] != weak[k]}
        self.weak = weak
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
        count = self.counts.get(node_id)
        expected = len(EXPECTED) if node_id in self.expected else 0
        weak = self.weak.get(node_id) if self.weak else None  # no audit: nothing looked up
        if weak is not None:
            expected += 2 + len(weak)  # kept whole, as ◎ expected is
        if count is not None and not self._title_fits(label, node_id, id_width, expected + 2 + len(count)):
            count = count.removeprefix(COUNT_WORD)  # ``chosen 3/3 walks`` gives way to ``3/3 walks`` before the title
        # What stays whole after the reason: the count of other walks (its own words) and ◎ expected.
        kept = expected + (2 + len(count) if count else 0)
        if reason is not None or kept:  # too narrow: the id shortens, then the reason, and the title last
            label, id_width, reason = self._fit(label, node_id, id_width, reason, kept)
        if id_width:
            label.stylize(self.get_component_rich_style("walk-tree--id", partial=True), len(label) - id_width)
        visit = self.visits.get(node_id)
        if visit is not None:  # after the mark, before the toggle: "■ 3 ▶ Refunds"
            label = Text(f"{visit} ", style=self.get_component_rich_style("walk-tree--visit", partial=True)) + label
        mark = self.marks.get(node_id)
        if mark is None:
            label = Text("  ") + label
        else:
            label = Text(GLYPHS[mark]) + label
            label.stylize(self.get_component_rich_style(f"walk-tree--{mark.value}", partial=True))
        if reason:
            label.append(f"  {reason}", style=self.get_component_rich_style("walk-tree--reason", partial=True))
        level = self.heat.get(node_id)
        if level is not None:
            label.stylize(self.get_component_rich_style(f"walk-tree--heat-{level}", partial=True))
        if count is not None:
            label.append(f"  {count}", style=self.get_component_rich_style("walk-tree--count", partial=True))
        if node_id in self.expected:
            label.append(EXPECTED, style=self.get_component_rich_style("walk-tree--expected", partial=True))
        if weak is not None:
            label.append(f"  {weak}", style=self.get_component_rich_style("walk-tree--weak", partial=True))
        return label

    def _room(self) -> int:
        """Cells a line may use: the content region less the scrollbar gutter kept for it."""
        return self.scrollable_content_region.width - (self.styles.scrollbar_size_vertical or 0)

    def _title_fits(self, label: Text, node_id: str, id_width: int, kept: int) -> bool:
        """Whether the row's title stays whole beside ``kept`` cells (with the id and the reason gone)."""
        room = self._room()
        depth = self.corpus.index.depth(node_id) if node_id in self.corpus.index else 0
        title_cells = label[: len(label) - id_width - 2].cell_len + self._visit_cells(node_id)
        return room <= 0 or room - ((depth + 1) * self.guide_depth + 2 + title_cells + kept) >= 0

    def _visit_cells(self, node_id: str) -> int:
        """Cells the node's visit number takes with its space (none for a node not entered)."""
        visit = self.visits.get(node_id)
        return 0 if visit is None else len(str(visit)) + 1

    def _fit(self, label: Text, node_id: str, id_width: int, reason: str | None,
             expected: int) -> tuple[Text, int, str | None]:
        """Make the row fit the tree's width, the title kept longest: the id shortens (to nothing), then the stop
        reason takes its short form (:data:`SHORT_REASONS`), then it goes (the row's glyph still says how the path
        ended, and the Node tab says why), and only then is the title cut. ``◎ expected`` stays whole.

        Returns the label (``[toggle icon] title  id``), the cells its id now takes, and the reason to show.
        """
        room = self._room()
        if room <= 0:
            return label, id_width, reason
        depth = self.corpus.index.depth(node_id) if node_id in self.corpus.index else 0
        indent = (depth + 1) * self.guide_depth + 2 + self._visit_cells(node_id)  # guides, the glyph, the number
        title_end = len(label) - id_width - 2
        title = label[:title_end]

        def spare(title_cells: int, id_cells: int, shown_reason: str | None) -> int:
            return room - (indent + title_cells + (2 + id_cells if id_cells else 0)
                           + (2 + len(shown_reason) if shown_reason else 0) + expected)

        if spare(title.cell_len, id_width, reason) >= 0:
            return label, id_width, reason
        left = spare(title.cell_len, 0, reason)
        if left >= 2 + MIN_ID_CELLS:  # the id's end goes first (the Node tab shows it whole)
            kept = label[title_end + 2: title_end + 2 + left - 3]
            return title + Text("  ") + kept + Text("…"), kept.cell_len + 1, reason
        short = None if reason is None else SHORT_REASONS.get(
            reason, "not entered" if reason.startswith("never entered") else reason)
        left = spare(title.cell_len, 0, short)
        if left >= 0:
            return title, 0, short
        left = spare(title.cell_len, 0, None)  # the reason goes (the glyph says how the path ended)
        if left >= 0:
            return title, 0, None
        keep = title.cell_len + left - 1
        shortened = title[: max(MIN_TITLE_CELLS, keep)]
        shortened.append("…")
        return shortened, 0, None

    def get_label_width(self, node: TreeNode[str | None]) -> int:
        # Cheaper than rendering every label to measure it (see TEXTUAL_NOTES): prefix + glyph + label + reason.
        # Tree measures every line after a change, top line first; the room is read then, once per build, and
        # not for every line (asking the widget its size was most of a rebuild: 10,000 lines took 140 ms).
        if node.line == 0 or self._room_now < 0:
            self._room_now = self._room()
        return self._cells(node, self._room_now)

    def _cells(self, node: TreeNode[str | None], room: int) -> int:
        node_id = node.data
        reason = self.reasons.get(node_id) if node_id is not None else None
        width = self._label_cells.get(node.id)
        if width is None:
            label = node.label
            width = self._label_cells[node.id] = label.cell_len if isinstance(label, Text) else len(label)
        extra = len(reason) + 2 if reason else 0
        if node_id is not None:
            extra += self._visit_cells(node_id)
            count = self.counts.get(node_id)
            extra += len(count) + 2 if count else 0
            extra += len(EXPECTED) if node_id in self.expected else 0
            weak = self.weak.get(node_id) if self.weak else None
            extra += len(weak) + 2 if weak else 0
        if extra and node_id is not None and room > 0:
            # render_label shortens this label to fit (its id, its reason, then its title): measure it as drawn, or the
            # tree would scroll sideways for width it never uses.
            depth = self.corpus.index.depth(node_id) if node_id in self.corpus.index else 0
            return min(width + 4 + extra, max(room - (depth + 1) * self.guide_depth, MIN_TITLE_CELLS + 4))
        return width + 4 + extra

    def clear(self) -> Self:
        # Node ids start again from 0: nothing kept about the old nodes may outlive them.
        for kept in (self._by_id, self._id_width, self._opened, self._more, self._label_cells):
            kept.clear()
        return super().clear()
