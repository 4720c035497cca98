"""No module below the screen is over about 600 lines (issue 18): a module that grows past it holds more than one
idea and is split, as telemetry, the evaluation and the Markdown loader were. The screen (explorer/tui) is left out
while it is being redesigned; widen ``CHECKED`` when it fits."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600
CHECKED = ("core", "explorer")
LEFT_OUT = (ROOT / "explorer" / "tui",)


def test_no_module_below_the_screen_is_over_600_lines():
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for top in CHECKED for path in (ROOT / top).rglob("*.py")
        if not any(path.is_relative_to(folder) for folder in LEFT_OUT)
    }
    assert len(sizes) > 50  # the folders were found
    assert {path: lines for path, lines in sizes.items() if lines > MAX_LINES} == {}
