"""Map variants (issue 46 point 5): a corpus's titles and summaries changed by an overlay file, the corpus file never
written; every bad overlay refused in one line naming the file, its line and the node id, and nothing lost."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.map_variant import keep_edit, map_path_for, read_map, with_map
from tests.samples import SAMPLES

HANDBOOK = SAMPLES / "handbook.yaml"


@pytest.fixture
def corpus_path(tmp_path: Path) -> Path:
    path = tmp_path / "handbook.yaml"
    shutil.copy(HANDBOOK, path)
    return path


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_a_map_changes_a_copy_and_the_corpus_stays_as_it_was(corpus_path: Path, tmp_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    before = digest(corpus_path)
    overlay = tmp_path / "fix.map.yaml"
    overlay.write_text("format: reasoning-explorer-map\nversion: 1\nnodes:\n  accounts:\n"
                       "    summary: Sign-in, passwords and roles.\n  billing:\n    title: Money matters\n",
                       encoding="utf-8")
    mapped = with_map(corpus, overlay)
    assert (mapped.title_of("accounts"), mapped.summary_of("accounts")) == (
        "Accounts and sign-in", "Sign-in, passwords and roles.")
    assert mapped.title_of("billing") == "Money matters"
    assert mapped.summary_of("billing") == corpus.summary_of("billing")
    assert mapped.map is not None and mapped.map.path == str(overlay) and mapped.map.sha256 == digest(overlay)
    assert mapped.sha256 == corpus.sha256 and mapped.original is corpus
    assert corpus.summary_of("accounts").startswith("How people sign in")  # the loaded corpus is untouched
    assert [d.content for d in mapped.index] == [d.content for d in corpus.index]
    # A map applied over a mapped corpus replaces it: it is always applied to the corpus as its file holds it.
    other = tmp_path / "other.map.yaml"
    other.write_text('{"nodes": {"billing": {"summary": "Invoices."}}}', encoding="utf-8")  # JSON reads too
    again = with_map(mapped, other)
    assert (again.title_of("billing"), again.summary_of("billing")) == (corpus.title_of("billing"), "Invoices.")
    assert again.summary_of("accounts") == corpus.summary_of("accounts")
    assert digest(corpus_path) == before


def test_keep_edit_writes_the_variant_beside_the_corpus_and_keeps_its_other_nodes(corpus_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    before = digest(corpus_path)
    path = map_path_for(corpus_path)
    assert path == corpus_path.parent / "maps" / "handbook.map.yaml"
    keep_edit(corpus, path, "accounts", "Accounts and sign-in", "Passwords, roles and owners.")
    variant = keep_edit(corpus, path, "billing", "Money", corpus.summary_of("billing"))
    assert {k: (e.title, e.summary) for k, e in variant.nodes.items()} == {
        "accounts": (None, "Passwords, roles and owners."), "billing": ("Money", None)}
    # Back to the corpus's own words: the node leaves the map.
    variant = keep_edit(corpus, path, "billing", corpus.title_of("billing"), corpus.summary_of("billing"))
    assert list(variant.nodes) == ["accounts"]
    assert read_map(path, corpus).sha256 == digest(path)
    assert digest(corpus_path) == before


def test_keep_edit_refuses_the_corpus_itself_and_an_empty_summary(corpus_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    before = digest(corpus_path)
    with pytest.raises(CorpusError) as caught:
        keep_edit(corpus, corpus_path, "accounts", "Accounts", "Something.")
    assert str(caught.value).startswith(f"{corpus_path}: ") and "the corpus" in str(caught.value)
    assert str(caught.value).endswith("nothing was kept")
    path = map_path_for(corpus_path)
    with pytest.raises(CorpusError) as caught:
        keep_edit(corpus, path, "accounts", "Accounts", "   ")
    assert str(caught.value) == (f"{path}: an empty summary for node 'accounts'; write what it should say (nothing "
                                 "was kept)")
    assert not path.exists() and digest(corpus_path) == before


def test_keep_edit_never_writes_over_a_damaged_variant(corpus_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    path = map_path_for(corpus_path)
    path.parent.mkdir()
    path.write_text("nodes:\n  accounts: [\n", encoding="utf-8")
    with pytest.raises(CorpusError, match=r"malformed YAML"):
        keep_edit(corpus, path, "billing", "Money", "Invoices.")
    assert path.read_text(encoding="utf-8") == "nodes:\n  accounts: [\n"  # nothing lost


BAD = [
    ("nodes:\n  accounts: [\n", 3, "malformed YAML: did not find expected node content (column 1); check the "
     "indentation and quoting on that line"),
    ("nodes:\n  refundz:\n    summary: Money back.\n", 2,
     "no node 'refundz' in handbook.yaml (did you mean 'refunds'?); name a node id of the corpus, or remove it "
     "from the map"),
    ('nodes:\n  "acc\\e[31mounts":\n    summary: x\n', 2,
     "node id 'acc\\x1b[31mounts' holds control characters; write the corpus's id of the node as plain text"),
    ("nodes:\n  accounts:\n    summary: ''\n", 3,
     "an empty summary for node 'accounts'; write what it should say, or leave 'summary:' out to keep the "
     "corpus's"),
    ("nodes:\n  accounts:\n    summary:\n", 3,
     "the summary of node 'accounts' is empty; write its summary as text, or leave 'summary:' out to keep the "
     "corpus's"),
    ("nodes:\n  accounts:\n    sumary: x\n", 3, "unknown key 'sumary' under node 'accounts'; did you mean 'summary'?"),
    ("nodes:\n  accounts: {}\n", 2,
     "node 'accounts' changes nothing; give its 'title:' and/or 'summary:', or remove it from the map"),
    ("nodes:\n  accounts: Sign-in\n", 2,
     "node 'accounts' must be a mapping with 'title:' and/or 'summary:', not text"),
    ("nodes:\n  accounts:\n    title: A\n  accounts:\n    title: B\n", 4,
     "node 'accounts' is given twice; give each node once"),
    ("- accounts\n", 1,
     "a map variant is a mapping with 'nodes:', not a list; give each node id with its title and/or summary "
     "(docs/formats.md)"),
    ("format: something-else\nnodes: {}\n", 1, "not a map variant (format must be 'reasoning-explorer-map')"),
    ("nodez: {}\n", 1, "unknown key 'nodez'; did you mean 'nodes'?"),
    ('{"nodes": {"accounts": {"summary": "x"}}\n', 2, None),  # damaged JSON: the YAML reader names the line
]


@pytest.mark.parametrize(("text", "line", "says"), BAD)
def test_a_bad_overlay_is_one_line_naming_the_file_line_and_node(corpus_path: Path, tmp_path: Path, text: str,
                                                                  line: int, says: str | None) -> None:
    corpus = load_corpus(corpus_path)
    overlay = tmp_path / "bad.map.yaml"
    overlay.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        with_map(corpus, overlay)
    message = str(caught.value)
    assert "\n" not in message and "Traceback" not in message
    assert message.startswith(f"{overlay}:{line}: ")
    if says is not None:
        assert message == f"{overlay}:{line}: {says}"
    assert overlay.read_text(encoding="utf-8") == text


def test_a_missing_overlay_or_a_folder_says_so(corpus_path: Path, tmp_path: Path) -> None:
    corpus = load_corpus(corpus_path)
    with pytest.raises(CorpusError) as caught:
        with_map(corpus, tmp_path / "none.map.yaml")
    assert str(caught.value).startswith(f"{tmp_path / 'none.map.yaml'}: no such file")
    with pytest.raises(CorpusError) as caught:
        with_map(corpus, tmp_path)
    assert str(caught.value) == f"{tmp_path}: is a folder; give the map variant's file (maps/NAME.map.yaml)"


def test_keep_edit_refuses_an_id_it_could_not_read_back(tmp_path: Path) -> None:
    corpus_path = tmp_path / "odd.yaml"
    corpus_path.write_text('source: odd\ntitle: Odd\nnodes:\n  - id: "bell\\aid"\n    title: Bell\n    summary: Rings.\n'
                           '    content: Ding.\n', encoding="utf-8")
    corpus = load_corpus(corpus_path)
    assert list(corpus.index.ids()) == ["bell\aid"]
    path = map_path_for(corpus_path)
    with pytest.raises(CorpusError) as caught:
        keep_edit(corpus, path, "bell\aid", "Bell", "Rings twice.")
    assert str(caught.value) == (f"{path}: node id 'bell\\x07id' holds control characters; a map variant names plain "
                                 "ids only (nothing was kept)")
    assert not path.exists()
