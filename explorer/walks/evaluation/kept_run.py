"""Evaluation runs kept as files: ``eval … --save-run FILE`` and the evaluation screen's ``ctrl+s`` write one, ``eval
… --against FILE`` and ``o`` compare a later run with it (:mod:`.run_comparison`), ``eval … --resume FILE`` and ``R``
walk only the questions it does not hold.

A kept run is one JSON document (version 2)::

    {"format": "reasoning-explorer-run", "version": 2, "created": "2026-12-01T12:00:00Z",
     "questions": {"path": ..., "sha256": ..., "count": 41}, "corpus": {"path": ..., "sha256": ..., "source": ...},
     "navigator": "local:smollm2@system=/p/v2.system.txt,prompt=/p/v2.prompt.txt",
     "settings": {"max_nodes_visited": 15, "max_depth": 6, "on_failure": "throw", "policy": "depth-first"},
     "partial": true, "holds": ["money-back", ...],
     "results": [...one per question it holds, as eval --json...], "summary": {...over those, as eval --json...}}

The navigator is the whole model id, options and all, so a kept run says which prompt files made it. A run is
*partial* when it holds fewer questions than its set (``count``): a cancelled evaluation kept as it was; ``holds``
names the questions it holds, in question order (its results' ids). A walk a cancel cut short is not held: resuming
walks it again. Version 1 (before partial runs) is read as a whole run of its results, walked depth-first.

A run is compared or resumed only over the same question set and corpus (their hashes): anything else is refused
in one line that says which differs; a run is resumed only with the settings it was kept with.
"""

from __future__ import annotations

import errno
import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from core import OnFailure

from ...corpora import Corpus
from ...corpora.files import MAX_FILE_BYTES
from ...corpora.questions import CHECK_SET_SUFFIX, Question
from ...corpora.validate import stats
from ...ending import WalkEnd
from ...navigators.prompt_variants import model_label
from ...numbers import counted
from ...outputs import Output, Read, write
from ...reading import NotARegularFile, TooLarge, problem, read_file
from ...safe_text import visible
from ...walk_settings import MapRef, WalkSettings, policy_text, read_policy
from ..settings import describe_settings
from .document import evaluation_to_json
from .misses import MissReason, brief_words
from .outcome import QuestionOutcome, outcome_from_json
from .summary import summarize

__all__ = ["FORMAT", "KeptQuestion", "KeptRun", "RunError", "check_fit", "check_resumable", "file_sha256",
           "held_outcomes", "holds", "keep_run", "read_run"]

FORMAT = "reasoning-explorer-run"
VERSION = 2
READABLE = (1, 2)
"""The versions read: 1, every question of its set; 2, any of them (``partial``, ``holds``)."""
MAX_BYTES = 50_000_000


class RunError(ValueError):
    """A kept run that cannot be read, compared or resumed: the message names the file and what to do."""


def file_sha256(path: str | Path) -> str:
    """The sha256 of a question set's file (a regular file, as large as a corpus may be: :mod:`explorer.reading`)."""
    return hashlib.sha256(read_file(path, MAX_FILE_BYTES)).hexdigest()


def holds(outcome: QuestionOutcome | None) -> bool:
    """Whether a run holds this question's outcome: its walk ended on its own (a walk a cancel cut short is not held:
    a run resumed walks it again)."""
    return outcome is not None and outcome.end != WalkEnd.CANCELLED


def keep_run(path: str | Path, questions_path: str | Path, corpus: Corpus, settings: WalkSettings,
             outcomes: Sequence[QuestionOutcome | None], reads: Iterable[Read | None] = (), *,
             replace: bool = True) -> Path:
    """Write the run to ``path`` through the one gate (:func:`explorer.outputs.write`: never over the question set,
    the corpus or what ``reads`` holds; over an existing file only with ``replace``; through a temporary file,
    renamed into place) and return the path. ``outcomes``: one per question of the set, in its order; those it does
    not hold (``None``, or cut short by a cancel) make it a partial run, which says so and which questions it
    holds."""
    held = [outcome for outcome in outcomes if outcome is not None and holds(outcome)]
    document = evaluation_to_json(questions_path, corpus, settings, held, summarize(held, stats(corpus)))
    written = document["settings"]
    assert isinstance(written, dict)
    kept: dict[str, Any] = {
        "format": FORMAT, "version": VERSION, "created": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "questions": {"path": str(questions_path), "sha256": file_sha256(questions_path), "count": len(outcomes)},
        "corpus": {"path": str(corpus.path), "sha256": corpus.sha256, "source": corpus.source},
        **({"map": corpus.map.to_json()} if corpus.map is not None else {}),
        "navigator": settings.model,
        "settings": {**written, "policy": policy_text(settings.policy, settings.alpha)},
        "partial": len(held) < len(outcomes),
        "holds": [outcome.question_id for outcome in held],
        "results": document["results"],
        "summary": document["summary"],
    }
    inputs = [Read("the question set", Path(questions_path)), Read("the corpus", Path(corpus.path)), *reads]
    return write(Output("the kept run", Path(path)), json.dumps(kept, ensure_ascii=True, indent=1) + "\n", inputs,
                 doing="write the kept run", example="run.json", replace=replace)


@dataclass(frozen=True)
class KeptQuestion:
    """One question's result as a run keeps it."""

    id: str
    hit: bool
    hit_at_3: bool
    landed: tuple[str, ...]
    miss: str | None
    """What the walk's miss says (its first wrong turn, or the limit that stopped it); ``None`` for a hit."""
    correct: int = 0
    """How many of the nodes landed are expected (precision over any questions is their sum over nodes landed)."""
    brief: str | None = field(default=None, compare=False)
    """The miss in a few words (``turned away at the roots``: :meth:`Miss.brief`); ``None`` for a hit, or a miss
    whose reason a kept file does not say."""

    @classmethod
    def of(cls, outcome: QuestionOutcome) -> KeptQuestion:
        miss = outcome.miss
        return cls(outcome.question_id, outcome.hit, outcome.hit_at_3, outcome.landed,
                   miss.sentence() if miss is not None else None, outcome.correct,
                   miss.brief() if miss is not None else None)


@dataclass(frozen=True)
class KeptRun:
    """A run: where it came from, what it was walked with, and the result of each question it holds (in question
    order; fewer than ``total`` for a partial run)."""

    path: str
    settings: WalkSettings
    """The model id (a kept run's ``navigator``) and the settings its questions were walked with."""
    questions_sha256: str
    corpus_sha256: str
    total: int
    """The questions of the set it was walked on."""
    results: tuple[KeptQuestion, ...]
    documents: tuple[Mapping[str, Any], ...] = field(default=(), compare=False, repr=False)
    """Each result as kept (for a run resumed: :func:`held_outcomes`)."""
    questions_path: str = field(default="", compare=False)
    """The question set's path as it was given when the run was kept (relative to where it was kept from, maybe)."""
    created: str = field(default="", compare=False)
    """When it was kept (``2026-12-01T12:00:00Z``; empty: not said)."""
    map: MapRef | None = field(default=None, compare=False)
    """The map variant its corpus was walked with (``None``: the corpus as its file holds it)."""

    @property
    def navigator(self) -> str:
        return self.settings.model

    @property
    def label(self) -> str:
        """Its model, prompt variant and map variant, no folder (``local:smollm2 with prompt v2``, ``lexical:default
        with map handbook.map.yaml``): the whole id and the map's path are the detail."""
        return model_label(self.settings.model) + map_label(self.map)

    @property
    def partial(self) -> bool:
        return len(self.results) < self.total

    @property
    def holds(self) -> tuple[str, ...]:
        return tuple(question.id for question in self.results)

    @property
    def hits(self) -> int:
        return sum(q.hit for q in self.results)

    @property
    def hits_at_3(self) -> int:
        return sum(q.hit_at_3 for q in self.results)

    @property
    def precision(self) -> float | None:
        landed = sum(len(q.landed) for q in self.results)
        return sum(q.correct for q in self.results) / landed if landed else None

    def holding_words(self) -> str:
        """``partial: holds 10 of 41 questions (money-back, sign-in, … +8 more)``, or ``all 41 questions``."""
        if not self.partial:
            return f"all {counted(self.total, 'question')}"
        return f"partial: holds {len(self.results)} of {counted(self.total, 'question')}" + (
            f" ({few_ids(self.holds)})" if self.results else "")

    @classmethod
    def of(cls, path: str, settings: WalkSettings, questions_sha256: str, corpus: Corpus,
           outcomes: Sequence[QuestionOutcome | None], questions_path: str | Path = "") -> KeptRun:
        """The run in hand (``outcomes`` one per question, in order; ``None`` for one not walked) over the question
        set whose hash is ``questions_sha256`` (:func:`file_sha256`), as a kept one reads."""
        return cls(path, settings.but(query=""), questions_sha256, corpus.sha256, len(outcomes),
                   tuple(KeptQuestion.of(o) for o in outcomes if o is not None and holds(o)), (),
                   str(questions_path), map=corpus.map)


def map_label(ref: MapRef | None) -> str:
    """What a side's label adds for a map variant (`` with map handbook.map.yaml``); nothing without one."""
    return f" with map {ref.name}" if ref is not None else ""


def few_ids(ids: Sequence[str], shown: int = 3) -> str:
    """``money-back, sign-in, refunds +8 more``: the first ids, and how many more."""
    more = len(ids) - shown
    return ", ".join(ids[:shown]) + (f" +{more} more" if more > 0 else "")


def _field(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        raise RunError(f"{where}: {key!r} is missing or not what a kept run holds")
    return value


def _settings(data: Mapping[str, Any], navigator: str, where: str) -> WalkSettings:
    """What the run was walked with; a version 1 run keeps no policy: it was walked depth-first."""
    settings = _field(data, "settings", dict, where)
    budget = _field(settings, "max_nodes_visited", int, f"{where}: settings")
    depth = _field(settings, "max_depth", int, f"{where}: settings")
    # What --budget and --depth take (1 to 100,000 visits, a depth of 0 to 100,000): a run walked is one of those.
    for key, value, low in (("max_nodes_visited", budget, 1), ("max_depth", depth, 0)):
        if not low <= value <= 100_000:
            raise RunError(f"{where}: its settings' {key} is {value}, which no walk takes (from {low} to 100,000); "
                           "give a run kept by eval --save-run")
    try:
        on_failure = OnFailure(settings.get("on_failure", OnFailure.THROW.value))
        policy, alpha = read_policy(str(settings.get("policy", "depth-first")))
    except ValueError:
        raise RunError(f"{where}: its settings' failure policy or walk policy is none this explorer knows") from None
    return WalkSettings("", navigator, budget, depth, on_failure, policy, alpha)


def _result(item: object, where: str) -> KeptQuestion:
    if not isinstance(item, dict):
        raise RunError(f"{where} is not an object")
    miss = item.get("miss")
    says = miss.get("says") if isinstance(miss, dict) else None
    landed = tuple(str(x) for x in _field(item, "landed", list, where))
    expect = item.get("expect")
    if isinstance(expect, list):
        correct = sum(node in set(map(str, expect)) for node in landed)
    else:
        precision = item.get("precision")
        correct = round(precision * len(landed)) if isinstance(precision, int | float) else 0
    return KeptQuestion(str(_field(item, "id", str, where)), bool(item.get("hit")), bool(item.get("hit_at_3")),
                        landed, str(says) if says is not None else None, correct, _brief(miss))


def _brief(miss: object) -> str | None:
    """A kept miss in a few words (:func:`brief_words`), ``None`` when its reason is none this explorer knows."""
    if not isinstance(miss, dict):
        return None
    node = miss.get("node")
    try:
        return brief_words(MissReason(str(miss.get("reason"))), node if isinstance(node, str) else None)
    except ValueError:
        return None


def read_run(path: str | Path) -> KeptRun:
    """The run kept in ``path``, or :class:`RunError` naming the file and what is wrong."""
    where = visible(str(path))
    file = Path(path)
    try:
        data = json.loads(read_file(file, MAX_BYTES).decode("utf-8"))
    except FileNotFoundError:
        raise RunError(f"{where}: no such kept run (give a file written by eval --save-run)") from None
    except TooLarge:
        raise RunError(f"{where}: larger than {MAX_BYTES:,} bytes; not a kept run") from None
    except (IsADirectoryError, NotARegularFile) as exc:
        raise RunError(f"{where}: {problem(exc)}; give a kept run (a file written by eval --save-run)") from None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise RunError(f"{where}: {problem(exc)}; give the kept run's real path") from None
        said = ("the path is longer than the file system allows; give a shorter path"
                if exc.errno == errno.ENAMETOOLONG else f"cannot be read ({exc.strerror or type(exc).__name__})")
        raise RunError(f"{where}: {said}") from None
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:  # RecursionError: nested too deep
        raise RunError(f"{where}: not a kept run ({type(exc).__name__}); give a file written by eval --save-run") \
            from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RunError(f"{where}: not a kept run (no \"format\": \"{FORMAT}\"); give a file written by "
                       "eval --save-run")
    if data.get("version") not in READABLE:
        raise RunError(f"{where}: kept run version {data.get('version')!r} is not supported (this reads "
                       f"{' and '.join(map(str, READABLE))})")
    questions = _field(data, "questions", dict, where)
    corpus = _field(data, "corpus", dict, where)
    items = _field(data, "results", list, where)
    results = tuple(_result(item, f"{where}: result {number}") for number, item in enumerate(items, start=1))
    ids = [question.id for question in results]
    if len(set(ids)) < len(ids):
        raise RunError(f"{where}: a question is kept twice in its results; keep each question once")
    total = len(results)
    if data["version"] >= 2:
        total = _field(questions, "count", int, where)
        held = _field(data, "holds", list, where)
        if held != ids or total < len(ids) or bool(data.get("partial")) != (len(ids) < total):
            raise RunError(f"{where}: its \"holds\", \"partial\" and \"count\" do not match its results; keep the "
                           "run again")
    return KeptRun(str(path), _settings(data, str(_field(data, "navigator", str, where)), where),
                   str(_field(questions, "sha256", str, where)), str(_field(corpus, "sha256", str, where)), total,
                   results, tuple(items), str(questions.get("path", "")), str(data.get("created", "")),
                   MapRef.from_json(data.get("map")))


def check_fit(kept: KeptRun, questions_sha256: str, corpus_sha256: str, *,
              compared_on: str | Path | None = None) -> None:
    """:class:`RunError` when ``kept`` is not a run of this question set over this corpus (said before walking).
    ``compared_on``: the set now, for a comparison (never a resume): two runs of a corpus's check set compare on the
    questions both hold, though the set grew between them (a case kept with ``K``)."""
    check_sets = (compared_on is not None and Path(compared_on).name.endswith(CHECK_SET_SUFFIX)
                  and Path(kept.questions_path).name == Path(compared_on).name)
    if kept.questions_sha256 != questions_sha256 and not check_sets:
        raise RunError(visible(f"{kept.path}: kept from another question set (or the set has changed since); "
                               "compare runs of the same question set"))
    if kept.corpus_sha256 != corpus_sha256:
        raise RunError(visible(f"{kept.path}: kept over another corpus (or the corpus has changed since); compare "
                               "runs over the same corpus"))


def same_map(kept: KeptRun, walked: MapRef | None) -> bool:
    """Whether ``kept`` was walked with the map variant ``walked`` (by its bytes' hash; ``None``: none)."""
    return (kept.map.sha256 if kept.map is not None else None) == (walked.sha256 if walked is not None else None)


def check_resumable(kept: KeptRun, settings: WalkSettings) -> None:
    """:class:`RunError` when ``kept`` was walked with other settings than ``settings`` (its questions would not be
    this run's): the model id, the budget, the depth limit, the failure policy and the walk policy."""
    if kept.settings != settings.but(query=""):
        raise RunError(visible(f"{kept.path}: kept with {describe_settings(kept.settings)}, not "
                               f"{describe_settings(settings)}; resume it with the settings it was kept with"))


def check_same_map(kept: KeptRun, walked: MapRef | None) -> None:
    """:class:`RunError` when ``kept`` was walked with another map variant than ``walked`` (this run's; ``None``:
    none): a run kept with another map, or with the same file as it read before an edit, is not resumed."""
    if not same_map(kept, walked):
        then = f"map {kept.map.path}" if kept.map is not None else "no map variant"
        now = f"map {walked.path}" if walked is not None else "no map variant"
        raise RunError(visible(f"{kept.path}: kept with {then} (as it read then), this run walks with {now}; resume "
                               "it with the map it was kept with (--map FILE)"))


def held_outcomes(kept: KeptRun, questions: Sequence[Question]) -> dict[int, QuestionOutcome]:
    """The outcomes ``kept`` holds, by question number in ``questions`` (its set: :func:`check_fit` first), read
    back for a run resumed; :class:`RunError` naming the file and the result that cannot be read."""
    numbers = {question.id: number for number, question in enumerate(questions)}
    held: dict[int, QuestionOutcome] = {}
    for count, (result, item) in enumerate(zip(kept.results, kept.documents, strict=True), start=1):
        number = numbers.get(result.id)
        if number is None:
            raise RunError(visible(f"{kept.path}: result {count} ({result.id}) is no question of the set; keep the "
                                   "run again"))
        try:
            held[number] = outcome_from_json(item, questions[number], kept.settings)
        except ValueError as exc:
            raise RunError(visible(f"{kept.path}: result {count} ({result.id}): {exc}; keep the run again")) \
                from None
    return held
