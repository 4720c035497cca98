"""Question sets: queries with the ids of the nodes that answer them, for evaluating a navigator.

```yaml
corpus: handbook.yaml         # relative to this file
questions:
  - id: money-back
    query: How long until I get my money back?
    expect: [refunds]         # the node ids that answer it
```
"""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from .errors import CorpusError
from .model import Corpus
from .yaml_source import did_you_mean, is_null, kind, line_of, pairs, read_mapping, scalar_text

TOP_KEYS = ("corpus", "questions")
QUESTION_KEYS = ("id", "query", "expect")


@dataclass(frozen=True)
class Question:
    id: str
    query: str
    expect: tuple[str, ...]
    line: int


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
    return Question(texts["id"], texts["query"], expected, line)


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
        if not path.is_file():  # a folder, or a FIFO that would block the read
            return False
        with path.open("rb") as handle:
            head = handle.read(SNIFF_BYTES).decode("utf-8", errors="replace")
    except (OSError, ValueError):
        return False
    return bool(_QUESTIONS_KEY.search(head)) and not re.search(r"^nodes\s*:", head, re.MULTILINE)
