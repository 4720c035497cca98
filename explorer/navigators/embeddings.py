"""A static word-embedding model that ships inside the ``wordllama`` wheel, loaded offline, once per process.

WordLlama's ``l2_supercat`` model is a table of 256-dimensional token
embeddings (16 MB) with the Llama 2 tokenizer: a text's vector is the mean of
its tokens' rows, so embedding is a table lookup, deterministic and runs on
the CPU in microseconds. Two things about the package are worked around here:

* ``WordLlama.load()`` looks for the bundled tokenizer in a folder that does
  not exist and would then download it; pointing ``cache_dir`` at the
  package's own folder with ``disable_download=True`` finds both bundled
  files and never reaches the network (a missing file is an error instead).
* importing ``wordllama`` calls ``logging.basicConfig(level=INFO)``, which
  would make every library's INFO logs appear on stderr; the root logger is
  put back as it was.

We pool the token rows ourselves (rather than ``WordLlamaInference.embed``)
so that a text's vector never depends on which other texts shared its batch
(padding changes the order of float additions), and so that a title can be
weighted without repeating punctuation.
"""

from __future__ import annotations

import importlib
import logging
import re
from collections.abc import Callable, Sequence
from functools import cached_property, lru_cache
from itertools import chain
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from ..process import OnePerProcess
from .errors import NavigatorConfigError
from .word_pieces import PIECE, SPACE, WordPieces, word_pieces

Vector = npt.NDArray[np.float32]

CONFIG = "l2_supercat"
DIMENSIONS = 256
SUM_BATCH = 4096  # texts a batch of sums: their token rows held at once stay some MB
IN_STEP = 64  # tokens of a text summed a position at a time over the batch; the rest of a long text by bincount
CACHED_TEXTS = 16384  # 16 K vectors of 256 float32: 16 MB at most
_CROSSING = re.compile(f"[^{SPACE}]{SPACE}")
TITLE_WEIGHT = 1  # once: counted twice (as the lexical navigator counts title terms), the first nodes landed got worse
INSTALL_HINT = "install it with `pip install 'wordllama>=0.4,<0.5'` (it ships the model in its wheel)"


class StaticEmbeddings:
    """Unit vectors for texts: the mean of the texts' token embeddings, normalised (zero for a text with no token).

    Thread-safe: the tokenizer is, and the cache is ``functools.lru_cache``.
    """

    def __init__(self, tokenizer: Any, table: npt.NDArray[np.float32], name: str, *, prepared: bool = False) -> None:
        self._tokenizer = tokenizer
        self._prepared = prepared
        """The tokenizer is this model's own, made ready for batches by :func:`prepared` before it was shared."""
        self._table = np.ascontiguousarray(table, dtype=np.float32)
        self.name = name
        self.dimensions = int(self._table.shape[1])
        self._ids = lru_cache(maxsize=CACHED_TEXTS)(self._token_ids)
        self._query = lru_cache(maxsize=CACHED_TEXTS)(self._vector_of_text)
        self._titled = lru_cache(maxsize=CACHED_TEXTS)(self._vector_of_titled)

    def _token_ids(self, text: str) -> tuple[int, ...]:
        ids = self._tokenizer.encode(text, add_special_tokens=False).ids
        last = self._table.shape[0] - 1
        return tuple(min(max(int(i), 0), last) for i in ids)

    def _pool(self, ids: Sequence[int]) -> Vector:
        if not ids:
            return np.zeros(self.dimensions, dtype=np.float32)
        mean = self._table[list(ids)].astype(np.float64).mean(axis=0)
        norm = float(np.linalg.norm(mean))
        if norm == 0.0:
            return np.zeros(self.dimensions, dtype=np.float32)
        vector: Vector = (mean / norm).astype(np.float32)
        vector.setflags(write=False)  # shared through the cache
        return vector

    def _vector_of_text(self, text: str) -> Vector:
        return self._pool(self._ids(text))

    def _vector_of_titled(self, title: str, summary: str, title_weight: int) -> Vector:
        return self._pool(self._ids(title) * title_weight + self._ids(summary))

    @cached_property
    def _unpadded(self) -> Any:
        """The tokenizer as batches of texts want it (:func:`prepared`): this model's own when it was prepared at
        load, else a copy made so (a tokenizer handed in is never changed: slower, about a second)."""
        if self._prepared:
            return self._tokenizer
        return prepared(type(self._tokenizer).from_str(self._tokenizer.to_str()))

    @cached_property
    def _pieces(self) -> WordPieces | None:
        """The texts of a corpus tokenized by their word pieces (:mod:`.word_pieces`), when the tokenizer allows."""
        return word_pieces(self._unpadded)

    def sums(self, texts: Sequence[str]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
        """Each text's token rows summed (float32, one row a text) and its token count: texts pooled together (a
        subtree's) are the sums added and divided by the counts (their mean is the vector of the texts joined).
        Each distinct text is tokenized once, through an unpadded copy of the tokenizer in batches, by its word
        pieces (:mod:`.word_pieces`: each distinct piece once, the same ids); a text's sum adds its token rows in
        order (in float64), so it never depends on the other texts."""
        distinct = list(dict.fromkeys(texts))
        totals = np.zeros((len(distinct), self.dimensions), dtype=np.float32)
        counts = np.zeros(len(distinct), dtype=np.int64)
        self._fill(distinct, totals, counts)
        if len(distinct) == len(texts):  # every text once, in order: no copy of the rows
            return totals, counts
        back = self._back(texts, distinct)
        return totals[back], counts[back]

    def sums_into(self, texts: Sequence[str], table: npt.NDArray[np.float32],
                  check: Callable[[], None] | None = None) -> None:
        """:meth:`sums` written into ``table`` (one row a text: its sums, then its count in a last column), a batch at
        a time where each text first appears, then copied to where it repeats: no table of the corpus's size is made
        on the way (each one a fresh 100 MB at 100,000 nodes, its pages faulted in anew: most of what a large audit
        spent beside the tokenizer). ``check`` is called before each batch: it raises to stop."""
        first: dict[str, int] = {}
        repeats: list[tuple[int, int]] = []
        for number, text in enumerate(texts):
            seen = first.setdefault(text, number)
            if seen != number:
                repeats.append((number, seen))
        distinct = list(first)
        rows = np.fromiter(first.values(), dtype=np.int64, count=len(first))
        block = np.empty((min(SUM_BATCH, len(distinct)), self.dimensions), dtype=np.float32)
        counts = np.empty(len(block), dtype=np.int64)
        for start in range(0, len(distinct), SUM_BATCH):
            if check is not None:
                check()
            batch = distinct[start:start + SUM_BATCH]
            self._fill(batch, block[:len(batch)], counts[:len(batch)])
            at = rows[start:start + len(batch)]
            table[at, :-1] = block[:len(batch)]
            table[at, -1] = counts[:len(batch)]
        if repeats:
            again = np.array(repeats, dtype=np.int64)
            for start in range(0, len(again), SUM_BATCH):
                part = again[start:start + SUM_BATCH]
                table[part[:, 0]] = table[part[:, 1]]

    @staticmethod
    def _back(texts: Sequence[str], distinct: list[str]) -> npt.NDArray[np.int64]:
        """Each text's row among ``distinct``."""
        where = {text: number for number, text in enumerate(distinct)}
        return np.fromiter((where[text] for text in texts), dtype=np.int64, count=len(texts))

    def _fill(self, distinct: list[str], totals: npt.NDArray[np.float32], counts: npt.NDArray[np.int64]) -> None:
        """Each of ``distinct``'s token sums into its row of ``totals`` (every row written), its count into
        ``counts``: tokenized in batches of :data:`SUM_BATCH`."""
        last = self._table.shape[0] - 1
        pieces = self._pieces
        for start in range(0, len(distinct), SUM_BATCH):
            batch = distinct[start:start + SUM_BATCH]
            if pieces is not None:
                counted, flat = pieces.ids(batch)
                sizes = np.array(counted, dtype=np.int64)
                ids = np.array(flat, dtype=np.int64)
            else:
                encoded = self._unpadded.encode_batch_fast(batch, add_special_tokens=False)
                listed = [e.ids for e in encoded]  # each a list made from the Rust side: made once, read twice
                sizes = np.fromiter(map(len, listed), dtype=np.int64, count=len(listed))
                ids = np.fromiter(chain.from_iterable(listed), dtype=np.int64, count=int(sizes.sum()))
            np.clip(ids, 0, last, out=ids)
            counts[start:start + len(batch)] = sizes
            self._add_rows(totals[start:start + len(batch)], sizes, ids)

    def _add_rows(self, block: npt.NDArray[np.float32], sizes: npt.NDArray[np.int64],
                  ids: npt.NDArray[np.int64]) -> None:
        """Into each row of ``block``, its text's token rows added in float64: the first :data:`IN_STEP` tokens a
        position at a time over every text that long (a gather of whole rows), the rest of a long text's a dimension
        at a time (a bincount). Linear in the tokens; a text's additions are the same, in the same order, whatever
        else is in the batch."""
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)
        longest = np.argsort(-sizes, kind="stable")
        first = starts[longest]
        sorted_total = np.zeros((len(sizes), self.dimensions), dtype=np.float64)
        for position in range(min(int(sizes.max(initial=0)), IN_STEP)):
            texts = int(np.count_nonzero(sizes > position))  # the longest first: a slice, no scatter
            sorted_total[:texts] += self._table[ids[first[:texts] + position]]
        tail = np.flatnonzero(sizes > IN_STEP)
        if not tail.size:  # no text longer than IN_STEP: the rows back in place, as float32 (no float64 copy)
            block[longest] = sorted_total
            return
        total = np.empty_like(sorted_total)
        total[longest] = sorted_total
        lengths = sizes[tail] - IN_STEP
        owner = np.repeat(tail, lengths)
        rows = ids[np.repeat(starts[tail] + IN_STEP - np.concatenate([[0], np.cumsum(lengths)[:-1]]), lengths)
                   + np.arange(int(lengths.sum()))]
        for dimension in range(self.dimensions):
            total[:, dimension] += np.bincount(owner, weights=self._table[rows, dimension], minlength=len(sizes))
        block[:] = total

    def text(self, text: str) -> Vector:
        """The unit vector of ``text`` (a query)."""
        return self._query(text)

    def titled(self, title: str, summary: str, title_weight: int = TITLE_WEIGHT) -> Vector:
        """The unit vector of a node: its title's tokens counted ``title_weight`` times, then its summary's."""
        return self._titled(title, summary, title_weight)


def prepared(tokenizer: Any) -> Any:
    """``tokenizer``, changed in place, before anything shares it, to pad no batch (the bundled one pads each batch to
    its longest text) and run its merges word by word: the bundled one has no pre-tokenizer, so each whole text is
    one "word" to merge (slow, and never in its cache). Cut before each word's run of ``▁`` (the spaces, after the
    normalizer), it gives the same ids: no token of the vocabulary holds a ``▁`` after another character, so no
    merge crosses the cut (checked here: a tokenizer where one would is left to merge whole texts: slower, the same
    ids). One text encoded alone gives the same ids either way, so the bundled model's own tokenizer is prepared once
    at load rather than copied (the copy cost about a second and a half in every process that judged a miss)."""
    from tokenizers import Regex, pre_tokenizers

    tokenizer.no_padding()
    vocabulary = tokenizer.get_vocab(with_added_tokens=False)
    if tokenizer.pre_tokenizer is None and not any(_CROSSING.search(token) for token in vocabulary):
        tokenizer.pre_tokenizer = pre_tokenizers.Split(Regex(PIECE), behavior="isolated")
    return tokenizer


def bundled_embeddings() -> StaticEmbeddings:
    """The bundled model, loaded on first use (about half a second) and shared by every walk of the process.

    Raises :class:`NavigatorConfigError` (one line, with what to do) when the
    package or its bundled files are missing; never downloads anything.
    """
    return _bundled.get()


def _load() -> StaticEmbeddings:
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    try:
        package = importlib.import_module("wordllama")
    except ImportError as exc:
        raise NavigatorConfigError(f"semantic: needs the wordllama package ({exc}); {INSTALL_HINT}") from None
    finally:
        root.handlers[:] = handlers  # undo wordllama.inference's logging.basicConfig(level=INFO)
        root.setLevel(level)
    folder = Path(str(package.__file__)).parent
    try:
        model = package.WordLlama.load(CONFIG, cache_dir=folder, dim=DIMENSIONS, disable_download=True)
    except Exception as exc:  # FileNotFoundError for a missing bundled file; anything from a damaged one
        reason = " ".join(str(exc).split())
        raise NavigatorConfigError(f"semantic: cannot load the model bundled with wordllama: {reason}; "
                                   f"{INSTALL_HINT}") from None
    version = getattr(package, "__version__", "?")
    return StaticEmbeddings(prepared(model.tokenizer), model.embedding, f"wordllama {version} {CONFIG} {DIMENSIONS}-d",
                            prepared=True)


_bundled: OnePerProcess[StaticEmbeddings] = OnePerProcess(_load)
"""The bundled model, once for the process (:mod:`explorer.process` says why)."""
