"""Evaluation runs kept as files and compared later: ``eval … --save-run FILE`` and ``eval … --against FILE``.

A kept run is one JSON document::

    {"format": "reasoning-explorer-run", "version": 1, "created": "2026-12-01T12:00:00Z",
     "questions": {"path": ..., "sha256": ...}, "corpus": {"path": ..., "sha256": ..., "source": ...},
     "navigator": "local:smollm2@system=/p/v2-system.txt", "settings": {...},
     "results": [...one per question, as eval --json...], "summary": {...as eval --json...}}

The navigator is the whole model id, options and all, so a kept run says which prompt files made it. A run is
compared only with a run of the same question set and corpus (their hashes): anything else is refused in one line
that says which differs. The comparison gives hit, hit@3 and precision deltas and the questions that flipped:
fixed (missed then, hit now) and broken (hit then, missed now), each with the first wrong turn of the walk that
missed.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ...atomic_file import write_atomically
from ...corpora import Corpus
from ...safe_text import visible
from ...walk_settings import WalkSettings
from .document import evaluation_to_json
from .outcome import QuestionOutcome
from .summary import EvalSummary

__all__ = ["FORMAT", "KeptQuestion", "KeptRun", "RunComparison", "RunError", "check_fit", "file_sha256", "keep_run",
           "read_run"]

FORMAT = "reasoning-explorer-run"
VERSION = 1
MAX_BYTES = 50_000_000


class RunError(ValueError):
    """A kept run that cannot be read or compared: the message names the file and what to do."""


def file_sha256(path: str | Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def keep_run(path: str | Path, questions_path: str | Path, corpus: Corpus, settings: WalkSettings,
             outcomes: Sequence[QuestionOutcome], summary: EvalSummary) -> Path:
    """Write the run to ``path`` (through a temporary file, renamed into place) and return the path."""
    document = evaluation_to_json(questions_path, corpus, settings, outcomes, summary)
    kept: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "questions": {"path": str(questions_path), "sha256": file_sha256(questions_path)},
        "corpus": {"path": str(corpus.path), "sha256": corpus.sha256, "source": corpus.source},
        "navigator": settings.model,
        "settings": document["settings"],
        "results": document["results"],
        "summary": document["summary"],
    }
    return write_atomically(path, json.dumps(kept, ensure_ascii=True, indent=1) + "\n")


@dataclass(frozen=True)
class KeptQuestion:
    """One question's result as a run keeps it."""

    id: str
    hit: bool
    hit_at_3: bool
    landed: tuple[str, ...]
    miss: str | None
    """What the walk's miss says (its first wrong turn, or the limit that stopped it); ``None`` for a hit."""

    @classmethod
    def of(cls, outcome: QuestionOutcome) -> KeptQuestion:
        return cls(outcome.question_id, outcome.hit, outcome.hit_at_3, outcome.landed,
                   outcome.miss.sentence() if outcome.miss is not None else None)


@dataclass(frozen=True)
class KeptRun:
    """A run: where it came from, its model id, and each question's result (in question order)."""

    path: str
    navigator: str
    questions_sha256: str
    corpus_sha256: str
    results: tuple[KeptQuestion, ...]
    precision: float | None

    @property
    def hits(self) -> int:
        return sum(q.hit for q in self.results)

    @property
    def hits_at_3(self) -> int:
        return sum(q.hit_at_3 for q in self.results)

    @classmethod
    def of(cls, label: str, navigator: str, questions_path: str | Path, corpus: Corpus,
           outcomes: Sequence[QuestionOutcome], summary: EvalSummary) -> KeptRun:
        """The run just made, as a kept one reads."""
        return cls(label, navigator, file_sha256(questions_path), corpus.sha256,
                   tuple(KeptQuestion.of(o) for o in outcomes), summary.precision)


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RunError(f"{where}: {key!r} is missing or not what a kept run holds")
    return value


def read_run(path: str | Path) -> KeptRun:
    """The run kept in ``path``, or :class:`RunError` naming the file and what is wrong."""
    where = visible(str(path))
    file = Path(path)
    try:
        if not file.is_file():
            raise RunError(f"{where}: no such kept run (give a file written by eval --save-run)")
        if file.stat().st_size > MAX_BYTES:
            raise RunError(f"{where}: larger than {MAX_BYTES:,} bytes; not a kept run")
        data = json.loads(file.read_text(encoding="utf-8"))
    except RunError:
        raise
    except (OSError, UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise RunError(f"{where}: not a kept run ({type(exc).__name__}); give a file written by eval --save-run") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunError(f"{where}: not a kept run (no \"format\": \"{FORMAT}\"); give a file written by "
                       "eval --save-run")
    if data.get("version") != VERSION:
        raise RunError(f"{where}: kept run version {data.get('version')!r} is not supported (this reads {VERSION})")
    questions = _field(data, "questions", dict, where)
    corpus = _field(data, "corpus", dict, where)
    results = []
    for number, item in enumerate(_field(data, "results", list, where), start=1):
        if not isinstance(item, dict):
            raise RunError(f"{where}: result {number} is not an object")
        miss = item.get("miss")
        says = miss.get("says") if isinstance(miss, dict) else None
        landed = _field(item, "landed", list, f"{where}: result {number}")
        results.append(KeptQuestion(
            str(_field(item, "id", str, f"{where}: result {number}")), bool(item.get("hit")),
            bool(item.get("hit_at_3")), tuple(str(x) for x in landed), str(says) if says is not None else None))
    summary = data.get("summary")
    precision = summary.get("precision") if isinstance(summary, dict) else None
    return KeptRun(str(path), str(_field(data, "navigator", str, where)),
                   str(_field(questions, "sha256", str, where)), str(_field(corpus, "sha256", str, where)),
                   tuple(results), precision if isinstance(precision, int | float) else None)


def check_fit(kept: KeptRun, questions_sha256: str, corpus_sha256: str) -> None:
    """:class:`RunError` when ``kept`` is not a run of this question set over this corpus (said before walking)."""
    if kept.questions_sha256 != questions_sha256:
        raise RunError(visible(f"{kept.path}: kept from another question set (or the set has changed since); "
                               "compare runs of the same question set"))
    if kept.corpus_sha256 != corpus_sha256:
        raise RunError(visible(f"{kept.path}: kept over another corpus (or the corpus has changed since); compare "
                               "runs over the same corpus"))


@dataclass(frozen=True)
class RunComparison:
    """A new run against a kept one, over the same question set and corpus."""

    kept: KeptRun
    now: KeptRun

    def __post_init__(self) -> None:
        check_fit(self.kept, self.now.questions_sha256, self.now.corpus_sha256)
        if [q.id for q in self.kept.results] != [q.id for q in self.now.results]:
            raise RunError(visible(f"{self.kept.path}: its questions are not this run's; compare runs of the same "
                                   "question set"))

    def flipped(self) -> tuple[list[tuple[KeptQuestion, KeptQuestion]], list[tuple[KeptQuestion, KeptQuestion]]]:
        """The questions fixed (missed then, hit now) and broken (hit then, missed now): (kept, now) pairs."""
        pairs = list(zip(self.kept.results, self.now.results, strict=True))
        return ([p for p in pairs if not p[0].hit and p[1].hit], [p for p in pairs if p[0].hit and not p[1].hit])

    def to_json(self) -> dict[str, object]:
        fixed, broken = self.flipped()
        return {
            "against": self.kept.path, "kept_navigator": self.kept.navigator, "navigator": self.now.navigator,
            "hits": {"kept": self.kept.hits, "now": self.now.hits, "delta": self.now.hits - self.kept.hits},
            "hits_at_3": {"kept": self.kept.hits_at_3, "now": self.now.hits_at_3,
                          "delta": self.now.hits_at_3 - self.kept.hits_at_3},
            "precision": {"kept": self.kept.precision, "now": self.now.precision,
                          "delta": None if self.kept.precision is None or self.now.precision is None
                          else self.now.precision - self.kept.precision},
            "fixed": [{"id": now.id, "then": then.miss} for then, now in fixed],
            "broken": [{"id": now.id, "now": now.miss} for then, now in broken],
        }

    def lines(self) -> list[str]:
        """``eval --against``: the deltas, then the questions that flipped, each with the wrong turn that missed."""
        total = len(self.now.results)
        fixed, broken = self.flipped()

        def delta(now: int, then: int) -> str:
            return f"{now}/{total} (was {then}/{total}, {now - then:+d})"

        precision = "—"
        if self.kept.precision is not None and self.now.precision is not None:
            precision = (f"{self.now.precision:.0%} (was {self.kept.precision:.0%}, "
                         f"{(self.now.precision - self.kept.precision) * 100:+.0f} points)")
        lines = [
            visible(f"Against {self.kept.path}: kept {self.kept.navigator} · now {self.now.navigator}"),
            f"  hit        {delta(self.now.hits, self.kept.hits)}",
            f"  hit@3      {delta(self.now.hits_at_3, self.kept.hits_at_3)}",
            f"  precision  {precision}",
            f"Fixed ({len(fixed)}): missed then, hit now",
        ]
        lines += [visible(f"  {now.id}  was: {then.miss or 'missed'}") for then, now in fixed]
        lines.append(f"Broken ({len(broken)}): hit then, missed now")
        lines += [visible(f"  {now.id}  now: {now.miss or 'missed'}") for then, now in broken]
        return lines
