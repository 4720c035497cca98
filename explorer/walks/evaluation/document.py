"""The whole ``eval --json`` document: the set, the corpus, the navigator and its settings, every question's result,
the totals, and (``--compare``) the second navigator's."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ...corpora import Corpus
from ...walk_settings import WalkSettings, policy_fields
from .comparison import EvalComparison
from .outcome import QuestionOutcome, outcome_to_json
from .summary import EvalSummary, summary_to_json

__all__ = ["evaluation_to_json"]


def evaluation_to_json(questions_path: str | Path, corpus: Corpus, settings: WalkSettings,
                       outcomes: Sequence[QuestionOutcome], summary: EvalSummary,
                       comparison: EvalComparison | None = None) -> dict[str, object]:
    """The whole ``eval --json`` document: the set, the corpus, the navigator and settings (a best-first walk's policy
    and alpha among them, as every document that keeps a policy writes it), every question's result, the totals, and
    (``--compare``) the second navigator's."""
    document: dict[str, object] = {
        "questions": str(questions_path), "corpus": str(corpus.path),
        **({"map": corpus.map.to_json()} if corpus.map is not None else {}),
        "navigator": settings.model,
        "settings": {"max_nodes_visited": settings.max_nodes_visited, "max_depth": settings.max_depth,
                     "on_failure": settings.on_failure.value, **policy_fields(settings)},
        "results": [outcome_to_json(o) for o in outcomes],
        "summary": summary_to_json(summary),
    }
    if comparison is not None:
        document["compare"] = comparison.to_json()
    return document
