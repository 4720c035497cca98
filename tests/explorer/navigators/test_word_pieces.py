"""A corpus's texts tokenized by their word pieces give the very ids the bundled tokenizer gives each text whole:
spaces at either end or in runs, ``▁`` typed in the text, special tokens, characters the vocabulary lacks (bytes),
and texts made at random from all of those."""

from __future__ import annotations

import random

import pytest

from explorer.navigators.embeddings import bundled_embeddings
from explorer.navigators.word_pieces import word_pieces

TRICKY = [
    "", " ", "   ", "a", "a ", " a", "a  b", "  a  b  ", "▁", "a▁b", "▁▁x ", "x▁ ▁y", "tab\tand\nnew line\r\n",
    "Refunds", "Section 12345: billing", "Content of section 7.", "3.14 and 1,000,000 and ½ ² ٣", "naïve café",
    "日本語のテキスト", "emoji 🙂 and 🧾 receipts", "<s>", "x</s>y", "a <unk> b", "<s ", "</", "\x00\x1b[2J\x07",
    "e\u0301 combining", "\u202eright to left", "word" * 50, " ".join(["refund paid back to the card"] * 40),
]


@pytest.fixture(scope="module")
def embeddings():
    return bundled_embeddings()


@pytest.fixture(scope="module")
def shipped(embeddings):
    """The bundled tokenizer as it ships (no pre-tokenizer): a copy of the model's, which is prepared at load."""
    tokenizer = type(embeddings._tokenizer).from_str(embeddings._tokenizer.to_str())
    tokenizer.pre_tokenizer = None
    return tokenizer


def whole(shipped, text: str) -> list[int]:
    """The bundled tokenizer's ids for ``text``, all of it at once, as it ships (the reference)."""
    return list(shipped.encode(text, add_special_tokens=False).ids)


def test_tricky_texts_get_the_ids_the_tokenizer_gives_them_whole(embeddings, shipped):
    pieces = word_pieces(embeddings._unpadded)
    assert pieces is not None  # the bundled tokenizer, cut at its spaces, is of the shape the pieces need
    sizes, flat = pieces.ids(TRICKY)
    expected = [whole(shipped, text) for text in TRICKY]
    assert sizes == [len(ids) for ids in expected]
    assert flat == [i for ids in expected for i in ids]
    assert pieces.ids(TRICKY) == (sizes, flat)  # asked again, from the pieces kept


def test_texts_made_at_random_from_awkward_characters_get_the_same_ids(embeddings, shipped):
    pieces = word_pieces(embeddings._unpadded)
    assert pieces is not None
    alphabet = [*"ab zZ09.,:;-_'\"\t\n▁<>/s", "é", "ß", "日", "🙂", "\u0301", "<s>", "</s>", "<unk>", "  "]
    chosen = random.Random(46)
    texts = ["".join(chosen.choice(alphabet) for _ in range(chosen.randint(0, 24))) for _ in range(3000)]
    sizes, flat = pieces.ids(texts)
    expected = [whole(shipped, text) for text in texts]
    assert sizes == [len(ids) for ids in expected]
    assert flat == [i for ids in expected for i in ids]


def test_a_tokenizer_not_cut_at_its_spaces_gets_no_pieces(shipped):
    """The bundled tokenizer as it ships has no pre-tokenizer: a piece would not be what its model sees."""
    assert shipped.pre_tokenizer is None
    assert word_pieces(shipped) is None


def test_the_models_own_tokenizer_prepared_at_load_gives_each_text_the_ids_it_ships_with(embeddings, shipped):
    """The model's tokenizer is cut at its spaces once, at load (no copy): a text encoded alone, as a query or a node
    is, gets the very ids the tokenizer as shipped gives it."""
    assert embeddings._tokenizer.pre_tokenizer is not None and embeddings._unpadded is embeddings._tokenizer
    rng = random.Random(7)
    texts = TRICKY + ["".join(rng.choice(TRICKY) for _ in range(rng.randint(1, 6))) for _ in range(300)]
    for text in texts:
        assert embeddings._token_ids(text) == tuple(min(i, embeddings._table.shape[0] - 1) for i in whole(shipped, text)), text
