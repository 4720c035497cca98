"""A folder of recorded walks (WalkRecorder's traces) and a span file of many walks open as the session's walk list,
newest first, and the walk chooser filters them by what is typed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core import ReasoningRAGStrategy
from explorer.cli.inputs import all_walks, is_walks_folder
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.recording import WalkRecorder
from explorer.tui.app import ExplorerApp
from explorer.tui.screens.choose_walk import WalksScreen
from explorer.walk_settings import WalkSettings
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .helpers import Explorer, wait_for

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
TOPICS = ["refunds", "sign in", "taxes", "parental leave", "invoices"]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """200 walks an application recorded, 40 of each topic, the last one a question about invoices number 199."""
    path = tmp_path_factory.mktemp("walks")
    corpus = load_corpus(HANDBOOK)
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator("lexical:default"), "lexical:default")
    with WalkRecorder(path, corpus) as recorder:
        for number in range(200):
            recorder.retrieve(strategy, f"{TOPICS[number % 5]} question {number}")
    assert recorder.written == 200
    return path


def test_a_folder_of_traces_is_a_walks_folder_and_a_markdown_folder_is_not(folder: Path, tmp_path: Path) -> None:
    assert is_walks_folder(folder)
    (tmp_path / "a.md").write_text("# A\n")
    (tmp_path / "old.jsonl").write_text("{}\n")
    assert not is_walks_folder(tmp_path)
    assert not is_walks_folder(HANDBOOK)


async def test_two_hundred_recorded_walks_open_newest_first_and_filter_by_query(folder: Path) -> None:
    traces, corpus = all_walks(str(folder))
    assert len(traces) == 200
    assert [t.header.settings.query for t in traces[:2]] == ["invoices question 199", "parental leave question 198"]
    app = ExplorerApp(corpus, WalkSettings(""), opened=traces)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(app.walks) == 200)
        screen = app.walk_screen
        assert screen.view.walk is not None and screen.view.walk.number == 1
        assert screen.view.walk.history.settings.query == "invoices question 199"
        # The palette offers 20 walks, the list's first ten and last ten, not one per walk (issue 38, point 20).
        switches = [c.title for c in app.get_system_commands(screen) if c.title.startswith("Walks: switch to walk ")]
        assert [title.split(" · ")[0] for title in switches] == [
            f"Walks: switch to walk {n}" for n in [*range(1, 11), *range(191, 201)]]
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
        chooser = app.screen
        assert isinstance(chooser, WalksScreen)
        assert chooser.shown == list(range(1, 201))
        await pilot.press(*"taxes 1")
        assert [screen.walks.number(n).history.settings.query for n in chooser.shown] == [
            f"taxes question {n}" for n in range(197, 0, -5) if "1" in str(n)]
        await pilot.press("down", "down", "enter")  # to the list, then its second row
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.view.walk.history.settings.query == "taxes question 192"
        await pilot.press("w", *"sign", "enter")  # Enter in the filter: the first row left
        await wait_for(pilot, lambda: app.screen is screen)
        assert screen.view.walk.history.settings.query == "sign in question 196"


async def test_a_span_file_of_many_walks_opens_them_all(tmp_path: Path) -> None:
    lines = []
    for number, query in enumerate(["refunds", "sign in", "taxes"]):
        one = tmp_path / f"{number}.jsonl"
        done = run_cli("walk", HANDBOOK, query, "--otlp-file", one, columns=None)
        assert done.returncode == 0, done.stderr
        lines.append(one.read_text())
        one.unlink()
    spans = tmp_path / "walks.jsonl"
    spans.write_text("".join(lines))
    assert [json.loads(line)["resourceSpans"] != [] for line in spans.read_text().splitlines()] == [True] * 3
    traces, corpus = all_walks(str(spans))
    assert sorted(t.header.settings.query for t in traces) == ["refunds", "sign in", "taxes"]
    app = ExplorerApp(corpus, WalkSettings(""), opened=traces)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(app.walks) == 3)
        assert all(walk.history.ended for walk in app.walks)


def test_a_folder_whose_corpus_moved_says_so_and_corpus_points_it_right(folder: Path, tmp_path: Path) -> None:
    moved = tmp_path / "moved"
    moved.mkdir()
    for path in sorted(folder.glob("walk-*.jsonl"))[:3]:
        text = path.read_text().replace(json.dumps(str(HANDBOOK)), json.dumps("/nowhere/handbook.yaml"), 1)
        (moved / path.name).write_text(text)
    (moved / "broken.jsonl").write_text("not a trace\n")
    here = run_cli(moved, columns=None)
    assert here.returncode == 2
    assert here.stderr.splitlines()[-1].endswith(
        "the trace's corpus /nowhere/handbook.yaml is not here; pass --corpus PATH")
    traces, corpus = all_walks(str(moved), str(HANDBOOK))
    assert len(traces) == 3 and corpus.sha256 == load_corpus(HANDBOOK).sha256


@pytest.mark.slow  # a whole story, over 2 s alone: make test, not make test-fast
async def test_a_folders_walks_are_read_when_shown_the_chooser_filters_unread_ones_and_a_damaged_one_says_so(
        folder: Path, tmp_path: Path) -> None:
    """Ten of the recorded walks, the oldest damaged after its header: it is listed, and picked it says so in one
    line while the walk on screen stays; the others are read only when the chooser shows one and it is stepped."""
    copies = tmp_path / "ten"
    copies.mkdir()
    for path in sorted(folder.glob("walk-*.jsonl"))[:10]:  # refunds question 0 ... invoices question 9
        (copies / path.name).write_bytes(path.read_bytes())
    damaged = sorted(copies.glob("walk-*.jsonl"))[0]
    lines, written = damaged.read_text().splitlines(), damaged.stat()
    damaged.write_text("\n".join([lines[0], "{not JSON", *lines[2:]]) + "\n")
    os.utime(damaged, ns=(written.st_atime_ns, written.st_mtime_ns))  # still the oldest
    saved, corpus = all_walks(str(copies))
    app = Explorer(corpus, WalkSettings(""), opened=saved)
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: len(app.walks) == 10)
        screen = app.walk_screen
        assert screen.view.walk is app.walks.number(1) and screen.view.walk.settings.query == "invoices question 9"
        assert [w.loaded is None for w in app.walks] == [False] + [True] * 9
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
        chooser = app.screen
        assert isinstance(chooser, WalksScreen)
        await pilot.press(*"taxes")
        assert chooser.shown == [3, 8]  # taxes questions 7 and 2, filtered unread
        assert [app.walks.number(n).loaded for n in chooser.shown] == [None, None]
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.screen is screen)
        walk = app.walks.number(3)
        assert screen.view.walk is walk and walk.loaded is not None and walk.history.cursor == 1
        assert walk.history.settings.query == "taxes question 7"
        await pilot.press("n")
        await wait_for(pilot, lambda: walk.history.cursor == 2)
        await pilot.press("w", *"question 0", "enter")
        await wait_for(pilot, lambda: app.screen is screen and any(n.severity == "error" for n in app.notes))
        (note,) = [n for n in app.notes if n.severity == "error"]
        assert note.message == f"walk 10 cannot be shown: {damaged}:2: not JSON; the file is damaged"
        assert screen.view.walk is walk and walk.history.cursor == 2 and len(app.walks) == 10
        assert [w.loaded is None for w in app.walks] == [False, True, False] + [True] * 7
        await pilot.press("D")  # compared with it instead: the same line, and no comparison
        await wait_for(pilot, lambda: isinstance(app.screen, WalksScreen))
        await pilot.press("end", "enter")
        await wait_for(pilot, lambda: app.screen is screen and len([n for n in app.notes if n.severity == "error"]) == 2)
        assert app.notes[-1].message == note.message and screen.view.partner is None and screen.view.walk is walk


def test_a_symlink_loop_named_jsonl_leaves_the_rest_of_the_folder_readable(folder: Path, tmp_path: Path) -> None:
    """One loop made the whole folder "no Markdown files (.md) in this folder" (issue 38, point 11)."""
    walks = tmp_path / "walks"
    walks.mkdir()
    for path in sorted(folder.glob("walk-*.jsonl"))[:3]:
        (walks / path.name).write_bytes(path.read_bytes())
    (walks / "loop.jsonl").symlink_to(walks / "loop.jsonl")
    assert is_walks_folder(walks)
    traces, _ = all_walks(str(walks))
    assert len(traces) == 3
    done = run_cli(walks, columns=None)  # no terminal here: every check passes, then it says it needs one
    lines = done.stderr.splitlines()
    assert done.returncode == 2 and len(lines) == 2, done.stderr
    assert lines[0] == (f"reasoning-explorer: 1 file left out, not a walk: {walks / 'loop.jsonl'}: cannot read it "
                        "(Too many levels of symbolic links)")
    assert lines[1].startswith("reasoning-explorer: error: the explorer needs a terminal")
