"""The sample corpora as the tests read them: a copy of their own, never the shipped files a person changes.

The shipped question sets (``sample_corpora/*.questions.yaml``) are where the README's tour keeps a case with ``K``;
a test that counted the shipped set's 41 questions failed after a person took the tour (issue 45). So the tests read
a copy made once per test process in a temporary folder (removed as the process ends; the processes it starts
read the same copy): the corpora copied from
``sample_corpora`` (the explorer never writes a corpus), the question sets from the tests' own tracked copies in
``tests/sample_sets``. The shipped files themselves are checked by ``tests/explorer/corpora/test_sample_corpora.py``.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path
from typing import Final

ROOT: Final = Path(__file__).resolve().parents[1]
SHIPPED: Final = ROOT / "sample_corpora"
OWN_SETS: Final = Path(__file__).resolve().with_name("sample_sets")


_INHERITED: Final = "REASONING_EXPLORER_TEST_SAMPLES"
"""Where the copy is, for the processes a test starts (one spawned to keep questions reads the same files)."""


def _own_copy() -> Path:
    given = os.environ.get(_INHERITED)
    if given and Path(given).is_dir():
        return Path(given)
    folder = Path(tempfile.mkdtemp(prefix="reasoning-explorer-samples-")) / "sample_corpora"
    folder.mkdir()
    atexit.register(shutil.rmtree, folder.parent, ignore_errors=True)
    os.environ[_INHERITED] = str(folder)
    for corpus in SHIPPED.glob("*.yaml"):
        if not corpus.name.endswith(".questions.yaml"):
            shutil.copyfile(corpus, folder / corpus.name)
    for questions in OWN_SETS.glob("*.questions.yaml"):
        shutil.copyfile(questions, folder / questions.name)
    if (SHIPPED / "scripts").is_dir():  # the script: navigators' answers, which tests copy beside their own corpora
        shutil.copytree(SHIPPED / "scripts", folder / "scripts")
    return folder


SAMPLES: Final = _own_copy()
"""This test process's copy of the sample corpora and their question sets."""
