"""The README and the reference pages under ``docs/`` stay true: their Python examples print what they say, every
key of the explorer is on the keys page and every key there is one, every command and option they show is one the
command line takes, and every link and anchor between them resolves."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
DOCS = ROOT / "docs"
PAGES = [README, *sorted(DOCS.glob("*.md"))]


def text_of(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def test_the_reference_is_split_into_pages_by_topic():
    names = {page.name for page in PAGES}
    assert {"keys.md", "command-line.md", "navigators.md", "formats.md", "tracing.md", "code.md"} <= names
    assert len(text_of(README).splitlines()) < 400, "the README is the way in; the reference belongs in docs/"


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_python_example_prints_what_its_page_says(page, monkeypatch):
    monkeypatch.chdir(ROOT)  # the examples use paths from the repository's top
    for code in re.findall(r"```python\n(.*?)```", text_of(page), re.S):
        expected = [line[2:] for line in code.splitlines() if line.startswith("# ")]
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, str(page), "exec"), {"__name__": "docs_example"})
        assert out.getvalue().splitlines() == expected


def test_the_python_examples_are_there():
    assert len(re.findall(r"```python\n", text_of(DOCS / "code.md"))) >= 2


# ---------------------------------------------------------------------------------------------------------------
# Keys

SCREEN_KEYS = {"Enter", "Escape", "escape", "ctrl+p", "1-9", "1", "9", "a", "s", "i", "Tab"}
"""Keys the keys page names that are not walk-screen bindings of the keymap: the query box's, the palette's and
the picker's (the picker's are in the keymap too, under their digits)."""


def test_the_keys_page_lists_every_key_and_only_keys_that_exist():
    from explorer.tui.keymap import ALL_KEYS, shown_key

    text = text_of(DOCS / "keys.md")
    real = {shown_key(name) for key in ALL_KEYS for name in key.keys.split(",")}
    for key in ALL_KEYS:
        shown = shown_key(key.keys.split(",")[0])
        assert f"`{shown}`" in text, f"docs/keys.md does not list {shown!r} ({key.help})"
    rows = [line for line in text.splitlines() if line.startswith("| ") and not line.startswith("| key")]
    assert len(rows) >= 30
    for row in rows:
        first = row.split("|")[1]
        for named in re.findall(r"`([^`]+)`", first):
            assert named in real or named in SCREEN_KEYS, f"docs/keys.md names a key the explorer lacks: {named!r}"


def test_the_pages_name_every_scripted_case():
    text = "".join(text_of(page) for page in PAGES)
    scripts = sorted((ROOT / "sample_corpora" / "scripts").glob("*.yaml"))
    assert scripts
    for script in scripts:
        assert f"script:sample_corpora/scripts/{script.name}" in text, script.name


def test_the_readme_screenshot_exists():
    assert (DOCS / "explorer.svg").read_text(encoding="utf-8").startswith("<svg")
    assert "](docs/explorer.svg)" in text_of(README)


def test_the_policy_curve_image_exists_and_the_readme_and_command_line_page_show_it():
    assert (DOCS / "policy-curve.svg").read_text(encoding="utf-8").startswith("<svg")
    assert "](docs/policy-curve.svg)" in text_of(README)
    assert "](policy-curve.svg)" in text_of(DOCS / "command-line.md")


@pytest.mark.process
@pytest.mark.slow
def test_the_navigator_table_is_what_the_bench_prints():
    import subprocess
    import sys

    bench = ROOT / "bench" / "navigator_quality.py"
    printed = subprocess.run([sys.executable, str(bench), "--markdown"], capture_output=True, text=True,
                             cwd=ROOT, timeout=300, check=True).stdout
    rows = [line for line in printed.splitlines() if line.startswith("| `")]
    assert len(rows) == 6  # every shipped offline navigator: three lexical, three semantic
    text = text_of(DOCS / "navigators.md")
    for row in rows:
        assert row in text, f"docs/navigators.md's navigator table lacks or differs from: {row}"


# ---------------------------------------------------------------------------------------------------------------
# Commands and options

COMMAND = re.compile(r"(?:^\s*|\$ |`)(?:reasoning-explorer|python -m explorer)(?![\w-])(?P<rest>[^`\n]*)"
                     r"|`(?P<rest2>(?:walk|eval|replay|diff|serve|export|validate) [^`\n]*)`")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def help_of(command: str) -> str:
    from explorer.cli.main import main

    out = io.StringIO()
    argv = [command, "--help"] if command else ["--help"]
    with contextlib.redirect_stdout(out), pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 0, command
    return out.getvalue()


def commands_shown(text: str) -> list[tuple[str, str]]:
    """Each command line a page shows, with its continuation lines: in code blocks (a line that goes on with ``\\``
    or a synopsis's indented ``[--option ...]`` lines) and in inline code."""
    shown: list[tuple[str, str]] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        for match in COMMAND.finditer(line):
            rest = match.group("rest") if match.group("rest") is not None else match.group("rest2")
            following = number + 1
            while following < len(lines) and (
                    lines[following - 1].rstrip().endswith("\\") or re.match(r"\s{8,}\[", lines[following])):
                rest += " " + lines[following].strip()
                following += 1
            shown.append((line.strip(), rest))
    return shown


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_command_and_option_shown_is_one_the_command_line_takes(page):
    from explorer.cli.main import COMMANDS

    helps: dict[str, str] = {}
    for where, rest in commands_shown(text_of(page)):
        words = rest.split()
        command = words[0] if words and words[0] in COMMANDS else ""
        if words and not command and re.fullmatch(r"[a-z]+", words[0]) and not Path(ROOT, words[0]).exists():
            pytest.fail(f"{page.name}: `{where}` names no command of reasoning-explorer: {words[0]!r}")
        helps.setdefault(command, help_of(command))
        for option in OPTION.findall(rest):
            assert option in helps[command], f"{page.name}: `{where}`: {command or 'the explorer'} has no {option}"


# ---------------------------------------------------------------------------------------------------------------
# Links


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation but hyphens dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def anchors_of(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", text_of(path), flags=re.S)
    return {anchor(heading) for heading in re.findall(r"^#+ (.+)$", text, re.M)}


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_and_anchor_resolves(page):
    for target in re.findall(r"\]\(([^)\s]+)\)", text_of(page)):
        if re.match(r"[a-z]+://", target):
            continue
        file, _, fragment = target.partition("#")
        linked = (page.parent / file).resolve() if file else page
        assert linked.exists(), f"{page.name}: the link to {target} finds no file"
        if fragment:
            assert fragment in anchors_of(linked), f"{page.name}: {target}: {linked.name} has no heading #{fragment}"


def test_the_readme_links_every_page():
    text = text_of(README)
    for page in PAGES[1:]:
        assert f"](docs/{page.name})" in text, f"the README does not send the reader to docs/{page.name}"


def test_every_option_named_anywhere_is_one_some_command_takes():
    """An option in inline code or a code block that no command of the pages shows: a bench script's, a tool's
    (pip, pytest) or one of ``reasoning-explorer``'s sub-commands."""
    from explorer.cli.main import COMMANDS

    known = "".join(help_of(command) for command in ["", *COMMANDS])
    unknown = []
    for page in PAGES:
        text = text_of(page)
        spans = re.findall(r"```.*?```", text, re.S) + re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text,
                                                                                       flags=re.S))
        for span in spans:
            for line in span.splitlines():
                if re.search(r"\b(bench/|examples/|pip|pytest|make|git|python3? -c|uv|apt-get|tmux)\b", line):
                    continue
                unknown += [f"{page.name}: {option} (in `{line.strip()}`)" for option in OPTION.findall(line)
                            if option not in known and option not in OTHER_PROGRAMS_OPTIONS]
    assert not unknown, "options no command takes: " + "; ".join(unknown)


OTHER_PROGRAMS_OPTIONS = {"--api-key"}
"""Options the pages name of other programs: an OpenAI-compatible server started with ``--api-key``."""
