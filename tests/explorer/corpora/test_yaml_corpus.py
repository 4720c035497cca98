"""The YAML corpus format: what loads, and the one-line error each broken input gives."""

from __future__ import annotations

import textwrap

import pytest

from core import HierarchyMetadata
from explorer.corpora import CorpusError, load_corpus
from explorer.corpora.validate import validate

GOOD = """\
source: handbook
title: Employee handbook
nodes:
  - id: billing
    title: Billing
    summary: Invoices, payments and refunds
    content: Everything about money.
    metadata: {owner: finance, priority: 2, public: true}
    children:
      - id: refunds
        title: Refunds
        summary: Refunds are issued within 14 days
        content: Refunds are issued within 14 days.
      - id: "1.10"
  - id: shipping
"""


def write(tmp_path, text, name="corpus.yaml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_a_good_corpus_loads_with_every_metadata_key(tmp_path):
    corpus = load_corpus(write(tmp_path, GOOD))
    assert (corpus.format, corpus.source, corpus.title) == ("yaml", "handbook", "Employee handbook")
    index = corpus.index
    assert list(index.ids()) == ["billing", "refunds", "1.10", "shipping"]
    assert [d.id for d in index.roots()] == ["billing", "shipping"]
    refunds = index["refunds"].metadata
    assert refunds[HierarchyMetadata.ID] == "refunds"
    assert refunds[HierarchyMetadata.PARENT_ID] == "billing"
    assert refunds[HierarchyMetadata.SOURCE] == "handbook"
    assert refunds["reasoningTitle"] == "Refunds"
    assert refunds["reasoningSummary"] == "Refunds are issued within 14 days"
    assert index["refunds"].content == "Refunds are issued within 14 days."
    billing = index["billing"].metadata
    assert (billing["owner"], billing["priority"], billing["public"]) == ("finance", 2, True)
    assert HierarchyMetadata.PARENT_ID not in billing
    bare = index["1.10"].metadata
    assert (bare["reasoningTitle"], bare["reasoningSummary"], index["1.10"].content) == ("1.10", "", "")
    assert corpus.lines == {"billing": 4, "refunds": 10, "1.10": 14, "shipping": 15}
    assert corpus.where("refunds").endswith("corpus.yaml:10")
    assert len(corpus.sha256) == 64


def test_title_defaults_to_the_source(tmp_path):
    corpus = load_corpus(write(tmp_path, "source: s\nnodes:\n  - id: a\n"))
    assert corpus.title == "s"


BROKEN = [
    ("source: s\nnodes:\n  - id: a\n    title: [unclosed\n",
     "corpus.yaml:5: malformed YAML: did not find expected ',' or ']' (column 1; while parsing a flow sequence "
     "that starts at line 4); check the indentation and quoting on that line"),
    ("source: s\nnodes:\n  - id: a\n   title: bad indent\n",
     "corpus.yaml:4: malformed YAML: did not find expected '-' indicator (column 4; while parsing a block "
     "collection that starts at line 3); check the indentation and quoting on that line"),
    ("", "corpus.yaml: the file is empty; a corpus needs `source:` and `nodes:`"),
    ("- just\n- a list\n", "corpus.yaml:1: a corpus file is a mapping with `source:` and `nodes:`, not a list"),
    ("nodes:\n  - id: a\n", "corpus.yaml:1: no `source:`; give the source name written on every node"),
    ("source: s\n", "corpus.yaml:1: no `nodes:`; list the corpus's top-level nodes under `nodes:`"),
    ("source: s\nnodes: {id: a}\n", "corpus.yaml:2: `nodes:` must be a list of nodes, not a mapping"),
    ("source: s\nnodes: []\n", "corpus.yaml:2: `nodes:` is empty; a corpus needs at least one node"),
    ("source: s\nsorce: t\nnodes:\n  - id: a\n", "corpus.yaml:2: unknown top-level key 'sorce'; did you mean 'source'?"),
    ("source: s\nnodes:\n  - title: Refunds\n",
     "corpus.yaml:3: node at nodes[0] (title 'Refunds') has no id; add `id: <unique-id>`"),
    ("source: s\nnodes:\n  - id: a\n    children:\n      - title: Deep\n",
     "corpus.yaml:5: node at nodes[0].children[0] (title 'Deep') has no id; add `id: <unique-id>`"),
    ("source: s\nnodes:\n  - id: ' '\n", "corpus.yaml:3: node at nodes[0]: `id:` is blank; give every node a unique id"),
    ("source: s\nnodes:\n  - id: a\n  - id: b\n    children:\n      - id: a\n",
     "corpus.yaml:6: duplicate id 'a' (first at line 3); ids must be unique within a corpus: rename one"),
    ("source: s\nnodes:\n  - id: a\n    children: {id: b}\n",
     "corpus.yaml:4: node 'a': `children:` must be a list of nodes, not a mapping"),
    ("source: s\nnodes:\n  - id: a\n    metadata: {tags: [x, y]}\n",
     "corpus.yaml:4: node 'a': metadata value 'tags' must be a scalar (text, number, true/false), not a list"),
    ("source: s\nnodes:\n  - id: a\n    metadata: [x]\n",
     "corpus.yaml:4: node 'a': `metadata:` must be a mapping of names to values, not a list"),
    ("source: s\nnodes:\n  - id: a\n    metadata: {hierarchyId: b}\n",
     "corpus.yaml:4: node 'a': metadata key 'hierarchyId' is reserved for the loader; rename it"),
    ("source: s\nnodes:\n  - id: a\n    sumary: typo\n",
     "corpus.yaml:4: node at nodes[0]: unknown key 'sumary'; did you mean 'summary'?"),
    ("source: s\nnodes:\n  - id: a\n    colour: red\n",
     "corpus.yaml:4: node at nodes[0]: unknown key 'colour'; allowed keys: id, title, summary, content, metadata, "
     "children"),
    ("source: s\nnodes:\n  - id: a\n    title: {x: 1}\n", "corpus.yaml:4: node 'a': `title:` must be text, not a mapping"),
    ("source: s\nnodes:\n  - plain string\n",
     "corpus.yaml:3: node at nodes[0] must be a mapping with an `id:`, not text"),
    ("source: s\nnodes:\n  - &n {id: a}\n  - *n\n",
     "corpus.yaml:3: node at nodes[1] repeats another through a YAML alias; write each node once"),
    ("source: [a]\nnodes:\n  - id: a\n", "corpus.yaml:1: `source:` must be text, not a list"),
]


@pytest.mark.parametrize(("text", "message"), BROKEN, ids=[m.split(": ", 1)[1][:40] for _, m in BROKEN])
def test_each_broken_input_gives_its_one_line_message(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{tmp_path}/{message}"
    assert "\n" not in str(caught.value)


def test_several_problems_are_counted_in_the_first_and_all_listed_by_validate(tmp_path):
    path = write(tmp_path, "source: s\nnodes:\n  - id: a\n  - id: a\n  - title: x\n")
    with pytest.raises(CorpusError, match=r"duplicate id 'a' .* \(and 1 more problem: run `reasoning-explorer "
                                          r"validate .*corpus.yaml` to list them\)"):
        load_corpus(path)
    report = validate(path)
    assert [f.line for f in report.errors] == [4, 5]
    assert report.corpus is None and report.stats is None


def test_a_missing_file_and_an_unknown_suffix(tmp_path):
    with pytest.raises(CorpusError, match="nope.yaml: no such file or folder"):
        load_corpus(tmp_path / "nope.yaml")
    (tmp_path / "corpus.txt").write_text("x")
    with pytest.raises(CorpusError, match="unknown corpus type '.txt'"):
        load_corpus(tmp_path / "corpus.txt")


def test_non_utf8_bytes_name_the_line(tmp_path):
    path = tmp_path / "corpus.yaml"
    path.write_bytes(b"source: s\nnodes:\n  - id: caf\xe9\n")
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{path}:3: not UTF-8 text (byte 28); save the file as UTF-8"


def test_python_tags_are_refused_by_the_safe_loader(tmp_path):
    path = write(tmp_path, "source: !!python/object/apply:os.system ['echo pwned']\nnodes:\n  - id: a\n")
    with pytest.raises(CorpusError, match="corpus.yaml:1: malformed YAML: could not determine a constructor|"
                                          "corpus.yaml:1: `source:` must be text"):
        load_corpus(path)


def test_text_fields_are_kept_exactly_as_written(tmp_path):
    path = write(tmp_path, 'source: s\nnodes:\n  - id: 007\n    title: "[bold]x[/]"\n    summary: yes\n')
    corpus = load_corpus(path)
    assert list(corpus.index.ids()) == ["007"]
    assert corpus.title_of("007") == "[bold]x[/]"
    assert corpus.summary_of("007") == "yes"
