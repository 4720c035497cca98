"""The export is a page: its frames carry none of the terminal's chrome (the footer's keys do nothing there), the
page has its own controls, a fork's header says it is one and what was forced (or which prompt variant it used),
and transcripts are pretty-printed. Real walks of the sample handbook, written by the real `walk` and `export`
commands, read back with the standard library's HTML parser."""

from __future__ import annotations

import base64
import gzip
import html
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.trace import read_trace
from explorer.walks.fork_line import fork_line
from explorer.walks.history import WalkHistory
from explorer.walks.session import fork, fork_with_prompt, save_history
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .serve_helpers import ROOT

pytestmark = pytest.mark.slow  # its walks export four pages, each frame drawn by the app: make test only

HANDBOOK = SAMPLES / "handbook.yaml"
SCRIPT = "script:sample_corpora/scripts/wide-walk-out-of-visits.yaml"
QUERY = "everything about money"
FOOTER_WORDS = ("? Help", "q Quit", "P Present", "^p palette", "n Next", "p Play", "b Back")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, columns=None)


class Page(HTMLParser):
    """What the page holds: each element with an id (its tag, attributes and text), and the walk's data."""

    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.by_id: dict[str, tuple[str, dict[str, str]]] = {}
        self.text_of: dict[str, str] = {}
        self._open: list[str | None] = []
        self.feed(text)
        self.close()
        self.data = json.loads(self.text_of["walk-data"])

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        given = {name: value or "" for name, value in attrs}
        if "id" in given:
            self.by_id[given["id"]] = (tag, given)
            self.text_of[given["id"]] = ""
        if tag not in ("input", "meta"):  # void elements have no end tag
            self._open.append(given.get("id"))

    def handle_endtag(self, tag: str) -> None:
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        for opened in self._open:
            if opened is not None:
                self.text_of[opened] += data

    def frames(self) -> list[str]:
        """Every frame's SVG, inflated."""
        return [unpacked(frame) for frame in self.data["frames"]]

    def transcript(self, frame: int) -> str:
        """The transcript shown at ``frame`` (0-based), as text."""
        return html.unescape(re.sub(r"<[^>]+>", "", unpacked(self.data["transcripts"][self.data["transcriptOf"][frame]])))


def unpacked(packed: str) -> str:
    return gzip.decompress(base64.b64decode(packed)).decode("utf-8")


def frame_rows(svg: str) -> list[str]:
    """A frame's rows as text: Rich's SVG text runs, grouped by the row their clip path names, at their column
    (x over a cell's width: 20 px rows, aspect 0.61)."""
    rows: dict[str, str] = {}
    for x, clip, run_text in re.findall(r'<text[^>]*x="([\d.]+)"[^>]*clip-path="url\(#([^)]*)\)"[^>]*>(.*?)</text>', svg):
        column = round(float(x) / (20 * 0.61))
        rows[clip] = rows.get(clip, "").ljust(column) + html.unescape(run_text).replace("\xa0", " ")
    return list(rows.values())


@pytest.fixture(scope="module")
def walked(tmp_path_factory) -> dict[str, Path]:
    """A scripted walk, a fork of it forced at its second decision, one re-walked with a prompt variant from
    there, and a lexical walk (its scores are JSON): each trace exported by the command line."""
    folder = tmp_path_factory.mktemp("page")
    traces = {"walk": folder / "walk.jsonl", "lexical": folder / "lexical.jsonl"}
    done = run("walk", str(HANDBOOK), QUERY, "--navigator", SCRIPT, "--trace", str(traces["walk"]))
    assert done.returncode == 0, done.stderr
    done = run("walk", str(HANDBOOK), "How long do refunds take to arrive?", "--navigator", "lexical:default",
               "--trace", str(traces["lexical"]))
    assert done.returncode == 0, done.stderr
    corpus = load_corpus(HANDBOOK)
    source = WalkHistory.from_trace(read_trace(traces["walk"]))
    second = list(source.decisions())[1]
    assert second.node == "plans"
    navigator = resolve_navigator(SCRIPT.replace("script:", f"script:{ROOT}/"))
    forked = fork(source, second.offer_seq, ("seats", "discounts"), corpus, navigator)
    forked.run_headless()
    traces["fork"] = save_history(forked.history, corpus, folder / "fork.jsonl")
    variant = fork_with_prompt(source, second.offer_seq, "v2", source.settings.model, corpus, navigator)
    variant.run_headless()
    traces["variant"] = save_history(variant.history, corpus, folder / "variant.jsonl")
    pages = {}
    for name, trace in traces.items():
        out = folder / f"{name}.html"
        exported = run("export", str(trace), "--html", str(out))
        assert exported.returncode == 0, exported.stderr
        assert exported.stderr.startswith(f"reasoning-explorer: wrote {out}: ")
        pages[name] = out
    return pages


def test_no_frame_carries_the_terminal_footer(walked):
    page = Page(walked["walk"].read_text())
    frames = page.frames()
    assert len(frames) == len(page.data["steps"]) > 1
    for number, svg in enumerate(frames):
        shown = "\n".join(frame_rows(svg))
        assert [word for word in FOOTER_WORDS if word in shown] == [], number
    # The rows the footer held are the walk's: the last frame's last row is the panes' bottom border.
    assert frame_rows(frames[-1])[-1].startswith("╰")


def test_the_page_has_its_own_controls(walked):
    page = Page(walked["walk"].read_text())
    buttons = {name: page.text_of[name] for name in ("first", "back", "play", "next", "last")}
    assert buttons == {"first": "|◀ First", "back": "◀ Back", "play": "▶ Play", "next": "Next ▶", "last": "Last ▶|"}
    assert all(page.by_id[name][0] == "button" for name in buttons)
    assert page.by_id["slider"] == ("input", {"type": "range", "id": "slider", "min": "0", "max": "0", "value": "0",
                                              "aria-label": "the step shown"})
    assert page.by_id["every"][1]["type"] == "checkbox"
    assert page.by_id["where"][1]["aria-live"] == "polite"  # the step counter: "Step 4 of 21 · decision 2 of 5"
    assert page.text_of["keys"] == "← → step · p play · Home End"
    assert "fork" not in page.by_id  # a plain walk says nothing of forks


def test_a_forked_walk_says_it_is_a_fork_and_what_was_forced(walked):
    page = Page(walked["fork"].read_text())
    assert page.by_id["fork"][0] == "p"
    assert page.text_of["fork"] == "fork at decision 2 · forced seats, discounts"


def test_a_walk_with_a_prompt_variant_says_which(walked):
    page = Page(walked["variant"].read_text())
    assert page.text_of["fork"] == "fork · prompt v2 from decision 2"


def test_the_explorer_names_the_walk_a_fork_came_from(walked, tmp_path):
    """The walk screen's H knows the walk it forked from (a trace does not record it)."""
    corpus = load_corpus(HANDBOOK)
    source = WalkHistory.from_trace(read_trace(walked["walk"].with_name("walk.jsonl")))
    first = next(iter(source.decisions()))
    navigator = resolve_navigator(SCRIPT.replace("script:", f"script:{ROOT}/"))
    at_the_start = fork(source, first.offer_seq, ("billing",), corpus, navigator)
    at_the_start.run_headless()
    decisions = list(at_the_start.history.decisions())
    assert fork_line(decisions, 1) == "fork of walk 1 at decision 1 · forced billing"
    assert fork_line(decisions) == "decision 1 forced billing"  # without the source: a walk forced at its start
    assert fork_line(list(source.decisions())) is None


def test_the_transcripts_are_pretty_printed(walked):
    page = Page(walked["lexical"].read_text())
    last = len(page.data["frames"]) - 1
    lines = page.transcript(last).splitlines()
    at = lines.index("scored  JSON, pretty-printed")
    assert lines[at + 1: at + 4] == ["{", '  "kind": "bm25",', '  "scores": {']
    assert lines[-1] == "}"  # the transcript ends in the JSON's last line, not one line of raw JSON
    assert [line for line in lines if line.startswith('{"')] == []


def test_titles_are_whole_where_a_row_is_cut(walked):
    """Titles first (at the 120 columns the page is drawn at): a tree row too narrow shortens the id and drops the
    stop reason before it cuts a title; the answer card cuts its detail, never the title."""
    corpus = load_corpus(HANDBOOK)
    titles = {corpus.title_of(document.id) for document in corpus.index}
    cut, kept = [], 0
    for name in ("walk", "lexical", "fork"):
        for svg in Page(walked[name].read_text()).frames():
            for row in frame_rows(svg):
                for segment in re.findall(r"([^│┃]*?)…", row):
                    before = re.sub(r"^[ ├└─▶▼■◆✗•◌⚑?★]*(?:\d+\. )?", "", segment.split("  ")[-1]).rstrip()
                    if any(title.startswith(before) and title != before for title in titles if len(before) > 2):
                        cut.append(row)
                    else:
                        kept += 1
    assert cut == []
    assert kept > 0  # rows were cut (ids, details), and none of them in a title
