"""The map audit on the walk screen (issue 46 point 4): ``I`` audits the map on a worker, marks its weakest nodes on
the tree and lists them; Enter on one opens it on the tree. Driven by keys, read off what the list and the tree show."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from textual.widgets import Label, OptionList
from textual.worker import Worker, WorkerState

from explorer.corpora import load_corpus
from explorer.tui.screens.audit_list import AuditScreen
from explorer.tui.widgets.walk_tree import WalkTree

from .helpers import SIZE, Messages, make_app, resize, wait_for
from .reading import option_prompts, shown, tree_row

ROOT = Path(__file__).resolve().parents[3]
FIXTURE = ROOT.parent / "shared" / "fixtures" / "pageindex" / "q1-fy25-earnings_structure.json"


def audits_started(messages: Messages) -> int:
    """How many map audits a worker started (each worker says once that it runs)."""
    return sum(isinstance(m, Worker.StateChanged) and m.state is WorkerState.RUNNING
               and m.worker.name == "audit the map" for m in messages.seen)


async def test_i_audits_the_map_marks_the_weakest_and_enter_opens_one_on_the_tree():
    messages = Messages()
    app = make_app()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        tree = app.query_one(WalkTree)
        assert tree.weak == {} and tree_row(app, "data-privacy") == "  ▶ Data and privacy  data-privacy"
        await pilot.press("escape", "I", "I")  # out of the query box; a second I while it runs starts no second
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert audits_started(messages) == 1
        assert any(note.message == "Auditing 133 nodes: each title and summary against what lies beneath it…"
                   for note in app.notes)
        listed = app.screen.query_one(OptionList)
        entries = option_prompts(listed)
        assert len(entries) == 20
        assert entries[:3] == [
            " 1. Non-refundable items  ·  non-refundable-items  ·  fit 0.000\n"
            "    the summary of 'Non-refundable items' matches the content under 'Seats' better than its own (by 0.326)",
            " 2. Data and privacy  ·  data-privacy  ·  fit 0.000\n"
            "    the title and summary of 'Data and privacy' echo what its child 'Privacy requests' shows more than "
            "they fit all that lies beneath it (by 0.133)",
            " 3. Parental leave  ·  parental-leave  ·  fit 0.000\n"
            "    the summary of 'Parental leave' matches its child 'Parental leave pay' better than all that lies "
            "beneath it (by 0.096)"]
        assert entries[19].startswith("20. Sign-in methods  ·  sign-in-methods  ·  fit 0.045\n    ")
        assert shown(app.screen.query_one("#audit-title", Label)) == (
            "Map audit: the 20 nodes of 133 whose title and summary describe their subtree worst (semantic:default), "
            "marked △ on the tree · Enter opens one · Escape closes · q quits")
        assert shown(app.screen.query_one("#audit-compared", Label)).startswith(
            "Compared: each node's title and summary against the content beneath it. fit: ")
        # The roots among the 20 are marked where they stand; the others once their branch opens.
        assert tree_row(app, "data-privacy") == "  ▶ Data and privacy  data-privacy  △ weak 2"
        assert tree_row(app, "people-policies") == "  ▶ Employee policies  people-policies  △ weak 9"
        assert tree_row(app, "accounts") == "  ▶ Accounts and sign-in  accounts  △ weak 19"
        assert tree_row(app, "plans") == "  ▶ Plans and pricing  plans"
        assert len(tree.weak) == 20 and tree.weak["non-refundable-items"] == "△ weak 1"

        await pilot.press("enter")  # the first: three levels down, revealed with the cursor on it
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen)
                       and tree.cursor_id == "non-refundable-items")
        assert app.focused is tree
        # The tree is narrow three levels down: the id shortens first, the mark stays whole.
        assert tree_row(app, "non-refundable-items") == "  Non-refundable items  non-refundable-ite…  △ weak 1"
        assert tree_row(app, "refunds") == "  ▼ Refunds  refunds  △ weak 15"  # the branch opened on the way

        await pilot.press("I", "down", "down", "enter")  # the list again at once, no second audit: the third
        await wait_for(pilot, lambda: tree.cursor_id == "parental-leave")
        assert audits_started(messages) == 1 and not isinstance(app.screen, AuditScreen)
        assert tree_row(app, "parental-leave") == "  ▶ Parental leave  parental-leave  △ weak 3"

        await pilot.press("I", "escape")  # Escape closes the list, the cursor stays
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen))
        assert tree.cursor_id == "parental-leave"
        await pilot.press("I")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        await pilot.press("q")  # q quits from the list too
        await wait_for(pilot, lambda: not app.is_running)


UNTRUSTED = """\
source: t
title: Untrusted titles
nodes:
  - id: money
    title: "[bold red]Money[/] \\e]0;pwned\\a"
    summary: Desks booked in the office for a day, and parking spaces in the garage.
    children:
      - id: refunds
        title: Refunds
        summary: How a refund is paid back to your card.
        content: A refund is paid back to the card you paid with within five business days.
      - id: invoices
        title: Invoices
        summary: Monthly invoices and their numbers.
        content: Every month we send an invoice by email, with a number, as a PDF.
  - id: office
    title: Office
    summary: Booking desks and parking in the office.
    children:
      - id: desks
        title: Desks
        summary: Booking a desk for a day.
        content: Desks are booked for a whole day in the office app.
      - id: parking
        title: Parking
        summary: Parking spaces in the garage.
        content: Parking spaces in the garage are given out each morning, first come first served.
"""


async def test_titles_in_the_list_and_on_the_tree_are_shown_literally_with_controls_made_visible(tmp_path):
    """Then at 80x24, the smallest comfortable size: the title gives way on the narrow tree, the mark stays whole."""
    path = tmp_path / "untrusted.yaml"
    path.write_text(UNTRUSTED, encoding="utf-8")
    app = make_app(corpus=load_corpus(path))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "I")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        entries = option_prompts(app.screen.query_one(OptionList))
        (money,) = [entry for entry in entries if "·  money  ·" in entry]
        assert money.split("  ·  ")[0].endswith(". [bold red]Money[/] \\x1b]0;pwned\\x07")
        assert "\x1b" not in "".join(entries) and "\x07" not in "".join(entries)
        rank = app.query_one(WalkTree).weak["money"]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen))
        assert tree_row(app, "money") == f"  ▶ [bold red]Money[/] \\x1b]0;pwned\\x07  money  {rank}"
        await resize(pilot, (80, 24))
        assert tree_row(app, "money") == f"  ▶ [bold red]Money[…  {rank}"
        await pilot.press("I")  # the list again, at this size
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert option_prompts(app.screen.query_one(OptionList)) == entries
        await pilot.press("enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen))
        first = entries[0].split("  ·  ")[1]  # the first entry's id, as the list shows it
        await wait_for(pilot, lambda: app.query_one(WalkTree).cursor_id == first)


async def test_q_quits_while_the_audit_runs(tmp_path):
    """A corpus of some thousands of nodes: ``I`` then ``q`` at once, and the explorer quits (the audit's thread
    is a daemon the quit does not wait on)."""
    import sys

    sys.path.insert(0, str(ROOT / "bench"))
    from tui_large import synthetic_pageindex

    path = tmp_path / "synthetic-30000.json"
    path.write_text(json.dumps(synthetic_pageindex(30_000)), encoding="utf-8")
    messages = Messages()
    app = make_app(corpus=load_corpus(path))
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        await pilot.press("escape", "I", "q")
        await wait_for(pilot, lambda: not app.is_running)
    assert audits_started(messages) == 1 and app.return_code == 0


async def test_a_pageindex_tree_is_audited_and_its_weakest_opened_by_keys():
    if not FIXTURE.is_file():
        pytest.skip(f"{FIXTURE} is absent (the shared fixtures are not here)")
    app = make_app(corpus=load_corpus(FIXTURE))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "I")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        entries = option_prompts(app.screen.query_one(OptionList))
        assert len(entries) == 9  # the nodes with something beneath them: 9 of 41
        assert [entry.split("\n")[0] for entry in entries[:3]] == [
            " 1. DISCUSSION OF FIRST QUARTER SEGMENT RESULTS  ·  0010  ·  fit 0.000",
            " 2. THE WALT DISNEY COMPANY REPORTS FIRST QUARTER EARNINGS FOR …  ·  0000  ·  fit 0.000",  # cut at 60
            " 3. OTHER FINANCIAL INFORMATION  ·  0021  ·  fit 0.024"]
        assert shown(app.screen.query_one("#audit-compared", Label)).startswith(
            "Compared: no node has content: each node's title and summary against its descendants' titles and "
            "summaries only")
        await pilot.press("down", "down", "down", "enter")  # the fourth: Entertainment, under the segment results
        tree = app.query_one(WalkTree)
        await wait_for(pilot, lambda: tree.cursor_id == "0012")
        assert tree_row(app, "0012") == "  ▶ Entertainment  0012  △ weak 4"
        assert tree_row(app, "0010") == "  ▼ DISCUSSION OF FIRST QUARTER SEGMENT RESULTS  △ weak 1"  # no room: no id


async def test_an_edit_of_the_map_makes_the_audit_stale_and_i_audits_the_map_as_it_reads_now(tmp_path):
    """``M`` changes the map the audit judged: its marks leave the tree (they were of the old map), and the next
    ``I`` audits again, on the map as it now reads, rather than listing the old map's weakest."""
    from explorer.tui.screens.map_editor import MapEditorScreen
    from tests.samples import SAMPLES

    from .helpers import cursor_to

    path = tmp_path / "handbook.yaml"
    path.write_bytes((SAMPLES / "handbook.yaml").read_bytes())
    messages = Messages()
    app = make_app(corpus=load_corpus(path))
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        tree = app.query_one(WalkTree)
        await pilot.press("escape", "I")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert tree.weak["non-refundable-items"] == "△ weak 1"
        await pilot.press("escape")
        await wait_for(pilot, lambda: not isinstance(app.screen, AuditScreen))
        await cursor_to(pilot, "non-refundable-items", "Non-refundable items")
        await pilot.press("M")
        await wait_for(pilot, lambda: isinstance(app.screen, MapEditorScreen))
        await pilot.press("ctrl+u", "enter")  # the suggestion kept
        await wait_for(pilot, lambda: not isinstance(app.screen, MapEditorScreen))
        assert app.walk_screen.corpus.map is not None
        assert tree.weak == {}
        assert tree_row(app, "data-privacy") == "  ▶ Data and privacy  data-privacy"
        await pilot.press("I")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert audits_started(messages) == 2
        entries = option_prompts(app.screen.query_one(OptionList))
        assert not entries[0].startswith(" 1. Non-refundable items  ·  non-refundable-items  ·  fit 0.000\n"
                                         "    the summary of 'Non-refundable items' matches the content under "
                                         "'Seats'")


async def test_the_audit_of_a_small_corpus_counts_its_nodes_in_words_that_fit_one(tmp_path):
    """One node audited reads "the 1 node of 2", not "the 1 nodes of 2"."""
    corpus_file = tmp_path / "two.yaml"
    corpus_file.write_text(
        "source: two\ntitle: Two nodes\nnodes:\n"
        "  - id: billing\n    title: Billing\n    summary: Invoices and payments.\n    content: How invoices work.\n"
        "    children:\n"
        "      - id: refunds\n        title: Refunds\n        summary: Money back within 30 days.\n"
        "        content: A refund is paid to the card that paid, within 30 days of the charge.\n")
    app = make_app(corpus=load_corpus(corpus_file))
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("escape", "I")
        await wait_for(pilot, lambda: isinstance(app.screen, AuditScreen))
        assert any(note.message == "Auditing 2 nodes: each title and summary against what lies beneath it…"
                   for note in app.notes)
        assert shown(app.screen.query_one("#audit-title", Label)).startswith(
            "Map audit: the 1 node of 2 whose title and summary describe their subtree worst")
