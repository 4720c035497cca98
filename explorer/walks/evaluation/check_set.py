"""The check set: a small question set to verify a fix against in seconds (``E``'s first offer, ``eval --check``).

It holds, for one corpus, in this order and each question once (by its words):

1. the questions kept with ``K`` (``kept:`` in a question set of this corpus beside it);
2. the misses and flips of the last kept run of this corpus (``*.run.json`` beside its sets, the newest by when it
   was kept; not a run of the check set itself, so the set stays the same between checks): the questions it
   missed, and those where it and the run kept before it on the same set differ (a
   baseline and its candidate, kept together by ``ctrl+s``);
3. the walk's own query, when it is a question of one of this corpus's sets.

It is written beside the corpus as ``X.check.questions.yaml`` (made again each time: a file of that name not made
here is never overwritten), so that it is evaluated, kept and compared as any question set; two runs of it compare on
the questions both hold though cases were kept between them (:func:`.kept_run.check_fit`). No case is kept in it.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ...corpora import Corpus, CorpusError
from ...corpora.questions import (
    CHECK_SET_SUFFIX,
    Question,
    QuestionSet,
    fit_problem,
    load_questions,
    own_questions,
    question_id_for,
    question_set_text,
    sets_beside,
)
from ...outputs import Output, Read, write
from ...reading import problem, read_head
from .kept_run import KeptRun, RunError, file_sha256, read_run

__all__ = ["CHECK_MARK", "CheckSet", "check_path", "check_set", "write_check_set"]

CHECK_MARK = "The check set of reasoning-explorer (E, eval --check): made again each time, so edits here are lost."
"""The first line of a check set written here: a file of its name without it is someone's, and never overwritten."""


def check_path(corpus_path: str | Path) -> Path:
    """Where the check set of the corpus at ``corpus_path`` is written: ``X.check.questions.yaml`` beside it."""
    own = own_questions(corpus_path)
    return own.with_name(own.name.removesuffix(".questions.yaml") + CHECK_SET_SUFFIX)


@dataclass(frozen=True)
class CheckSet:
    """The check set of a corpus: its ``questions``, and how many came from where: ``kept`` with ``K``, ``missed``
    or flipped in the last kept ``run``, and ``own`` (the walk's query)."""

    path: Path
    questions: tuple[Question, ...]
    kept: int = 0
    missed: int = 0
    own: int = 0
    run: Path | None = None
    sources: tuple[Read, ...] = ()
    """What it was built from: the question sets and kept runs read (inputs of the program that builds it, which no
    output of it may replace: ``eval --check C --save-run C.questions.yaml`` is refused)."""

    def words(self) -> str:
        """``3 questions: 1 kept with K, 1 missed or flipped in small-v2.run.json, 1 this walk's query``."""
        parts = [f"{self.kept} kept with K"] if self.kept else []
        if self.missed and self.run is not None:
            parts.append(f"{self.missed} missed or flipped in {self.run.name}")
        if self.own:
            parts.append("1 this walk's query")
        count = len(self.questions)
        return f"{count} question{'s' if count != 1 else ''}" + (f": {', '.join(parts)}" if parts else "")


def _words(query: str) -> str:
    return " ".join(query.split()).casefold()


def kept_runs(corpus: Corpus, folder: Path) -> list[KeptRun]:
    """The runs kept in ``folder`` over this corpus (its hash), newest last (by when each says it was kept, then by
    its file's time); a file that is no kept run is passed over."""
    found: list[tuple[str, float, KeptRun]] = []
    try:
        paths = sorted(folder.glob("*.run.json"))
    except OSError:
        return []
    for path in paths:
        try:
            run = read_run(path)
            stamp = path.stat().st_mtime
        except (RunError, OSError):
            continue
        if run.corpus_sha256 == corpus.sha256:
            found.append((run.created, stamp, run))
    return [run for _, _, run in sorted(found, key=lambda item: (item[0], item[1]))]


def _questions_of(run: KeptRun, sets: Sequence[QuestionSet], corpus: Corpus) -> dict[str, Question]:
    """The questions ``run`` was walked on, by id: the set beside the corpus with its hash, else the set at the path
    it names (as given, or by its name beside the run), if it still reads and fits; none otherwise."""
    for questions in sets:
        try:
            if file_sha256(questions.path) == run.questions_sha256:
                return {q.id: q for q in questions.questions}
        except OSError:
            continue
    named = Path(run.questions_path)
    for path in dict.fromkeys([named, Path(run.path).parent / named.name]):
        try:
            questions = load_questions(path)
        except (CorpusError, OSError):
            continue
        if fit_problem(questions, corpus, named_corpus=True) is None:
            return {q.id: q for q in questions.questions}
    return {}


def _missed_or_flipped(runs: Sequence[KeptRun]) -> list[str]:
    """The ids the last run missed, then those where it and the run kept before it on the same set differ."""
    if not runs:
        return []
    last = runs[-1]
    ids = [q.id for q in last.results if not q.hit]
    partner = next((run for run in reversed(runs[:-1]) if run.questions_sha256 == last.questions_sha256), None)
    if partner is not None:
        then = {q.id: q.hit for q in partner.results}
        ids += [q.id for q in last.results if q.id in then and then[q.id] != q.hit and q.id not in ids]
    return ids


def check_set(corpus: Corpus, query: str = "") -> CheckSet:
    """The check set of ``corpus`` (the module docstring says what it holds), for a walk of ``query``."""
    path = check_path(corpus.path)
    sets = [s for s in sets_beside(corpus) if os.path.realpath(s.path) != os.path.realpath(path)]  # a loop: no error
    chosen: list[Question] = []
    seen: set[str] = set()
    taken: set[str] = set()

    def add(questions: Iterable[Question]) -> int:
        count = 0
        for question in questions:
            if _words(question.query) in seen:
                continue
            seen.add(_words(question.query))
            question_id = question.id if question.id not in taken else question_id_for(question.query, taken)
            taken.add(question_id)
            chosen.append(Question(question_id, question.query, question.expect, 0, question.kept))
            count += 1
        return count

    kept = add(q for s in sets for q in s.questions if q.kept)
    # The last run kept over the corpus's sets, not over its check set: a run of the check set holds only what the
    # set already holds, and taking its misses would make the set again without the rest, so that a run just kept
    # could no longer be compared with (o, --against) or resumed (R).
    runs = [run for run in kept_runs(corpus, own_questions(corpus.path).parent)
            if not Path(run.questions_path).name.endswith(CHECK_SET_SUFFIX)]
    missed, run = 0, None
    if runs:
        by_id = _questions_of(runs[-1], [*sets, *_check_file(path, corpus)], corpus)
        missed = add(by_id[i] for i in _missed_or_flipped(runs) if i in by_id)
        run = Path(runs[-1].path)
    own = add([q for s in sets for q in s.questions if _words(q.query) == _words(query)][:1]) if query.strip() else 0
    sources = (*(Read("a question set the check set is built from", s.path) for s in sets),
               *(Read("a kept run the check set is built from", Path(r.path)) for r in runs))
    return CheckSet(path, tuple(chosen), kept, missed, own, run, sources)


def _check_file(path: Path, corpus: Corpus) -> list[QuestionSet]:
    """The check set written before, when the last run was walked on it."""
    try:
        return [load_questions(path)] if path.is_file() else []
    except (CorpusError, OSError):
        return []


def write_check_set(check: CheckSet, corpus: Corpus) -> QuestionSet:
    """Write ``check`` at its path and return it as read back. :class:`~explorer.corpora.CorpusError` when it holds
    no question (say how to get some), or when a file of its name was not made here (never overwritten)."""
    path = check.path
    if not check.questions:
        raise CorpusError(path, "no check set yet: no question kept with K and no kept run of this corpus with a "
                          "miss; keep a case with K or a run with ctrl+s (eval --save-run), or evaluate a whole set")
    if path.is_symlink() or path.exists():
        mark = f"# {CHECK_MARK}\n".encode()
        try:  # its first line alone, from a regular file: a FIFO, a device or a loop of links there is refused at once
            first = read_head(path, len(mark))
        except OSError as exc:
            raise CorpusError(path, f"{problem(exc)}, where the check set is written; move it away (a check set "
                              "is written only over one reasoning-explorer made)") from None
        if first != mark:
            raise CorpusError(path, "a file of the check set's name that reasoning-explorer did not make: it is "
                              "never overwritten; move it, or evaluate it as a set of its own")
    write(Output("the check set", path), question_set_text(path, corpus, check.questions, CHECK_MARK),
          [Read("the corpus", Path(corpus.path)), *check.sources], doing="write the check set",
          example="check.questions.yaml", replace=True)  # made here each time (its mark says so)
    return load_questions(path)
