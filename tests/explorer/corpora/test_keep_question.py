"""A case found while debugging kept as a question: appended to a question set file (made when missing), in the
format `validate` checks, never overwriting a question."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.questions import keep_question, load_questions, question_id_for
from tests.command_line import run_cli
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"


@pytest.fixture(scope="module")
def corpus():
    return load_corpus(HANDBOOK)


def validate(path: Path) -> subprocess.CompletedProcess[str]:
    return run_cli("validate", path, columns=None)  # type: ignore[return-value]


def test_a_missing_set_is_made_naming_the_corpus_and_validates(corpus, tmp_path: Path) -> None:
    path = tmp_path / "kept.questions.yaml"
    kept = keep_question(path, corpus, "how long do refunds take", ["refund-delivery"])
    assert (kept.id, kept.query, kept.expect) == ("how-long-do-refunds-take", "how long do refunds take",
                                                  ("refund-delivery",))
    assert load_questions(path).corpus_path == HANDBOOK.resolve()
    done = validate(path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_appending_keeps_comments_and_every_question_and_never_overwrites(corpus, tmp_path: Path) -> None:
    path = tmp_path / "handbook.questions.yaml"
    shutil.copy(SAMPLES / "handbook.questions.yaml", path)
    (tmp_path / "handbook.yaml").symlink_to(HANDBOOK)
    before = path.read_text()
    count = len(load_questions(path).questions)
    tricky = 'refunds: "fast" # or slow?\x1b[2J'
    kept = keep_question(path, corpus, tricky, ["refund-delivery", "refunds"], question_id="money-back-2")
    assert path.read_text().startswith(before.rstrip("\n"))
    after = load_questions(path)
    assert len(after.questions) == count + 1
    assert after.questions[-1] == kept
    assert (kept.id, kept.query, kept.expect) == ("money-back-2", tricky, ("refund-delivery", "refunds"))
    with pytest.raises(CorpusError, match="question id 'money-back' is taken; give another id"):
        keep_question(path, corpus, "x", ["refunds"], question_id="money-back")
    second = keep_question(path, corpus, tricky, ["refunds"])
    assert second.id == question_id_for(tricky) == "refunds-fast-or-slow-2j"
    third = keep_question(path, corpus, tricky, ["refunds"])
    assert third.id == "refunds-fast-or-slow-2j-2"
    assert validate(path).returncode == 0


def test_what_cannot_be_kept_writes_nothing(corpus, tmp_path: Path) -> None:
    other = tmp_path / "other.questions.yaml"
    shutil.copy(SAMPLES / "regulation.questions.yaml", other)
    (tmp_path / "regulation.yaml").symlink_to(SAMPLES / "regulation.yaml")
    text = other.read_text()
    with pytest.raises(CorpusError, match="a question set for .*regulation.yaml, not for .*handbook.yaml"):
        keep_question(other, corpus, "q", ["refunds"])
    flow = tmp_path / "flow.questions.yaml"
    flow.write_text(f"corpus: {HANDBOOK}\nquestions: [{{id: a, query: b, expect: [refunds]}}]\n")
    with pytest.raises(CorpusError, match=r"its `questions:` list cannot be appended to"):
        keep_question(flow, corpus, "q", ["refunds"])
    with pytest.raises(CorpusError, match="'nope' is not a node of"):
        keep_question(tmp_path / "new.questions.yaml", corpus, "q", ["nope"])
    assert other.read_text() == text
    assert not (tmp_path / "new.questions.yaml").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "flow.questions.yaml", "other.questions.yaml", "regulation.yaml"]


def _keep_many(path: str, writer: int, count: int) -> list[str]:
    """In a process of its own: keep ``count`` questions in the set at ``path``; the ids it was told were kept."""
    corpus = load_corpus(HANDBOOK)
    return [keep_question(path, corpus, f"writer {writer} question {n}", ["refunds"]).id for n in range(count)]


@pytest.mark.process
def test_four_processes_keeping_at_once_lose_no_question_they_were_told_was_kept(corpus, tmp_path: Path) -> None:
    """Four processes × 25: 82 were said kept and 55 were in the file, some failed with the wrong reason, and a
    bare StopIteration escaped (issue 38, point 2)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    path = tmp_path / "kept.questions.yaml"
    keep_question(path, corpus, "the first question", ["refunds"])
    with ProcessPoolExecutor(4, mp_context=multiprocessing.get_context("spawn")) as pool:
        said = [id_ for ids in pool.map(_keep_many, [str(path)] * 4, range(4), [25] * 4) for id_ in ids]
    assert len(said) == 100 == len(set(said))
    kept = [q.id for q in load_questions(path).questions]
    assert sorted(kept) == sorted(["the-first-question", *said])
    assert validate(path).returncode == 0
    assert [p.name for p in tmp_path.iterdir()] == ["kept.questions.yaml"]  # no check file, no lock file left


def test_a_link_where_the_check_file_was_is_never_written_through(corpus, tmp_path: Path) -> None:
    """The check file had one fixed name: a symlink placed there had its target overwritten."""
    path = tmp_path / "kept.questions.yaml"
    keep_question(path, corpus, "the first question", ["refunds"])
    target = tmp_path / "precious.txt"
    target.write_text("mine\n")
    (tmp_path / ".kept.questions.yaml.check.yaml").symlink_to(target)
    keep_question(path, corpus, "the second question", ["refunds"])
    assert target.read_text() == "mine\n"
    assert [q.id for q in load_questions(path).questions] == ["the-first-question", "the-second-question"]


def test_a_set_keeps_its_mode_and_a_read_only_set_is_refused_in_one_line(corpus, tmp_path: Path) -> None:
    path = tmp_path / "kept.questions.yaml"
    keep_question(path, corpus, "the first question", ["refunds"])
    path.chmod(0o644)
    keep_question(path, corpus, "the second question", ["refunds"])
    assert path.stat().st_mode & 0o777 == 0o644  # was rewritten as 0600
    path.chmod(0o444)
    before = path.read_bytes()
    with pytest.raises(CorpusError) as caught:
        keep_question(path, corpus, "the third question", ["refunds"])
    assert str(caught.value) == (f"{path}: the question set is read-only (mode 0444); make it writable to keep a "
                                 "case in it, or keep it in another set")
    assert path.read_bytes() == before and path.stat().st_mode & 0o777 == 0o444
