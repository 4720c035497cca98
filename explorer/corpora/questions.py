"""Question sets: queries with the ids of the nodes that answer them, for evaluating a navigator.

```yaml
corpus: handbook.yaml         # relative to this file
questions:
  - id: money-back
    query: How long until I get my money back?
    expect: [refunds]         # the node ids that answer it
    kept: "2026-12-05"        # optional: the day it was kept with K (the check set of E and eval --check holds it)
```
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import re
import stat
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import yaml
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from ..outputs import Output, Read, lock_descriptor, scratch, write
from ..reading import read_head
from .errors import CorpusError
from .files import read_text
from .model import Corpus
from .yaml_source import did_you_mean, is_null, kind, line_of, pairs, read_mapping, scalar_text

TOP_KEYS = ("corpus", "questions")
QUESTION_KEYS = ("id", "query", "expect", "kept")


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    expect: tuple[str, ...]
    line: int
    kept: str = ""
    """The day it was kept with ``K`` (``2026-12-05``; empty: written by hand): a case the check set holds."""


@dataclass(frozen=True)
class QuestionSet:
    path: Path
    corpus_path: Path | None
    questions: tuple[Question, ...]

    def check(self, corpus: Corpus) -> list[CorpusError]:
        """One error per expected id that the corpus does not have, in file order."""
        return [
            CorpusError(
                self.path,
                f"question {q.id!r} expects {node_id!r}, which is not in {corpus.path}; fix the id",
                line=q.line,
                node=node_id,
            )
            for q in self.questions
            for node_id in q.expect
            if node_id not in corpus.index
        ]


def fit_problem(questions: QuestionSet, corpus: Corpus, *, named_corpus: bool = False) -> str | None:
    """Why ``questions`` cannot be walked on ``corpus``, in one line naming the file and line (``None``: it fits).

    The one check that a question set fits its corpus, for ``eval``, the explorer given a set, and the
    evaluation screen: every expected id must be in the corpus (the first missing one is named, the others
    counted). With ``named_corpus``, a set that names another corpus does not fit either (the screen evaluates
    the corpus it shows; ``eval --corpus`` may walk a set on another)."""
    named = questions.corpus_path
    if named_corpus and named is not None and named != Path(corpus.path).resolve():
        return (f"{questions.path} is a question set for {named}, not for {corpus.path}; open it with "
                f"`reasoning-explorer {questions.path}`")
    problems = questions.check(corpus)
    if not problems:
        return None
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return f"{problems[0]}{more}"


def load_questions(path: str | Path) -> QuestionSet:
    """Read a question set; the first problem is a CorpusError naming its line."""
    questions, problems = read_questions(path)
    if problems:
        raise problems[0]
    return questions


def read_questions(path: str | Path) -> tuple[QuestionSet, list[CorpusError]]:
    """Read a question set, keeping every question that can be read, with one error per question that cannot
    (a duplicate id, no ``expect:``, an unknown key...), in file order: what ``validate`` lists. A file that is
    not a question set at all (unreadable, not a mapping, no questions) raises its CorpusError."""
    path = Path(path)
    root = read_mapping(path, "no such question set; give a .questions.yaml file",
                        "a question set is a mapping with `corpus:` and `questions:`")
    top: dict[str, Node] = {}
    for key, key_node, value in pairs(root):
        if key not in TOP_KEYS:
            raise CorpusError(path, f"unknown key {key!r}{did_you_mean(str(key), TOP_KEYS)}", line=line_of(key_node))
        top[key] = value
    corpus_path: Path | None = None
    corpus_node = top.get("corpus")
    if corpus_node is not None and not is_null(corpus_node):
        if not isinstance(corpus_node, ScalarNode) or not scalar_text(corpus_node).strip():
            raise CorpusError(path, "`corpus:` must be a path relative to this file", line=line_of(corpus_node))
        corpus_path = _corpus_path(path, scalar_text(corpus_node), line_of(corpus_node))
    items = top.get("questions")
    if not isinstance(items, SequenceNode) or not items.value:
        where = line_of(items) if items is not None else None
        raise CorpusError(path, "`questions:` must be a non-empty list of questions", line=where)
    questions: list[Question] = []
    problems: list[CorpusError] = []
    seen: dict[str, int] = {}
    for i, item in enumerate(items.value):
        try:
            questions.append(_question(path, item, f"questions[{i}]", seen))
        except CorpusError as problem:
            problems.append(problem)
    return QuestionSet(path, corpus_path, tuple(questions)), problems


def _corpus_path(path: Path, written: str, line: int) -> Path:
    """The corpus a question set names, relative to it; a CorpusError when no file system could hold it."""
    if "\0" in written:
        raise CorpusError(path, "`corpus:` holds a NUL character; give the corpus's real path", line=line)
    target = path.parent / written
    try:
        os.stat(target)
    except OSError as exc:
        if exc.errno == errno.ENAMETOOLONG:
            raise CorpusError(
                path, "`corpus:` names a path longer than the file system allows; give a shorter path", line=line
            ) from None
        # Missing or unreadable: said when the corpus is loaded, where the caller may give another.
    return target.resolve()


def _question(path: Path, item: Node, where: str, seen: dict[str, int]) -> Question:
    line = line_of(item)
    if not isinstance(item, MappingNode):
        raise CorpusError(path, f"{where} must be a mapping with id, query and expect, not {kind(item)}", line=line)
    fields: dict[str, Node] = {}
    for key, key_node, value in pairs(item):
        if key not in QUESTION_KEYS:
            raise CorpusError(
                path, f"{where}: unknown key {key!r}{did_you_mean(str(key), QUESTION_KEYS)}", line=line_of(key_node)
            )
        fields[key] = value
    texts: dict[str, str] = {}
    for key in ("id", "query"):
        text_node = fields.get(key)
        if not isinstance(text_node, ScalarNode) or is_null(text_node) or not scalar_text(text_node).strip():
            raise CorpusError(path, f"{where}: needs a non-blank `{key}:`", line=line)
        texts[key] = scalar_text(text_node)
    if texts["id"] in seen:
        raise CorpusError(
            path, f"duplicate question id {texts['id']!r} (first at line {seen[texts['id']]}); rename one", line=line
        )
    seen[texts["id"]] = line
    expect = fields.get("expect")
    if isinstance(expect, SequenceNode) and not expect.value:  # nothing answers it: every walk would be a miss
        raise CorpusError(path, f"question {texts['id']!r}: `expect:` is empty; list the ids of the nodes that "
                          "answer it", line=line)
    if isinstance(expect, ScalarNode) and not is_null(expect):
        expected: tuple[str, ...] = (scalar_text(expect),)
    elif isinstance(expect, SequenceNode) and expect.value and all(isinstance(e, ScalarNode) for e in expect.value):
        expected = tuple(scalar_text(e) for e in expect.value)
    else:
        raise CorpusError(path, f"question {texts['id']!r}: `expect:` must list the ids that answer it", line=line)
    kept = fields.get("kept")
    if kept is not None and not isinstance(kept, ScalarNode):
        raise CorpusError(path, f"question {texts['id']!r}: `kept:` is the day it was kept (\"2026-12-05\"), not "
                          f"{kind(kept)}", line=line_of(kept))
    return Question(texts["id"], texts["query"], expected, line,
                    scalar_text(kept) if kept is not None and not is_null(kept) else "")


_QUESTIONS_KEY = re.compile(r"^questions\s*:", re.MULTILINE)
SNIFF_BYTES = 65_536


def looks_like_question_set(path: str | Path) -> bool:
    """Whether ``path`` is a question set rather than a corpus: named ``*.questions.yaml`` (or ``.yml``), or a YAML
    file with a top-level ``questions:`` key (a corpus has ``nodes:``; the key comes early in a question set)."""
    path = Path(path)
    name = path.name.lower()
    if name.endswith((".questions.yaml", ".questions.yml")):
        return True
    if not name.endswith((".yaml", ".yml")):
        return False
    try:
        head = read_head(path, SNIFF_BYTES).decode("utf-8", errors="replace")  # a folder or a FIFO: refused at once
    except OSError:
        return False
    return bool(_QUESTIONS_KEY.search(head)) and not re.search(r"^nodes\s*:", head, re.MULTILINE)


def own_questions(corpus_path: str | Path) -> Path:
    """A corpus's own question set: ``X.questions.yaml`` beside ``X.yaml`` (beside the folder, for a folder)."""
    path = Path(corpus_path)
    if path.suffix.lower() in (".yaml", ".yml", ".json"):
        return path.with_name(f"{path.stem}.questions.yaml")
    return path.with_name(f"{path.name}.questions.yaml")


CHECK_SET_SUFFIX = ".check.questions.yaml"
"""The end of a check set's name (``X.check.questions.yaml``, ``walks.evaluation.check_set``): a set made again each
time from the cases kept, so never one to keep a case in, nor one of the sets a check set is made of."""


def sets_beside(corpus: Corpus) -> list[QuestionSet]:
    """The question sets of ``corpus`` that lie beside it: each ``*.questions.yaml`` (or ``.yml``) of its folder that
    reads and fits it (a set that names another corpus, or expects a node it lacks, is another corpus's), its check
    set aside (:data:`CHECK_SET_SUFFIX`). Its own set (:func:`own_questions`) first, the others by name; none when
    the folder cannot be read."""
    own = own_questions(corpus.path)
    try:
        found = sorted(p for p in own.parent.glob("*.questions.y*ml") if not p.name.endswith(CHECK_SET_SUFFIX)) \
            if own.parent.is_dir() else []
    except OSError:
        return []
    sets = []
    for path in sorted(found, key=lambda p: (p != own, p.name)):
        try:
            questions = load_questions(path)
        except (CorpusError, OSError):
            continue
        if fit_problem(questions, corpus, named_corpus=True) is None:
            sets.append(questions)
    return sets


def expected_for(query: str, sets: Iterable[QuestionSet]) -> tuple[str, ...]:
    """The nodes expected for ``query`` by the first of ``sets`` that asks it (the same words, whatever their case
    and spacing); none when no set asks it."""
    words = " ".join(query.split()).casefold()
    for questions in sets:
        for question in questions.questions:
            if " ".join(question.query.split()).casefold() == words:
                return question.expect
    return ()


# -- keeping a case as a question ------------------------------------------------------------------------

_ID_PART = re.compile(r"[^a-z0-9]+")
ID_CHARS = 48


def question_id_for(query: str, taken: Iterable[str] = ()) -> str:
    """An id for a question from its query (``how-long-do-refunds-take``), not one of ``taken`` (``-2``, ``-3``...
    added when it is)."""
    base = _ID_PART.sub("-", query.lower()).strip("-")[:ID_CHARS].rstrip("-") or "question"
    used = set(taken)
    candidate, number = base, 1
    while candidate in used:
        number += 1
        candidate = f"{base}-{number}"
    return candidate


def _quoted(value: str) -> str:
    """``value`` as one double-quoted YAML scalar on one line (escapes for controls and non-ASCII)."""
    return yaml.safe_dump(value, default_style='"', width=1_000_000, allow_unicode=False).strip()


def _entry(question_id: str, query: str, expect: Sequence[str], indent: str, kept: str = "") -> str:
    ids = ", ".join(_quoted(e) for e in expect)
    return (f"{indent}- id: {_quoted(question_id)}\n{indent}  query: {_quoted(query)}\n"
            f"{indent}  expect: [{ids}]\n" + (f"{indent}  kept: {_quoted(kept)}\n" if kept else ""))


def question_set_text(path: str | Path, corpus: Corpus, questions: Sequence[Question], comment: str = "") -> str:
    """A question set for ``corpus`` holding ``questions`` (their ``kept:`` days kept), as it is written at
    ``path`` (the corpus named relative to it), after ``comment`` (one ``#`` line each)."""
    relative = os.path.relpath(Path(corpus.path).resolve(), Path(path).parent.resolve())
    head = "".join(f"# {line}\n" for line in comment.splitlines())
    return (head + f"corpus: {_quoted(relative)}\nquestions:\n"
            + "".join(_entry(q.id, q.query, q.expect, "  ", q.kept) for q in questions))


def today() -> str:
    """The day a case is kept, as its ``kept:`` says it (UTC): ``2026-12-05``."""
    return datetime.now(UTC).date().isoformat()


@contextlib.contextmanager
def _writing(path: Path) -> Iterator[None]:
    """Hold the write lock of the set at ``path`` while the block runs: an exclusive ``flock`` of the folder it is
    in, which stays the same for every writer (the set does not: a rename replaces it) and leaves no file behind.
    Where a folder cannot be locked (NFS takes ``flock`` as a POSIX lock, which needs a file open for writing), a
    lock file beside the set, ``.NAME.lock``, is locked instead (never followed if it is a link)."""
    folder = path.parent if str(path.parent) else Path(".")
    try:
        descriptor = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise CorpusError(path, f"cannot keep a case in it: its folder {folder} cannot be opened "
                          f"({exc.strerror or exc})") from None
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX)
        except OSError:
            os.close(descriptor)
            descriptor = -1  # closed: never closed twice (its number may be another file's by then)
            lock = path.with_name(f".{path.name}.lock")
            try:
                descriptor = lock_descriptor(lock)
                fcntl.flock(descriptor, fcntl.LOCK_EX)
            except OSError as exc:
                raise CorpusError(path, f"cannot lock it to keep a case in it ({lock}: {exc.strerror or exc})") \
                    from None
        yield
    finally:
        if descriptor >= 0:
            os.close(descriptor)  # closing lets the lock go


def keep_question(path: str | Path, corpus: Corpus, query: str, expect: Sequence[str],
                  question_id: str | None = None, day: str | None = None, reads: Iterable[Read] = ()) -> Question:
    """Append a question (``query``, answered by ``expect``) to the question set at ``path`` and return it as read
    back; the file is made (naming ``corpus``) when missing.

    The set keeps its comments and layout: the question is appended to its ``questions:`` list, in the list's
    own indentation, with every value quoted (a query holding ``: `` or ``#`` stays one string), and ``kept:`` the
    ``day`` (default :func:`today`): a case the check set holds (``walks.evaluation.check_set``). ``question_id``
    (default: one made from the query) must not be taken: an existing question is never overwritten. A set for
    another corpus, a list that cannot be appended to (in flow style, or followed by other keys), an id taken, an
    expected id not in the corpus: each a :class:`CorpusError` naming the file, and nothing is written. The new
    text is read back as a question set before it replaces the file (through a temporary file), and the file keeps
    its mode; a read-only set is refused. It is written through the one gate (:func:`explorer.outputs.write`): the
    one edit of an input it allows, never over the corpus or another file in ``reads`` (the program's ledger).

    Writers of one set (two explorers, a script's loop) take turns: each holds the lock of the set's folder
    (:func:`_writing`) from its read to its write, so no question one of them said it kept is lost under
    another's."""
    path = Path(path)
    day = day or today()
    if path.name.endswith(CHECK_SET_SUFFIX):
        raise CorpusError(path, f"this is the check set, made again each time from the cases kept: keep the case in "
                          f"another set, such as {own_questions(corpus.path).name}")
    missing = [e for e in expect if e not in corpus.index]
    if not expect or missing:
        raise CorpusError(path, f"{missing[0]!r} is not a node of {corpus.path}; mark a node of the corpus as the "
                          "answer" if missing else "no node marked as the answer; mark the node that answers it")
    with _writing(path):  # one writer at a time reads, appends and replaces: no question said kept is lost
        mode: int | None = None
        if not path.exists():
            relative = os.path.relpath(Path(corpus.path).resolve(), path.parent.resolve())
            chosen = question_id or question_id_for(query)
            text = f"corpus: {_quoted(relative)}\nquestions:\n" + _entry(chosen, query, expect, "  ", day)
        else:
            mode = stat.S_IMODE(path.stat().st_mode)
            if not mode & 0o222 or not os.access(path, os.W_OK):  # the bits: root may write what os.access allows
                raise CorpusError(path, f"the question set is read-only (mode {mode:04o}); make it writable to keep "
                                  "a case in it, or keep it in another set")
            existing = read_mapping(path, "no such question set", "a question set is a mapping with `corpus:` and "
                                    "`questions:`")
            current, _ = read_questions(path)
            if current.corpus_path is not None and current.corpus_path != Path(corpus.path).resolve():
                raise CorpusError(path, f"a question set for {current.corpus_path}, not for {corpus.path}; keep "
                                  "the case in a set for this corpus")
            taken = {q.id for q in current.questions}
            chosen = question_id or question_id_for(query, taken)
            if chosen in taken:
                raise CorpusError(path, f"question id {chosen!r} is taken; give another id (a question is never "
                                  "overwritten)")
            items = next(value for key, _, value in pairs(existing) if key == "questions")
            original, _ = read_text(path)
            after = original[items.end_mark.index:]
            trailing = [line for line in after.splitlines() if line.strip() and not line.lstrip().startswith("#")]
            if not isinstance(items, SequenceNode) or items.flow_style or trailing:
                raise CorpusError(path, "its `questions:` list cannot be appended to (it is in [flow] style or "
                                  "other keys follow it); add the question by hand", line=line_of(items))
            indent = " " * int(items.value[0].start_mark.column - 2) if items.value else "  "
            head = original[:items.end_mark.index]
            text = (head + ("" if head.endswith("\n") else "\n") + _entry(chosen, query, expect, indent, day)
                    + after.lstrip("\n"))
        with scratch(text, path, ".check.yaml") as temporary:  # read back before it replaces the set
            checked, problems = read_questions(temporary)
        kept = next((q for q in checked.questions if q.id == chosen), None)
        if problems or kept is None:
            why = problems[0].reason if problems else f"no question {chosen!r} in it"
            raise CorpusError(path, f"the question would not read back ({why}); nothing was written")
        write(Output("the question set", path), text, [Read("the corpus", Path(corpus.path)), *reads],
              doing="keep the case", example="corpus.questions.yaml", edits=True, mode=mode)  # the one edit of an input
        return kept
