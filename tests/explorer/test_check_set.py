"""The check set (issue 36, point 1): the questions kept with K for a corpus, the misses and flips of its last kept
run, and the walk's own query when it is a question; each question once; written beside the corpus, and never over a
file of its name that it did not write. Real files in tmp_path, real runs walked and kept."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.questions import keep_question, load_questions, sets_beside
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import KeptRun, RunComparison, RunError, evaluate, keep_run, read_run
from explorer.walks.evaluation.check_set import CHECK_MARK, check_path, check_set, write_check_set
from explorer.walks.evaluation.kept_run import check_fit, file_sha256

from .check_set_helpers import CHECK_IDS, TRIAL, check_set_folder


@pytest.fixture
def corpus_path(tmp_path: Path) -> Path:
    return check_set_folder(tmp_path)


def test_kept_cases_then_the_last_runs_misses_and_flips_then_the_walks_own_question(corpus_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    check = check_set(corpus, TRIAL)
    assert [q.id for q in check.questions] == [*CHECK_IDS, "trial-ends"]
    assert check.words() == ("5 questions: 2 kept with K, 2 missed or flipped in small-candidate.run.json, 1 this "
                             "walk's query")
    assert check.path == corpus_path.parent / "handbook.check.questions.yaml" == check_path(corpus_path)
    # A query that is no question adds nothing; one already in adds nothing again.
    assert [q.id for q in check_set(corpus, "where is my invoice?").questions] == CHECK_IDS
    assert check_set(corpus, "how long until i get my   money back?").own == 0


def test_written_it_reads_back_as_a_set_of_the_corpus_and_is_made_again_each_time(corpus_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    written = write_check_set(check_set(corpus, TRIAL), corpus)
    assert written.path.read_text(encoding="utf-8").startswith(f"# {CHECK_MARK}\ncorpus: \"handbook.yaml\"\n")
    assert written.corpus_path == corpus_path.resolve()
    assert [(q.id, q.expect, q.kept) for q in written.questions] == [
        ("how-long-until-i-get-my-money-back", ("refund-delivery",), "2026-12-05"),
        ("how-long-do-refunds-take-to-arrive", ("refund-delivery",), "2026-12-05"),
        ("mistyped-too-often", ("account-lockout",), ""), ("annual-refund-day-75", ("annual-proration-formula",), ""),
        ("trial-ends", ("free-trial",), "")]
    # Made again: its own kept cases are not counted twice, and a walk of another query leaves trial-ends out.
    again = write_check_set(check_set(corpus), corpus)
    assert [q.id for q in again.questions] == CHECK_IDS
    assert [q.id for q in load_questions(check_path(corpus_path)).questions] == CHECK_IDS


def test_a_file_of_its_name_not_made_here_is_never_overwritten(corpus_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    mine = check_path(corpus_path)
    mine.write_text("corpus: handbook.yaml\nquestions:\n  - {id: a, query: b, expect: [refunds]}\n")
    with pytest.raises(CorpusError, match="a file of the check set's name that reasoning-explorer did not make: it "
                                          "is never overwritten; move it, or evaluate it as a set of its own"):
        write_check_set(check_set(corpus), corpus)
    assert mine.read_text().startswith("corpus: handbook.yaml\n")


def test_no_case_and_no_run_is_no_check_set_and_says_how_to_get_one(tmp_path: Path) -> None:
    corpus_path = tmp_path / "handbook.yaml"
    corpus_path.write_bytes((Path(__file__).resolve().parents[2] / "sample_corpora" / "handbook.yaml").read_bytes())
    corpus = load_corpus(corpus_path)
    check = check_set(corpus, TRIAL)  # no set beside it: the query is no question here either
    assert check.questions == () and check.words() == "0 questions"
    with pytest.raises(CorpusError) as error:
        write_check_set(check, corpus)
    assert str(error.value) == (
        f"{check.path}: no check set yet: no question kept with K and no kept run of this corpus with a miss; keep a "
        "case with K or a run with ctrl+s (eval --save-run), or evaluate a whole set")
    assert not check.path.exists()


def test_no_case_is_kept_in_the_check_set_and_k_does_not_offer_it(corpus_path: Path) -> None:
    """A case kept in the check set was lost: the next E made the set again without it."""
    corpus = load_corpus(corpus_path)
    path = write_check_set(check_set(corpus, TRIAL), corpus).path
    assert path not in [s.path for s in sets_beside(corpus)]  # K lists this corpus's sets: not its check set
    before = path.read_text(encoding="utf-8")
    with pytest.raises(CorpusError) as refused:
        keep_question(path, corpus, "Who approves refunds?", ["refund-exceptions"])
    assert str(refused.value) == (f"{path}: this is the check set, made again each time from the cases kept: keep "
                                  "the case in another set, such as handbook.questions.yaml")
    assert path.read_text(encoding="utf-8") == before


def test_a_run_of_the_check_set_kept_leaves_the_set_as_it_was_and_compares_after_a_case_is_kept(
        corpus_path: Path) -> None:
    """The check set's own run is not 'the last kept run': the set made again is the same, so the run kept compares
    (o, --against) and resumes (R); after a case kept with K, two runs of it compare on the questions both hold."""
    corpus = load_corpus(corpus_path)
    written = write_check_set(check_set(corpus), corpus)
    settings = WalkSettings("", "lexical:default")
    outcomes = evaluate(corpus, written.questions, settings, navigator=resolve_navigator("lexical:default"))
    was = read_run(keep_run(corpus_path.parent / "handbook.check-baseline.run.json", written.path, corpus, settings,
                            outcomes))
    again = check_set(corpus)
    assert [q.id for q in again.questions] == CHECK_IDS and again.run == corpus_path.parent / "small-candidate.run.json"
    check_fit(was, file_sha256(write_check_set(again, corpus).path), corpus.sha256)  # the same set: it fits
    keep_question(corpus_path.parent / "cases.questions.yaml", corpus, "Who approves refunds?", ["refund-exceptions"])
    grown = write_check_set(check_set(corpus), corpus)
    assert len(grown.questions) == len(CHECK_IDS) + 1
    with pytest.raises(RunError):  # a resume needs the set it was kept from
        check_fit(was, file_sha256(grown.path), corpus.sha256)
    now = KeptRun.of("this run", settings, file_sha256(grown.path), corpus,
                     evaluate(corpus, grown.questions, settings, navigator=resolve_navigator("lexical:default")),
                     grown.path)
    compared = RunComparison(was, now)  # a comparison: on the questions both hold
    assert [was_q.id for was_q, _ in compared.pairs()] == CHECK_IDS
