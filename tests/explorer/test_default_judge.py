"""The one default judge (explorer/navigators/judge.py's ``default_judge``): the bundled embeddings, else BM25
(``lexical:default``) when they cannot load, said in one line where the program says things (stderr for ``eval``
and ``diff``, a notice on the screens). The embeddings are made unavailable as an install without ``wordllama``
looks to an import (``sys.modules['wordllama'] = None``), in a process of its own: the bundled model loads once
per process, so this one must never have loaded it."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.command_line import ROOT, run_cli

WITHOUT_WORDLLAMA = (
    "import sys\n"
    "sys.modules['wordllama'] = None  # what an install without the package looks like to an import\n"
    "from explorer.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)
JUDGE_WITHOUT_WORDLLAMA = (
    "import sys\n"
    "sys.modules['wordllama'] = None\n"
    "from explorer.corpora import load_corpus\n"
    "from explorer.navigators.judge import default_judge\n"
    "told = []\n"
    "judge = default_judge(load_corpus('sample_corpora/handbook.yaml'), told.append)\n"
    "print(type(judge).__name__, judge.name)\n"
    "print(*told, sep='\\n')\n"
)
REASON = ("semantic: needs the wordllama package (import of wordllama halted; None in sys.modules); install it with "
          "`pip install 'wordllama>=0.4,<0.5'` (it ships the model in its wheel)")
SAID = f"the misses are judged by lexical:default (BM25): the bundled embeddings cannot load ({REASON})"


def without_wordllama(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", WITHOUT_WORDLLAMA, *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, env={**os.environ, "COLUMNS": "200"})


@pytest.mark.process
def test_the_default_judge_is_bm25_when_the_embeddings_cannot_load_and_says_why() -> None:
    out = subprocess.run([sys.executable, "-c", JUDGE_WITHOUT_WORDLLAMA], capture_output=True, text=True, cwd=ROOT,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines() == ["LexicalJudge lexical:default", SAID]


@pytest.mark.process
def test_eval_judges_by_bm25_when_the_embeddings_cannot_load_and_says_so_on_stderr() -> None:
    questions = "sample_corpora/handbook.questions.yaml"
    fallen = without_wordllama("eval", questions, "--navigator", "lexical:default", "--json")
    assert fallen.returncode == 0, fallen.stderr
    assert fallen.stderr.splitlines() == [f"reasoning-explorer: {SAID}"]
    named = run_cli("eval", questions, "--navigator", "lexical:default", "--json", "--judge", "lexical:default")
    assert named.returncode == 0, named.stderr
    fell, lexical = json.loads(fallen.stdout), json.loads(named.stdout)
    blames = [result["blame"] for result in fell["results"]]
    assert sum(blame is not None for blame in blames) == 28  # every miss judged, as BM25 named judges them
    assert blames == [result["blame"] for result in lexical["results"]]
    assert fell["summary"]["flat_hits_at_3"] == lexical["summary"]["flat_hits_at_3"]


@pytest.mark.process
def test_a_judge_named_falls_back_to_nothing_and_a_bad_one_is_one_line() -> None:
    named = without_wordllama("eval", "sample_corpora/handbook.questions.yaml", "--judge", "semantic:default")
    assert named.returncode == 2 and named.stdout == ""
    assert named.stderr.splitlines() == [f"reasoning-explorer: error: --judge: {REASON}"]


ON_SCREEN_WITHOUT_WORDLLAMA = """
import asyncio, sys
sys.modules['wordllama'] = None
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from tests.explorer.app.helpers import Explorer, wait_for

async def main():
    settings = WalkSettings("How much is the home office budget for new employees?", "lexical:default",
                            max_nodes_visited=6)
    app = Explorer(load_corpus("sample_corpora/handbook.yaml"), settings,
                   navigator=resolve_navigator("lexical:default"), start_walk=True)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("c")
        await wait_for(pilot, lambda: app.walk_screen.view.history.end == "finished")
        walk = app.walk_screen.view.walk
        await wait_for(pilot, lambda: walk.judged is not None and bool(app.notes), timeout=120)
        print(walk.judged[1][0])
        print(*[note.message for note in app.notes], sep="\\n")

asyncio.run(main())
"""


@pytest.mark.process
def test_the_step_panel_judges_by_bm25_when_the_embeddings_cannot_load_and_the_screen_says_so() -> None:
    out = subprocess.run([sys.executable, "-c", ON_SCREEN_WITHOUT_WORDLLAMA], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith("the map misled: at the roots, the title and summary of 'Onboarding' rank it 1st")
    assert lines[0].endswith("(the judge is the navigator's own scoring: this says only whether the map or the walk "
                             "was at fault)")  # BM25 judging the BM25 navigator
    assert f"{SAID[:1].upper()}{SAID[1:]}." in lines[1:]


EVALUATION_WITHOUT_WORDLLAMA = """
import asyncio, sys
sys.modules['wordllama'] = None
from textual.widgets import DataTable
from tests.explorer.app.helpers import make_app, wait_for
from tests.explorer.app.reading import table_rows
from tests.explorer.app.test_judge_named import QUESTIONS, judged_all

async def main():
    app = make_app(evaluate=(QUESTIONS, None))
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "EvaluationScreen")
        screen = app.screen
        await wait_for(pilot, lambda: judged_all(screen) and bool(app.notes), timeout=120)
        for row in table_rows(screen.query_one(DataTable)):
            print(row[1], "|", row[5], "|", row[6])
        print(*[note.message for note in app.notes], sep="\\n")

asyncio.run(main())
"""


@pytest.mark.process
def test_the_evaluation_screen_judges_by_bm25_when_the_embeddings_cannot_load_and_says_so() -> None:
    out = subprocess.run([sys.executable, "-c", EVALUATION_WITHOUT_WORDLLAMA], capture_output=True, text=True,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:4] == ["trial-ends |  | 1st", "eu-vat-number |  | 1st", "money-back | map hid it · Billing | 8th",
                         "mistyped-too-often | navigator erred | 67th"]  # as --judge lexical:default says them
    assert f"{SAID[:1].upper()}{SAID[1:]}." in lines[4:]
