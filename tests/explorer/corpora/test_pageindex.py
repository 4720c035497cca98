"""PageIndex tree JSON: real published trees load, and each broken input gives its one-line error."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from core import HierarchyMetadata
from explorer.corpora import CorpusError, load_corpus, pageindex
from explorer.corpora.model import sha256_of_bytes
from explorer.corpora.pageindex import build_pageindex, read_pageindex

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "pageindex"
# The repository's sibling folder `shared` (or $REASONING_EXPLORER_SHARED) holds real PageIndex outputs.
SHARED = Path(os.environ.get("REASONING_EXPLORER_SHARED") or Path(__file__).resolve().parents[3].parent / "shared")
SHARED_PAGEINDEX = SHARED / "fixtures" / "pageindex"
SHARED_FILES = sorted(SHARED_PAGEINDEX.glob("*.json")) if SHARED_PAGEINDEX.is_dir() else []

REG_BI = "Regulation_Best_Interest_Interpretive_release_structure.json"


def shared_file(name: str) -> Path:
    path = SHARED_PAGEINDEX / name
    if not path.is_file():
        pytest.skip(f"no shared PageIndex fixture {path}")
    return path


def count_nodes(tree: object) -> int:
    """Every object in the tree's node lists, counted independently of the loader."""
    stack = list(tree["structure"] if isinstance(tree, dict) else tree)
    count = 0
    while stack:
        node = stack.pop()
        count += 1
        stack.extend(node.get("nodes") or [])
    return count


def parent_of(corpus, node_id):
    return corpus.index[node_id].metadata.get(HierarchyMetadata.PARENT_ID)


# ---------------------------------------------------------------------------------------------------------------
# Real trees


@pytest.mark.parametrize("path", SHARED_FILES or [None], ids=lambda p: p.name if p else "absent")
def test_every_shared_pageindex_file_loads(path):
    if path is None:
        pytest.skip(f"no shared PageIndex fixtures at {SHARED_PAGEINDEX}")
    corpus = load_corpus(path)
    tree = json.loads(path.read_text(encoding="utf-8"))
    assert corpus.format == "pageindex"
    assert corpus.source == path.stem
    assert corpus.title == tree["doc_name"]
    assert corpus.sha256 == sha256_of_bytes([path.read_bytes()])
    assert dict(corpus.lines) == {}
    assert len(corpus.index) == count_nodes(tree)
    assert corpus.index.root_ids() == tuple(node["node_id"] for node in tree["structure"])
    for document in corpus.index:
        assert corpus.title_of(document.id)
        # None of the published trees carries page text: every node says which pages it covers.
        assert document.metadata["contentPlaceholder"] is True
        assert document.content.startswith("Covers page")
    assert read_pageindex(path).index.root_ids() == corpus.index.root_ids()


def test_regulation_tree_has_its_nodes_parents_and_summaries():
    corpus = read_pageindex(shared_file(REG_BI))
    assert corpus.title == "Regulation Best Interest_Interpretive release.pdf"
    assert corpus.source == "Regulation_Best_Interest_Interpretive_release_structure"
    assert list(corpus.index.ids()) == ["0000", "0001", "0002", "0003", "0004", "0005", "0006", "0007", "0008"]
    assert corpus.index.root_ids() == ("0000", "0001", "0002", "0006")
    assert corpus.index.child_ids("0002") == ("0003", "0004", "0005")
    assert corpus.index.child_ids("0006") == ("0007", "0008")
    assert parent_of(corpus, "0004") == "0002"
    assert corpus.title_of("0004") == "Scope of the Solely Incidental Prong of the Broker-Dealer Exclusion"
    assert corpus.index.depth("0004") == 1
    assert corpus.title_of("0007") == "Background"
    summary = corpus.summary_of("0007")
    assert summary.startswith(
        "The partial document discusses the U.S. Securities and Exchange Commission's (SEC) interpretation"
    )
    assert summary.endswith(
        "the lack of data received during the Reg. BI Proposal to analyze the economic impact further."
    )
    background = corpus.index["0007"]
    assert background.content == "Covers pages 22–23 of Regulation Best Interest_Interpretive release.pdf."
    assert (background.metadata["startPage"], background.metadata["endPage"]) == (22, 23)
    assert background.metadata["contentPlaceholder"] is True


def test_earthmover_placeholders_name_one_page_or_a_range():
    corpus = load_corpus(shared_file("earthmover_structure.json"))
    assert len(corpus.index) == 21
    assert corpus.index.root_ids()[:4] == ("0000", "0001", "0002", "0003")
    assert parent_of(corpus, "0004") == "0003"
    assert corpus.title_of("0004") == "Computing the EMD"
    assert corpus.index["0004"].content == "Covers page 3 of earthmover.pdf."
    assert corpus.index["0005"].content == "Covers pages 3–4 of earthmover.pdf."
    assert corpus.summary_of("0004") == ""


# ---------------------------------------------------------------------------------------------------------------
# Our own small trees


@pytest.mark.parametrize("load", [load_corpus, read_pageindex], ids=["load_corpus", "read_pageindex"])
def test_small_tree_uses_text_summary_and_prefix_summary(load):
    path = FIXTURES / "manual_structure.json"
    corpus = load(path)
    assert (corpus.format, corpus.source, corpus.title) == ("pageindex", "manual_structure", "manual.pdf")
    assert corpus.path == path
    assert corpus.sha256 == sha256_of_bytes([path.read_bytes()])
    assert list(corpus.index.ids()) == ["0000", "0001", "0002", "0003", "0004", "0005"]
    assert corpus.index.root_ids() == ("0000", "0001", "0005")
    assert [parent_of(corpus, i) for i in corpus.index.ids()] == [None, None, "0001", "0001", "0003", None]
    assert [corpus.index.depth(i) for i in corpus.index.ids()] == [0, 0, 1, 1, 2, 0]
    assert [corpus.title_of(i) for i in corpus.index.ids()] == [
        "Preface", "Setup", "Hardware", "Software", "Drivers", "Index",
    ]  # fmt: skip
    # summary wins over prefix_summary; prefix_summary where there is no summary; else "".
    assert [corpus.summary_of(i) for i in corpus.index.ids()] == [
        "Why the manual exists.", "How to set things up.", "The parts you need.", "", "", "",
    ]  # fmt: skip
    assert [corpus.index[i].content for i in corpus.index.ids()] == [
        "This manual exists because people asked for it.",
        "Covers pages 2–4 of manual.pdf.",
        "Covers pages 2–3 of manual.pdf.",
        "Covers page 4 of manual.pdf.",
        "The text of this node is not in manual_structure.json.",
        "",
    ]
    own = {key: value for key, value in corpus.index["0000"].metadata.items() if key in ("startPage", "endPage")}
    assert own == {"startPage": 1, "endPage": 1}
    assert "contentPlaceholder" not in corpus.index["0000"].metadata  # it has its text
    assert "contentPlaceholder" not in corpus.index["0005"].metadata  # "text": "" is text, if empty
    assert corpus.index["0002"].metadata["contentPlaceholder"] is True
    drivers = corpus.index["0004"].metadata
    assert "startPage" not in drivers and "endPage" not in drivers
    assert drivers[HierarchyMetadata.SOURCE] == "manual_structure"


def test_bare_list_takes_its_title_from_the_file_stem():
    corpus = load_corpus(FIXTURES / "bare_list.json")
    assert (corpus.format, corpus.source, corpus.title) == ("pageindex", "bare_list", "bare_list")
    assert list(corpus.index.ids()) == ["a", "b", "3"]
    assert corpus.index.root_ids() == ("a",)
    assert corpus.index.child_ids("a") == ("b", "3")
    assert [corpus.title_of(i) for i in ("a", "b", "3")] == ["Only root", "Child", "3"]  # no title: the id
    assert corpus.summary_of("b") == "The child."
    assert corpus.index["a"].content == "The text of this node is not in bare_list.json."
    assert corpus.index["b"].content == "Covers page 7 of the source document."
    assert corpus.index["3"].content == "Covers pages 8–9 of the source document."
    assert corpus.index["b"].metadata["startPage"] == 7 and "endPage" not in corpus.index["b"].metadata


@pytest.mark.slow  # a scale test: 100,000 levels
def test_a_100000_deep_tree_builds_without_recursion():
    depth = 100_000
    leaf: dict[str, object] = {"node_id": f"n{depth - 1}", "title": "bottom"}
    for level in range(depth - 2, -1, -1):
        leaf = {"node_id": f"n{level}", "title": f"level {level}", "nodes": [leaf]}
    corpus = build_pageindex({"doc_name": "deep.pdf", "structure": [leaf]}, Path("deep.json"))
    assert len(corpus.index) == depth
    assert corpus.index.depth(f"n{depth - 1}") == depth - 1
    assert corpus.title_of(f"n{depth - 1}") == "bottom"
    assert corpus.index.root_ids() == ("n0",)


@pytest.mark.slow  # a scale test: a tree deep enough to elide its path
def test_an_error_deep_in_a_tree_names_an_elided_path():
    depth = 100_000
    node: dict[str, object] = {"title": "no id at the bottom"}
    for level in range(depth - 2, -1, -1):
        node = {"node_id": f"n{level}", "nodes": [node]}
    with pytest.raises(CorpusError) as caught:
        build_pageindex([node], Path("deep.json"))
    where = "[0].nodes[0].nodes[0].nodes[0].nodes[0].nodes[0]…(99988 levels)….nodes[0].nodes[0].nodes[0].nodes[0].nodes[0].nodes[0]"
    assert str(caught.value) == (
        f"deep.json: node at {where} (title 'no id at the bottom') has no \"node_id\"; "
        'give every node a unique "node_id"'
    )


# ---------------------------------------------------------------------------------------------------------------
# Broken inputs: each gives exactly one line


BROKEN = [
    pytest.param(
        '{"doc_name": "d", "structure": [{"title": "A", "node_id": "1", "nodes": [{"title": "No id here"}]}]}',
        None,
        'node at structure[0].nodes[0] (title \'No id here\') has no "node_id"; give every node a unique "node_id"',
        id="missing-node-id",
    ),
    pytest.param(
        '[{"title": "A", "node_id": "1"}, {"title": "B", "node_id": "2", "nodes": [{"title": "C", "node_id": "1"}]}]',
        None,
        "duplicate node_id '1' at [0] and at [1].nodes[0]; node ids must be unique within a tree: rename one",
        id="duplicate-node-id",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": "1", "nodes": {"title": "B", "node_id": "2"}}]}',
        None,
        'node at structure[0]: "nodes" must be a list of nodes, not an object; '
        "make it a JSON list, or leave it out for a leaf",
        id="nodes-not-a-list",
    ),
    pytest.param(
        '{"structure": [{"title": 7, "node_id": "1"}]}',
        None,
        'node at structure[0]: "title" must be text, not a number; write the node\'s title as a JSON string',
        id="title-not-text",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": "1", "nodes": ["B"]}]}',
        None,
        'node at structure[0].nodes[0] must be an object with "node_id" and "title", not text; '
        "write each node as a JSON object",
        id="node-not-an-object",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": ["1"]}]}',
        None,
        'node at structure[0]: "node_id" must be text, not a list; write it as a JSON string',
        id="node-id-not-text",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": "  "}]}',
        None,
        'node at structure[0]: "node_id" is blank; give every node a unique "node_id"',
        id="blank-node-id",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": "1", "start_index": "3"}]}',
        None,
        'node at structure[0]: "start_index" must be a whole number (a page), not text; '
        "write the page number as a JSON number",
        id="page-not-a-number",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": "1", "summary": {"text": "x"}}]}',
        None,
        'node at structure[0]: "summary" must be text, not an object; write the node\'s summary as a JSON string',
        id="summary-not-text",
    ),
    pytest.param(
        '{"doc_name": 3, "structure": [{"title": "A", "node_id": "1"}]}',
        None,
        '"doc_name" must be text, not a number; write the document\'s name as a JSON string',
        id="doc-name-not-text",
    ),
    pytest.param(
        '{\n  "structure": [\n    {"title": "A" "node_id": "1"}\n  ]\n}\n',
        3,
        "malformed JSON: Expecting ',' delimiter (column 19); fix the JSON there",
        id="malformed-json",
    ),
    pytest.param("", 1, "malformed JSON: Expecting value (column 1); fix the JSON there", id="empty-file"),
    pytest.param(
        '{"doc_name": "d", "structure": []}',
        None,
        '"structure" is empty; a PageIndex tree needs at least one node',
        id="empty-structure",
    ),
    pytest.param(
        "[]", None, "the list of root nodes is empty; a PageIndex tree needs at least one node", id="empty-list"
    ),
    pytest.param(
        '{"doc_name": "d"}',
        None,
        'no "structure"; a PageIndex tree file has "doc_name" and "structure", its root nodes',
        id="no-structure",
    ),
    pytest.param(
        '{"structure": {"title": "A", "node_id": "1"}}',
        None,
        '"structure" must be a list of root nodes, not an object; make it a JSON list',
        id="structure-not-a-list",
    ),
    pytest.param(
        "42",
        None,
        'a PageIndex tree file is an object with "structure" (or a list of root nodes), not a number; '
        "is this a PageIndex tree file?",
        id="not-a-tree",
    ),
    pytest.param(
        '{"structure": [{"title": "A", "node_id": "1", "start_index": 1' + "0" * 5000 + "}]}",
        None,
        "malformed JSON: Exceeds the limit (4300 digits) for integer string conversion: value has 5001 digits; "
        "use sys.set_int_max_str_digits() to increase the limit; fix the value",
        id="huge-number",
    ),
    pytest.param(
        '{"structure": [' + '{"node_id": "n", "nodes": [' * 100_000 + "]}" * 100_000 + "]}",
        None,
        "JSON nested too deeply to read (the JSON parser's recursion limit); "
        "a tree this deep cannot be loaded: flatten it",
        id="nested-too-deeply",
    ),
]


@pytest.mark.parametrize(("text", "line", "message"), BROKEN)
@pytest.mark.parametrize("load", [load_corpus, read_pageindex], ids=["load_corpus", "read_pageindex"])
def test_broken_tree_gives_one_clear_line(tmp_path, load, text, line, message):
    path = tmp_path / "tree.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CorpusError) as caught:
        load(path)
    where = f"{path}:{line}" if line is not None else f"{path}"
    assert str(caught.value) == f"{where}: {message}"
    assert caught.value.line == line
    assert "\n" not in str(caught.value)


def test_not_utf8_names_the_file(tmp_path):
    path = tmp_path / "tree.json"
    path.write_bytes(b'{"doc_name": "caf\xe9", "structure": []}')
    with pytest.raises(CorpusError) as caught:
        load_corpus(path)
    assert str(caught.value) == f"{path}:1: not UTF-8 text (byte 17); save the file as UTF-8"


def test_an_unexpected_failure_is_still_a_corpus_error(tmp_path, monkeypatch):
    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(pageindex, "HierarchyIndex", broken)  # both readers, the lean and the careful, use it
    path = FIXTURES / "manual_structure.json"
    with pytest.raises(CorpusError) as caught:
        read_pageindex(path)
    assert str(caught.value) == (
        f"{path}: cannot load this PageIndex tree: RuntimeError: boom; please report this file"
    )


# ---------------------------------------------------------------------------------------------------------------
# Two parsers, one reading: msgspec reads first, json decides whatever msgspec refuses or does not load


def corpus_facts(corpus):
    return [(d.id, d.content, dict(d.metadata)) for d in corpus.index], corpus.title, corpus.source, corpus.sha256


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        pytest.param('\ufeff[{"title": "A", "node_id": "1"}]', ["1"], id="bom"),
        pytest.param('[{"title": "A", "node_id": 123456789012345678901234567890}]',
                     ["123456789012345678901234567890"], id="whole-number-past-64-bits"),
        pytest.param('[{"title": "A", "node_id": "1", "score": NaN, "weight": Infinity}]', ["1"], id="nan"),
        pytest.param('[{"title": "A \\ud800", "node_id": "1"}]', ["1"], id="lone-surrogate"),
    ],
)
def test_what_msgspec_refuses_loads_as_json_reads_it(tmp_path, text, ids):
    path = tmp_path / "tree.json"
    path.write_text(text, encoding="utf-8", errors="surrogatepass")
    corpus = read_pageindex(path)
    assert [d.id for d in corpus.index] == ids
    expected = build_pageindex(json.loads(path.read_bytes().decode("utf-8-sig", "surrogatepass")), path,
                               path.read_bytes())
    assert corpus_facts(corpus) == corpus_facts(expected)


def test_a_number_too_long_to_convert_under_an_ignored_key_does_not_stop_the_load(tmp_path):
    path = tmp_path / "tree.json"
    path.write_text('[{"title": "A", "node_id": "1", "extra": 1' + "0" * 5000 + "}]", encoding="utf-8")
    assert [d.id for d in read_pageindex(path).index] == ["1"]  # json alone would refuse it (see "huge-number")


@pytest.mark.parametrize("levels", [100, 1_000, 100_000])
def test_deep_nesting_anywhere_is_read_or_refused_as_json_does(tmp_path, levels):
    """Read when shallow, refused in one line when past the parser's recursion limit. Near the limit (1,000 levels)
    whether json recurses too deeply depends on how deep the caller's stack already is (a pytest-xdist worker's is
    deeper than a plain run's), so there either outcome is right, but never a traceback."""
    path = tmp_path / "tree.json"
    path.write_text('[{"title": "A", "node_id": "1", "extra": ' + "[" * levels + "]" * levels + "}]", encoding="utf-8")
    try:
        read = [d.id for d in read_pageindex(path).index]
    except CorpusError as exc:
        assert "JSON nested too deeply to read" in str(exc)
        read = None
    assert read == {100: ["1"], 100_000: None}.get(levels, read)


def test_a_file_read_twice_and_a_tree_built_from_json_give_equal_corpora():
    path = FIXTURES / "manual_structure.json"
    first, second = read_pageindex(path), read_pageindex(path)
    from_json = build_pageindex(json.loads(path.read_text(encoding="utf-8")), path, path.read_bytes())
    assert corpus_facts(first) == corpus_facts(second) == corpus_facts(from_json)
    assert [first.index.depth(d.id) for d in first.index] == [from_json.index.depth(d.id) for d in from_json.index]


def test_build_pageindex_leaves_the_callers_tree_as_it_was():
    tree = json.loads((FIXTURES / "manual_structure.json").read_text(encoding="utf-8"))
    before = json.dumps(tree)
    build_pageindex(tree, Path("manual_structure.json"))
    assert json.dumps(tree) == before


def varied_tree(count: int) -> list[dict[str, object]]:
    """Nodes of every shape a well-formed tree has: pages or not, text or not, summaries of each kind."""
    nodes: list[dict[str, object]] = []
    roots: list[dict[str, object]] = []
    for i in range(count):
        node: dict[str, object] = {"node_id": f"{i:04d}" if i % 7 else i}
        if i % 3:
            node["title"] = f"Title {i}" if i % 5 else "   "
        if i % 4 == 0:
            node["summary"] = f" Summary {i}. "
        elif i % 4 == 1:
            node["prefix_summary"] = f"Prefix {i}"
        elif i % 4 == 2:
            node["summary"], node["prefix_summary"] = "  ", f"Prefix only {i}"
        if i % 2:
            node["start_index"] = i
        if i % 3 == 1:
            node["end_index"] = i + 2
        if i % 5 == 2:
            node["text"] = f"Text of {i}" if i % 10 else ""
        if i % 11 == 3:
            node["nodes"] = [] if i % 2 else None
        nodes.append(node)
        parent = (i - 1) // 3 if i else None
        if parent is None or i % 13 == 0:
            roots.append(node)
        else:
            siblings = nodes[parent].get("nodes") or []
            nodes[parent]["nodes"] = [*siblings, node]
    return roots


def test_the_lean_reading_of_a_well_formed_tree_is_the_careful_one(tmp_path, monkeypatch):
    """read_pageindex reads a well-formed file through the lean walk; build_pageindex always walks carefully."""
    files = [FIXTURES / "manual_structure.json", FIXTURES / "bare_list.json", *SHARED_FILES]
    written = tmp_path / "varied.json"
    written.write_text(json.dumps({"doc_name": "varied.pdf", "structure": varied_tree(400)}), encoding="utf-8")
    readings = {path: json.loads(path.read_text(encoding="utf-8")) for path in [*files, written]}

    def not_json(*args: object, **kwargs: object) -> None:
        raise AssertionError("a well-formed tree went to json and the careful walk")

    monkeypatch.setattr(pageindex.json, "loads", not_json)
    for path, tree in readings.items():
        lean = read_pageindex(path)
        careful = build_pageindex(tree, path, path.read_bytes())
        assert [(d.id, d.content, list(d.metadata.items())) for d in lean.index] == [
            (d.id, d.content, list(d.metadata.items())) for d in careful.index
        ], path.name
        assert (lean.title, lean.source, lean.sha256) == (careful.title, careful.source, careful.sha256)
        assert [lean.index.depth(d.id) for d in lean.index] == [careful.index.depth(d.id) for d in careful.index]


@pytest.mark.parametrize("bad", [
    pytest.param(b'"extra": "caf\xe9"', id="under-an-ignored-key"),
    pytest.param(b'"caf\xe9": 1', id="an-ignored-key-itself"),
    pytest.param(b'"extra": "\xed\xa0\x80"', id="an-encoded-surrogate"),
    pytest.param(b'"extra": "ok \xc3"', id="cut-in-the-middle-of-a-character"),
])
@pytest.mark.parametrize("load", [load_corpus, read_pageindex], ids=["load_corpus", "read_pageindex"])
def test_bytes_that_are_not_utf8_are_refused_wherever_they_sit_as_json_refuses_them(tmp_path, load, bad):
    path = tmp_path / "tree.json"
    data = b'[{"title": "A", "node_id": "1",\n ' + bad + b'}]'
    path.write_bytes(data)
    with pytest.raises(CorpusError) as caught:
        load(path)
    with pytest.raises(UnicodeDecodeError) as json_path:
        data.decode("utf-8")
    assert str(caught.value) == f"{path}:2: not UTF-8 text (byte {json_path.value.start}); save the file as UTF-8"
    assert caught.value.line == 2


def test_text_past_ascii_in_every_place_still_loads(tmp_path):
    path = tmp_path / "tree.json"
    big = "é" * 1_500_000  # past one checked chunk, with characters cut across the chunk's end
    path.write_text(json.dumps([{"title": "Café ✓", "node_id": "1", "text": big, "extra": "naïve 🙂"}],
                               ensure_ascii=False), encoding="utf-8")
    corpus = read_pageindex(path)
    assert corpus.title_of("1") == "Café ✓" and corpus.index["1"].content == big
