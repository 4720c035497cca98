"""An independent judge of a corpus: how well what a navigator is shown, and what lies beneath it, answer a query.

A walk's miss has several possible culprits (the map, the navigator, the walk,
the tree itself), and telling them apart needs a judge that is not the
navigator under test. A :class:`Judge` is bound to one corpus and scores, for a
query:

* :meth:`Judge.shown`: candidates by what a navigator is shown of them, their
  title and summary;
* :meth:`Judge.beneath`: candidates by what lies beneath them: their own
  content, and the title, summary and content of every node below;
* :meth:`Judge.flat`: every node of the corpus by its own title, summary and
  content, no tree (a flat search);
* :meth:`Judge.sentence`: the sentence of the content beneath a node that
  answers the query best (what a summary that hid it should have said).

Two judges ship (``--judge``): ``semantic:default``, the bundled static
embeddings (:mod:`.embeddings`: a text's vector is the mean of its tokens'
rows, so a subtree's vector is its texts' token sums added, computed once for
the whole corpus, bottom-up), the offline default; and ``lexical:default``,
BM25 over the same texts (:mod:`.lexical`'s scoring, the candidates as the
collection). Both are deterministic.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from core import HierarchyIndex, NodeView

from ..corpora import Corpus
from ..corpora.pageindex import PLACEHOLDER
from .errors import NavigatorConfigError
from .lexical import score_candidates as bm25_scores

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from .embeddings import StaticEmbeddings

    Tables = tuple[dict[str, int], npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32],
                   npt.NDArray[np.float32]]

__all__ = ["DEFAULT_JUDGE", "FALLBACK_JUDGE", "JUDGES", "Judge", "default_judge", "judge_for", "preorder",
           "sentences"]

DEFAULT_JUDGE = "semantic:default"
FALLBACK_JUDGE = "lexical:default"
"""The default judge when the bundled embeddings cannot load (:func:`default_judge`)."""
JUDGES = {"semantic:default": "the bundled static embeddings", "lexical:default": "BM25 over the same texts"}
ROWS_AT_ONCE = 8192
"""Rows of a corpus's tables worked on at once (some MB): a temporary the corpus's size costs its pages anew."""
SENTENCE_CHARS = 240
"""A matched sentence is cut to this many characters (ending in …)."""
_SENTENCE_END = re.compile(r"(?<=[.!?;:])\s+|\n+")


Check = Callable[[], None]
"""Called between the slices of a long computation on another thread (a worker's audit): it raises to stop it."""


def go_on() -> None:
    """The :data:`Check` of a computation nobody stops."""


def preorder(index: HierarchyIndex) -> list[str]:
    """Every node id, each before its children (the corpus's order), without recursion."""
    order: list[str] = []
    stack = list(reversed(index.root_ids()))
    while stack:
        node = stack.pop()
        order.append(node)
        stack.extend(reversed(index.child_ids(node)))
    return order


def sentences(text: str) -> list[str]:
    """``text`` cut into sentences (at ``. ! ? ; :`` and line breaks), each stripped, none empty."""
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


class Judge:
    """A judge bound to one corpus (see the module). Built by :func:`judge_for`; the corpus's texts are read once,
    when first needed."""

    name: str
    """What the judge is (``semantic:default``), as ``--judge`` names it."""
    kind: str
    """``semantic`` or ``lexical``: the navigators it judges with their own scores (:meth:`same_as`)."""

    def __init__(self, corpus: Corpus) -> None:
        self.corpus = corpus
        self.index = corpus.index

    def same_as(self, model: str) -> bool:
        """Whether navigator ``model`` scores as this judge does (``semantic:*`` judged by the same embeddings):
        then a verdict can say only whether the map or the walk was at fault, not the navigator."""
        return model.startswith(f"{self.kind}:")

    def shown(self, query: str, ids: Sequence[str]) -> list[float]:
        raise NotImplementedError

    def beneath(self, query: str, ids: Sequence[str]) -> list[float]:
        raise NotImplementedError

    def flat(self, query: str) -> list[tuple[str, float]]:
        """Every node with its score against ``query`` by its own title, summary and content, best first (ties in
        the corpus's order)."""
        raise NotImplementedError

    def texts(self, query: str, texts: Sequence[str]) -> list[float]:
        """Each text's score against ``query`` (for :meth:`sentence`)."""
        raise NotImplementedError

    def content_of(self, node: str) -> str:
        """``node``'s content, ``""`` for a placeholder (a PageIndex node without its text says only which pages it
        covers: judged as content, it would make every node's content alike)."""
        document = self.index[node]
        return "" if document.metadata.get(PLACEHOLDER) else document.content

    def content_below(self, node: str) -> Iterator[str]:
        """The content of ``node`` and of every node below it, in the corpus's order."""
        stack = [node]
        while stack:
            current = stack.pop()
            yield self.content_of(current)
            stack.extend(reversed(self.index.child_ids(current)))

    def sentence(self, query: str, node: str) -> str:
        """The sentence of the content beneath ``node`` (its own included) that answers ``query`` best; ``""`` when
        there is no content."""
        found = [s for text in self.content_below(node) for s in sentences(text)]
        if not found:
            return ""
        scores = self.texts(query, found)
        best = found[max(range(len(found)), key=lambda i: (scores[i], -i))]
        return best if len(best) <= SENTENCE_CHARS else best[: SENTENCE_CHARS - 1].rstrip() + "…"

    def shown_text(self, node: str) -> tuple[str, str]:
        return self.corpus.title_of(node), self.corpus.summary_of(node)


class EmbeddingJudge(Judge):
    """The bundled static embeddings: cosine similarity of mean-pooled token vectors."""

    name = "semantic:default"
    kind = "semantic"

    def __init__(self, corpus: Corpus, embeddings: StaticEmbeddings) -> None:
        super().__init__(corpus)
        self.embeddings = embeddings

    @cached_property
    def _tables(self) -> Tables:
        """Row of each node; the token sums of what is shown (title, summary), of its own content, of all that
        lies beneath it (own content; title, summary and content of every node below), and of its summary alone,
        each with its count in a last column."""
        return self._build_tables(go_on)

    def prepare(self, check: Check) -> None:
        """Make the tables and the unit vectors now (the bulk of a large corpus's audit), calling ``check`` between
        slices: it raises to stop (a quit while a worker makes them), and what was not made is made when next
        needed."""
        if "_tables" not in self.__dict__:
            self.__dict__["_tables"] = self._build_tables(check)
        for made in ("shown_vectors", "beneath_vectors", "summary_vectors"):
            check()
            getattr(self, made)

    def _build_tables(self, check: Check) -> Tables:
        import numpy as np

        order = self._order
        row = {node: number for number, node in enumerate(order)}
        width = (len(order), self.embeddings.dimensions + 1)
        fill = self.embeddings.sums_into  # each table made once and filled in place (no corpus-sized temporaries)
        summaries = np.empty(width, dtype=np.float32)
        fill([self.corpus.summary_of(n) for n in order], summaries, check)
        shown = np.empty(width, dtype=np.float32)
        fill([self.corpus.title_of(n) for n in order], shown, check)
        shown += summaries  # the title's sums and the summary's, and their counts (whole numbers: exact in float32)
        own = np.empty(width, dtype=np.float32)
        fill([self.content_of(n) for n in order], own, check)
        below = own.copy()
        parents, depths = self.parents, self.depths
        for depth in range(int(depths.max(initial=0)), 0, -1):  # the deepest first: each adds its subtree upward
            check()
            at = np.flatnonzero(depths == depth)  # in the corpus's order: a parent's children are side by side
            mothers = parents[at]
            starts = np.flatnonzero(np.r_[True, mothers[1:] != mothers[:-1]])
            bounds = np.r_[starts, len(at)]
            first = 0
            while first < len(starts):  # whole families at a time, some thousand rows: no corpus-sized gather
                last = max(first + 1, int(np.searchsorted(bounds, bounds[first] + ROWS_AT_ONCE, side="right")) - 1)
                rows = at[bounds[first]:bounds[last]]
                added = below[rows]
                added += shown[rows]
                below[mothers[starts[first:last]]] += np.add.reduceat(added, starts[first:last] - bounds[first],
                                                                      axis=0)
                first = last
        return row, shown, own, below, summaries

    @cached_property
    def _shape(self) -> tuple[list[str], list[int], list[int]]:
        """Every node id in the corpus's order (:func:`preorder`'s), each one's parent's row (-1: a root) and depth,
        in one walk down the tree."""
        order: list[str] = []
        parents: list[int] = []
        depths: list[int] = []
        child_ids = self.index.child_ids
        stack = [(root, -1, 0) for root in reversed(self.index.root_ids())]
        while stack:
            node, parent, depth = stack.pop()
            number = len(order)
            order.append(node)
            parents.append(parent)
            depths.append(depth)
            children = child_ids(node)
            if children:
                stack.extend((child, number, depth + 1) for child in reversed(children))
        return order, parents, depths

    @cached_property
    def _order(self) -> list[str]:
        return self._shape[0]

    @cached_property
    def parents(self) -> npt.NDArray[np.int64]:
        """Each node's parent's row (-1: a root), one a node in :meth:`rows`'s order."""
        import numpy as np

        return np.array(self._shape[1], dtype=np.int64)

    @cached_property
    def depths(self) -> npt.NDArray[np.int64]:
        """Each node's depth (0: a root), in :meth:`rows`'s order (a parent's row before its children's)."""
        import numpy as np

        return np.array(self._shape[2], dtype=np.int64)

    @staticmethod
    def unit(sums: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
        """Each row's mean token vector (its last column is its token count) as a unit vector (zero for none)."""
        import numpy as np

        vectors = sums[:, :-1]
        result: npt.NDArray[np.float32] = np.zeros(vectors.shape, dtype=np.float32)
        for start in range(0, len(vectors), ROWS_AT_ONCE):  # in slices: no corpus-sized temporary
            part = vectors[start:start + ROWS_AT_ONCE]
            norms = np.linalg.norm(part, axis=1, keepdims=True)
            np.divide(part, norms, out=result[start:start + ROWS_AT_ONCE], where=norms > 0)
        return result

    @property
    def token_sums(self) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        """The token sums (a last column: the count) of what each node shows, of its own content, and of all that
        lies beneath it, one row a node in :meth:`rows`'s order."""
        _, shown, own, below, _ = self._tables
        return shown, own, below

    @cached_property
    def shown_vectors(self) -> npt.NDArray[np.float32]:
        """Unit vectors of what each node shows (title and summary), one row a node in :meth:`rows`'s order."""
        return self.unit(self._tables[1])

    @cached_property
    def beneath_vectors(self) -> npt.NDArray[np.float32]:
        """Unit vectors of what lies beneath each node, in :meth:`rows`'s order."""
        return self.unit(self._tables[3])

    @cached_property
    def summary_vectors(self) -> npt.NDArray[np.float32]:
        """Unit vectors of each node's summary alone, in :meth:`rows`'s order (zero: no summary)."""
        return self.unit(self._tables[4])

    @cached_property
    def _flat_vectors(self) -> npt.NDArray[np.float32]:
        _, shown, own, _, _ = self._tables
        return self.unit(shown + own)

    def rows(self) -> dict[str, int]:
        """Each node's row in the judge's tables (the corpus's order)."""
        return self._tables[0]

    def vectors(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        """The unit vectors of ``texts`` as the judge pools them, a row a text."""
        import numpy as np

        sums, counts = self.embeddings.sums(texts)
        return self.unit(np.hstack([sums, counts[:, None].astype(np.float32)]))

    def vector(self, text: str) -> npt.NDArray[np.float32]:
        vector: npt.NDArray[np.float32] = self.vectors([text])[0]
        return vector

    def _scores(self, query: str, table: npt.NDArray[np.float32], ids: Sequence[str]) -> list[float]:
        vector = self.vector(query)
        row = self.rows()
        return [float(table[row[i]] @ vector) for i in ids]

    def shown(self, query: str, ids: Sequence[str]) -> list[float]:
        return self._scores(query, self.shown_vectors, ids)

    def beneath(self, query: str, ids: Sequence[str]) -> list[float]:
        return self._scores(query, self.beneath_vectors, ids)

    def flat(self, query: str) -> list[tuple[str, float]]:
        import numpy as np

        scores = self._flat_vectors @ self.vector(query)
        order = np.argsort(-scores, kind="stable")
        ids = list(self.rows())
        return [(ids[i], float(scores[i])) for i in order]

    def texts(self, query: str, texts: Sequence[str]) -> list[float]:
        return [float(score) for score in self.vectors(texts) @ self.vector(query)]


class LexicalJudge(Judge):
    """BM25 (:mod:`.lexical`'s scoring): the texts scored are the collection."""

    name = "lexical:default"
    kind = "lexical"

    def _bm25(self, query: str, texts: Sequence[tuple[str, str]]) -> list[float]:
        views = tuple(NodeView(str(n), title, text) for n, (title, text) in enumerate(texts))
        return [s.score for s in bm25_scores(query, views)]

    def shown(self, query: str, ids: Sequence[str]) -> list[float]:
        return self._bm25(query, [self.shown_text(i) for i in ids])

    def _below_text(self, node: str) -> str:
        parts = [self.content_of(node)]
        for child in self.index.child_ids(node):
            parts.extend([*self.shown_text(child), self._below_text(child)])
        return "\n".join(p for p in parts if p)

    def beneath(self, query: str, ids: Sequence[str]) -> list[float]:
        return self._bm25(query, [("", self._below_text(i)) for i in ids])

    def flat(self, query: str) -> list[tuple[str, float]]:
        order = preorder(self.index)
        scores = self._bm25(query, [(self.corpus.title_of(n), f"{self.corpus.summary_of(n)}\n{self.content_of(n)}")
                                    for n in order])
        ranked = sorted(range(len(order)), key=lambda i: -scores[i])
        return [(order[i], scores[i]) for i in ranked]

    def texts(self, query: str, texts: Sequence[str]) -> list[float]:
        return self._bm25(query, [("", t) for t in texts])


def judge_for(name: str, corpus: Corpus) -> Judge:
    """The judge ``name`` names (``semantic:default``, ``lexical:default``; ``semantic`` and ``lexical`` alone too)
    bound to ``corpus``; :class:`NavigatorConfigError` (one line, the judges there are) for another name, or when
    the embeddings cannot load."""
    wanted = name.strip()
    full = wanted if ":" in wanted else f"{wanted}:default"
    if full == "semantic:default":
        from .embeddings import bundled_embeddings

        return EmbeddingJudge(corpus, bundled_embeddings())
    if full == "lexical:default":
        return LexicalJudge(corpus)
    known = "; ".join(f"{judge} ({what})" for judge, what in JUDGES.items())
    raise NavigatorConfigError(f"no judge is named {name!r}: a judge is one of {known}")


def default_judge(corpus: Corpus, told: Callable[[str], None] | None = None) -> Judge:
    """The judge of ``corpus`` when none is named: the bundled embeddings (:data:`DEFAULT_JUDGE`), else BM25
    (:data:`FALLBACK_JUDGE`) when they cannot load, which ``told`` hears in one line (why, and the judge instead).
    A judge named (``--judge semantic:default``) is :func:`judge_for`'s: it falls back to nothing."""
    try:
        return judge_for(DEFAULT_JUDGE, corpus)
    except NavigatorConfigError as exc:
        if told is not None:
            told(f"the misses are judged by {FALLBACK_JUDGE} (BM25): the bundled embeddings cannot load ({exc})")
        return judge_for(FALLBACK_JUDGE, corpus)
