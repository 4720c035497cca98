"""The command line's words: ``walk`` says a call's tokens in words, ``eval``'s table never breaks an id
mid-word, and a run answered from the response cache says so, with the live cost it saved (issue 27)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from rich.console import Console

from core import NavigatorChoice, NavigatorRequest, TreeNavigator
from explorer.cli.render import eval_summary, usage_words
from explorer.corpora import load_corpus
from explorer.corpora.questions import Question
from explorer.corpora.validate import stats
from explorer.navigators.answered import Answered, answered_pair
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import evaluate, summarize
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = SAMPLES
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"


def run(*args: object, columns: int) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, columns=columns)  # type: ignore[return-value]


def test_walk_says_the_tokens_in_words(tmp_path):
    script = tmp_path / "tokens.yaml"
    script.write_text("decisions:\n  start: {select: [billing], rationale: why, "
                      "usage: {prompt_tokens: 568, completion_tokens: 67, total_tokens: 635}}\n"
                      "default: {select: []}\n")
    out = run("walk", SAMPLES / "handbook.yaml", "refunds", "--navigator", f"script:{script}", columns=120)
    assert out.returncode == 0, out.stderr
    [chose] = [line for line in out.stdout.splitlines() if "→ chose billing" in line]
    took, _, tokens = chose.partition(" s)  ")  # the call's seconds between (not asserted: a duration)
    assert took.startswith("├── → chose billing  (") and tokens == "568 prompt + 67 completion tokens"
    assert "prompt_tokens" not in out.stdout


def test_usage_words():
    assert usage_words({"prompt_tokens": 568, "completion_tokens": 67}) == "568 prompt + 67 completion tokens"
    assert usage_words({"prompt_tokens": 1200, "completion_tokens": 3, "total_tokens": 1203}) == (
        "1,200 prompt + 3 completion tokens")
    assert usage_words({"prompt_tokens": 12}) == "12 prompt tokens"
    assert usage_words({"total_tokens": 40}) == "40 tokens"
    assert usage_words({"prompt_tokens": 5, "completion_tokens": 1, "cached_tokens": 4}) == (
        "5 prompt + 1 completion tokens · cached tokens 4")
    assert usage_words({}) == "tokens: none counted"


def test_the_eval_table_never_breaks_an_id_mid_word():
    out = run("eval", SAMPLES / "handbook.questions.yaml", "--corpus", SAMPLES / "handbook.yaml", columns=120)
    assert out.returncode == 0, out.stderr
    ids = [line.split()[0] for line in (SAMPLES / "handbook.questions.yaml").read_text().splitlines()
           if line.startswith("  - id: ") for line in [line.removeprefix("  - id: ")]]
    table = out.stdout.split("hit rate")[0]
    cells = [cell.strip() for row in table.splitlines() for cell in row.split("│")[1:2]]
    assert ids and all(i in cells for i in ids), [i for i in ids if i not in cells]


class Cached(TreeNavigator):
    """Every answer read from a response cache: no call made, the first candidate taken."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        first = request.candidates[:1]
        return NavigatorChoice(tuple(c.id for c in first), "cached", None,
                               (answered_pair(Answered.CACHED, "an identical request"),))


def test_a_cached_run_says_cached_and_what_it_saved():
    questions = [Question("q1", "refunds", ("refunds",), 1), Question("q2", "seats", ("seats",), 2)]
    outcomes = evaluate(HANDBOOK, questions, WalkSettings(""), navigator=Cached())
    summary = summarize(outcomes, stats(HANDBOOK))
    assert summary.mean_calls == 0.0 and summary.cached == sum(o.answers for o in outcomes) > 0
    saved = sum(o.chars_saved for o in outcomes) / 2
    assert saved > 0 and all(o.chars_shipped == 0 for o in outcomes)
    console = Console(width=400, record=True, color_system=None)
    console.print(eval_summary(summary))
    words = console.export_text()
    calls = summary.cached / 2
    assert (f"  ·  cached: {summary.cached} answers from the response cache · saved live: {calls:.1f} calls and "
            f"{saved:,.0f} chars a question") in words
