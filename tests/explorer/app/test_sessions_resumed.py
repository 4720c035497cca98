"""Sessions kept before the session folder's marker existed: a person upgrading still resumes their kept walks; and
a kept walk reopens at the step it was left at, though that was after its end.

A folder is taken as such a session only when it looks exactly like one the explorer made then (its name as
``start_session`` wrote it, nothing in it but kept walks as the recorder names them, each a readable trace); ``--resume``
marks it as it reopens it, and pruning never removes a folder without the marker."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.sessions import MARKER, is_legacy_session, last_session, prune_sessions
from explorer.trace import read_trace

from .helpers import HANDBOOK_PATH, explorer_made_here, wait_for

QUERY = "How long do refunds take to arrive?"
NAVIGATOR = "lexical:default"
KEPT = "walk-20261204T090000.123456Z-4242-1.jsonl"
"""A kept walk's name as the recorder wrote it (UTC stamp, process id, count)."""


@pytest.fixture(scope="module")
def trace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real trace of a walk, as the explorer's recorder kept them before the marker."""
    path = tmp_path_factory.mktemp("walked") / "walk.jsonl"
    assert main(["walk", str(HANDBOOK_PATH), QUERY, "--navigator", NAVIGATOR, "--trace", str(path)]) == 0
    return path


def old_session(root: Path, name: str, trace: Path, *kept: str) -> Path:
    """A session folder as the explorer made one before the marker: its kept walks, and no marker."""
    folder = root / name
    folder.mkdir(parents=True)
    for file in kept or (KEPT,):
        shutil.copyfile(trace, folder / file)
    return folder


def test_a_session_kept_before_the_marker_is_the_last_session_only_when_it_looks_exactly_like_one(
        tmp_path: Path, trace: Path) -> None:
    root = tmp_path / "sessions"
    old = old_session(root, "2026-12-04T09-00-00", trace)
    again = old_session(root, "2026-12-04T09-00-00-2", trace, KEPT, "walk-20261204T090100.000001Z-4242-2.jsonl",
                        ".walk-20261204T090200.000001Z-4242-3.jsonl.4242.a1b2c3d4.tmp")  # a killed write's leftover
    assert is_legacy_session(old) and is_legacy_session(again)
    assert last_session(root) == again
    # Newer, but none is what the explorer made: each is left alone, and the old session is still the last.
    old_session(root, "2026-12-04T09-00-00-²", trace)  # not a name the explorer wrote ('²' is no ASCII digit)
    old_session(root, "zzz-my-walks", trace)  # a person's own folder
    old_session(root, "2026-12-05T09-00-00-1", trace)  # the explorer numbered a second session -2, never -1
    old_session(root, "2026-13-05T09-00-00", trace)  # no such month
    noted = old_session(root, "2026-12-06T09-00-00", trace)
    (noted / "notes.txt").write_text("mine\n")  # a file the explorer never wrote
    old_session(root, "2026-12-07T09-00-00", trace, "walk-mine.jsonl")  # not the recorder's name
    broken = old_session(root, "2026-12-08T09-00-00", trace)
    (broken / KEPT).write_text("{}\n")  # no trace in it
    linked = old_session(root, "2026-12-09T09-00-00", trace)
    (linked / "walk-20261209T090000.000001Z-1-1.jsonl").symlink_to(trace)  # a link, not a kept walk
    empty = root / "2026-12-10T09-00-00"
    empty.mkdir()  # nothing kept in it
    for folder in sorted(root.iterdir()):
        assert is_legacy_session(folder) == (folder in (old, again)), folder.name
    assert last_session(root) == again
    # Pruning removes only marked sessions: an unmarked one, however old, is never removed.
    assert prune_sessions(root, keep=0) == []
    assert old.is_dir() and again.is_dir() and len(list(root.iterdir())) == 11


async def test_resume_reopens_a_session_kept_before_the_marker_and_marks_it(
        tmp_path: Path, trace: Path, own_data_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = own_data_folder / "reasoning-explorer" / "sessions"
    old = old_session(root, "2026-12-04T09-00-00", trace)
    made, _ = explorer_made_here(monkeypatch)
    assert main(["--resume"]) == 0
    app = made[-1]
    assert (old / MARKER).is_file()  # marked through the gate as it is reopened: a session from now on
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.walk_screen
        await wait_for(pilot, lambda: screen.view.walk is not None)
        assert screen.view.walk.history.settings.query == QUERY and len(screen.view.walk.history.events) > 1
    assert list(root.iterdir()) == [old]  # the walks go on being kept there


async def test_a_walk_stepped_back_after_its_end_is_resumed_where_it_was_left_not_at_its_end(
        own_data_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The kept walk's cursor was written only as the walk ended: stepped back in an ended walk, then quit, it
    reopened at its end. The session keeps where each walk was left as it closes, in the trace's walk block."""
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY]) == 0
    first = made[-1]
    async with first.run_test(size=(80, 24)) as pilot:
        screen = first.walk_screen
        await pilot.press("c")
        await wait_for(pilot, lambda: screen.view.history is not None and screen.view.history.end is not None)
        walked = screen.view.history
        end = len(walked.events)
        await pilot.press("b", "b")
        await wait_for(pilot, lambda: walked.cursor == end - 2)
        await pilot.press("q")
    (session,) = (own_data_folder / "reasoning-explorer" / "sessions").iterdir()
    (kept,) = session.glob("walk-*.jsonl")
    place = read_trace(kept).header.walk
    assert place is not None and (place.number, place.cursor) == (1, end - 2)
    assert list(read_trace(kept).events) == list(walked.events)  # the walk itself, as it was

    assert main(["--resume"]) == 0
    again = made[-1]
    async with again.run_test(size=(80, 24)) as pilot:
        screen = again.walk_screen
        await wait_for(pilot, lambda: screen.view.walk is not None)
        resumed = screen.view.walk.history
        assert resumed.cursor == end - 2  # where it was left
        await pilot.press("B")  # to its first step, then quit: a resumed walk keeps where it was left too
        await wait_for(pilot, lambda: resumed.cursor == 1)
        await pilot.press("q")
    assert [path.name for path in session.glob("walk-*.jsonl")] == [kept.name]
    place = read_trace(kept).header.walk
    assert place is not None and place.cursor == 1
