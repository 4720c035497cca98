"""The offline lexical navigator: BM25 over the candidates' titles and summaries.

Deterministic, instant and honest about what it matched. It sees what every
navigator sees (the query and each candidate's title and summary), scores
each candidate with BM25, treating the offered candidates as the collection
(a term that every candidate shares tells them apart by nothing), with title
terms counted twice, and picks the best candidate and any within a margin of
it. No term in common: it chooses nothing, which stops the path here.

Variants (``lexical:VARIANT``):

* ``default`` — the best and up to two more scoring at least half of it;
* ``strict`` — the single best;
* ``wide`` — up to four scoring at least a quarter of the best.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

from core import CancellationToken, NavigatorChoice, NavigatorRequest, NodeView, TreeNavigator

from .scored import offer_scores, scored_pair, variant_named
from .text_terms import terms

PREFIX = "lexical:"
K1 = 1.2
B = 0.75
TITLE_WEIGHT = 2


TRANSCRIPT_LINES = 100
"""Candidates listed with their scores in a transcript; the rest are counted (a wide offer has thousands)."""


@dataclass(frozen=True)
class Variant:
    max_picks: int
    margin: float

    @property
    def rule(self) -> str:
        if self.max_picks == 1:
            return "the single best"
        return f"the best and up to {self.max_picks - 1} more scoring at least {self.margin:.0%} of it"


VARIANTS = {
    "default": Variant(max_picks=3, margin=0.5),
    "strict": Variant(max_picks=1, margin=1.0),
    "wide": Variant(max_picks=4, margin=0.25),
}


def variant_of(model: str) -> Variant | None:
    return variant_named(model, PREFIX, VARIANTS)


@dataclass(frozen=True)
class Scored:
    view: NodeView
    score: float
    matched: tuple[str, ...]


def score_candidates(query: str, candidates: tuple[NodeView, ...],
                     token: CancellationToken | None = None) -> list[Scored]:
    """BM25 of each candidate against the query, over title (twice) and summary, in offer order.

    Linear in the size of the offer; checks ``token`` every thousand candidates.
    """
    query_terms = list(dict.fromkeys(terms(query)))
    wanted = set(query_terms)
    bags: list[Counter[str]] = []
    lengths: list[int] = []
    document_frequency: Counter[str] = Counter()
    for number, candidate in enumerate(candidates):
        if token is not None and number % 1000 == 999:
            token.raise_if_cancelled()
        words = terms(candidate.title) * TITLE_WEIGHT + terms(candidate.summary)
        lengths.append(len(words))
        bag = Counter(word for word in words if word in wanted)
        bags.append(bag)
        document_frequency.update(bag.keys())
    count = len(candidates)
    average = sum(lengths) / count if count else 0.0
    idf = {term: math.log(1 + (count - df + 0.5) / (df + 0.5)) for term, df in document_frequency.items()}
    scored = []
    for view, bag, length in zip(candidates, bags, lengths, strict=True):
        score = 0.0
        matched = []
        for term in query_terms:
            tf = bag.get(term, 0)
            if not tf:
                continue
            norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * length / average)) if average else 0.0
            score += idf[term] * norm
            matched.append(term)
        scored.append(Scored(view, score, tuple(matched)))
    return scored


class LexicalNavigator(TreeNavigator):
    """``lexical:default`` (also ``lexical:strict``, ``lexical:wide``): offline, deterministic, fast."""

    def supports(self, model: str) -> bool:
        return variant_of(model) is not None

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        request.cancellation.raise_if_cancelled()
        variant = variant_of(request.model) or VARIANTS["default"]
        scored = score_candidates(request.query, request.candidates, request.cancellation)
        ranked = sorted((s for s in scored if s.score > 0), key=lambda s: -s.score)
        transcript = _transcript(request.query, scored, variant)
        if not ranked:
            query_terms = ", ".join(dict.fromkeys(terms(request.query))) or "none"
            return NavigatorChoice((), f"no candidate shares a term with the query (query terms: {query_terms})",
                                   transcript=transcript)
        best = ranked[0].score
        picked = [s for s in ranked if s.score >= best * variant.margin][: variant.max_picks]
        lines = [f"{s.view.id} {s.score:.2f} ({', '.join(s.matched)})" for s in picked]
        skipped = [f"{s.view.id} {s.score:.2f}" for s in ranked[len(picked):]]
        rationale = "matched " + "; ".join(lines)
        if skipped:
            rationale += f" — below the margin: {', '.join(skipped)}"
        return NavigatorChoice(tuple(s.view.id for s in picked), rationale, transcript=transcript,
                               scores=offer_scores((s.view.id, s.score) for s in scored))


def _transcript(query: str, scored: list[Scored], variant: Variant) -> tuple[tuple[str, str], ...]:
    """The query's terms, each candidate's score (best first; ties in offer order), the rule applied, and the
    scores again for programs (:mod:`.scored`)."""
    ranked = sorted(scored, key=lambda s: -s.score)  # stable: ties keep the offer's order
    lines = [f"{s.view.id} {s.score:.2f}" + (f" ({', '.join(s.matched)})" if s.matched else "")
             for s in ranked[:TRANSCRIPT_LINES]]
    if len(ranked) > TRANSCRIPT_LINES:
        rest = ranked[TRANSCRIPT_LINES:]
        lines.append(f"… {len(rest)} more, scoring {rest[0].score:.2f} or less")
    return (
        ("terms", " ".join(dict.fromkeys(terms(query))) or "(none: every word is a stop word)"),
        ("scores", "\n".join(lines) or "(no candidate)"),
        ("rule", variant.rule),
        scored_pair("bm25", ((s.view.id, s.score) for s in ranked[:TRANSCRIPT_LINES])),
    )
