"""No module is over about 600 lines (issue 18): a module that grows past it holds more than one idea and is
split, as telemetry, the evaluation, the Markdown loader and the walk screen were (its step keys, the walks it
opens from elsewhere and what it hears from other threads are parts of their own)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 600
CHECKED = ("core", "explorer")


def test_no_module_is_over_600_lines():
    sizes = {
        path.relative_to(ROOT).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
        for top in CHECKED for path in (ROOT / top).rglob("*.py")
    }
    assert len(sizes) > 50  # the folders were found
    assert "explorer/tui/walk_screen/screen.py" in sizes
    assert {path: lines for path, lines in sizes.items() if lines > MAX_LINES} == {}
