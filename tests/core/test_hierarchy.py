"""Documents and the hierarchy index (SPEC.md, "Documents and the hierarchy")."""

from __future__ import annotations

import pickle

import pytest

from core import HierarchyError, HierarchyIndex, HierarchyMetadata, ReasoningRAGStrategy, RetrievedDocument

from .trees import chain, documents, index, leaf

ID, PARENT, SOURCE = HierarchyMetadata.ID, HierarchyMetadata.PARENT_ID, HierarchyMetadata.SOURCE


def doc(node_id, parent=None, source=None, use_metadata_id=True, **extra):
    metadata = dict(extra)
    if use_metadata_id:
        metadata[ID] = node_id
    if parent is not None:
        metadata[PARENT] = parent
    if source is not None:
        metadata[SOURCE] = source
    return RetrievedDocument(f"text {node_id}", node_id, 0.5, metadata)


def test_metadata_constants_have_the_spec_values():
    assert (ID, PARENT, SOURCE) == ("hierarchyId", "hierarchyParentId", "hierarchySource")
    assert HierarchyMetadata.STOP_REASON == "hierarchyStopReason"
    assert HierarchyMetadata.PATH == "hierarchyPath"
    assert HierarchyMetadata.DEPTH == "hierarchyDepth"
    assert ReasoningRAGStrategy.NODE_TITLE_METADATA == "reasoningTitle"
    assert ReasoningRAGStrategy.NODE_SUMMARY_METADATA == "reasoningSummary"
    assert ReasoningRAGStrategy.SELECTED_SCORE == 1.0


def test_retrieved_document_is_frozen_positional_with_a_read_only_copy_of_metadata():
    source = {"k": "v"}
    d = RetrievedDocument("content", "id-1", 0.25, source)
    assert (d.content, d.id, d.score) == ("content", "id-1", 0.25)
    source["k"] = "changed"
    assert d.metadata["k"] == "v"
    with pytest.raises(TypeError):
        d.metadata["k"] = "x"  # type: ignore[index]
    with pytest.raises(AttributeError):
        d.score = 2.0  # type: ignore[misc]
    assert d == RetrievedDocument("content", "id-1", 0.25, {"k": "v"})
    assert hash(d) == hash(RetrievedDocument("content", "id-1", 0.25, {"k": "v"}))
    assert pickle.loads(pickle.dumps(d)) == d


def test_id_comes_from_metadata_else_from_the_document():
    idx = HierarchyIndex([doc("a"), RetrievedDocument("x", "plain", 0.0, {PARENT: "a"})])
    assert [d.id for d in idx.children("a")] == ["plain"]
    renamed = HierarchyIndex([RetrievedDocument("x", "doc-id", 0.0, {ID: "node-id"})])
    assert "node-id" in renamed and "doc-id" not in renamed


@pytest.mark.parametrize("blank", ["", "   "])
def test_a_blank_id_is_an_error(blank):
    with pytest.raises(HierarchyError, match="blank"):
        HierarchyIndex([RetrievedDocument("x", "d", 0.0, {ID: blank})])
    with pytest.raises(HierarchyError, match="blank"):
        HierarchyIndex([RetrievedDocument("x", blank, 0.0, {})])


def test_a_non_string_id_is_an_error_naming_it():
    with pytest.raises(HierarchyError, match="hierarchyId 7 \\(int\\)"):
        HierarchyIndex([RetrievedDocument("x", "d", 0.0, {ID: 7})])


@pytest.mark.parametrize("parent", [None, ""])
def test_absent_none_or_empty_parent_makes_a_root(parent):
    idx = HierarchyIndex([doc("a"), RetrievedDocument("x", "b", 0.0, {ID: "b", PARENT: parent})])
    assert [d.id for d in idx.roots()] == ["a", "b"]


def test_children_and_roots_keep_the_given_order():
    idx = HierarchyIndex([doc("r2"), doc("c3", "r1"), doc("r1"), doc("c1", "r1"), doc("c2", "r1")])
    assert [d.id for d in idx.roots()] == ["r2", "r1"]
    assert [d.id for d in idx.children("r1")] == ["c3", "c1", "c2"]
    assert idx.child_ids("r1") == ("c3", "c1", "c2")


def test_depths_are_right_whether_parents_come_before_their_children_or_after():
    given_first = HierarchyIndex([doc("r"), doc("a", "r"), doc("b", "a"), doc("c", "b"), doc("s")])
    given_last = HierarchyIndex([doc("c", "b"), doc("b", "a"), doc("s"), doc("a", "r"), doc("r")])
    for idx in (given_first, given_last):
        assert [idx.depth(i) for i in "rabcs"] == [0, 1, 2, 3, 0]
        assert idx.path("c") == ("r", "a", "b", "c")
        assert idx.child_ids("r") == ("a",) and idx.child_ids("b") == ("c",)
    assert given_last.root_ids() == ("s", "r")


@pytest.mark.parametrize("order", ["cdab", "abcd", "dcba", "bdca"])
def test_depths_asked_in_any_order_are_right(order):
    """Depths are worked out when asked, up to the nearest known one; asking in any order gives the same."""
    idx = HierarchyIndex([doc("a"), doc("b", "a"), doc("c", "b"), doc("d", "c"), doc("e", "b"), doc("z")])
    assert {node: idx.depth(node) for node in order} == {"a": 0, "b": 1, "c": 2, "d": 3}
    assert [idx.depth(node) for node in "abcdez"] == [0, 1, 2, 3, 2, 0]


def test_roots_filtered_by_source():
    idx = HierarchyIndex([doc("a", source="x"), doc("b", source="y"), doc("c", source="x"), doc("d")])
    assert [d.id for d in idx.roots(["x"])] == ["a", "c"]
    assert [d.id for d in idx.roots("y")] == ["b"]
    assert idx.roots([]) == ()
    assert [d.id for d in idx.roots()] == ["a", "b", "c", "d"]


def test_lookups():
    idx = index([("a", [("b", [leaf("c")])]), leaf("d")])
    assert len(idx) == 4
    assert "c" in idx and "zz" not in idx
    assert idx.get("c").id == "c"
    assert idx.get("zz") is None
    assert idx["b"].content == "content of b"
    assert idx.parent("c").id == "b"
    assert idx.parent("a") is None
    assert [idx.depth(i) for i in "abcd"] == [0, 1, 2, 0]
    assert idx.path("c") == ("a", "b", "c")
    assert idx.children("c") == ()
    assert idx.has_children("a") and not idx.has_children("d")
    assert list(idx.ids()) == ["a", "b", "c", "d"]


@pytest.mark.parametrize("method", ["children", "parent", "depth", "path", "__getitem__", "child_ids"])
def test_unknown_ids_raise_key_error_naming_them(method):
    idx = index([leaf("a")])
    with pytest.raises(KeyError, match="'nope'"):
        getattr(idx, method)("nope")


def test_duplicate_ids_are_named():
    with pytest.raises(HierarchyError, match="duplicate node ids: 'a', 'b'"):
        HierarchyIndex([doc("b"), doc("a"), doc("a"), doc("b"), doc("c")])


def test_a_duplicate_is_named_as_one_whatever_its_parent():
    first = RetrievedDocument("c", "x", 0.0, {})
    again = RetrievedDocument("c", "x", 0.0, {PARENT: 5})  # a bad parent too: the duplicate is what is wrong
    with pytest.raises(HierarchyError, match="^duplicate node ids: 'x'; every id must be unique$"):
        HierarchyIndex([first, again])


def test_unknown_parents_are_named():
    with pytest.raises(HierarchyError, match="'orphan' \\(parent 'missing'\\)"):
        HierarchyIndex([doc("a"), doc("orphan", "missing")])


def test_a_cycle_names_every_node_not_reachable_from_a_root():
    with pytest.raises(HierarchyError, match="not reachable from any root.*'x', 'y', 'z'"):
        HierarchyIndex([doc("a"), doc("x", "z"), doc("y", "x"), doc("z", "y")])
    with pytest.raises(HierarchyError, match="'self'"):
        HierarchyIndex([doc("self", "self")])
    with pytest.raises(HierarchyError, match="not reachable from any root.*'x', 'y'$"):
        HierarchyIndex([doc("a"), doc("b", "a"), doc("x", "y"), doc("y", "x"), doc("c", "b")])


def test_long_lists_of_bad_ids_are_cut_short():
    docs = [doc(f"n{i:03}") for i in range(30)] * 2
    with pytest.raises(HierarchyError, match="and 20 more"):
        HierarchyIndex(docs)


def test_a_chain_one_hundred_thousand_deep_loads():
    idx = chain("c", 100_000)
    assert idx.depth("c99999") == 99_999
    assert len(idx.path("c99999")) == 100_000


def test_merge_keeps_order_and_refuses_shared_ids():
    a = index([leaf("a1"), leaf("a2")], source="a")
    b = index([("b1", [leaf("b2")])], source="b")
    merged = HierarchyIndex.merge([a, b])
    assert [d.id for d in merged.roots()] == ["a1", "a2", "b1"]
    assert merged.depth("b2") == 1
    with pytest.raises(HierarchyError, match="'a1'"):
        HierarchyIndex.merge([a, index([leaf("a1")], source="c")])


def test_documents_helper_builds_parent_links():
    docs = documents([("p", [leaf("c")])])
    assert docs[1].metadata[PARENT] == "p"
