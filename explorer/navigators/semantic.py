"""The offline semantic navigator: cosine similarity of static word embeddings, so paraphrase is understood.

The lexical navigator needs a shared word: "How long until I get my money
back?" shares none with "Refunds" and stops at once. This navigator compares
meanings instead: the query and each candidate (its title, then its summary)
become vectors of the embedding model bundled with ``wordllama``
(see :mod:`.embeddings`), and the candidates most similar to the query are
taken, best first. Offline, deterministic (ties keep the offer's order), and
cheap: a table lookup per token.

It always takes the best: static embeddings score every text a little
similar to every other (cosine 0.1 to 0.5 here), so no threshold on the score
says "nothing here". It takes the three best roots, where such embeddings err
most (on the four sample question sets the right root comes first for little
more than a third of the questions, second or third for about another third),
and then, below the roots, the single best child: three narrow descents,
three nodes landed, best first. It never takes more branches than there are
visits left to enter them.

Variants (``semantic:VARIANT``):

* ``default`` — that rule on cosine similarity alone;
* ``hybrid`` — the same, with the lexical navigator's BM25 as a nudge:
  similarity + w × BM25 / the best BM25 of the offer (w 0.1 among the roots,
  0.3 below them, where siblings share their parent's topic and their own
  words tell them apart), so among candidates of similar meaning one that
  shares the query's words comes first;
* ``wide`` — the hybrid's scores, the three best at every level: broader walks
  (about ten nodes landed per question) that land more answers somewhere, at
  the cost of precision.

A node's text is its title then its summary, the title counted once (``wide``
and the others alike): counting it twice made the first three nodes landed
worse on the sample sets. The figures for every navigator on the four sample
sets are printed by ``bench/navigator_quality.py`` (the README's navigator
table).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from core import CancellationToken, NavigatorChoice, NavigatorRequest, NodeView, Transcript, TreeNavigator

if TYPE_CHECKING:
    from .embeddings import StaticEmbeddings
from .lexical import score_candidates as bm25_scores
from .scored import offer_scores, scored_pair, variant_named

PREFIX = "semantic:"
CHECK_EVERY = 256
"""Candidates embedded between two looks at the cancellation token (a wide offer has thousands)."""
TRANSCRIPT_LINES = 100
RATIONALE_RUNNERS_UP = 3


@dataclass(frozen=True)
class Variant:
    """How a variant picks: the ``root_picks`` best roots (absent: ``picks``), the ``picks`` best children below
    them; BM25 weighted ``lexical_weight`` among the roots and ``lexical_weight_below`` below them (absent: the
    same; 0: similarity alone); the title's tokens counted ``title_weight`` times."""

    name: str
    picks: int
    lexical_weight: float = 0.0
    root_picks: int | None = None
    lexical_weight_below: float | None = None
    title_weight: int = 1

    def picks_at(self, roots: bool) -> int:
        return self.root_picks if roots and self.root_picks is not None else self.picks

    def weight_at(self, roots: bool) -> float:
        return self.lexical_weight if roots or self.lexical_weight_below is None else self.lexical_weight_below

    @property
    def score_kind(self) -> str:
        """What its scores are, for the transcript's ``scored`` pair."""
        return "cosine similarity + BM25 share" if self.lexical_weight else "cosine similarity"

    @property
    def rule(self) -> str:
        if self.root_picks is not None and self.root_picks != self.picks:
            below = "the best child" if self.picks == 1 else f"the {self.picks} best children"
            rule = f"the {self.root_picks} best roots, then below them {below}"
        else:
            rule = f"the {self.picks} best"
        rule += ", at most one per visit left"
        title = "title" if self.title_weight == 1 else f"title (counted {self.title_weight} times)"
        if self.lexical_weight:
            deeper = self.weight_at(False)
            weight = f"{self.lexical_weight:g}" if deeper == self.lexical_weight else \
                f"{self.lexical_weight:g} among the roots, {deeper:g} below"
            rule += f"; score = cosine similarity to the {title} and summary + {weight} × BM25 / the offer's best BM25"
        else:
            rule += f"; score = cosine similarity of the query to the {title} and summary"
        return rule


VARIANTS = {
    "default": Variant("default", picks=1, root_picks=3),
    "hybrid": Variant("hybrid", picks=1, root_picks=3, lexical_weight=0.1, lexical_weight_below=0.3),
    "wide": Variant("wide", picks=3, lexical_weight=0.1, lexical_weight_below=0.3),
}


def variant_of(model: str) -> Variant | None:
    return variant_named(model, PREFIX, VARIANTS)


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
                     token: CancellationToken | None = None, *, roots: bool = True) -> list[Scored]:
    """Each candidate's score against the query, in offer order (``roots``: the candidates are the roots);
    checks ``token`` every few hundred candidates."""
    query_vector = embeddings.text(query)
    vectors = []
    for number, candidate in enumerate(candidates):
        if token is not None and number % CHECK_EVERY == CHECK_EVERY - 1:
            token.raise_if_cancelled()
        vectors.append(embeddings.titled(candidate.title, candidate.summary, variant.title_weight))
    if not vectors:
        return []
    import numpy as np  # here, not at the top: resolving any navigator imports this module

    similarities = (np.stack(vectors) @ query_vector).astype(np.float64)
    lexical = [0.0] * len(candidates)
    matched: list[tuple[str, ...]] = [()] * len(candidates)
    weight = variant.weight_at(roots)
    if weight:
        bm25 = bm25_scores(query, candidates, token)
        best = max(s.score for s in bm25)
        if best > 0:
            lexical = [weight * s.score / best for s in bm25]
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
        roots = request.current is None
        scored = score_candidates(request.query, request.candidates, variant, embeddings, token, roots=roots)
        token.raise_if_cancelled()
        ranked = sorted(scored, key=lambda s: -s.score)  # stable: ties keep the offer's order
        count = min(variant.picks_at(roots), max(request.remaining_visits, 1), len(ranked))
        picked, rest = ranked[:count], ranked[count:]
        rationale = "most similar to the query: " + ", ".join(_line(s, 2) for s in picked)
        if rest:
            shown = ", ".join(_line(s, 2) for s in rest[:RATIONALE_RUNNERS_UP])
            more = f" and {len(rest) - RATIONALE_RUNNERS_UP} more" if len(rest) > RATIONALE_RUNNERS_UP else ""
            rationale += f" — next: {shown}{more}"
        if not picked:
            rationale = "nothing was offered"
        return NavigatorChoice(tuple(s.view.id for s in picked), rationale,
                               transcript=_transcript(request.query, ranked, variant, embeddings),
                               scores=offer_scores((s.view.id, s.score) for s in ranked))


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
