"""The tests read their own copy of the sample corpora (issue 45, tried as three kinds of user, point 12): a person
who keeps a case with ``K`` in the README's tour changes the shipped question set, and ``make test`` must not then
count 42 questions where it expects 41."""

from __future__ import annotations

import re
from pathlib import Path

from tests.explorer.app.helpers import HANDBOOK_PATH
from tests.samples import OWN_SETS, SAMPLES, SHIPPED

TESTS = Path(__file__).resolve().parent


def test_the_tests_read_a_copy_whose_question_sets_are_their_own() -> None:
    assert not SAMPLES.is_relative_to(SHIPPED.parent) and HANDBOOK_PATH.parent == SAMPLES
    own = sorted(path.name for path in OWN_SETS.glob("*.questions.yaml"))
    assert own == sorted(path.name for path in SHIPPED.glob("*.questions.yaml"))
    for name in own:
        assert (SAMPLES / name).read_bytes() == (OWN_SETS / name).read_bytes()
    corpora = [path.name for path in SHIPPED.glob("*.yaml") if not path.name.endswith(".questions.yaml")]
    assert corpora and all((SAMPLES / name).read_bytes() == (SHIPPED / name).read_bytes() for name in corpora)


def test_no_test_names_a_shipped_question_set_by_its_absolute_path() -> None:
    shipped = re.compile("ROOT / \"sample_" + r'corpora"(?! / "scripts")')  # split: this file does not name it
    naming = [str(path.relative_to(TESTS)) for path in TESTS.rglob("*.py")
              if path.name not in ("test_sample_corpora.py", "samples.py") and shipped.search(path.read_text(encoding="utf-8"))]
    assert naming == []
