"""``--resume`` brings a session's walks back as they were left (issue 45, tried as three kinds of user, point 1):
each keeps its name, its number, where it came from and the step it was shown at (the session folder keeps them
in each trace's header, a ``walk`` block with a version of its own), the last walked is shown, and the next walk
goes on with the settings of the last walk walked anew (a re-walk does not change them), said as the session opens.
The command line runs in this process; the apps it makes are driven by keys."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.sessions import session_label
from explorer.trace import WalkPlace, read_trace
from explorer.tui.screens.choose_walk import WalksScreen
from explorer.tui.screens.prompt import PromptScreen

from .helpers import HANDBOOK_PATH, explorer_made_here, wait_for
from .test_sessions_kept import rows

QUERY = "How long do refunds take to arrive?"
NAVIGATOR = "lexical:default"


async def test_resume_keeps_names_numbers_lineage_and_cursors_and_says_the_next_walk(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = tmp_path / "sessions"
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(HANDBOOK_PATH), "--navigator", NAVIGATOR, "--query", QUERY, "--sessions", str(sessions)]) == 0
    first = made[-1]
    async with first.run_test(size=(120, 40)) as pilot:
        screen = first.walk_screen
        await pilot.press("c")  # walk 1, to its end
        await wait_for(pilot, lambda: screen.view.history is not None and screen.view.history.end is not None)
        one = screen.view.history
        await pilot.press("R")  # walk 2: walk 1 again with a budget of 4, from its recorded decisions
        await wait_for(pilot, lambda: isinstance(first.screen, PromptScreen))
        await pilot.press("ctrl+a", "ctrl+k", "4", "enter")
        await wait_for(pilot, lambda: len(screen.walks) == 2)
        two = screen.view.history
        await pilot.press("n", "n", "n")  # three steps on, then the explorer is quit there
        await wait_for(pilot, lambda: len(two.events) >= 4 and two.cursor == 4)
        names = [walk.name for walk in screen.walks]
    (session,) = sessions.iterdir()
    places = sorted((read_trace(path).header.walk for path in session.glob("walk-*.jsonl")),
                    key=lambda place: place.number if place is not None else 0)
    assert places == [WalkPlace(1, names[0][len("walk 1 · "):], "walk", None, None, len(one.events)),
                      WalkPlace(2, names[1][len("walk 2 · "):], "re-walk", 1, None, 4)]

    assert main(["--resume", "--sessions", str(sessions)]) == 0
    again = made[-1]
    label = f"from session {session_label(session)}"
    async with again.run_test(size=(120, 40)) as pilot:
        screen = again.walk_screen
        await wait_for(pilot, lambda: screen.view.walk is not None)
        shown = screen.view.walk
        # The last walk walked is shown, named and numbered as it was, where it was left.
        assert (shown.name, shown.history.cursor) == (names[1], 4)
        # The next walk goes on as walk 1 was walked (budget 15), not as the re-walk (budget 4), and says so.
        assert screen.next_walk.settings.max_nodes_visited == 15
        said = [str(note.message) for note in again.notes if "Reopened" in str(note.message)]
        assert said == [f"Reopened 2 walks {label}: w lists them, {names[1]} is shown at step 4. next walk: "
                        f"{NAVIGATOR} · budget 15 · depth limit 6 · on failure throw (as walk 1 was walked)"]
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(again.screen, WalksScreen))
        assert [row.lstrip("▶ ").split("  ")[0] for row in rows(again)] == names
        await pilot.press("up", "enter")  # walk 1, also where it was left: its end
        await wait_for(pilot, lambda: screen.view.walk is not shown)
        assert (screen.view.walk.name, screen.view.history.cursor) == (names[0], len(one.events))
