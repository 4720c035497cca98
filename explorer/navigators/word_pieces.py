"""Many texts' token ids at once, read from their word pieces, each distinct piece tokenized once.

The bundled tokenizer (Llama 2's, as WordLlama ships it) puts ``▁`` before a text and for each space, is cut before
each run of ``▁`` (the pre-tokenizer :mod:`.embeddings` gives it: no token of its vocabulary crosses such a cut), and
runs its BPE model on each piece alone: a text's ids are its pieces' ids, one piece after another. A corpus's texts
share most of their pieces (its words), so :class:`WordPieces` tokenizes each distinct piece once, with the
tokenizer's own model, and reads each text's ids from its pieces: the same ids as the whole pipeline gives
(``tests/explorer/navigators/test_word_pieces.py`` checks them against it), without the pipeline's cost per text (an
``Encoding`` with its offsets and its tokens as strings, per text: most of what 100,000 nodes spent tokenizing).

:func:`word_pieces` answers ``None`` for a tokenizer of another shape (its normalizer, pre-tokenizer or model not the
ones above), and a text holding a special token (``<s>``, which the pipeline matches in the text before anything
else) is tokenized whole by the pipeline.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

__all__ = ["PIECE", "SPACE", "WordPieces", "word_pieces"]

SPACE: Final = "\u2581"
"""The tokenizer's space (``▁``), after its normalizer."""
PIECE: Final = f"{SPACE}*[^{SPACE}]+|{SPACE}+"
"""A piece: a run of ``▁`` and what follows it up to the next, or a run of ``▁`` alone (at the end)."""
CACHED_PIECES: Final = 1_000_000
"""Pieces kept at most (some tens of MB); past that the cache starts again."""
_NORMALIZER: Final = {"type": "Sequence", "normalizers": [{"type": "Prepend", "prepend": SPACE},
                                                         {"type": "Replace", "pattern": {"String": " "},
                                                          "content": SPACE}]}
_PRE_TOKENIZER: Final = {"type": "Split", "pattern": {"Regex": PIECE}, "behavior": "Isolated", "invert": False}


def word_pieces(tokenizer: Any) -> WordPieces | None:
    """A :class:`WordPieces` over ``tokenizer`` (a ``tokenizers.Tokenizer``), or ``None`` when it is not of the shape
    the module describes (then its own pipeline tokenizes each text)."""
    def state(part: Any) -> object:  # a part's own JSON (the whole tokenizer's would be its vocabulary too)
        return None if part is None else json.loads(part.__getstate__())

    model = tokenizer.model
    if (state(tokenizer.normalizer) != _NORMALIZER or state(tokenizer.pre_tokenizer) != _PRE_TOKENIZER
            or type(model).__name__ != "BPE" or getattr(model, "dropout", None) is not None):
        return None
    added = tokenizer.get_added_tokens_decoder().values()
    return WordPieces(tokenizer, [token.content for token in added if not token.normalized],
                      [token.content for token in added if token.normalized])


class WordPieces:
    """Token ids of texts by their pieces (see the module); thread-safe (a piece tokenized twice at once is the same
    ids twice)."""

    def __init__(self, tokenizer: Any, raw: Sequence[str], normalized: Sequence[str] = ()) -> None:
        """``raw``: the special tokens the tokenizer matches in a text as given; ``normalized``: those it matches
        after its normalizer."""
        self._tokenizer = tokenizer
        self._tokenize = tokenizer.model.tokenize
        self._findall = re.compile(PIECE).findall
        self._raw = _any_of(raw)
        self._normalized = _any_of(normalized)
        self._cache: dict[str, tuple[int, ...]] = {}

    def ids(self, texts: Sequence[str]) -> tuple[list[int], list[int]]:
        """Each text's token count, and all their token ids, one text after another."""
        cache, tokenize, findall, raw, normalized_special = (self._cache, self._tokenize, self._findall, self._raw,
                                                             self._normalized)
        if len(cache) > CACHED_PIECES:
            cache.clear()
        sizes: list[int] = []
        flat: list[int] = []
        extend = flat.extend
        for text in texts:
            if not text:  # nothing to put ▁ before: no token
                sizes.append(0)
                continue
            normalized = SPACE + text.replace(" ", SPACE)
            if raw(text) or normalized_special(normalized):
                whole = self._tokenizer.encode(text, add_special_tokens=False).ids
                extend(whole)
                sizes.append(len(whole))
                continue
            count = 0
            for piece in findall(normalized):
                found = cache.get(piece)
                if found is None:
                    found = cache[piece] = tuple([token.id for token in tokenize(piece)])
                extend(found)
                count += len(found)
            sizes.append(count)
        return sizes, flat


def _any_of(specials: Sequence[str]) -> Callable[[str], object]:
    """Whether a text holds one of ``specials`` (a search; none: never)."""
    if not specials:
        return lambda text: None
    return re.compile("|".join(re.escape(special) for special in specials)).search
