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
* ``echo``: its own content against the map (title and summary) of the child
  its map resembles most (a summary that repeats what one child shows, such as
  one written from a section's first pages: it describes that child, not the
  whole, and a navigator cannot tell the two apart).

A corpus with no content (a PageIndex tree of titles and summaries alone)
still has something beneath each inner node, its descendants' titles and
summaries, so the audit there compares maps with maps (:func:`basis` says so):
it can tell a summary that echoes one child or promises a sibling's, not one
that hides what the pages hold.

Each measure ranks every node; a node's ``fit`` is its worst place on any of
them, as a share of the corpus (0: the worst of all on some measure), so a node
that stands out on any one way comes first. Linear in the corpus's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..navigators.judge import Check, EmbeddingJudge, go_on

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Floats = npt.NDArray[np.float32]
    Skipped = tuple[npt.NDArray[np.intp], ...]
    """The (row, column) indices of a matrix's cells not compared, as ``np.nonzero`` gives them."""

__all__ = ["HEADS", "SIBLINGS", "MapFit", "audit", "basis"]

SIBLINGS = 256
"""Siblings compared at most (evenly spaced among a wide parent's children)."""
HEADS = 128
"""Nodes of the corpus's top two levels compared at most (evenly spaced)."""
ROWS_AT_ONCE = 16384
"""Nodes compared with the heads at once (their similarities held: some MB)."""
MEASURES = ("rival", "vague", "child", "echo")


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


def audit(judge: EmbeddingJudge, limit: int | None = None, check: Check = go_on) -> list[MapFit]:
    """Every node with something beneath it to compare with, weakest first (ties in the corpus's order), the first
    ``limit`` (``None``: all). ``check`` is called between slices of the work: it raises to stop (a worker's audit,
    its screen gone)."""
    import numpy as np
    from threadpoolctl import threadpool_limits

    judge.prepare(check)
    measures = _Measures(judge, check)
    # Its products are small (some thousand rows by 128): BLAS's second thread saved little on a quiet machine and,
    # spinning as it waits, took a core from the rest on a busy one (the ranking of 100,000 nodes: 2.5 s, not 3-6 s).
    with threadpool_limits(limits=1, user_api="blas"):
        scores = measures.run()
    count = len(measures.order)
    places = np.stack([_places(s, count) for s in scores])
    worst = places.argmin(axis=0)
    fit = places.min(axis=0)
    below = judge.beneath_vectors
    has_below = np.concatenate([np.linalg.norm(below[start:start + ROWS_AT_ONCE], axis=1) > 0  # in slices
                                for start in range(0, len(below), ROWS_AT_ONCE)] or [np.zeros(0, dtype=bool)])
    # a node no measure applies to (a corpus of one node) has nothing to be weak against: no place, not the last
    judged = np.flatnonzero(has_below & (fit < 2.0))
    ranked = judged[np.lexsort((judged, scores[0][judged], fit[judged]))]
    chosen = ranked if limit is None else ranked[:limit]
    _, own, _ = judge.token_sums
    beneath = "the content" if float(own[:, -1].sum()) > 0 else "the titles and summaries"
    found = []
    for i in chosen:
        measure = MEASURES[int(worst[i])]
        other = measures.rival[int(worst[i])][i]
        other_id = measures.order[other] if other >= 0 else None
        raw = float(scores[int(worst[i])][i])
        found.append(MapFit(measures.order[i], float(fit[i]), measure, other_id,
                            _says(judge, measures.order[i], measure, other_id, raw, beneath)))
    return found


def basis(judge: EmbeddingJudge) -> tuple[int, int, str]:
    """The nodes with content, the nodes with a summary, and what the audit compared, in words (a corpus of titles
    alone, or with no content, gives an audit of less: it says so rather than pretend)."""
    corpus = judge.corpus
    ids = list(judge.rows())
    content = sum(1 for n in ids if judge.content_of(n).strip())
    summaries = sum(1 for n in ids if corpus.summary_of(n).strip())
    if content:
        said = "each node's title and summary against the content beneath it"
    elif summaries:
        said = ("no node has content: each node's title and summary against its descendants' titles and summaries "
                "only (a summary that echoes a child or promises another branch shows; one that hides what the "
                "pages hold cannot)")
    else:
        said = ("no node has content or a summary: each node's title against the titles beneath it only (the "
                "audit can tell little: a map of titles alone)")
    return content, summaries, said


def _places(scores: npt.NDArray[np.float64], count: int) -> npt.NDArray[np.float64]:
    """Each node's place on a measure (lower score first), as a share of ``count``; 2 where it does not apply."""
    import numpy as np

    places = np.full(len(scores), 2.0)
    finite = np.flatnonzero(np.isfinite(scores))
    order = finite[np.argsort(scores[finite], kind="stable")]
    places[order] = np.arange(len(order)) / max(count, 1)
    return places


class _Measures:
    """The four measures of every node (see the module), and for each the node it lost to (-1: none); all parents
    at once (numpy over groups of siblings of one size), not a Python loop a parent."""

    def __init__(self, judge: EmbeddingJudge, check: Check) -> None:
        import numpy as np

        self.judge = judge
        self.check = check
        self.order = list(judge.rows())  # the corpus's order
        self.parent = judge.parents
        self.depth = judge.depths
        count = len(self.order)
        self.views = (judge.shown_vectors, judge.summary_vectors)
        self.below = judge.beneath_vectors
        self.scores = [np.full(count, np.inf) for _ in MEASURES]
        self.rival = [np.full(count, -1, dtype=np.int64) for _ in MEASURES]

    def run(self) -> list[npt.NDArray[np.float64]]:
        import numpy as np

        heads = np.flatnonzero(self.depth <= 1)
        if len(heads) > HEADS:
            heads = heads[np.linspace(0, len(heads) - 1, HEADS).astype(np.int64)]
        skips = self._skips(heads)
        for view in self.views:
            self._against(view, heads, skips)
            self.check()
            self._children(view)
        return self.scores

    def _lower(self, measure: int, rows: npt.NDArray[np.int64], values: npt.NDArray[np.float64],
               rivals: npt.NDArray[np.int64]) -> None:
        scores, rival = self.scores[measure], self.rival[measure]
        lower = values < scores[rows]
        scores[rows[lower]] = values[lower]
        rival[rows[lower]] = rivals[lower]

    def _ancestor(self, depth: int) -> npt.NDArray[np.int64]:
        """Each node's ancestor at ``depth`` (-1: the node is not deeper than that)."""
        import numpy as np

        at = np.arange(len(self.parent))
        while True:
            deeper = self.depth[at] > depth
            if not deeper.any():
                break
            at = np.where(deeper, self.parent[at], at)
        result: npt.NDArray[np.int64] = np.where(self.depth > depth, at, -1)
        return result

    def _skips(self, heads: npt.NDArray[np.int64]) -> list[Skipped]:
        """Per slice of :data:`ROWS_AT_ONCE` nodes, the heads each is not compared with: itself, its children, its
        siblings (compared as siblings) and its ancestors (computed once, for both views), as the (row, column)
        indices of the few of them."""
        import numpy as np

        heads_at = heads
        above = (self._ancestor(0), self._ancestor(1))
        skips = []
        for start in range(0, len(self.parent), ROWS_AT_ONCE):
            rows = np.arange(start, min(start + ROWS_AT_ONCE, len(self.parent)))
            skip = (heads_at[None, :] == rows[:, None]) | (self.parent[heads_at][None, :] == rows[:, None])
            skip |= self.parent[heads_at][None, :] == self.parent[rows][:, None]
            for ancestor in above:
                skip |= heads_at[None, :] == ancestor[rows][:, None]
            skips.append(np.nonzero(skip))
        return skips

    def _against(self, view: Floats, heads: npt.NDArray[np.int64], skips: list[Skipped]) -> None:
        """``rival`` and ``vague`` of every node: against its siblings (at most :data:`SIBLINGS`) and the heads
        that are neither above it, below it nor its siblings."""
        import numpy as np

        count = len(self.parent)
        own = np.einsum("ij,ij->i", view, self.below).astype(np.float64)
        total, squares, kept = np.zeros(count), np.zeros(count), np.zeros(count)
        top, rival = np.full(count, -np.inf), np.full(count, -1, dtype=np.int64)
        for start in range(0, count, ROWS_AT_ONCE):  # the heads, every node at once (in slices)
            self.check()
            rows = np.arange(start, min(start + ROWS_AT_ONCE, count))
            against = (view[rows] @ self.below[heads].T).astype(np.float64)
            self._gather(against, skips[start // ROWS_AT_ONCE], heads[None, :], total, squares, kept, top, rival,
                         rows)
        # the siblings, the groups of one size together
        order = np.argsort(self.parent, kind="stable")  # the roots (-1) first, then each parent's children in order
        bounds = np.flatnonzero(np.r_[True, self.parent[order][1:] != self.parent[order][:-1], True])
        sizes = np.diff(bounds)
        for size in np.unique(sizes).tolist():
            if size < 2:
                continue
            starts = bounds[:-1][sizes == size]
            if size > SIBLINGS:
                for start in starts.tolist():
                    rows = order[start:start + size]
                    sample = rows[np.linspace(0, size - 1, SIBLINGS).astype(np.int64)]
                    sims = (view[rows] @ self.below[sample].T).astype(np.float64)
                    self._gather(sims, np.nonzero(sample[None, :] == rows[:, None]), sample[None, :], total,
                                 squares, kept, top, rival, rows)
                continue
            step = max(1, min(4_000_000 // (size * size), ROWS_AT_ONCE // size))  # some MB gathered at a time
            for chunk in range(0, len(starts), step):
                self.check()
                groups = order[starts[chunk:chunk + step, None] + np.arange(size)[None, :]]  # groups x size
                sims = np.matmul(view[groups], self.below[groups].transpose(0, 2, 1)).astype(np.float64)
                rows = groups.reshape(-1)
                columns = np.repeat(groups, size, axis=0)  # each row's siblings
                self._gather(sims.reshape(len(rows), size), np.nonzero(columns == rows[:, None]), columns, total,
                             squares, kept, top, rival, rows)
        usable = np.flatnonzero(kept > 0)
        mean = total[usable] / kept[usable]
        spread = np.sqrt(np.maximum(squares[usable] / kept[usable] - mean ** 2, 0.0)) + 1e-6
        self._lower(0, usable, own[usable] - top[usable], rival[usable])
        self._lower(1, usable, (own[usable] - mean) / spread, np.full(len(usable), -1))

    @staticmethod
    def _gather(sims: npt.NDArray[np.float64], skipped: Skipped, columns: npt.NDArray[np.int64],
                total: npt.NDArray[np.float64], squares: npt.NDArray[np.float64], kept: npt.NDArray[np.float64],
                top: npt.NDArray[np.float64], rival: npt.NDArray[np.int64], rows: npt.NDArray[np.int64]) -> None:
        """Add ``sims`` (a row of ``rows``, a column a node of ``columns``; ``skipped``: the (row, column) indices not
        compared) to the running sum, sum of squares, count and best of each row."""
        import numpy as np

        # ``sims`` is the caller's own (made for this call): changed in place. A row skips few columns (itself, its
        # family), so they are set by their indices, not by a pass over the whole matrix; the sums are the same.
        skipped_rows, skipped_columns = skipped
        sims[skipped_rows, skipped_columns] = 0.0
        total[rows] += sims.sum(axis=1)
        squares[rows] += np.square(sims).sum(axis=1)
        kept[rows] += sims.shape[1] - np.bincount(skipped_rows, minlength=len(rows))
        sims[skipped_rows, skipped_columns] = -np.inf
        if sims.shape[1] == 0:
            return
        best = np.argmax(sims, axis=1)
        value = sims[np.arange(len(rows)), best]
        better = value > top[rows]
        top[rows[better]] = value[better]
        rival[rows[better]] = np.broadcast_to(columns, sims.shape)[np.arange(len(rows)), best][better]

    def _children(self, view: Floats) -> None:
        """``child`` and ``echo`` of every parent against its children, all at once."""
        import numpy as np

        kids = np.flatnonzero(self.parent >= 0)
        if not len(kids):
            return
        parents = self.parent[kids]
        sims = _row_dots(self.below, kids, view, parents)
        ranked = np.lexsort((kids, -sims, parents))  # per parent, its best child first (ties: the first)
        firsts = ranked[np.r_[True, parents[ranked][1:] != parents[ranked][:-1]]]
        node, best = parents[firsts], kids[firsts]
        own = np.einsum("ij,ij->i", self.below[node], view[node]).astype(np.float64)
        self._lower(2, node, own - sims[firsts], best)
        echo = _row_dots(self.judge.shown_vectors, kids, view, parents)
        ranked = np.lexsort((kids, -echo, parents))  # per parent, the child whose map its own echoes most
        firsts = ranked[np.r_[True, parents[ranked][1:] != parents[ranked][:-1]]]
        node = parents[firsts]
        own = np.einsum("ij,ij->i", self.below[node], view[node]).astype(np.float64)
        self._lower(3, node, own - echo[firsts], kids[firsts])


def _row_dots(a: Floats, a_rows: npt.NDArray[np.int64], b: Floats,
              b_rows: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
    """The dot product of row ``a_rows[i]`` of ``a`` with row ``b_rows[i]`` of ``b``, for each ``i``, gathered a slice
    at a time (rows gathered whole would be two corpus-sized temporaries)."""
    import numpy as np

    dots = np.empty(len(a_rows), dtype=np.float64)
    for start in range(0, len(a_rows), ROWS_AT_ONCE):
        end = start + ROWS_AT_ONCE
        dots[start:end] = np.einsum("ij,ij->i", a[a_rows[start:end]], b[b_rows[start:end]])
    return dots


def _says(judge: EmbeddingJudge, node: str, measure: str, other: str | None, raw: float, beneath: str) -> str:
    """Why a node is where it is, in words that hold for its figure ``raw`` on its worst ``measure`` (``beneath``:
    what lies beneath a node in this corpus, ``the content`` or, with none, ``the titles and summaries``)."""
    title = judge.corpus.title_of(node)
    noun = "the summary" if judge.corpus.summary_of(node).strip() else "the title"
    both = judge.corpus.summary_of(node).strip() != ""
    shows, say, they, fit, echo = (("the title and summary", "say", "they", "fit", "echo") if both else
                                   ("the title", "says", "it", "fits", "echoes"))
    named = repr(judge.corpus.title_of(other)) if other is not None else "another node"
    if measure == "rival":
        if raw < 0:
            return f"{noun} of {title!r} matches {beneath} under {named} better than its own (by {-raw:.3f})"
        return f"{noun} of {title!r} fits what lies beneath it best, but only just ahead of " \
               f"what lies under {named} (by {raw:.3f})"
    if measure == "vague":
        if raw < 0:
            return f"{shows} of {title!r} {say} little of what lies beneath it: {they} {fit} what lies " \
                   f"elsewhere better ({-raw:.1f} standard deviations)"
        return f"{shows} of {title!r} {say} little in particular: {they} {fit} what lies beneath it only " \
               f"{raw:.1f} standard deviations better than what lies elsewhere"
    if measure == "child":
        if raw < 0:
            return f"{noun} of {title!r} matches its child {named} better than all that lies beneath it " \
                   f"(by {-raw:.3f})"
        return f"{noun} of {title!r} fits all that lies beneath it only just better than its child {named} " \
               f"(by {raw:.3f})"
    if raw < 0:
        return f"{shows} of {title!r} {echo} what its child {named} shows more than {they} {fit} " \
               f"all that lies beneath it (by {-raw:.3f})"
    return f"{shows} of {title!r} {fit} all that lies beneath it only just more than {they} {echo} " \
           f"what its child {named} shows (by {raw:.3f})"
