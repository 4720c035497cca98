"""The corpus tree at scale: wide branches come in batches, jumps land on the node, marks repaint, a walk offers
thousands of children at once, and the lines Textual builds from the nodes added are every open node, in order."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.geometry import Size
from textual.widgets.tree import TreeNode

from core import HierarchyIndex, HierarchyMetadata, RetrievedDocument
from explorer.corpora import Corpus
from explorer.tui.widgets.walk_tree import BATCH, WalkTree
from explorer.walks.state import Mark

from .helpers import SIZE, built_nodes, make_app, wait_for
from .reading import node_text, step_text, tree_row, tree_text


def document(node_id: str, parent: str | None, title: str) -> RetrievedDocument:
    metadata = {HierarchyMetadata.ID: node_id, "reasoningTitle": title, "reasoningSummary": "refund"}
    if parent is not None:
        metadata[HierarchyMetadata.PARENT_ID] = parent
    return RetrievedDocument("", node_id, 0.0, metadata)


def corpus_of(documents: list[RetrievedDocument]) -> Corpus:
    return Corpus(Path("synthetic"), "synthetic", "s", "Synthetic", HierarchyIndex(documents), "0" * 64)


def wide_corpus(children: int) -> Corpus:
    """A root with ``children`` children ``c0``, ``c1``, …, each with one child ``c0-x``, …."""
    docs = [document("root", None, "Root")]
    docs += [document(f"c{i}", "root", f"Child {i}") for i in range(children)]
    docs += [document(f"c{i}-x", f"c{i}", f"Grandchild {i}") for i in range(children)]
    return corpus_of(docs)


def more_rows(node) -> list[str]:
    """The "more children" rows under ``node`` (a row without a corpus id), by label."""
    return [child.label.plain for child in node.children if child.data is None]


def cursor_on(tree: WalkTree, node_id: str) -> bool:
    return tree.cursor_node is not None and tree.cursor_node.data == node_id


async def test_jumping_to_the_1000th_and_10000th_child_of_a_wide_node_puts_the_cursor_on_it():
    app = make_app("refund", corpus=wide_corpus(10_000))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.reveal("c999")
        await wait_for(pilot, lambda: cursor_on(tree, "c999"))
        assert tree_row(app, "c999") == "  ▶ Child 999  c999"
        root = tree.node_for("root")
        # Far past the first batch: the child and 50 on each side, with a "more" row for each run not shown.
        assert built_nodes(tree) == 1 + 101
        assert [child.data for child in root.children] == [None, *(f"c{i}" for i in range(949, 1050)), None]
        assert more_rows(root) == ["… 949 more: Enter shows the next 500", "… 8,950 more: Enter shows the next 500"]
        assert tree.cursor_line == tree.node_for("c999").line == 2 + 1 + 50  # title, root, the row, c949..c998

        tree.reveal("c9999")
        await wait_for(pilot, lambda: cursor_on(tree, "c9999"))
        assert tree_row(app, "c9999") == "  ▶ Child 9999  c9999"
        assert built_nodes(tree) == 1 + 101 + 51
        assert more_rows(root) == ["… 949 more: Enter shows the next 500", "… 8,899 more: Enter shows the next 500"]
        assert [child.data for child in root.children[-52:]] == [None, *(f"c{i}" for i in range(9949, 10_000))]

        tree.reveal("c5000-x")  # a grandchild: a window opens around its parent, which opens
        await wait_for(pilot, lambda: cursor_on(tree, "c5000-x"))
        assert tree_row(app, "c5000-x") == "  Grandchild 5000  c5000-x"
        assert built_nodes(tree) == 1 + 101 + 51 + 101 + 1
        assert more_rows(root) == [
            "… 949 more: Enter shows the next 500",
            "… 3,900 more: Enter shows the next 500",  # c1050..c4949
            "… 4,898 more: Enter shows the next 500",  # c5051..c9948
        ]
        ids = [child.data for child in root.children if child.data is not None]
        assert ids == sorted(ids, key=lambda node_id: int(node_id[1:]))  # the corpus's order, whatever was added when

        tree.reveal("c1100")  # near the start of a run: that run fills from its start, a batch at most
        await wait_for(pilot, lambda: cursor_on(tree, "c1100"))
        assert more_rows(root)[1] == "… 3,400 more: Enter shows the next 500"  # c1550..c4949
        assert built_nodes(tree) == 1 + 101 + 51 + 101 + 1 + 500


async def test_enter_on_a_more_row_above_the_rows_shown_fills_in_from_its_start():
    app = make_app("refund", corpus=wide_corpus(2_000))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.focus()
        tree.reveal("c1500")
        await wait_for(pilot, lambda: cursor_on(tree, "c1500"))
        root = tree.node_for("root")
        assert more_rows(root) == ["… 1,450 more: Enter shows the next 500", "… 449 more: Enter shows the next 449"]
        tree.move_cursor(root.children[0])
        await wait_for(pilot, lambda: "… 1,450 more: Enter shows the next 500" in tree_text(app))  # scrolled to
        await pilot.press("enter")
        await wait_for(pilot, lambda: cursor_on(tree, "c0"))  # where the row was
        assert more_rows(root) == ["… 950 more: Enter shows the next 500", "… 449 more: Enter shows the next 449"]
        assert [child.data for child in root.children[:501]] == [*(f"c{i}" for i in range(500)), None]
        await pilot.press("end")  # the last line is the last row: the run after c1550
        await wait_for(pilot, lambda: tree.cursor_node is root.children[-1])
        await pilot.press("enter")
        await wait_for(pilot, lambda: more_rows(root) == ["… 950 more: Enter shows the next 500"])
        assert root.children[-1].data == "c1999"
        await wait_for(pilot, lambda: cursor_on(tree, "c1551"))


async def test_each_batch_ends_with_one_more_row_and_enter_on_it_lands_on_the_first_new_child():
    app = make_app("refund", corpus=wide_corpus(1_200))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.focus()
        root = tree.node_for("root")
        tree.move_cursor(root)
        await pilot.press("space")  # opens the root: its first batch
        await wait_for(pilot, lambda: len(root.children) == 501)
        assert more_rows(root) == ["… 700 more: Enter shows the next 500"] and root.children[-1].data is None

        tree.move_cursor(root.children[-1])
        await wait_for(pilot, lambda: "… 700 more: Enter shows the next 500" in tree_text(app))
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(root.children) == 1001)
        assert more_rows(root) == ["… 200 more: Enter shows the next 200"]
        assert [child.data for child in root.children[:1000]] == [f"c{i}" for i in range(1000)]
        await wait_for(pilot, lambda: cursor_on(tree, "c500"))  # where the row was, and the Node tab follows
        app.query_one("#tabs").active = "tab-node"
        await wait_for(pilot, lambda: node_text(app).startswith("Child 500\n"))

        tree.move_cursor(root.children[-1])
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(root.children) == 1200)
        assert more_rows(root) == [] and root.children[-1].data == "c1199"
        await wait_for(pilot, lambda: cursor_on(tree, "c1000"))
        assert built_nodes(tree) == 1 + 1200
        await pilot.press("end")  # the last line is the last child: no row left behind
        await wait_for(pilot, lambda: cursor_on(tree, "c1199"))


async def test_marks_repaint_rows_deep_in_a_wide_branch():
    app = make_app("refund", corpus=wide_corpus(3_000))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.reveal("c2999")
        await wait_for(pilot, lambda: cursor_on(tree, "c2999"))
        assert tree_row(app, "c2999") == "  ▶ Child 2999  c2999"  # no glyph yet before the toggle
        tree.set_marks({"c2999": Mark.CURRENT, "c2998": Mark.REJECTED}, {"c2998": "not relevant"})
        await wait_for(pilot, lambda: tree_row(app, "c2999") == "◆ ▶ Child 2999  c2999")
        assert tree_row(app, "c2998") == "✗ ▶ Child 2998  c2998  not relevant"
        tree.set_marks({"c2998": Mark.LANDED})
        await wait_for(pilot, lambda: tree_row(app, "c2998") == "■ ▶ Child 2998  c2998")
        assert tree_row(app, "c2999") == "  ▶ Child 2999  c2999" and "not relevant" not in tree_text(app)


@pytest.mark.slow  # a scale test: a chain past the recursion limit
async def test_a_chain_deeper_than_pythons_recursion_limit_opens_to_its_last_node():
    depth = 1_500  # Textual's own line builder recurses once per level
    docs = [document("d0", None, "Level 0")]
    docs += [document(f"d{i}", f"d{i - 1}", f"Level {i}") for i in range(1, depth)]
    app = make_app("refund", corpus=corpus_of(docs))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.reveal(f"d{depth - 1}")
        await wait_for(pilot, lambda: cursor_on(tree, f"d{depth - 1}"))
        assert tree.last_line == depth  # the corpus's title, then one line per level
        assert tree.get_node_at_line(depth).data == f"d{depth - 1}"


async def test_the_trees_lines_are_every_open_node_in_order_and_as_wide_as_its_widest_row():
    """Textual's Tree builds the lines from the nodes the tree added (in batches, around a jump, in place of a "more"
    row): every open node once, in the corpus's order, each row as wide as its label and guides."""
    app = make_app("refund", corpus=wide_corpus(1_200))
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        for node_id in ("c3-x", "c700", "c1199-x"):  # open branches, a batch, a "more" row replaced
            tree.reveal(node_id)
        tree.node_for("c5").expand()  # opened by hand
        tree.node_for("c3").collapse()  # a loaded branch closed again
        tree.set_marks({"c700": Mark.STOPPED, "c3-x": Mark.CHOSEN}, {"c700": "budget reached " * 20})
        tree.set_overlay(expected=frozenset({"c5-x"}), counts={"c700": "3/10"})
        await wait_for(pilot, lambda: cursor_on(tree, "c1199-x"))

        def open_nodes(show_root: bool) -> list[tuple[TreeNode, int]]:
            """Every node in view, top to bottom, with its level (guides before it), walked without recursion."""
            seen: list[tuple[TreeNode, int]] = []
            stack = [(tree.root, 0)] if show_root else [(child, 0) for child in reversed(tree.root.children)]
            while stack:
                node, level = stack.pop()
                seen.append((node, level))
                if node.is_expanded:
                    stack.extend((child, level + 1) for child in reversed(node.children))
            return seen

        def lines() -> tuple[list[tuple[int, int]], object, int]:
            return ([(tree.get_node_at_line(line).id, line) for line in range(tree.last_line + 1)], tree.virtual_size,
                    tree.cursor_line)

        for show_root in (True, False):
            tree.show_root = show_root
            await wait_for(pilot, lambda show_root=show_root: tree.get_node_at_line(0) is (
                tree.root if show_root else tree.root.children[0]))
            ours = lines()
            expected = open_nodes(show_root)
            widest = max(tree.get_label_width(node) + level * tree.guide_depth for node, level in expected)
            cursor = tree.cursor_node.line if tree.cursor_node is not None else -1  # the cursor is on its node's line
            assert ours == ([(node.id, node.line) for node, _ in expected], Size(widest, len(expected)), cursor)
            assert len(ours[0]) == (1 if show_root else 0) + 1200 + 3  # every child, three grandchildren open


def flat_corpus(children: int) -> Corpus:
    """A root with ``children`` leaves ``c0``, ``c1``, …, each about refunds: a walk offers them all at once."""
    docs = [RetrievedDocument("", "root", 0.0, {HierarchyMetadata.ID: "root", "reasoningTitle": "Root",
                                                "reasoningSummary": "refund rules"})]
    docs += [RetrievedDocument("", f"c{i}", 0.0, {HierarchyMetadata.ID: f"c{i}", HierarchyMetadata.PARENT_ID: "root",
                                                  "reasoningTitle": f"Child {i}", "reasoningSummary": "refund"})
             for i in range(children)]
    return Corpus(Path("wide"), "synthetic", "s", "Wide", HierarchyIndex(docs), "0" * 64)


@pytest.mark.slow  # a scale test: 5,000 children
async def test_a_node_with_five_thousand_children_opens_in_batches_and_the_walk_reaches_any_of_them():
    app = make_app("refund", corpus=flat_corpus(5000), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        tree.reveal("c3000")  # how long this takes: bench/responsiveness.py
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "c3000")
        assert tree_row(app, "c3000") == "  Child 3000  c3000"
        assert built_nodes(tree) == 1 + 101  # the root, and c3000 with 50 children on each side
        tree.reveal("c10")
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "c10")
        assert built_nodes(tree) == 1 + 101 + BATCH  # the first batch of the run before c2950
        more = [node for node in tree.root.children[0].children if node.data is None]
        assert [row.label.plain for row in more] == [
            "… 2,450 more: Enter shows the next 500",  # c500..c2949
            "… 1,949 more: Enter shows the next 500",  # c3051..c4999
        ]
        before = built_nodes(tree)
        tree.select_node(more[1])
        await wait_for(pilot, lambda: built_nodes(tree) != before)
        assert built_nodes(tree) == before + BATCH
        await pilot.press("n", "n", "n", "n", "n")  # offer the 5,000 children and choose
        await wait_for(pilot, lambda: len(app.walk_screen.view.history.events) == 6)
        app.query_one("#step-scroll").scroll_end(animate=False)  # as a person scrolls the step panel
        await wait_for(pilot, lambda: step_text(app).splitlines()[-1].startswith("… and 4,900 more candidates"))
