"""Untrusted text from corpora and navigators is shown literally and never acts; big corpora open lazily, and a
node of megabytes is shown a part at a time."""

from __future__ import annotations

from pathlib import Path

from textual.events import Click, Paste

from core import HierarchyIndex, HierarchyMetadata, NavigatorChoice, NavigatorRequest, RetrievedDocument, TreeNavigator
from explorer.corpora import Corpus, load_corpus
from explorer.navigators import resolve_navigator
from explorer.tui.widgets.query_input import QueryInput
from explorer.tui.widgets.step_panel import StepPanel
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import SIZE, Messages, built_nodes, make_app, wait_for
from .reading import all_text, drawn_lines, landed_content, node_text, step_text, tree_row

HOSTILE = '''source: hostile
title: "[bold red]Corpus[/] \\e]0;owned\\a"
nodes:
  - id: "[@click=app.quit]quit[/]"
    title: "[@click=app.quit]Click to quit[/] refund"
    summary: "[link=https://evil.example]refund here[/link] [/nope] arr[0] = x[i]"
    content: "Content with \\e[2J clear screen and \\u202e reversed text and [b]markup[/b]"
    children:
      - id: "child[/x]"
        title: "Bidi \\u202egnp.exe\\u202c and tab\\there"
        summary: "\\e[31mred\\e[0m refund"
        content: "Deep content"
'''


async def test_hostile_titles_summaries_ids_and_rationales_are_shown_literally_and_never_act(tmp_path):
    path = tmp_path / "hostile.yaml"
    path.write_text(HOSTILE)
    corpus = load_corpus(path)
    script = tmp_path / "hostile-script.yaml"
    script.write_text('decisions:\n  start: {select: ["[@click=app.quit]quit[/]", "[b]ghost[/b]"], '
                      'rationale: "[@click=app.quit]why[/] \\e]0;x\\a"}\n'
                      '  "[@click=app.quit]quit[/]": {select: ["child[/x]"]}\n')
    app = make_app("refund", model=f"script:{script}", corpus=corpus, start_walk=True)
    messages = Messages()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        await pilot.press("B", "n", "n")  # back to the first choice: rationale and hallucination on screen
        await wait_for(pilot, lambda: "Why     [@click=app.quit]why[/]" in step_text(app))
        # Click the rationale's first letter, where a parsed "[@click=app.quit]why[/]" would put a clickable "why":
        # the click arrives, and the app goes on.
        panel = app.walk_screen.query_one(StepPanel)
        row, line = next((y, line) for y, line in enumerate(drawn_lines(panel)) if "Why     " in line)
        await pilot.click(StepPanel, offset=(line.index("Why     ") + len("Why     "), row))
        await wait_for(pilot, lambda: any(isinstance(m, Click) and m.widget is panel for m in messages.seen))
        await pilot.pause()
        assert app.is_running and app.return_code is None  # nothing clicked app.quit
        step = step_text(app)
        assert "[@click=app.quit]Click to quit[/] refund" in step  # the candidate, and its row on the tree
        assert "[@click=app.quit]Click to quit[/] refund" in tree_row(app, "[@click=app.quit]quit[/]")
        assert "[link=https://evil" in step  # the summary, cut short on one line in the step panel
        assert "Not offered (hallucinated): [b]ghost[/b]" in step
        assert "Why     [@click=app.quit]why[/] \\x1b]0;x\\x07" in step
        screen = all_text(app.screen)  # every widget of the walk screen
        assert "\x1b]0;" not in screen and "\x07" not in screen and "\u202e" not in screen
        await pilot.press("F")
        tree = app.query_one(WalkTree)
        node = tree.node_for("child[/x]")
        assert node is not None
        assert "Bidi \\u202egnp.exe\\u202c and tab here" in node.label.plain
        app.query_one("#tabs").active = "tab-node"
        tree.move_cursor(tree.node_for("[@click=app.quit]quit[/]"))
        await wait_for(pilot, lambda: "Content with \\x1b[2J" in node_text(app))  # the node tab shows it
        node = node_text(app)
        assert "[link=https://evil.example]refund here[/link] [/nope] arr[0] = x[i]" in node
        assert "Content with \\x1b[2J clear screen and \\u202e reversed text and [b]markup[/b]" in node
        # Clicking the hostile label does not run its action: the click only does what a click on a row does,
        # selecting it (which opens or closes it), and the app goes on.
        hostile = tree.node_for("[@click=app.quit]quit[/]")
        was_open = hostile.is_expanded
        row = hostile.line - tree.scroll_offset.y + 1  # below the tree's top border
        await pilot.click(WalkTree, offset=(12, row))  # on its title, past the guide, the mark and the toggle
        await wait_for(pilot, lambda: hostile.is_expanded != was_open)
        assert app.is_running and app.return_code is None


async def test_a_hostile_corpus_title_is_escaped_in_the_header(tmp_path):
    path = tmp_path / "hostile.yaml"
    path.write_text(HOSTILE)
    app = make_app("x", corpus=load_corpus(path))
    async with app.run_test(size=SIZE):
        assert "[bold red]Corpus[/] \\x1b]0;owned\\x07" in app.walk_screen.sub_title
        assert "\x1b" not in app.walk_screen.sub_title


async def test_a_hundred_thousand_node_corpus_opens_with_only_the_top_level_built():
    docs = []
    for i in range(100_000):
        metadata = {HierarchyMetadata.ID: f"n{i}", "reasoningTitle": f"Section {i}", "reasoningSummary": "s"}
        if i >= 10:
            metadata[HierarchyMetadata.PARENT_ID] = f"n{(i - 10) // 10}"
        docs.append(RetrievedDocument("c", f"n{i}", 0.0, metadata))
    corpus = Corpus(path=Path("synthetic"), format="synthetic", source="s", title="Synthetic",
                    index=HierarchyIndex(docs), sha256="0" * 64)
    app = make_app("section", corpus=corpus)
    async with app.run_test(size=SIZE) as pilot:
        tree = app.query_one(WalkTree)
        assert built_nodes(tree) == 10  # the roots only
        tree.reveal("n99999")
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data == "n99999")
        assert tree_row(app, "n99999") == "  Section 99999  n99999"
        assert built_nodes(tree) == 10 + 4 * 10  # the roots, and the children of n8, n98, n998 and n9998


async def test_a_landed_node_with_megabytes_of_content_is_shown_a_part_at_a_time(tmp_path):
    from explorer.corpora import load_corpus

    big = tmp_path / "big.yaml"
    body = "refund policy text " * 110_000  # about 2 MB
    big.write_text(f"source: big\nnodes:\n  - id: huge\n    title: Huge\n    summary: refund\n    content: {body}\n")
    app = make_app("refund", corpus=load_corpus(big), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)
        await wait_for(pilot, lambda: landed_content(app).startswith("Huge"))  # the landed node is selected
        content = landed_content(app)
        assert content.endswith("… 2,069,999 more characters: press L to show 20,000 more")
        assert len(content) < 21_000
        await pilot.press("L")
        assert landed_content(app).endswith("… 2,049,999 more characters: press L to show 20,000 more")


class Recording(TreeNavigator):
    """The lexical navigator's answers, with every query it was asked."""

    def __init__(self) -> None:
        self.inner = resolve_navigator("lexical:default")
        self.queries: list[str] = []

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        self.queries.append(request.query)
        return self.inner.choose(request)  # type: ignore[return-value]


HOSTILE_QUERY = "refunds \x1b]0;PWNED\x07 \x1b[2J\ttab"


async def test_the_query_box_shows_control_characters_escaped_and_the_navigator_gets_the_exact_query():
    """Issue 30, point 3: the box shows what the header shows; the walk, its restart and a pasted query are
    asked byte for byte."""
    navigator = Recording()
    app = make_app(HOSTILE_QUERY, navigator=navigator, start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        box = app.walk_screen.query_one(QueryInput)
        assert box.value == "refunds \\x1b]0;PWNED\\x07 \\x1b[2J tab"
        assert box.exact_value == HOSTILE_QUERY
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        first = len(navigator.queries)
        await pilot.press("r", "c")  # the restart walks the query in the box
        await wait_for(pilot, lambda: len(app.walks) == 2 and app.walk_screen.view.history.end == "finished")
        second = len(navigator.queries)
        await pilot.press("slash", "ctrl+a", "ctrl+k")
        assert box.has_focus and box.value == "" and box.exact_value == ""
        box.post_message(Paste("billing \x1b]2;x\x07"))  # a paste holding an escape
        await wait_for(pilot, lambda: box.value == "billing \\x1b]2;x\\x07")
        await pilot.press("enter", "c")
        await wait_for(pilot, lambda: len(app.walks) == 3 and app.walk_screen.view.history.end == "finished")
        assert "\x1b" not in all_text(app.screen)
    assert 0 < first < second < len(navigator.queries)
    pasted = ["billing \x1b]2;x\x07"] * (len(navigator.queries) - second)
    assert navigator.queries == [HOSTILE_QUERY] * second + pasted


async def test_a_query_box_edited_holds_what_it_shows():
    navigator = Recording()
    app = make_app("a\x1bb", navigator=navigator)
    async with app.run_test(size=SIZE) as pilot:
        box = app.walk_screen.query_one(QueryInput)
        assert box.has_focus  # no walk yet: the box has the focus
        await pilot.press("end", "c", "enter", "c")
        await wait_for(pilot, lambda: app.walk_screen.view.history is not None
                       and app.walk_screen.view.history.end == "finished")
        assert box.value == box.exact_value == "a\\x1bbc"
    assert navigator.queries and set(navigator.queries) == {"a\\x1bbc"}
