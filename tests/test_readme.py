"""The README's example runs and prints what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_every_python_example_prints_what_the_readme_says(monkeypatch):
    monkeypatch.chdir(README.parent)  # the examples use paths from the repository's top
    text = README.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 2
    for code in blocks:
        expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
        assert out.getvalue().splitlines() == expected


def test_the_readme_lists_every_key_and_every_scripted_case():
    from explorer.tui.keymap import ALL_KEYS, shown_key

    text = README.read_text(encoding="utf-8")
    for key in ALL_KEYS:
        shown = shown_key(key.keys.split(",")[0])
        assert f"`{shown}`" in text, f"the README does not list {shown!r} ({key.help})"
    scripts = sorted((README.parent / "sample_corpora" / "scripts").glob("*.yaml"))
    assert scripts
    for script in scripts:
        assert f"script:sample_corpora/scripts/{script.name}" in text, script.name


def test_the_readme_screenshot_exists():
    assert (README.parent / "docs" / "explorer.svg").read_text(encoding="utf-8").startswith("<svg")


def test_the_navigator_table_is_what_the_bench_prints():
    import subprocess
    import sys

    bench = README.parent / "bench" / "navigator_quality.py"
    printed = subprocess.run([sys.executable, str(bench), "--markdown"], capture_output=True, text=True,
                             cwd=README.parent, timeout=300, check=True).stdout
    rows = [line for line in printed.splitlines() if line.startswith("| `")]
    assert len(rows) == 6  # every shipped offline navigator: three lexical, three semantic
    text = README.read_text(encoding="utf-8")
    for row in rows:
        assert row in text, f"the README's navigator table lacks or differs from: {row}"
