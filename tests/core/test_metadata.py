"""A document's metadata: a read-only copy that behaves as a mapping and costs little memory."""

from __future__ import annotations

import copy
import pickle
import tracemalloc
from collections.abc import Iterator, Mapping
from types import MappingProxyType

import pytest

from core import HierarchyIndex, HierarchyMetadata, RetrievedDocument, metadata
from core.metadata import FrozenMetadata


def test_metadata_is_a_read_only_copy_in_the_order_given() -> None:
    given = {"b": 1, "a": [1, 2], "c": None}
    document = RetrievedDocument("text", "n1", 0.0, given)
    given["b"] = 99
    given["d"] = 4
    metadata = document.metadata
    assert isinstance(metadata, Mapping)
    assert list(metadata) == ["b", "a", "c"]
    assert list(metadata.items()) == [("b", 1), ("a", [1, 2]), ("c", None)]
    assert metadata["b"] == 1 and metadata.get("c", "absent") is None and metadata.get("d") is None
    assert metadata.get("d", "absent") == "absent"
    assert "a" in metadata and "d" not in metadata and len(metadata) == 3
    assert metadata["a"] is given["a"]  # a shallow copy, as a dict() would be
    with pytest.raises(KeyError, match="'d'"):
        metadata["d"]
    with pytest.raises(TypeError):
        metadata["b"] = 2  # type: ignore[index]
    with pytest.raises(AttributeError):
        metadata.update({"b": 2})  # type: ignore[attr-defined]


def test_equal_to_any_mapping_with_the_same_items_whatever_the_order() -> None:
    metadata = FrozenMetadata({"x": 1, "y": "two"})
    assert metadata == {"y": "two", "x": 1}
    assert {"x": 1, "y": "two"} == metadata  # noqa: SIM300 - a dict on the left defers to our __eq__
    assert metadata == MappingProxyType({"x": 1, "y": "two"})
    assert metadata == FrozenMetadata({"y": "two", "x": 1})
    assert metadata != {"x": 1}
    assert metadata != FrozenMetadata({"x": 1, "y": "three"})
    assert metadata != [("x", 1), ("y", "two")]
    with pytest.raises(TypeError, match="unhashable"):
        hash(metadata)


def test_copy_is_a_plain_dict_that_changes_alone() -> None:
    metadata = FrozenMetadata({"x": 1})
    changed = metadata.copy()
    changed["x"] = 2
    assert type(changed) is dict and metadata["x"] == 1
    assert copy.copy(metadata) == metadata


def test_documents_pickle_and_compare_equal_after() -> None:
    document = RetrievedDocument("body", "n1", 0.5, {HierarchyMetadata.ID: "n1", "rank": 3})
    back = pickle.loads(pickle.dumps(document))
    assert back == document and hash(back) == hash(document)
    assert pickle.loads(pickle.dumps(document.metadata)) == document.metadata
    assert repr(document.metadata) == "FrozenMetadata({'hierarchyId': 'n1', 'rank': 3})"


def test_frozen_metadata_given_is_kept_not_copied() -> None:
    first = RetrievedDocument("a", "n1", 0.0, {"k": "v"})
    second = RetrievedDocument("b", "n2", 0.0, first.metadata)
    assert second.metadata is first.metadata


def test_with_metadata_adds_keys_to_a_copy() -> None:
    document = RetrievedDocument("a", "n1", 0.0, {"k": "v"})
    landed = document.with_metadata(score=1.0, extra=2)
    assert dict(landed.metadata) == {"k": "v", "extra": 2} and landed.score == 1.0
    assert dict(document.metadata) == {"k": "v"}


@pytest.fixture
def fresh_layouts() -> Iterator[None]:
    """The process's shared layouts as a fresh process has them, and put back after: a test that made 6,000 key
    orders first (past the cap of shared layouts) left none to share, and this module failed in a random order."""
    saved = dict(metadata._layouts), dict(metadata._extensions)
    metadata._layouts.clear()
    metadata._extensions.clear()
    yield
    metadata._layouts.clear()
    metadata._extensions.clear()
    metadata._layouts.update(saved[0])
    metadata._extensions.update(saved[1])


@pytest.mark.usefixtures("fresh_layouts")
def test_a_million_nodes_worth_of_metadata_shares_its_keys() -> None:
    """Seven keys cost a tuple of values and a small object per document, not a dict each."""
    keys = ("hierarchyId", "hierarchySource", "reasoningTitle", "reasoningSummary", "hierarchyParentId",
            "startPage", "endPage")
    given = [dict(zip(keys, (f"n{i}", "s", "t", "u", "p", 1, 2), strict=True)) for i in range(2_000)]
    made = [FrozenMetadata()] * len(given)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for i, mapping in enumerate(given):
            made[i] = FrozenMetadata(mapping)
        used = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    per_document = used / len(made)
    assert per_document < 200, f"{per_document:.0f} bytes of metadata per document"  # a dict each: over 300
    assert made == given


@pytest.mark.usefixtures("fresh_layouts")  # its 6,000 key orders fill the shared layouts: put back after
def test_any_number_of_different_key_orders_stays_correct() -> None:
    """Past the shared layouts' cap a mapping keeps a layout of its own: as correct, only less shared."""
    made = [FrozenMetadata({f"key-{i}": i, "common": -i}) for i in range(6_000)]
    assert all(m[f"key-{i}"] == i and m["common"] == -i and list(m) == [f"key-{i}", "common"]
               for i, m in enumerate(made))


def test_an_index_reads_ids_and_parents_from_frozen_metadata() -> None:
    documents = [
        RetrievedDocument("", "r", 0.0, {HierarchyMetadata.ID: "root"}),
        RetrievedDocument("", "c", 0.0, {HierarchyMetadata.ID: "child", HierarchyMetadata.PARENT_ID: "root"}),
        RetrievedDocument("", "g", 0.0, {HierarchyMetadata.ID: "grand", HierarchyMetadata.PARENT_ID: "child"}),
    ]
    index = HierarchyIndex(documents)
    assert index.path("grand") == ("root", "child", "grand")
    parent = index.parent("grand")
    assert parent is not None and parent.id == "c"
    assert index.parent("root") is None
    with pytest.raises(KeyError, match="'nowhere'"):
        index.parent("nowhere")
    with pytest.raises(KeyError, match="'nowhere'"):
        index.path("nowhere")


def test_pair_reads_two_keys_as_get_would() -> None:
    metadata = FrozenMetadata({"a": 1, "b": None})
    assert metadata.pair("a", "b") == (1, None)
    assert metadata.pair("x", "a", "fallback") == ("fallback", 1)
    assert metadata.pair("b", "y", "fallback") == (None, None)  # present as None: None, not the default


def test_from_values_pairs_keys_with_values_and_refuses_a_mismatch() -> None:
    made = FrozenMetadata.from_values(("a", "b"), (1, 2))
    assert made == {"a": 1, "b": 2} and list(made) == ["a", "b"]
    with pytest.raises(ValueError, match="2 keys for 1 values"):
        FrozenMetadata.from_values(("a", "b"), (1,))
    with pytest.raises(ValueError, match="a key given twice"):
        FrozenMetadata.from_values(("a", "a"), (1, 2))


def test_a_document_from_frozen_metadata_equals_one_built_the_usual_way() -> None:
    metadata = FrozenMetadata.from_values((HierarchyMetadata.ID, "k"), ("n1", "v"))
    quick = RetrievedDocument.frozen("text", "n1", 0.0, metadata)
    assert quick == RetrievedDocument("text", "n1", 0.0, {HierarchyMetadata.ID: "n1", "k": "v"})
    assert quick.metadata is metadata and type(quick) is RetrievedDocument
    with pytest.raises(TypeError, match="FrozenMetadata, not dict"):
        RetrievedDocument.frozen("text", "n1", 0.0, {"k": "v"})  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({HierarchyMetadata.ID: None}, "has hierarchyId None (NoneType); hierarchy ids must be strings"),
        ({HierarchyMetadata.ID: "  "}, "has a blank hierarchy id"),
        ({HierarchyMetadata.ID: 7}, "has hierarchyId 7 (int)"),
        ({HierarchyMetadata.PARENT_ID: 3}, "has hierarchyParentId 3 (int); parent ids must be strings"),
    ],
)
def test_an_index_checks_ids_read_from_frozen_metadata(metadata: dict[str, object], message: str) -> None:
    from core import HierarchyError

    with pytest.raises(HierarchyError, match=message.replace("(", r"\(").replace(")", r"\)")):
        HierarchyIndex([RetrievedDocument("", "doc", 0.0, metadata)])


def test_an_empty_parent_id_makes_a_root() -> None:
    index = HierarchyIndex([RetrievedDocument("", "doc", 0.0, {HierarchyMetadata.PARENT_ID: ""})])
    assert index.root_ids() == ("doc",) and index.parent("doc") is None


def test_a_maker_makes_mappings_of_one_shape() -> None:
    make = FrozenMetadata.maker(("a", "b"))
    first, second = make((1, 2)), make((3, 4))
    assert first == {"a": 1, "b": 2} and second == {"a": 3, "b": 4} and list(second) == ["a", "b"]
    assert type(first) is FrozenMetadata and first == FrozenMetadata({"a": 1, "b": 2})
    with pytest.raises(ValueError, match="a key given twice"):
        FrozenMetadata.maker(("a", "a"))


def test_extended_adds_keys_after_its_own_or_replaces_them_in_place() -> None:
    metadata = FrozenMetadata({"a": 1, "b": 2})
    wider = metadata.extended(("c", "d"), (3, 4))
    assert list(wider.items()) == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]
    again = FrozenMetadata({"a": 9, "b": 8}).extended(("c", "d"), (7, 6))  # the same shape, remembered
    assert list(again.items()) == [("a", 9), ("b", 8), ("c", 7), ("d", 6)]
    replaced = metadata.extended(("b", "e"), ("two", 5))
    assert list(replaced.items()) == [("a", 1), ("b", "two"), ("e", 5)]
    assert list(metadata.items()) == [("a", 1), ("b", 2)]
    assert list(metadata.extended(("c", "c"), (1, 2)).items()) == [("a", 1), ("b", 2), ("c", 2)]  # as update()
    for _ in range(2):  # a mismatch is refused whether or not the shape is remembered
        with pytest.raises(ValueError, match="2 keys for 1 values"):
            metadata.extended(("c", "d"), (1,))


def test_keys_equal_across_types_are_never_confused() -> None:
    """``1 == True``: a mapping keyed by one must not come back keyed by the other."""
    numbered = FrozenMetadata({1: "x"})
    flagged = FrozenMetadata({True: "y"})
    assert [type(key) for key in numbered] == [int] and [type(key) for key in flagged] == [bool]
    assert [type(key) for key in FrozenMetadata({"k": 0}).extended((True,), (1,))] == [str, bool]  # type: ignore[arg-type]
    assert [type(key) for key in FrozenMetadata({"k": 0}).extended((1,), (1,))] == [str, int]  # type: ignore[arg-type]


def test_a_landed_document_keeps_its_metadata_and_adds_the_walks() -> None:
    from core import ReasoningRAGStrategy

    from .trees import index as make_index
    from .trees import leaf

    class First:
        def choose(self, request: object) -> tuple[str, ...]:
            return (request.candidates[0].id,)  # type: ignore[attr-defined]

    tree = make_index([("a", [leaf("b")])])
    strategy = ReasoningRAGStrategy(tree, First(), "m")  # type: ignore[arg-type]
    for _ in range(2):  # the second time through the remembered layout
        (landed,) = strategy.retrieve("q")
        source = tree["b"].metadata
        assert list(landed.metadata.items()) == [
            *source.items(),
            (HierarchyMetadata.STOP_REASON, "leaf"),
            (HierarchyMetadata.PATH, ("a", "b")),
            (HierarchyMetadata.DEPTH, 1),
        ]
