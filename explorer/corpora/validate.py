"""Validation: errors that stop a corpus loading, and warnings about what makes walks worse."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ..safe_text import visible
from .errors import CorpusError
from .files import check_corpus_path
from .loading import load_corpus
from .model import HEADING_LENGTH, Corpus
from .progress import collector_paused
from .questions import QuestionSet, read_questions

MAX_TITLE = 120
MAX_SUMMARY = 400
MAX_CHILDREN = 50
MAX_WARNINGS_KEPT = 100
"""Warnings a report keeps (and ``validate`` prints); the rest are counted: a million headings without a summary
are one problem said a million times, and keeping them all took gigabytes."""


@dataclass(frozen=True)
class Finding:
    """One problem: ``message`` is one line that says where and what to do."""

    code: str
    message: str
    node: str | None = None
    line: int | None = None


@dataclass(frozen=True)
class CorpusStats:
    nodes: int
    roots: int
    leaves: int
    depth: int
    """The deepest node's depth (roots are 0)."""
    widest: str | None
    widest_children: int
    title_summary_chars: int
    content_chars: int


@dataclass(frozen=True)
class ValidationReport:
    path: Path
    corpus: Corpus | None
    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]
    """The first :data:`MAX_WARNINGS_KEPT` warnings, in tree order."""
    stats: CorpusStats | None
    more_warnings: int = 0
    """Warnings found past those kept: counted, not kept."""

    @property
    def ok(self) -> bool:
        return not self.errors

    @property
    def warning_count(self) -> int:
        """Every warning found, kept or only counted."""
        return len(self.warnings) + self.more_warnings


def validate(path: str | Path) -> ValidationReport:
    """Load the corpus at ``path`` and report every error (YAML: all of them; other formats: the first)
    and, when it loads, its warnings and counts."""
    path = Path(path)
    errors: list[CorpusError]
    corpus: Corpus | None
    try:
        is_yaml = path.suffix.lower() in (".yaml", ".yml") and stat.S_ISREG(check_corpus_path(path).st_mode)
    except CorpusError as error:
        return ValidationReport(path, None, (Finding("error", str(error), error.node, error.line),), (), None)
    if is_yaml:
        from .yaml_corpus import scan_yaml_corpus

        with collector_paused():
            reading = scan_yaml_corpus(path)
        corpus, errors = reading.corpus, reading.errors
    else:
        try:
            corpus, errors = load_corpus(path), []
        except CorpusError as error:
            corpus, errors = None, [error]
    found = tuple(Finding("error", str(e), e.node, e.line) for e in errors)
    if corpus is None:
        return ValidationReport(path, None, found, (), None)
    kept: list[Finding] = []
    more = 0
    for finding in iter_lint(corpus):
        if len(kept) < MAX_WARNINGS_KEPT:
            kept.append(finding)
        else:
            more += 1
    return ValidationReport(path, corpus, found, tuple(kept), stats(corpus), more)


def lint(corpus: Corpus) -> list[Finding]:
    """Every warning (:func:`iter_lint`), kept."""
    return list(iter_lint(corpus))


def iter_lint(corpus: Corpus) -> Iterator[Finding]:
    """Warnings, one at a time: what the loader left out, then in tree order: no summary, a leaf without content,
    a heading cut for its title, a long title or summary, too many children."""
    for note in corpus.notes:
        yield Finding("left-out", visible(f"{corpus.path}: {note}"))
    index = corpus.index
    for node_id in index.ids():
        document = index[node_id]
        line = corpus.lines.get(node_id)
        where = visible(f"{corpus.where(node_id)}: node {node_id!r}")
        title = corpus.title_of(node_id)
        summary = corpus.summary_of(node_id)
        children = len(index.child_ids(node_id))
        if not summary.strip():
            yield Finding("no-summary", f"{where} has no summary; the navigator sees only its title", node_id, line)
        if children == 0 and not document.content.strip():
            yield Finding("empty-leaf", f"{where} is a leaf without content; landing on it returns nothing",
                          node_id, line)
        heading_length = document.metadata.get(HEADING_LENGTH)
        if isinstance(heading_length, int):
            yield Finding("cut-title", f"{where} has a heading of {heading_length:,} characters, cut to "
                          f"{len(title)} for its title; shorten the heading", node_id, line)
        elif len(title) > MAX_TITLE:
            yield Finding("long-title", f"{where} has a title of {len(title)} characters (over {MAX_TITLE}); "
                          "shorten it", node_id, line)
        if len(summary) > MAX_SUMMARY:
            yield Finding("long-summary", f"{where} has a summary of {len(summary)} characters (over "
                          f"{MAX_SUMMARY}); summaries are shipped to the navigator at every offer", node_id, line)
        if children > MAX_CHILDREN:
            yield Finding("wide-node", f"{where} has {children} children (over {MAX_CHILDREN}); group them so each "
                          "offer stays small", node_id, line)


def stats(corpus: Corpus) -> CorpusStats:
    """Counts for a corpus: nodes, roots, leaves, depth, the widest node, characters shipped vs content."""
    index = corpus.index
    depth = 0
    leaves = 0
    widest: str | None = None
    widest_children = 0
    title_summary = 0
    content = 0
    for node_id in index.ids():
        depth = max(depth, index.depth(node_id))
        children = len(index.child_ids(node_id))
        if children == 0:
            leaves += 1
        if children > widest_children:
            widest, widest_children = node_id, children
        title_summary += len(corpus.title_of(node_id)) + len(corpus.summary_of(node_id))
        content += len(index[node_id].content)
    return CorpusStats(len(index), len(index.roots()), leaves, depth, widest, widest_children, title_summary, content)


@dataclass(frozen=True)
class QuestionSetReport:
    """``validate QUESTIONS``: a question set checked against its corpus.

    ``errors``: what stops an evaluation (a question that cannot be read, a duplicate id, an empty ``expect``, an
    expected id the corpus does not have, a corpus that does not load); ``warnings``: what makes its scores
    mislead (an expected node with children: a walk lands it only by stopping above the answer). Each names the
    file, the line and the question id.
    """

    path: Path
    questions: QuestionSet | None
    corpus: Corpus | None
    errors: tuple[Finding, ...]
    warnings: tuple[Finding, ...]
    count: int = 0
    """Questions in the file (those that could not be read included)."""

    @property
    def ok(self) -> bool:
        return not self.errors


def validate_questions(path: str | Path, corpus_path: str | Path | None = None) -> QuestionSetReport:
    """Check the question set at ``path`` against its corpus (``corpus_path``, else the one it names)."""
    path = Path(path)
    try:
        questions, problems = read_questions(path)
    except CorpusError as error:
        return QuestionSetReport(path, None, None, (Finding("error", str(error), error.node, error.line),), ())
    errors = [Finding("question", str(e), e.node, e.line) for e in problems]
    count = len(questions.questions) + len(problems)  # one problem per question that could not be read
    target = Path(corpus_path) if corpus_path is not None else questions.corpus_path
    if target is None:
        errors.append(Finding("no-corpus", f"{path}: the question set names no corpus; add `corpus: FILE` to it"))
        return QuestionSetReport(path, questions, None, tuple(errors), (), count)
    try:
        corpus = load_corpus(target)
    except CorpusError as error:
        errors.append(Finding("corpus", f"{path}: its corpus does not load: {error}"))
        return QuestionSetReport(path, questions, None, tuple(errors), (), count)
    errors.extend(Finding("missing-id", str(e), e.node, e.line) for e in questions.check(corpus))
    errors.sort(key=lambda finding: finding.line or 0)
    warnings = []
    index = corpus.index
    for question in questions.questions:
        for node_id in question.expect:
            if node_id not in index:
                continue
            children = index.child_ids(node_id)
            if children:
                shown = ", ".join(children[:4]) + (f" and {len(children) - 4:,} more" if len(children) > 4 else "")
                warnings.append(Finding(
                    "expects-a-parent",
                    visible(f"{path}:{question.line}: question {question.id!r} expects {node_id!r}, which has "
                            f"{len(children):,} {'child' if len(children) == 1 else 'children'} ({shown}): a walk "
                            "lands it only by stopping above the answer; expect the node that answers it"),
                    node_id, question.line))
    return QuestionSetReport(path, questions, corpus, tuple(errors), tuple(warnings), count)
