"""The README's five-minute tour says what the screen shows (issue 45, tried as three kinds of user, point 13): the
explorer started as ``make run`` starts it (no corpus: the sample handbook, its example question, semantic:hybrid),
Enter, then ``n`` to the roots' decision, shows the step line the tour quotes; and the tour's commands name the
console script where ``make run`` put it (``.venv/bin``), which is not on the PATH."""

from __future__ import annotations

import re

import pytest

from explorer.cli.main import main

from .helpers import ROOT, explorer_made_here, wait_for
from .reading import step_text

README = (ROOT / "README.md").read_text(encoding="utf-8")


async def test_the_tours_step_line_is_the_screens(monkeypatch: pytest.MonkeyPatch) -> None:
    quoted = re.search(r"`(Step \d+/\d+  navigator chose [^`]+)`", README)
    assert quoted is not None
    made, navigators = explorer_made_here(monkeypatch)
    assert main(["--sessions", "off"]) == 0  # as make run starts it
    (app,) = made
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.press("enter", "n", "n")
            await wait_for(pilot, lambda: step_text(app).startswith("Step 3/"))
            assert step_text(app).startswith(quoted.group(1))
    finally:
        for navigator in navigators:
            close = getattr(navigator, "close", None)
            if close is not None:
                close()


def test_the_readme_says_where_make_run_put_the_console_script_before_its_first_command() -> None:
    first = README.index("$ reasoning-explorer")
    said = README.index("`.venv/bin/reasoning-explorer …`")
    assert said < first and "`. .venv/bin/activate`" in README[said:first]
