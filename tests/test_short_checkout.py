"""The tests that quote the checkout's path pass from a checkout whose path is 7 characters long.

A message that names a script (``navigator 'script:/…/provider-failure.yaml' failed …``) is longer or shorter
with the checkout's path, so a test that expects it cut at a fixed width can pass from a long path and fail from
a short one. This copies the working tree (what git tracks, and new files it does not ignore) to a free
``/tmp/rN`` (7 characters), runs those tests there with this interpreter, and removes the copy.
"""

from __future__ import annotations

import os
import shutil
import string
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytestmark = [pytest.mark.process, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent
SHORT_LENGTH = 7
PATH_SENSITIVE = (
    # Walks with a script navigator, whose name carries the script's path into what the tests read: the
    # narration (cut at 200 characters), the trace, the walk list's names, the history, stepping, transcripts.
    "tests/explorer/test_decision_steps.py",
    "tests/explorer/test_trace.py",
    "tests/explorer/test_walk_list.py",
    "tests/explorer/test_history.py",
    "tests/explorer/test_stepping.py",
    "tests/explorer/navigators/test_transcripts.py",
)
INSIDE = "EXPLORER_SHORT_CHECKOUT"  # set in the copy's run, so it never copies itself again


def working_tree_files() -> list[str]:
    """The working tree's files as a clone would hold them, with the changes not yet committed."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"], cwd=ROOT,
                                capture_output=True, check=True, timeout=60).stdout
    except (OSError, subprocess.CalledProcessError) as exc:
        pytest.skip(f"not a git checkout, or no git: {exc}")
    return [name for name in listed.decode().split("\0") if name and (ROOT / name).is_file()]


@pytest.fixture
def short_checkout() -> Iterator[Path]:
    """A copy of the working tree at a path of exactly 7 characters; claimed with mkdir, so two runs at once
    take two different ones."""
    files = working_tree_files()
    for letter in string.ascii_lowercase + string.digits:
        place = Path(f"/tmp/r{letter}")
        assert len(str(place)) == SHORT_LENGTH
        try:
            place.mkdir()
        except FileExistsError:
            continue
        break
    else:
        pytest.fail("every /tmp/rN (N a letter or digit) is taken: remove the stale ones left by killed runs")
    try:
        for name in files:
            target = place / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target)
        yield place
    finally:
        shutil.rmtree(place, ignore_errors=True)


@pytest.mark.skipif(os.environ.get(INSIDE) == "1", reason="already in the short checkout")
def test_the_path_sensitive_tests_pass_from_a_checkout_at_a_7_character_path(short_checkout: Path) -> None:
    environment = {**os.environ, INSIDE: "1", "PYTHONPATH": str(short_checkout)}  # its code, not this checkout's
    where = subprocess.run([sys.executable, "-c", "import core, explorer; print(core.__file__, explorer.__file__)"],
                           cwd=short_checkout, env=environment, capture_output=True, text=True, timeout=120)
    assert where.stdout.split() == [str(short_checkout / "core" / "__init__.py"),
                                    str(short_checkout / "explorer" / "__init__.py")], where.stderr
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *PATH_SENSITIVE],
                         cwd=short_checkout, env=environment, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"from {short_checkout}:\n{run.stdout[-4000:]}\n{run.stderr[-2000:]}"
