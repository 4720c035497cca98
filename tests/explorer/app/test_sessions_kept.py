"""Work that lasts (issue 36, point 5): every walk of an explorer session is kept as it ends, in a session folder
under the user's data folder (here the test's own ``XDG_DATA_HOME``, conftest.py), or ``--sessions DIR``;
``--resume`` reopens the last session's walks, the walk list says where each came from, and a resumed walk is stepped,
forked and continued as any. The command line runs in this process; the app it makes is driven by keys."""

from __future__ import annotations

import re
import threading
from datetime import datetime
from pathlib import Path

import pytest
from textual.widgets import OptionList

from core import CandidatesOffered, NavigatorChose
from explorer.cli.main import main
from explorer.sessions import (
    KEPT_SESSIONS,
    MARKER,
    KeptSession,
    last_session,
    prune_sessions,
    session_label,
    sessions_root,
    start_session,
)
from explorer.trace import read_trace
from explorer.tui.screens.choose_walk import WalksScreen
from explorer.tui.screens.prompt import PromptScreen
from tests.command_line import run_cli

from .helpers import HANDBOOK, HANDBOOK_PATH, explorer_made_here, make_app, resize, wait_for
from .reading import option_prompts

QUERY = "How long do refunds take to arrive?"
NAVIGATOR = "lexical:default"
STARTED = re.compile(r"\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d")


def kept_in(folder: Path) -> list[Path]:
    return sorted(folder.glob("walk-*.jsonl"))


def rows(app) -> list[str]:  # type: ignore[no-untyped-def]
    """The walk list's rows, as its options show them."""
    chooser = app.screen
    assert isinstance(chooser, WalksScreen)
    return option_prompts(chooser.query_one("#walks-list", OptionList))


def test_the_default_root_is_the_data_folder_then_the_home_share_and_off_is_none(tmp_path: Path) -> None:
    assert sessions_root(None, {"XDG_DATA_HOME": str(tmp_path)}) == tmp_path / "reasoning-explorer" / "sessions"
    assert sessions_root(None, {"XDG_DATA_HOME": "relative/data"}) == (
        Path.home() / ".local" / "share" / "reasoning-explorer" / "sessions")  # a relative one is ignored
    assert sessions_root(None, {}) == Path.home() / ".local" / "share" / "reasoning-explorer" / "sessions"
    assert sessions_root(str(tmp_path / "mine"), {}) == tmp_path / "mine"
    assert sessions_root("off", {"XDG_DATA_HOME": str(tmp_path)}) is None


def session_folder(path: Path) -> Path:
    """A session folder as the explorer marks one (its marker file), named ``path``."""
    path.mkdir(parents=True)
    (path / MARKER).write_text("a session\n")
    return path


def test_the_last_session_is_the_newest_folder_that_holds_walks(tmp_path: Path) -> None:
    for name in ("2026-12-04T09-00-00", "2026-12-05T10-31-07", "2026-12-05T11-00-00"):
        session_folder(tmp_path / name)
    (tmp_path / "2026-12-04T09-00-00" / "walk-1.jsonl").write_text("{}\n")
    (tmp_path / "2026-12-05T10-31-07" / "walk-2.jsonl").write_text("{}\n")
    (tmp_path / "2026-12-05T11-00-00" / "notes.txt").write_text("no walk\n")  # newest, but it kept no walk
    assert last_session(tmp_path) == tmp_path / "2026-12-05T10-31-07"
    assert session_label(tmp_path / "2026-12-05T10-31-07") == "2026-12-05 10:31"
    assert session_label(tmp_path / "my-session") == "my-session"
    assert last_session(tmp_path / "none") is None


@pytest.mark.slow  # two explorers, one story: make test, not make test-fast
async def test_walks_are_kept_in_the_data_folder_and_resume_reopens_them_to_step_fork_and_continue(
        tmp_path: Path, own_data_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY]) == 0
    first = made[-1]
    async with first.run_test(size=(80, 24)) as pilot:
        screen = first.walk_screen
        await pilot.press("c")  # the walk, to its end
        await wait_for(pilot, lambda: screen.view.history is not None and screen.view.history.end is not None)
        walked = screen.view.history
    root = own_data_folder / "reasoning-explorer" / "sessions"
    (session,) = root.iterdir()
    assert STARTED.fullmatch(session.name)
    (kept,) = kept_in(session)
    trace = read_trace(kept)
    assert (trace.header.settings.query, trace.header.settings.model, trace.end) == (QUERY, NAVIGATOR, "finished")
    assert list(trace.events) == list(walked.events)  # the walk as it was walked, in the trace the explorer opens

    assert main(["--resume"]) == 0
    again = made[-1]
    label = f"from session {session_label(session)}"
    async with again.run_test(size=(80, 24)) as pilot:
        screen = again.walk_screen
        await wait_for(pilot, lambda: screen.view.walk is not None)
        resumed = screen.view.walk
        assert resumed.came_from == label and list(resumed.history.events) == list(walked.events)
        assert any(f"Reopened 1 walk {label}" in str(note.message) for note in again.notes)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(again.screen, WalksScreen))
        assert rows(again) == [f"▶ walk 1 · “{QUERY[:31]}…” · {NAVIGATOR} · budget 15  “{QUERY}”  · {label}"]
        await pilot.press("escape")
        await resize(pilot, (120, 40))
        # Stepped: to the first step, then on to the offer at the roots.
        await pilot.press("B", "n")
        assert resumed.history.cursor == 2
        # Forked there: the picker opens with the recorded answer ticked; billing alone is given instead.
        await pilot.press("e")
        picker = screen.view.picker
        assert picker is not None and picker.forking
        offer = resumed.history.events[1]
        assert isinstance(offer, CandidatesOffered)
        ids = [candidate.id for candidate in offer.candidates]
        untick = [str(ids.index(node) + 1) for node in picker.picked if node != "billing"]
        await pilot.press(*untick, *([] if "billing" in picker.picked else ["3"]), "a")
        await wait_for(pilot, lambda: len(screen.walks) == 2)
        forked = screen.view.walk
        assert forked.came_from == "live" and forked.name == "walk 2 · fork of walk 1: at the start chose billing"
        await pilot.press("c")
        await wait_for(pilot, lambda: forked.history.end is not None)
        # Continued live: the resumed walk again, from its last step, with a budget of 20.
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(again.screen, WalksScreen))
        await pilot.press(*"15", "enter")  # the resumed walk, by its name (budget 15)
        await wait_for(pilot, lambda: screen.view.walk is resumed)
        await pilot.press("C")
        await wait_for(pilot, lambda: isinstance(again.screen, PromptScreen))
        await pilot.press("home", "ctrl+k", *"budget=20", "enter")
        await wait_for(pilot, lambda: len(screen.walks) == 3)
        continued = screen.view.walk
        assert continued.name.startswith(f"walk 3 · live from step {resumed.history.cursor} of walk 1")
        await pilot.press("c")
        await wait_for(pilot, lambda: continued.history.end is not None)
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(again.screen, WalksScreen))
        assert [row.rsplit("  · ", 1)[1] for row in rows(again)] == [label, "live", "live"]
        await pilot.press("escape")
    # The resumed session goes on in its own folder: the fork and the continued walk are kept beside the first.
    assert [read_trace(path).header.settings.max_nodes_visited for path in kept_in(session)] == [15, 15, 20]
    assert list(root.iterdir()) == [session]
    chose = [e for e in read_trace(kept_in(session)[1]).events if isinstance(e, NavigatorChose)]
    assert chose[0].selected == ("billing",)  # the fork, kept as it was forked


async def test_sessions_off_keeps_nothing_and_a_dir_given_keeps_there(
        tmp_path: Path, own_data_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made, _ = explorer_made_here(monkeypatch)
    mine = tmp_path / "my sessions"
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY, "--sessions", str(mine)]) == 0
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY, "--sessions", "off"]) == 0
    # Files off (a served session shared beyond this machine): nothing is kept on its disk, whatever --sessions says.
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY, "--no-files", "--sessions",
                 str(mine)]) == 0
    kept, not_kept, files_off = made
    assert files_off.wiring.keeper is None
    for app in (kept, not_kept, files_off):
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("c")
            await wait_for(pilot, lambda: app.walk_screen.view.history.end is not None)  # noqa: B023
    (session,) = mine.iterdir()
    assert len(kept_in(session)) == 1
    assert not_kept.wiring.keeper is None
    assert list(own_data_folder.iterdir()) == []  # neither wrote in the data folder


async def test_a_session_that_walked_nothing_leaves_no_folder(own_data_folder: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR]) == 0
    (app,) = made
    root = own_data_folder / "reasoning-explorer" / "sessions"
    async with app.run_test(size=(80, 24)):
        assert len(list(root.iterdir())) == 1  # made as the explorer starts
    assert list(root.iterdir()) == []


async def test_a_sessions_folder_that_cannot_be_written_is_one_line_and_the_explorer_goes_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    in_the_way = tmp_path / "sessions"
    in_the_way.write_text("a file, not a folder\n")
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY, "--sessions", str(in_the_way)]) == 0
    (app,) = made
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: bool(app.notes))
        assert [str(note.message) for note in app.notes if note.severity == "warning"] == [
            f"this session's walks are not kept: {in_the_way} is a file, not a folder; give --sessions DIR (a folder, "
            "made if need be), or --sessions off"]
        await pilot.press("c")  # the explorer goes on
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
    assert in_the_way.read_text() == "a file, not a folder\n"


def test_resume_with_no_session_yet_says_so_and_how_to_get_one(own_data_folder: Path, tmp_path: Path) -> None:
    root = own_data_folder / "reasoning-explorer" / "sessions"
    result = run_cli("--resume")
    assert (result.returncode, result.stdout) == (2, "")
    assert result.stderr == (f"reasoning-explorer: error: no session to resume: none kept yet in {root}; walk in the "
                             "explorer (each walk is kept as it ends), quit, then --resume\n")
    result = run_cli("--resume", "--sessions", "off")
    assert (result.returncode, result.stderr) == (2, "reasoning-explorer: error: --resume reopens the last kept "
                                                     "session, and --sessions off keeps none: leave --sessions off out\n")
    result = run_cli("--resume", "--no-files")
    assert (result.returncode, result.stderr) == (2, "reasoning-explorer: error: --resume opens the last session's "
                                                     "files, and --no-files turns files off: leave one of them out\n")
    result = run_cli("--resume", HANDBOOK_PATH)
    assert (result.returncode, result.stderr) == (2, "reasoning-explorer: error: --resume reopens the last session's "
                                                     f"walks on their own corpus: give it without {HANDBOOK_PATH}\n")
    empty = tmp_path / "empty"
    (empty / "2026-12-05T10-31-07").mkdir(parents=True)
    result = run_cli("--resume", "--sessions", empty)
    assert (result.returncode, result.stderr) == (2, f"reasoning-explorer: error: no session to resume: none kept yet "
                                                     f"in {empty}; walk in the explorer (each walk is kept as it ends), "
                                                     "quit, then --resume\n")


async def test_a_session_started_with_a_relative_corpus_resumes_from_another_folder(
        tmp_path: Path, own_data_folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The session folder is far from where the explorer started: its traces name the corpus by its absolute path,
    so --resume reads it from anywhere (it said the trace's corpus c/handbook.yaml is not here)."""
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "handbook.yaml").write_bytes(HANDBOOK_PATH.read_bytes())
    (tmp_path / "elsewhere").mkdir()
    made, _ = explorer_made_here(monkeypatch)
    monkeypatch.chdir(tmp_path)
    assert main(["c/handbook.yaml", "--navigator", NAVIGATOR, "--query", QUERY]) == 0
    async with made[-1].run_test(size=(80, 24)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: made[-1].walk_screen.view.history.end is not None)
    monkeypatch.chdir(tmp_path / "elsewhere")
    assert main(["--resume"]) == 0
    again = made[-1]
    async with again.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: again.walk_screen.view.walk is not None)
        assert again.walk_screen.corpus.path.resolve() == (tmp_path / "c" / "handbook.yaml").resolve()
        assert len(again.walk_screen.view.walk.history.events) > 1


def test_a_new_session_removes_the_oldest_beyond_fifty_and_only_folders_of_kept_walks(tmp_path: Path) -> None:
    root = tmp_path / "sessions"
    names = [f"2026-11-{day:02d}T09-00-00" for day in range(1, 29)] + [f"2026-11-29T09-00-00-{n}" for n in range(2, 26)]
    for name in names:  # 52 sessions, the last 24 started in the same second (-2 … -25: -10 after -9)
        session_folder(root / name)
        (root / name / "walk-20261101T090000-000001.jsonl").write_text("{}\n")
    (root / names[0] / "notes.txt").write_text("mine\n")  # the oldest holds a file of the user's: never removed
    (root / "my-things").mkdir()  # not a session's name: never removed
    new = start_session(root, datetime(2026, 12, 5, 10, 31, 7))
    left = sorted(path.name for path in root.iterdir())
    assert new.name == "2026-12-05T10-31-07" and new.is_dir()
    assert names[0] in left and "my-things" in left  # not ours to remove
    assert names[1] not in left and names[2] not in left  # the oldest two sessions of kept walks, gone
    assert len([name for name in left if name.startswith("2026")]) == KEPT_SESSIONS + 1  # 50, and the user's
    assert "2026-11-29T09-00-00-10" in left and last_session(root) == root / "2026-11-29T09-00-00-25"
    assert (new / MARKER).is_file()  # the marker the explorer writes: what makes the folder a session's


def test_a_session_folder_is_known_by_its_marker_not_by_its_name(tmp_path: Path) -> None:
    """A folder named like a session and then ``²`` crashed --resume ('²'.isdigit() is true, int('²') fails); a
    person's own folder of walks was taken as the last session (and new walks kept in it); pruning removed an empty
    folder with a session-like name, and one whose only extra file started with ``.walk-``."""
    root = tmp_path / "sessions"
    kept = session_folder(root / "2026-12-04T09-00-00")
    (kept / "walk-20261204T090000-000001.jsonl").write_text("{}\n")
    odd = session_folder(root / "2026-12-04T09-00-00-²")
    (odd / "walk-20261204T090000-000002.jsonl").write_text("{}\n")
    own = root / "zzz-my-walks"
    own.mkdir()
    (own / "walk-20261206T090000-000001.jsonl").write_text("{}\n")
    assert last_session(root) == odd  # the newest session by name; the person's folder is none, however named
    empty = root / "2026-01-01T00-00-00"
    empty.mkdir()
    mine = root / "2026-01-02T00-00-00"
    mine.mkdir()
    (mine / ".walk-notes.txt").write_text("mine\n")
    marked_mine = session_folder(root / "2026-01-03T00-00-00")
    (marked_mine / ".walk-notes.txt").write_text("mine\n")
    assert sorted(prune_sessions(root, keep=0)) == [kept, odd]  # marked, holding walks alone: the only ones removed
    assert sorted(path.name for path in root.iterdir()) == [
        "2026-01-01T00-00-00", "2026-01-02T00-00-00", "2026-01-03T00-00-00", "zzz-my-walks"]
    assert last_session(root) is None


async def test_a_walk_that_ends_just_before_quitting_is_kept_though_a_slow_observer_holds_its_worker(
        tmp_path: Path) -> None:
    """The keeper only queues a walk, on the screen's thread, as it ends: it waited behind the observers (the
    telemetry's export, up to seconds) on a worker, and a quit closed the keeper before it was handed the walk."""
    held = threading.Event()

    def slow_export(walk) -> None:  # type: ignore[no-untyped-def]
        held.wait(30)

    keeper = KeptSession(start_session(tmp_path / "sessions"), HANDBOOK)
    app = make_app(QUERY, NAVIGATOR, observers=[slow_export], keeper=keeper)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.press("escape", "c")
            await wait_for(pilot, lambda: app.walk_screen.view.history is not None
                           and app.walk_screen.view.history.end is not None)
            await pilot.press("q")  # at once: the slow observer still holds its worker
    finally:
        held.set()
    assert len(kept_in(keeper.folder)) == 1 and keeper.unkept == 0
