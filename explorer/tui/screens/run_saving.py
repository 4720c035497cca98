"""Save the run (the evaluation screen's ``ctrl+s``): one side's run over the question set kept as a file, as
``eval --save-run FILE`` keeps it (:func:`~explorer.walks.evaluation.keep_run`): its settings, model id, the question
set's path and hash, and every question's result — B's when two navigators are compared (the variant tried), else
A's. It is written once every question of that side was walked; ``eval --against FILE`` compares a later run with it.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...corpora import Corpus
from ...corpora.validate import stats
from ...navigators import files_read_by
from ...outputs import Output, Read, refused
from ...walk_settings import WalkSettings
from ...walks.evaluation import QuestionOutcome, keep_run, summarize


def refusal(out: Path, questions_path: Path, corpus: Corpus, models: Sequence[str]) -> str | None:
    """Why the run cannot be kept in ``out``, in one line (``None``: it can), by the one rule for every file written
    (:mod:`explorer.outputs`): never over the question set it was walked on, its corpus, or a navigator's file."""
    reads = [Read("the question set", Path(questions_path)), Read("the corpus", Path(corpus.path))]
    reads += [Read(f"the file {model} reads", path) for model in models for path in files_read_by(model)]
    return refused(Output("the run", out), reads, doing="save the run", example="run.json")


def default_path(questions_path: Path, model: str) -> Path:
    """Where a run is kept unless another path is typed: beside the question set, named for it and the model's
    variant when it has one (``handbook.v2.run.json``), else ``handbook.run.json``."""
    stem = questions_path.name.split(".", 1)[0]
    variant = ""
    if "system=" in model:
        system = model.split("system=", 1)[1].split(",", 1)[0]
        variant = Path(system).name.removesuffix(".system.txt").removesuffix(".txt")
    return questions_path.with_name(f"{stem}.{variant}.run.json" if variant else f"{stem}.run.json")


def not_ready(outcomes: Sequence[QuestionOutcome | None], model: str) -> str | None:
    """Why the run of ``model`` cannot be kept yet (``None``: it can)."""
    left = sum(outcome is None for outcome in outcomes)
    if left:
        return f"The run of {model} is not over ({left} questions left to walk): save it when it is."
    return None


def save_run(path: Path, questions_path: Path, corpus: Corpus, settings: WalkSettings,
             outcomes: Sequence[QuestionOutcome | None]) -> Path:
    """Keep the run (every outcome present) at ``path``; ``OSError`` when it cannot be written."""
    walked = [outcome for outcome in outcomes if outcome is not None]
    return keep_run(path, questions_path, corpus, settings, walked, summarize(walked, stats(corpus)))
