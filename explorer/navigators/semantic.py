"""The offline semantic navigator: cosine similarity of static word embeddings, so paraphrase is understood.

The lexical navigator needs a shared word: "How long until I get my money
back?" shares none with "Refunds" and stops at once. This navigator compares
meanings instead: the query and each candidate (its title counted twice, then
its summary) become vectors of the embedding model bundled with ``wordllama``
(see :mod:`.embeddings`), and the candidates most similar to the query are
taken, best first. Offline, deterministic (ties keep the offer's order), and
cheap: a table lookup per token.

It always takes the best few: static embeddings score every text a little
similar to every other (cosine 0.1 to 0.5 here), so no threshold on the score
says "nothing here"; the walk's budget bounds the search instead. It never
takes more branches than there are visits left to enter them.

Variants (``semantic:VARIANT``):

* ``default`` — the three most similar;
* ``hybrid`` — the same, with the lexical navigator's BM25 as a small nudge:
  similarity + 0.1 × BM25 / the best BM25 of the offer, so among candidates of
  similar meaning one that shares the query's words comes first.

Measured with ``reasoning-explorer eval`` on the four sample question sets:
both land an expected node for about half of all questions, and for about a
third of those that share no content word with the answer, where
``lexical:default`` lands none of those.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import CancellationToken, NavigatorChoice, NavigatorRequest, NodeView, Transcript, TreeNavigator

if TYPE_CHECKING:
    from .embeddings import StaticEmbeddings
from .lexical import score_candidates as bm25_scores
from .scored import scored_pair

PREFIX = "semantic:"
CHECK_EVERY = 256
"""Candidates embedded between two looks at the cancellation token (a wide offer has thousands)."""
TRANSCRIPT_LINES = 100
RATIONALE_RUNNERS_UP = 3


@dataclass(frozen=True)
class Variant:
    name: str
    picks: int
    lexical_weight: float = 0.0

    @property
    def score_kind(self) -> str:
        """What its scores are, for the transcript's ``scored`` pair."""
        return "cosine similarity + BM25 share" if self.lexical_weight else "cosine similarity"

    @property
    def rule(self) -> str:
        rule = f"the {self.picks} best, at most one per visit left"
        if self.lexical_weight:
            rule += f"; score = cosine similarity + {self.lexical_weight:g} × BM25 / the offer's best BM25"
        else:
            rule += "; score = cosine similarity of the query to the title (counted twice) and summary"
        return rule


VARIANTS = {
    "default": Variant("default", picks=3),
    "hybrid": Variant("hybrid", picks=3, lexical_weight=0.1),
}


def variant_of(model: str) -> Variant | None:
    if not model.startswith(PREFIX):
        return None
    return VARIANTS.get(model[len(PREFIX):].strip() or "default")


@dataclass(frozen=True)
class Scored:
    view: NodeView
    similarity: float
    lexical: float
    """The weighted BM25 part of the score (0 for ``default``)."""
    matched: tuple[str, ...]

    @property
    def score(self) -> float:
        return self.similarity + self.lexical


def score_candidates(query: str, candidates: tuple[NodeView, ...], variant: Variant, embeddings: StaticEmbeddings,
                     token: CancellationToken | None = None) -> list[Scored]:
    """Each candidate's score against the query, in offer order; checks ``token`` every few hundred candidates."""
    query_vector = embeddings.text(query)
    vectors = []
    for number, candidate in enumerate(candidates):
        if token is not None and number % CHECK_EVERY == CHECK_EVERY - 1:
            token.raise_if_cancelled()
        vectors.append(embeddings.titled(candidate.title, candidate.summary))
    if not vectors:
        return []
    import numpy as np  # here, not at the top: resolving any navigator imports this module

    similarities = (np.stack(vectors) @ query_vector).astype(np.float64)
    lexical = [0.0] * len(candidates)
    matched: list[tuple[str, ...]] = [()] * len(candidates)
    if variant.lexical_weight:
        bm25 = bm25_scores(query, candidates, token)
        best = max(s.score for s in bm25)
        if best > 0:
            lexical = [variant.lexical_weight * s.score / best for s in bm25]
            matched = [s.matched for s in bm25]
    return [
        Scored(view, round(float(similarity), 6), round(part, 6), words)
        for view, similarity, part, words in zip(candidates, similarities, lexical, matched, strict=True)
    ]


def _line(s: Scored, digits: int) -> str:
    if not s.lexical:
        return f"{s.view.id} {s.score:.{digits}f}"
    return f"{s.view.id} {s.score:.{digits}f} (similarity {s.similarity:.{digits}f} + words {s.lexical:.{digits}f}: " \
           f"{', '.join(s.matched)})"


class SemanticNavigator(TreeNavigator):
    """``semantic:default`` (also ``semantic:hybrid``): offline, deterministic, understands paraphrase."""

    def supports(self, model: str) -> bool:
        return variant_of(model) is not None

    def check_model(self, model: str) -> None:
        """Load the model now (once per process), so a missing package is a configuration error before the walk."""
        _embeddings()

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        token = request.cancellation
        token.raise_if_cancelled()
        variant = variant_of(request.model) or VARIANTS["default"]
        embeddings = _embeddings()
        token.raise_if_cancelled()
        if not embeddings.text(request.query).any():
            return NavigatorChoice((), "the query has no words to compare with the candidates",
                                   transcript=(("query", request.query), ("model", embeddings.name)))
        scored = score_candidates(request.query, request.candidates, variant, embeddings, token)
        token.raise_if_cancelled()
        ranked = sorted(scored, key=lambda s: -s.score)  # stable: ties keep the offer's order
        count = min(variant.picks, max(request.remaining_visits, 1), len(ranked))
        picked, rest = ranked[:count], ranked[count:]
        rationale = "most similar to the query: " + ", ".join(_line(s, 2) for s in picked)
        if rest:
            shown = ", ".join(_line(s, 2) for s in rest[:RATIONALE_RUNNERS_UP])
            more = f" and {len(rest) - RATIONALE_RUNNERS_UP} more" if len(rest) > RATIONALE_RUNNERS_UP else ""
            rationale += f" — next: {shown}{more}"
        if not picked:
            rationale = "nothing was offered"
        return NavigatorChoice(tuple(s.view.id for s in picked), rationale,
                               transcript=_transcript(request.query, ranked, variant, embeddings))


def _embeddings() -> StaticEmbeddings:
    """The bundled model (numpy and wordllama load with it, on the first semantic walk, not at resolve)."""
    from .embeddings import bundled_embeddings

    return bundled_embeddings()


def _transcript(query: str, ranked: list[Scored], variant: Variant, embeddings: StaticEmbeddings) -> Transcript:
    lines = [_line(s, 3) for s in ranked[:TRANSCRIPT_LINES]]
    if len(ranked) > TRANSCRIPT_LINES:
        rest = ranked[TRANSCRIPT_LINES:]
        lines.append(f"… {len(rest)} more, scoring {rest[0].score:.3f} or less")
    return (
        ("query", query),
        ("scores", "\n".join(lines) or "(no candidate)"),
        ("rule", variant.rule),
        ("model", embeddings.name),
        scored_pair(variant.score_kind, ((s.view.id, s.score) for s in ranked[:TRANSCRIPT_LINES])),
    )
