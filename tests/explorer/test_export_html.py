"""`reasoning-explorer export TRACE --html OUT.html`: a walk as one file, opened in a real headless Chromium with the
network off, stepped through with its keys and buttons, and read: the stop reasons, the answer card, a forced
decision, a hallucinated id and a failure as the explorer shows them — and a corpus whose titles are markup,
shown as text and never run."""

from __future__ import annotations

import base64
import dataclasses
import gzip
import json
import re
import subprocess
from pathlib import Path

import pytest

from core import NavigatorChose
from explorer.navigators import NavigatorConfigError, resolve_navigator
from explorer.navigators.answer_size import Cut, cut_answers, ids_kept
from explorer.trace import read_trace
from tests.command_line import run_cli
from tests.samples import SAMPLES

from .serve_helpers import ROOT
from .test_serve_browser import CHROMIUM, CHROMIUM_ARGS, WAIT_MS

HOSTILE_CORPUS = """\
source: hostile
title: "Hostile <corpus>"
nodes:
  - id: evil
    title: "<script>window.pwned=1</script>"
    summary: "<img src=x onerror=\\"window.pwned=2\\">"
    children:
      - id: leafy
        title: "Leafy & <b>bold</b>"
        summary: "a leaf"
        content: "The answer </script><script>window.pwned=3</script> is here."
      - id: other
        title: "Other"
  - id: calm
    title: "Calm"
    summary: "nothing to see"
    children:
      - id: calm-leaf
        title: "Calm leaf"
        content: "quiet"
"""
HOSTILE_SCRIPT = """\
decisions:
  start: {select: [evil, calm], rationale: "both <script>window.pwned=4</script>"}
  calm: {error: "upstream <i>down</i>"}
default: []
"""


def run(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, columns=None)  # type: ignore[return-value]


@pytest.fixture(scope="module")
def hostile_walk(tmp_path_factory) -> tuple[Path, Path]:
    """A walk of a corpus whose titles are markup: a forced decision naming an id never offered, a failure
    under on-failure partial; its trace, and the HTML exported from it."""
    folder = tmp_path_factory.mktemp("export")
    corpus = folder / "hostile.yaml"
    corpus.write_text(HOSTILE_CORPUS)
    navigator = folder / "hostile-script.yaml"
    navigator.write_text(HOSTILE_SCRIPT)
    trace = folder / "walk.jsonl"
    walked = run("walk", str(corpus), "what is evil?", "--navigator", f"script:{navigator}", "--on-failure",
                 "partial", "--force", "evil=leafy,ghost", "--trace", str(trace))
    assert walked.returncode == 0, walked.stderr
    out = folder / "walk.html"
    exported = run("export", str(trace), "--html", str(out))
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr.startswith(f"reasoning-explorer: wrote {out}: 14 steps (5 decision steps), ")
    return trace, out


@pytest.fixture
def browser():
    """Chromium, for one test: Playwright's sync API holds an event loop in this thread while it runs, and the
    export of a later test (asyncio.run, in this process) could not start beside it."""
    if not CHROMIUM.exists():
        pytest.skip("chromium-headless-shell not installed: apt-get install -y chromium-headless-shell")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


# The frame's side panel (right of the tree, which takes 40% of its 120 columns), line by line: the text runs of
# Rich's SVG, grouped by the line their clip path names, at a column read from x (20 px lines, aspect 0.61).
SIDE_TEXT = """() => {
  const lines = new Map();
  for (const run of document.querySelectorAll("#frame svg text[clip-path]")) {
    const column = Math.round(parseFloat(run.getAttribute("x")) / (20 * 0.61));
    if (column < 48) continue;
    const line = run.getAttribute("clip-path");
    let text = lines.get(line) || "";
    text = text.padEnd(column - 48, " ") + run.textContent;  // blank runs are not exported: pad to the column
    lines.set(line, text);
  }
  return [...lines.values()].join("\\n");
}"""


def side_text(page) -> str:
    """What the frame's side panel says, as words: borders gone, a line's wrap read as one space."""
    text = page.evaluate(SIDE_TEXT).replace("\u00a0", " ")
    return " ".join(re.sub(r"[│┃▊▎▏█╭╮╰╯├└─━┏┓┗┛]", " ", text).split())


def ready(page) -> None:
    # A selector, not a JavaScript predicate: the page's policy forbids eval, and the test keeps it on.
    page.wait_for_selector("body[data-ready=yes]", timeout=WAIT_MS)


def test_the_file_is_one_self_contained_page(hostile_walk):
    _, out = hostile_walk
    text = out.read_text()
    for outside in ("http://", "https://", "<link", "@font-face", "@import", " src="):
        assert outside not in text.replace("http://www.w3.org/2000/svg", ""), outside
    assert text.count("<script") == 2  # the walk's data, and the page's own script: nothing from the corpus
    assert "<script>window.pwned" not in text
    assert "<title>what is evil?</title>" in text


@pytest.mark.browser
def test_the_walk_replays_offline_with_keys_and_buttons(hostile_walk, browser):
    _, out = hostile_walk
    context = browser.new_context(offline=True, viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    page.goto(out.as_uri())
    ready(page)
    assert page.inner_text("#where") == "Step 1 of 14 · decision 1 of 5"
    first = side_text(page)
    assert "The navigator (script:" in first and "is asked “what is evil?”" in first

    seen = [first]
    for number in range(2, 6):  # n: a decision at a time, to the end
        page.keyboard.press("n")
        ready(page)
        assert page.inner_text("#where").endswith(f"of 14 · decision {number} of 5")
        seen.append(side_text(page))
    page.keyboard.press("n")  # past the end: it stays there
    ready(page)
    assert page.inner_text("#where") == "Step 14 of 14 · decision 5 of 5"

    # A forced decision and the id it named that was never offered, as the explorer shows them.
    forced = seen[2]
    assert "a person forced the answer: Leafy & <b>bold</b>" in forced
    assert "⚑" in forced and "ghost — never offered (hallucinated)" in forced
    # The failure, under on-failure partial.
    failed = seen[3]
    assert "the navigator failed: ScriptedFailure: upstream <i>down</i>" in failed
    assert "The walk goes on (on failure: partial)." in failed
    # The end: the stop reasons and the answer card.
    end = seen[4]
    assert "The answer: Leafy & <b>bold</b> · 2 stand-ins" in end  # ranked: the one leaf first, set apart
    assert "★ 1. Leafy & <b>bold</b> forced · named 1st of 2" in end
    assert "◌ <script>window.pwned=1</script> stand-in: it chose one never…" in end  # cut after a whole word
    assert "◌ Calm stand-in: the navigator failed" in end
    assert "The answer </script><script>window.pwned=3</script> is here." in end  # content, as text

    # The buttons: back, first, play; and every event, one at a time.
    page.click("#back")
    ready(page)
    assert page.inner_text("#where") == "Step 12 of 14 · decision 4 of 5"
    page.click("#first")
    ready(page)
    assert page.inner_text("#where") == "Step 1 of 14 · decision 1 of 5"
    page.check("#every")
    ready(page)
    page.keyboard.press("ArrowRight")
    ready(page)
    assert page.inner_text("#where") == "Step 2 of 14"
    page.keyboard.press("End")
    ready(page)
    assert page.inner_text("#where") == "Step 14 of 14"
    page.uncheck("#every")
    page.click("#first")
    ready(page)
    page.click("#play")
    page.wait_for_selector("#where:text-matches('decision 5 of 5$')", timeout=WAIT_MS)
    page.wait_for_selector("#play:text-is('▶ Play')", timeout=WAIT_MS)  # play stops at the end
    assert page.inner_text("#where") == "Step 14 of 14 · decision 5 of 5"
    # The slider: by its own keys, and set outright.
    page.click("#first")
    ready(page)
    page.focus("#slider")
    page.keyboard.press("ArrowRight")
    ready(page)
    assert page.inner_text("#where").endswith("of 14 · decision 2 of 5")
    assert page.get_attribute("#slider", "max") == "4"
    page.fill("#slider", "4")
    ready(page)
    assert page.inner_text("#where") == "Step 14 of 14 · decision 5 of 5"
    # What a person forced, in the header.
    assert page.inner_text("#fork") == "decision 2 forced leafy, ghost"
    # The transcript of the decision at a step.
    page.click("#first")
    ready(page)
    page.keyboard.press("n")
    ready(page)
    assert "both <script>window.pwned=4</script>" in page.inner_text("#transcript")

    assert page.evaluate("() => typeof window.pwned") == "undefined"  # no corpus or navigator text ran
    assert requests == [out.as_uri()]  # nothing but the file itself was asked for
    context.close()


def test_an_output_that_is_an_input_is_refused(hostile_walk, tmp_path):
    trace, _ = hostile_walk
    out = run("export", str(trace), "--html", str(trace))
    assert out.returncode == 2
    assert out.stderr == (f"reasoning-explorer: error: --html {trace} is the trace ({trace}); an output must not "
                          "overwrite an input: choose another file\n")
    corpus = trace.with_name("hostile.yaml")
    out = run("export", str(trace), "--html", str(corpus))
    assert out.returncode == 2 and "is the corpus" in out.stderr
    assert corpus.read_text() == HOSTILE_CORPUS
    missing = run("export", str(trace))
    assert missing.returncode == 2
    assert missing.stderr == ("reasoning-explorer: error: the following arguments are required: --html (see "
                              "`reasoning-explorer export --help`)\n")
    folder = run("export", str(trace), "--html", str(tmp_path))
    assert folder.returncode == 2 and "it is a folder" in folder.stderr


def test_a_trace_whose_navigator_cannot_be_had_here_still_exports(hostile_walk, tmp_path):
    trace, _ = hostile_walk
    unknown = "no-such-provider:model-7"
    with pytest.raises(NavigatorConfigError):
        resolve_navigator(unknown)
    header, *rest = trace.read_text().splitlines(keepends=True)
    elsewhere = tmp_path / "elsewhere.jsonl"
    elsewhere.write_text(re.sub(r'"navigator": ?"[^"]*"', f'"navigator": "{unknown}"', header) + "".join(rest))
    assert f'"{unknown}"' in elsewhere.read_text()
    out = tmp_path / "walk.html"
    exported = run("export", str(elsewhere), "--html", str(out))
    assert exported.returncode == 0, exported.stderr
    assert exported.stderr.startswith(f"reasoning-explorer: wrote {out}: 14 steps (5 decision steps), ")
    assert f"· {unknown} · budget " in out.read_text()


def test_a_recorded_answer_of_100000_ids_is_drawn_cut_as_a_live_one_and_the_page_says_so(tmp_path):
    """export --html (and H, through the same export_walk) drew a trace's decisions uncut: one answer of 100,000 ids
    took 23 s and 440 MB (5 s and 170 MB uncut); replay and re-walks cut it to ids_kept of the offer already."""
    trace, out = tmp_path / "t.jsonl", tmp_path / "t.html"
    handbook = SAMPLES / "handbook.yaml"
    assert run("walk", str(handbook), "refund", "--navigator", "lexical:default", "--trace", str(trace)).returncode == 0
    lines = trace.read_text().splitlines()
    first = next(n for n, line in enumerate(lines) if json.loads(line).get("event") == "navigator_chose")
    event = json.loads(lines[first])
    junk = [f"junk-{n}" for n in range(100_000)]
    event["selected"], event["hallucinated"] = ["billing", *junk], junk
    lines[first] = json.dumps(event)
    trace.write_text("\n".join(lines) + "\n")
    done = run("export", str(trace), "--html", str(out))
    assert done.returncode == 0, done.stderr
    page = out.read_text()
    kept = ids_kept(9)  # the handbook's nine roots were offered
    assert re.findall(r'<p class="meta" id="cut">([^<]*)</p>', page) == [
        f"The answer at step {first} selected 100,001 ids: the first {kept} are shown, as a live answer is cut."]
    data = json.loads(re.search(r'<script id="walk-data" type="application/json">(.*?)</script>', page).group(1))
    drawn = [gzip.decompress(base64.b64decode(packed)).decode() for packed in data["frames"] + data["transcripts"]]
    assert not any(f"junk-{kept - 1}" in text for text in drawn)  # the first id past the cut is drawn nowhere
    assert "junk-0" in "".join(drawn)  # one kept is: the answer is shown as cut, not dropped


def test_answers_are_cut_where_they_hold_more_ids_than_a_live_answer_keeps(tmp_path):
    trace = tmp_path / "t.jsonl"
    assert run("walk", str(SAMPLES / "handbook.yaml"), "refund", "--navigator", "lexical:default",
               "--trace", str(trace)).returncode == 0
    events = read_trace(trace).events
    assert cut_answers(events) == (events, ())  # nothing over: the same events
    at = next(n for n, e in enumerate(events) if isinstance(e, NavigatorChose))
    many = tuple(f"junk-{n}" for n in range(500))
    big = dataclasses.replace(events[at], selected=("billing", *many), hallucinated=many)
    cut, cuts = cut_answers((*events[:at], big, *events[at + 1:]))
    assert cuts == (Cut(at + 1, 501, ids_kept(9)),)
    assert cut[at].selected == ("billing", *many[:ids_kept(9) - 1]) and cut[at].hallucinated == many[:ids_kept(9) - 1]
    assert cut[:at] == events[:at] and cut[at + 1:] == events[at + 1:]
