"""A navigator's own score for each candidate, said in its answer's transcript for whoever reads the walk later.

A navigator that scores the candidates it judges (``lexical:`` BM25, ``semantic:``
cosine similarity, plus a share of BM25 in ``semantic:hybrid``) ends each
answer's transcript with one pair::

    ("scored", '{"kind":"bm25","scores":{"refunds":2.758294,"billing":0.421}}')

one line of JSON: ``kind`` names what the numbers are, ``scores`` maps ids to
scores, the best first (the same candidates the transcript's readable
``scores`` lists). ``core`` copies transcripts onto the walk's events unread and
traces keep them, so nothing in ``core`` changes; :func:`scores_in` reads the
pair back (the tracing export gives each landed document the score of the
decision that chose it). A navigator without scores adds nothing: an LLM names
its choices in its own order, and that order is all the walk knows of its
preference. A screen that shows transcripts may leave this pair out, as the
readable ``scores`` pair says the same.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TypeVar

V = TypeVar("V")

LABEL = "scored"
"""The transcript label of the scores pair."""
DIGITS = 6


@dataclass(frozen=True)
class Scores:
    """What one decision's navigator scored: ``kind`` of score, and each candidate's (best first)."""

    kind: str
    by_id: Mapping[str, float]


def scored_pair(kind: str, scores: Iterable[tuple[str, float]]) -> tuple[str, str]:
    """The transcript pair for ``scores`` (``(id, score)``, best first) of the given ``kind``."""
    values = {node: round(float(score), DIGITS) for node, score in scores if math.isfinite(score)}
    return LABEL, json.dumps({"kind": kind, "scores": values}, ensure_ascii=False, separators=(",", ":"))


def scores_in(transcript: Sequence[tuple[str, str]] | None) -> Scores | None:
    """The scores a decision's ``transcript`` carries, or ``None`` (no pair, or one that cannot be read)."""
    for label, text in transcript or ():
        if label != LABEL:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            return None
        kind, scores = (data.get("kind"), data.get("scores")) if isinstance(data, dict) else (None, None)
        if not isinstance(kind, str) or not isinstance(scores, dict):
            return None
        return Scores(kind, {str(k): float(v) for k, v in scores.items()
                             if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)})
    return None


def offer_scores(scores: Iterable[tuple[str, float]]) -> dict[str, float] | None:
    """A navigator's scores as ``NavigatorChoice.scores`` takes them, each in (0, 1]: scaled per offer by the best
    (the best scores 1), so a best-first walk weighs every offer on one scale; an id scored 0 or below is left out
    (it would not join the frontier). ``None`` when nothing scored above 0 (the walk then scores the selected ids by
    their order)."""
    pairs = [(node, score) for node, score in scores if math.isfinite(score) and score > 0]
    best = max((score for _, score in pairs), default=0.0)
    if best <= 0:
        return None
    return {node: round(score / best, DIGITS) for node, score in pairs}


def variant_named(model: str, prefix: str, variants: Mapping[str, V]) -> V | None:
    """The variant of a scoring navigator that ``model`` names (``lexical:wide``; the prefix alone, or a blank
    name: ``default``): ``None`` for another navigator's model id, or a name it has no variant of (the one rule of
    ``lexical:`` and ``semantic:`` alike)."""
    if not model.startswith(prefix):
        return None
    return variants.get(model[len(prefix):].strip() or "default")
