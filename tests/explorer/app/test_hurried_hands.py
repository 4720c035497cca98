"""The explorer under a person's hands (issue 11): fast typing, odd digits, prompts that say what happened."""

from __future__ import annotations

from textual import events
from textual.widgets import OptionList

from explorer.tui.screens.find import FindScreen
from explorer.tui.screens.prompt import PromptScreen
from explorer.tui.widgets.budget_meter import BudgetMeter
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import SIZE, make_app, script, wait_for
from .reading import drawn_lines, landed_content, next_settings, option_prompts, prompt_error, text_at, tree_rows


def burst(app, *keys: str) -> None:
    """Keys as a terminal delivers fast typing: all queued at once, before any is handled."""
    characters = {"enter": "\r", "escape": "\x1b"}
    for key in keys:
        app.post_message(events.Key(key, characters.get(key, key if len(key) == 1 else None)))


async def test_every_key_typed_after_opening_a_prompt_belongs_to_it_however_fast():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape")
        burst(app, "v", "7", "enter")
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited == 7 and not isinstance(app.screen, PromptScreen))
        burst(app, "d", "2", "enter", "v", "3", "enter")
        await wait_for(pilot, lambda: app.walk_screen.next_walk.settings.max_nodes_visited == 3)
        assert app.walk_screen.next_walk.settings.max_depth == 2 and not isinstance(app.screen, PromptScreen)
        assert isinstance(app.focused, WalkTree)


async def test_a_prompt_key_that_opens_nothing_lets_the_next_keys_through():
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        burst(app, "i", "n")  # i types an id only while picking: here it opens nothing, and n must still step
        await wait_for(pilot, lambda: len(app.walk_screen.history.events) == 2)
        assert not isinstance(app.screen, PromptScreen)


async def test_a_unicode_digit_is_refused_with_a_reason_not_a_crash():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "v", "²", "enter")
        assert isinstance(app.screen, PromptScreen)
        assert "Type a whole number (digits 0-9)." in prompt_error(app)
        await pilot.press("escape", "d", "٣", "enter")
        assert isinstance(app.screen, PromptScreen) and app.walk_screen.next_walk.settings.max_depth == 6


async def test_open_trace_offers_the_trace_just_saved_and_refuses_an_empty_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = make_app("How are refunds issued?", start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end is not None)
        await pilot.press("ctrl+s", "enter")
        saved = tmp_path / app.walk_screen.history.suggested_file_name()
        await wait_for(pilot, lambda: saved.exists())
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen))
        field = app.screen.query_one("#prompt-input")
        assert field.value.endswith(saved.name)
        field.value = ""
        await pilot.press("enter")  # nothing typed: the prompt stays and says why
        assert isinstance(app.screen, PromptScreen)
        assert "Type the path of a trace file." in prompt_error(app)
        await pilot.press(*saved.name, "enter")
        await wait_for(pilot, lambda: app.walk_screen.history.trace is not None)
        assert app.walk_screen.history.name.startswith("walk 2 · trace ")


async def test_navigator_suggestions_are_all_usable_and_errors_are_shown_whole():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "m")
        prompt = app.screen
        assert isinstance(prompt, PromptScreen)
        assert not any("<" in s for s in prompt.suggestions)
        assert any(s.startswith("script:") and s.endswith("depth-limit.yaml") for s in prompt.suggestions)
        field = prompt.query_one("#prompt-input")
        field.value = "bogus:x"
        await pilot.press("enter")
        error = text_at(prompt, "#prompt-error")
        assert "bogus:x" in error and prompt.query_one("#prompt-error").size.height >= 1


async def test_after_c_on_a_provider_failure_the_failing_branch_is_in_view():
    from core import OnFailure

    app = make_app("q", model=script("provider-failure.yaml"), start_walk=True, on_failure=OnFailure.THROW)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end is not None)
        tree = app.query_one(WalkTree)
        await wait_for(pilot, lambda: tree.cursor_node is not None)  # the cursor moves once the tree has refreshed
        assert tree.node_for("refunds") is not None and tree.node_for("refunds").is_expanded
        assert tree.cursor_node is not None and tree.cursor_node.data == "refunds"


async def test_find_a_node_by_title_and_go_to_it():
    app = make_app("refund")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "g")
        assert isinstance(app.screen, FindScreen)
        await pilot.press(*"proration")
        await wait_for(pilot, lambda: text_at(app.screen, "#find-count") == "1 match")
        assert option_prompts(app.screen.query_one(OptionList)) == ["Cancelling within 90 days  ·  annual-proration-formula"]
        await pilot.press("enter")
        tree = app.query_one(WalkTree)
        await wait_for(pilot, lambda: tree.cursor_node is not None and tree.cursor_node.data ==
                       "annual-proration-formula")


async def test_the_palette_lists_one_screenshot_and_one_help():
    app = make_app("refund")
    async with app.run_test(size=SIZE):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert sum("Screenshot" in t for t in titles) == 1
        assert sum(t.startswith("Help") or t == "Keys" for t in titles) == 1
        assert any(t.startswith("Tree: find a node") for t in titles)


async def test_at_80x24_the_status_stays_and_stop_reasons_are_whole():
    app = make_app("q", model=script("wide-walk-out-of-visits.yaml"), start_walk=True, max_nodes_visited=6)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end is not None)
        tree, meter = app.query_one(WalkTree), app.query_one(BudgetMeter)
        await wait_for(pilot, lambda: any("visit_budget" in row for row in tree_rows(tree)))
        lines = drawn_lines(meter)
        assert app.screen.region.contains_region(meter.region)  # on screen, as drawn at its width
        assert any("Visits " in line and "6/6 used · 0 left" in line for line in lines)
        assert any("finished · e forks a decision" in line for line in lines)  # the status line, not pushed off
        assert app.screen.region.contains_region(tree.region)
        stops = [row for row in tree_rows(tree) if "visit_budget" in row]  # as drawn, cut at the tree's edge
        assert stops and all("visit_budget_exhausted" in row for row in stops)


async def test_at_60x20_the_layout_degrades_legibly():
    app = make_app("q", model=script("wide-walk-out-of-visits.yaml"), start_walk=True, max_nodes_visited=6)
    async with app.run_test(size=(60, 20)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end is not None)
        meter = app.query_one(BudgetMeter)
        await wait_for(pilot, lambda: "finished · e forks" in "\n".join(drawn_lines(meter)))
        assert app.screen.region.contains_region(meter.region)
        assert "Visits " in "\n".join(drawn_lines(meter))
        assert next_settings(app) == ""  # decoration goes first: "next walk: ..." is not shown


async def test_a_landed_node_with_megabytes_of_content_is_shown_a_part_at_a_time(tmp_path):
    from explorer.corpora import load_corpus

    big = tmp_path / "big.yaml"
    body = "refund policy text " * 110_000  # about 2 MB
    big.write_text(f"source: big\nnodes:\n  - id: huge\n    title: Huge\n    summary: refund\n    content: {body}\n")
    app = make_app("refund", corpus=load_corpus(big), start_walk=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.history.end is not None)
        await wait_for(pilot, lambda: landed_content(app).startswith("Huge"))  # the landed node is selected
        content = landed_content(app)
        assert content.endswith("… 2,069,999 more characters: press L to show 20,000 more")
        assert len(content) < 21_000
        await pilot.press("L")
        assert landed_content(app).endswith("… 2,049,999 more characters: press L to show 20,000 more")


async def test_a_shared_session_has_its_file_keys_off():
    app = make_app("How are refunds issued?", start_walk=True, allow_files=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+s")
        assert not isinstance(app.screen, PromptScreen)
        await pilot.press("ctrl+o", "ctrl+e")
        assert not isinstance(app.screen, PromptScreen)
        assert [n.message for n in app.notes][-1] == "Opening and saving files is off in this shared session."


def test_serve_turns_file_keys_off_beyond_loopback():
    import argparse

    from explorer.cli.serve import app_argv

    base = dict(corpus=None, query=None, navigator="lexical:default", max_visits=None, max_depth=None,
                on_failure="throw", autoplay=None, no_files=False, trace=None, otlp_endpoint=None, otlp_file=None)
    assert "--no-files" not in app_argv(argparse.Namespace(host="127.0.0.1", **base))
    assert "--no-files" in app_argv(argparse.Namespace(host="0.0.0.0", **base))
