"""``E`` with a FIFO at the check set's name (issue 45, serious point 3): the read blocked the explorer for ever (it
then ignored q and SIGTERM). It is refused in one line, the explorer goes on, and q quits. A watchdog releases a
read blocked on the FIFO (a writer opens and closes it), so a regression fails instead of hanging the suite."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from explorer.corpora import load_corpus
from explorer.navigators.folders import Folders
from explorer.tui.screens.prompt import PromptScreen

from ..test_reads_bounded import folder_with_a_kept_case
from .helpers import SIZE, make_app, wait_for


async def test_e_on_a_fifo_at_the_check_sets_name_says_so_and_the_explorer_goes_on(tmp_path: Path) -> None:
    corpus = folder_with_a_kept_case(tmp_path)
    fifo = tmp_path / "handbook.check.questions.yaml"
    os.mkfifo(fifo)
    done = threading.Event()

    def release() -> None:  # a hang guard, not a pause: only a read blocked on the FIFO is ever released
        if not done.wait(60):
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=release, daemon=True).start()
    try:
        app = make_app("refund", corpus=load_corpus(corpus), folders=Folders(None, tmp_path / "prompts"))
        async with app.run_test(size=SIZE) as pilot:
            await pilot.press("escape", "E")
            await wait_for(pilot, lambda: isinstance(app.screen, PromptScreen) and app.screen.ready)
            assert app.screen.initial == str(fifo)  # the check set first: 1 question, kept with K
            await pilot.press("enter")
            await wait_for(pilot, lambda: any(note.title == "Cannot walk the check set" for note in app.notes))
            note = next(note for note in app.notes if note.title == "Cannot walk the check set")
            assert note.message == (f"{fifo}: a FIFO (named pipe), not a regular file, where the check set is "
                                    "written; move it away (a check set is written only over one "
                                    "reasoning-explorer made)")
            assert app.screen is app.walk_screen
            await pilot.press("q")
            await wait_for(pilot, lambda: app.return_code is not None)
            assert app.return_code == 0
    finally:
        done.set()
    assert fifo.exists() and not fifo.is_file()  # left as it was
