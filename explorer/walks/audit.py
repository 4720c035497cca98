"""An audit of the map, with no question needed: the nodes whose title and summary describe their own subtree worst
(:func:`audit`), weakest first, each with a figure (``fit``) and a line that says why.

A node's title and summary are its map: a navigator sees nothing else of what
lies beneath it. The audit compares, with the judge's embeddings
(:class:`~explorer.navigators.judge.EmbeddingJudge`), what a node shows (its
title and summary together, and its summary alone: a title rarely lies, a
summary written by a program at indexing may) with what lies beneath it (its
content and everything below), four ways:

* ``rival``: its own content against the best of the nodes it could be
  mistaken for: its siblings (at most :data:`SIBLINGS`, evenly spaced) and the
  corpus's top two levels (at most :data:`HEADS`), neither above nor below it;
* ``vague``: its own content against the mean of those, in standard
  deviations (a summary that says nothing in particular fits everything alike);
* ``child``: its own content against its best child's (a summary that fits a
  child better than the whole);
* ``part``: the rest of its subtree against its best child (a summary that
  describes one child and not the rest).

Each measure ranks every node; a node's ``fit`` is its worst place on any of
them, as a share of the corpus (0: the worst of all on some measure), so a node
that stands out on any one way comes first. Linear in the corpus's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..navigators.judge import EmbeddingJudge, preorder

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float32]

__all__ = ["HEADS", "SIBLINGS", "MapFit", "audit"]

SIBLINGS = 256
"""Siblings compared at most (evenly spaced among a wide parent's children)."""
HEADS = 128
"""Nodes of the corpus's top two levels compared at most (evenly spaced)."""
MEASURES = ("rival", "vague", "child", "part")


@dataclass(frozen=True)
class MapFit:
    """One node's fit: ``fit`` (its worst place on any measure, as a share of the corpus: 0 the worst), ``measure``
    (which measure placed it there), ``other`` (the node its map fits better, ``None``: none), and ``says`` (plain:
    titles are corpus text, pass it through ``safe_text``)."""

    id: str
    fit: float
    measure: str
    other: str | None
    says: str

    def to_json(self) -> dict[str, object]:
        return {"id": self.id, "fit": round(self.fit, 4), "measure": self.measure, "other": self.other,
                "says": self.says}


def audit(judge: EmbeddingJudge, limit: int | None = None) -> list[MapFit]:
    """Every node with something beneath it to compare with, weakest first (ties in the corpus's order), the first
    ``limit`` (``None``: all)."""
    import numpy as np

    measures = _Measures(judge)
    scores = measures.run()
    count = len(measures.order)
    places = np.stack([_places(s, count) for s in scores])
    worst = places.argmin(axis=0)
    fit = places.min(axis=0)
    has_below = np.linalg.norm(judge.beneath_vectors, axis=1) > 0
    judged = np.flatnonzero(has_below)
    ranked = judged[np.lexsort((judged, scores[0][judged], fit[judged]))]
    chosen = ranked if limit is None else ranked[:limit]
    found = []
    for i in chosen:
        measure = MEASURES[int(worst[i])]
        other = measures.rival[int(worst[i])][i]
        other_id = measures.order[other] if other >= 0 else None
        raw = float(scores[int(worst[i])][i])
        found.append(MapFit(measures.order[i], float(fit[i]), measure, other_id,
                            _says(judge, measures.order[i], measure, other_id, raw)))
    return found


def _places(scores: npt.NDArray[np.float64], count: int) -> npt.NDArray[np.float64]:
    """Each node's place on a measure (lower score first), as a share of ``count``; 2 where it does not apply."""
    import numpy as np

    places = np.full(len(scores), 2.0)
    finite = np.flatnonzero(np.isfinite(scores))
    order = finite[np.argsort(scores[finite], kind="stable")]
    places[order] = np.arange(len(order)) / max(count, 1)
    return places


class _Measures:
    """The four measures of every node (see the module), and for each the node it lost to (-1: none)."""

    def __init__(self, judge: EmbeddingJudge) -> None:
        import numpy as np

        self.judge = judge
        self.index = judge.index
        self.order = preorder(self.index)
        self.row = judge.rows()
        count = len(self.order)
        self.views = (judge.shown_vectors, judge.summary_vectors)
        self.below = judge.beneath_vectors
        self.scores = [np.full(count, np.inf) for _ in MEASURES]
        self.rival = [np.full(count, -1, dtype=np.int64) for _ in MEASURES]
        self.parent = np.full(count, -1, dtype=np.int64)
        for node in self.order:
            parent = self.index.parent(node)
            if parent is not None:
                self.parent[self.row[node]] = self.row[parent.id]

    def run(self) -> list[npt.NDArray[np.float64]]:
        import numpy as np

        index, row = self.index, self.row
        heads = np.array([row[n] for n in self.order if self.index.depth(n) <= 1], dtype=np.int64)
        if len(heads) > HEADS:
            heads = heads[np.linspace(0, len(heads) - 1, HEADS).astype(np.int64)]
        groups = [(None, index.root_ids())] + [(n, index.child_ids(n)) for n in self.order if index.has_children(n)]
        for parent, children in groups:
            rows = np.array([row[c] for c in children], dtype=np.int64)
            self._against(rows, parent, heads)
            if parent is not None:
                self._children(row[parent], rows)
        return self.scores

    def _lower(self, measure: int, rows: npt.NDArray[np.int64], values: npt.NDArray[np.float64],
               rivals: npt.NDArray[np.int64]) -> None:
        scores, rival = self.scores[measure], self.rival[measure]
        lower = values < scores[rows]
        scores[rows[lower]] = values[lower]
        rival[rows[lower]] = rivals[lower]

    def _against(self, rows: npt.NDArray[np.int64], parent: str | None, heads: npt.NDArray[np.int64]) -> None:
        """``rival`` and ``vague`` of siblings ``rows``: against each other and the heads not above or below."""
        import numpy as np

        siblings = rows if len(rows) <= SIBLINGS else rows[np.linspace(0, len(rows) - 1, SIBLINGS).astype(np.int64)]
        above = {self.row[n] for n in self.index.path(parent)} if parent is not None else set()
        kept = heads[np.array([h not in above for h in heads.tolist()], dtype=bool)] if above else heads
        others = np.concatenate([siblings, kept])
        skip = (others[None, :] == rows[:, None]) | (self.parent[others][None, :] == rows[:, None])
        usable = ~np.all(skip, axis=1)
        if not usable.any():
            return
        at, skip = rows[usable], skip[usable]
        kept_count = (~skip).sum(axis=1)
        for vectors in self.views:
            mine = vectors[at]
            own = np.einsum("ij,ij->i", mine, self.below[at]).astype(np.float64)
            against = (mine @ self.below[others].T).astype(np.float64)
            against[skip] = 0.0
            mean = against.sum(axis=1) / kept_count
            spread = np.sqrt(np.maximum((against ** 2).sum(axis=1) / kept_count - mean ** 2, 0.0)) + 1e-6
            against[skip] = -np.inf
            best = np.argmax(against, axis=1)
            top = against[np.arange(len(at)), best]
            self._lower(0, at, own - top, others[best])
            self._lower(1, at, (own - mean) / spread, np.full(len(at), -1))

    def _children(self, node: int, kids: npt.NDArray[np.int64]) -> None:
        """``child`` and ``part`` of ``node`` against its children ``kids``."""
        import numpy as np

        if len(kids) > SIBLINGS:
            kids = kids[np.linspace(0, len(kids) - 1, SIBLINGS).astype(np.int64)]
        shown, _, below = self.judge.token_sums
        at = np.array([node])
        for vectors in self.views:
            mine = vectors[node]
            sims = self.below[kids] @ mine
            best = int(np.argmax(sims))
            own = float(self.below[node] @ mine)
            self._lower(2, at, np.array([own - float(sims[best])]), np.array([kids[best]]))
            if len(kids) > 1:
                rest = below[node] - below[kids[best]] - shown[kids[best]]
                vector = self.judge.unit(rest[None, :])[0]
                self._lower(3, at, np.array([float(vector @ mine) - float(sims[best])]), np.array([kids[best]]))


def _says(judge: EmbeddingJudge, node: str, measure: str, other: str | None, raw: float) -> str:
    """Why a node is where it is, in words that hold for its figure ``raw`` on its worst ``measure``."""
    title = judge.corpus.title_of(node)
    named = repr(judge.corpus.title_of(other)) if other is not None else "another node"
    if measure == "rival":
        if raw < 0:
            return f"the summary of {title!r} matches the content under {named} better than its own (by {-raw:.3f})"
        return f"the summary of {title!r} fits its own content best, but only just ahead of {named}'s " \
               f"(by {raw:.3f})"
    if measure == "vague":
        if raw < 0:
            return f"the title and summary of {title!r} say little of what lies beneath it: they fit what lies " \
                   f"elsewhere better ({-raw:.1f} standard deviations)"
        return f"the title and summary of {title!r} say little in particular: they fit what lies beneath it only " \
               f"{raw:.1f} standard deviations better than what lies elsewhere"
    if measure == "child":
        if raw < 0:
            return f"the summary of {title!r} matches its child {named} better than all that lies beneath it " \
                   f"(by {-raw:.3f})"
        return f"the summary of {title!r} fits all that lies beneath it only just better than its child {named} " \
               f"(by {raw:.3f})"
    if raw < 0:
        return f"the summary of {title!r} describes its child {named} more than the rest beneath it (by {-raw:.3f})"
    return f"the summary of {title!r} describes the rest beneath it only just more than its child {named} " \
           f"(by {raw:.3f})"
