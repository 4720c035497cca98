"""An output never overwrites an input, nor another output (issue 21, point 3).

Every command that writes (``--trace``, ``--otlp-file``) is run through the real entry point with an output that
is, by its name, through a symlink or through a hard link, a file the command reads: the corpus, the question
set, the trace opened or replayed, a navigator's script, a Markdown file of a corpus folder; or both outputs on
one file. Each is one line and exit code 2 before anything is written: the inputs keep their bytes, and no
output appears.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from core import OnFailure
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.session import WalkSession
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = SAMPLES
SCRIPT = shutil.which("reasoning-explorer", path=str(Path(sys.executable).parent)) or "reasoning-explorer"
KEEP = "an output must not overwrite an input: choose another file"


def run(*args: object, cwd: Path) -> subprocess.CompletedProcess[str]:
    return run_cli(*args, cwd=cwd, env={"OPENAI_API_KEY": "sk-outputs-000111"})  # type: ignore[return-value]


@pytest.fixture
def here(tmp_path: Path) -> Path:
    """A folder with the handbook, its question set, a script, a trace, a Markdown folder and links to them."""
    shutil.copy(SAMPLES / "handbook.yaml", tmp_path / "hb.yaml")
    (tmp_path / "q.questions.yaml").write_text(
        "corpus: hb.yaml\nquestions:\n  - {id: q1, query: refunds, expect: [refunds]}\n")
    shutil.copy(SAMPLES / "scripts" / "hallucinated-branch.yaml", tmp_path / "s.yaml")
    session = WalkSession(load_corpus(tmp_path / "hb.yaml"),
                          WalkSettings("refunds", "lexical:default", on_failure=OnFailure.PARTIAL),
                          resolve_navigator("lexical:default"))
    session.run_headless()
    session.save_trace(tmp_path / "t.jsonl")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "intro.md").write_text("# Intro\n\nHow it starts.\n")
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "hb.yaml")  # an output name that leads to the corpus
    (tmp_path / "corpus-link.yaml").symlink_to(tmp_path / "hb.yaml")  # a corpus name that leads to it
    os.link(tmp_path / "q.questions.yaml", tmp_path / "hard.jsonl")  # the question set under another name
    (tmp_path / "nav.py").write_text(NAVIGATOR)  # a py: navigator's source
    (tmp_path / "sys.txt").write_text("You pick sections.\n")  # prompt files an LLM navigator's id names
    (tmp_path / "user.txt").write_text("Question: {query}\n{candidates}\n")
    return tmp_path


NAVIGATOR = """
from core import NavigatorChoice, TreeNavigator


class FirstOne(TreeNavigator):
    def supports(self, model):
        return False

    def choose(self, request):
        return NavigatorChoice(tuple(c.id for c in request.candidates[:1]), rationale="the first one")
"""


def fingerprint(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` (links as the files they lead to) and a hash of its bytes."""
    return {str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
            for path in sorted(folder.rglob("*")) if path.is_file()}


CASES = [
    # walk: the corpus, by its name and through a symlink either way; a navigator's files
    (["walk", "hb.yaml", "refund", "--otlp-file", "hb.yaml"], f"--otlp-file hb.yaml is the corpus (hb.yaml); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--trace", "hb.yaml"], f"--trace hb.yaml is the corpus (hb.yaml); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--trace", "./hb.yaml"], f"--trace hb.yaml is the corpus (hb.yaml); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--trace", "link.jsonl"], f"--trace link.jsonl is the corpus (hb.yaml); {KEEP}"),
    (["walk", "corpus-link.yaml", "refund", "--otlp-file", "hb.yaml"],
     f"--otlp-file hb.yaml is the corpus (corpus-link.yaml); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--navigator", "replay:t.jsonl", "--trace", "t.jsonl"],
     f"--trace t.jsonl is the file --navigator reads (t.jsonl); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--navigator", "script:s.yaml", "--otlp-file", "s.yaml"],
     f"--otlp-file s.yaml is the file --navigator reads (s.yaml); {KEEP}"),
    (["walk", "docs", "intro", "--trace", "docs/intro.md"],
     "--trace docs/intro.md is a Markdown file inside the corpus (docs), which reads it; choose a file outside it"),
    (["walk", "docs", "intro", "--otlp-file", "docs/new.md"],
     "--otlp-file docs/new.md is a Markdown file inside the corpus (docs), which reads it"),
    # walk: one output over the other, which would lose the spans
    (["walk", "hb.yaml", "refund", "--trace", "x.jsonl", "--otlp-file", "x.jsonl"],
     "--trace x.jsonl and --otlp-file x.jsonl are one file; give each output its own file"),
    (["walk", "hb.yaml", "refund", "--trace", "x.jsonl", "--otlp-file", "./x.jsonl"],
     "--trace x.jsonl and --otlp-file x.jsonl are one file"),
    # eval: the question set (by name, and through a hard link), its corpus, the compared navigator's script
    (["eval", "q.questions.yaml", "--otlp-file", "q.questions.yaml"],
     f"--otlp-file q.questions.yaml is the question set (q.questions.yaml); {KEEP}"),
    (["eval", "q.questions.yaml", "--otlp-file", "hard.jsonl"],
     f"--otlp-file hard.jsonl is the question set (q.questions.yaml); {KEEP}"),
    (["eval", "q.questions.yaml", "--otlp-file", "hb.yaml"], "--otlp-file hb.yaml is the corpus ({here}/hb.yaml); " + KEEP),
    (["eval", "q.questions.yaml", "--compare", "script:s.yaml", "--otlp-file", "s.yaml"],
     f"--otlp-file s.yaml is the file --compare reads (s.yaml); {KEEP}"),
    # a py: navigator's source, by file and by module name (found beside the command, as the navigator finds it)
    (["walk", "hb.yaml", "refund", "--navigator", "py:nav.py:FirstOne", "--trace", "nav.py"],
     f"--trace nav.py is the file --navigator reads (nav.py); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--navigator", "py:nav.py:FirstOne", "--otlp-file", "nav.py"],
     f"--otlp-file nav.py is the file --navigator reads (nav.py); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--navigator", "py:nav:FirstOne", "--trace", "nav.py"],
     "--trace nav.py is the file --navigator reads ({here}/nav.py); " + KEEP),
    (["eval", "q.questions.yaml", "--navigator", "py:nav.py:FirstOne", "--save-run", "nav.py"],
     f"--save-run nav.py is the file --navigator reads (nav.py); {KEEP}"),
    # prompt files: in the model id, by --system-prompt and --prompt-template, and in a --compare model's id
    (["walk", "hb.yaml", "refund", "--navigator", "openai:gpt-x@system=sys.txt", "--trace", "sys.txt"],
     f"--trace sys.txt is the file --navigator reads (sys.txt); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--navigator", "local:smollm2@prompt=user.txt", "--otlp-file", "user.txt"],
     f"--otlp-file user.txt is the file --navigator reads (user.txt); {KEEP}"),
    (["walk", "hb.yaml", "refund", "--navigator", "openai:gpt-x", "--system-prompt", "sys.txt", "--trace", "sys.txt"],
     "--trace sys.txt is the file --navigator reads ({here}/sys.txt); " + KEEP),
    (["walk", "hb.yaml", "refund", "--navigator", "openai:gpt-x", "--prompt-template", "user.txt", "--trace",
      "user.txt"], "--trace user.txt is the file --navigator reads ({here}/user.txt); " + KEEP),
    (["eval", "q.questions.yaml", "--compare", "openai:gpt-x@prompt=user.txt", "--save-run", "user.txt"],
     f"--save-run user.txt is the file --compare reads (user.txt); {KEEP}"),
    # a judge that is a navigator reads its files too (--judge script:FILE), in every command that takes --judge
    (["eval", "q.questions.yaml", "--judge", "script:s.yaml", "--save-run", "s.yaml"],
     f"--save-run s.yaml is the file --judge reads (s.yaml); {KEEP}"),
    (["hb.yaml", "--judge", "script:s.yaml", "--trace", "s.yaml"], f"--trace s.yaml is the file --judge reads (s.yaml); {KEEP}"),
    (["serve", "hb.yaml", "--judge", "script:s.yaml", "--otlp-file", "s.yaml"],
     f"--otlp-file s.yaml is the file --judge reads (s.yaml); {KEEP}"),
    # eval --save-run: over the question set, the corpus, the kept run it compares with, or the spans
    (["eval", "q.questions.yaml", "--save-run", "q.questions.yaml"],
     f"--save-run q.questions.yaml is the question set (q.questions.yaml); {KEEP}"),
    (["eval", "q.questions.yaml", "--save-run", "hb.yaml"], "--save-run hb.yaml is the corpus ({here}/hb.yaml); " + KEEP),
    (["eval", "q.questions.yaml", "--otlp-file", "x.json", "--save-run", "x.json"],
     "--otlp-file x.json and --save-run x.json are one file; give each output its own file"),
    # the explorer: every check before the screen opens
    (["hb.yaml", "--otlp-file", "hb.yaml"], f"--otlp-file hb.yaml is the corpus (hb.yaml); {KEEP}"),
    (["t.jsonl", "--trace", "t.jsonl"], f"--trace t.jsonl is the trace (t.jsonl); {KEEP}"),
    (["t.jsonl", "--otlp-file", "link.jsonl"], "--otlp-file link.jsonl is the corpus ({here}/hb.yaml); " + KEEP),
    (["q.questions.yaml", "--trace", "q.questions.yaml"],
     f"--trace q.questions.yaml is the question set (q.questions.yaml); {KEEP}"),
    (["q.questions.yaml", "--trace", "hb.yaml"], "--trace hb.yaml is the corpus ({here}/hb.yaml); " + KEEP),
    (["hb.yaml", "--navigator", "script:s.yaml", "--trace", "s.yaml"],
     f"--trace s.yaml is the file --navigator reads (s.yaml); {KEEP}"),
    (["hb.yaml", "--trace", "x.jsonl", "--otlp-file", "x.jsonl"], "--trace x.jsonl and --otlp-file x.jsonl are one"),
    # serve: what each session would write, refused before the server starts
    (["serve", "hb.yaml", "--trace", "hb.yaml"], f"--trace hb.yaml is the corpus (hb.yaml); {KEEP}"),
    (["serve", "t.jsonl", "--otlp-file", "t.jsonl"], f"--otlp-file t.jsonl is the trace (t.jsonl); {KEEP}"),
    (["serve", "hb.yaml", "--trace", "x.jsonl", "--otlp-file", "link.jsonl"], "--otlp-file link.jsonl is the corpus"),
]


@pytest.mark.parametrize(("args", "message"), CASES, ids=[f"{n:02d}" for n in range(len(CASES))])
def test_an_output_that_is_an_input_or_another_output_is_refused_before_anything_is_written(
        here: Path, args: list[str], message: str) -> None:
    before = fingerprint(here)
    out = run(*args, cwd=here)
    assert out.returncode == 2, out
    assert out.stderr.startswith("reasoning-explorer: error: ") and out.stderr.count("\n") == 1, out.stderr
    assert message.format(here=here) in out.stderr
    assert out.stdout == ""
    assert fingerprint(here) == before  # every input as it was, and no output written


def test_an_output_beside_the_inputs_is_written(here: Path) -> None:
    out = run("walk", "hb.yaml", "refund", "--trace", "walk.jsonl", "--otlp-file", "spans.jsonl", cwd=here)
    assert out.returncode == 0, out.stderr
    assert (here / "walk.jsonl").stat().st_size > 0 and (here / "spans.jsonl").stat().st_size > 0
    out = run("walk", "docs", "intro", "--trace", "docs/walk.jsonl", cwd=here)  # not a file the folder reads
    assert out.returncode == 0, out.stderr
