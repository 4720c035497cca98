"""Views and offers kept on the index, and the walk's fast-built events (issue 12).

Views and offers are built once per node per index and shared by every
strategy and walk over it; these tests pin down that sharing never changes
what a walk does or shows, and that the events the walk builds without the
frozen guard are the same frozen objects the public constructors make.
"""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Iterable
from typing import Any

import pytest

from core import (
    CancellationToken,
    HierarchyIndex,
    HierarchyMetadata,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    NodeEntered,
    NodeView,
    OnFailure,
    ReasoningRAGStrategy,
    RetrievalError,
    RetrievedDocument,
    WalkEvent,
    WalkFinished,
    drain,
)
from core.frozen import fast_constructor
from core.views import NodeViews

from .trees import AllChildren, Recorder, documents, ids, leaf

HANDBOOK = [
    ("billing", [leaf("invoices"), ("refunds", [leaf("refund-eligibility"), leaf("refund-timing")])]),
    ("accounts", [leaf("sign-in"), leaf("closing")]),
    leaf("support"),
]

# A walk that goes everywhere: every kind of event but the failures, several landings.
DECISIONS: dict[str, Any] = {
    "start": ["billing", "ghost", "accounts", "support", "billing"],
    "billing": ["refunds", "invoices"],
    "refunds": [],
    "accounts": ["closing"],
}


def timeless(events: Iterable[WalkEvent]) -> list[WalkEvent]:
    """The events with the navigator's measured time zeroed (the one field that differs between runs)."""
    return [
        dataclasses.replace(e, seconds=0.0) if isinstance(e, NavigatorChose | NavigatorFailed) else e
        for e in events
    ]


def walk_events(strategy: ReasoningRAGStrategy, query: str = "q") -> list[WalkEvent]:
    return timeless(strategy.walk(query))


@pytest.fixture
def handbook() -> HierarchyIndex:
    return HierarchyIndex(documents(HANDBOOK))


# The cache: shared, and never changing a walk ---------------------------------------------------------


def test_a_second_walk_on_the_same_strategy_gives_the_same_events(handbook):
    strategy = ReasoningRAGStrategy(handbook, Recorder(DECISIONS), "m", max_nodes_visited=6)
    first = walk_events(strategy)
    second = walk_events(strategy)
    assert second == first
    kinds = {type(e).__name__ for e in first}
    assert kinds == {"WalkStarted", "CandidatesOffered", "NavigatorChose", "NodeEntered", "PathStopped",
                     "WalkFinished"}
    assert ids(first[-1].result.documents) == ["refunds", "invoices", "closing", "support"]


def test_two_strategies_on_the_same_index_give_equal_events_from_shared_views(handbook):
    one = ReasoningRAGStrategy(handbook, Recorder(DECISIONS), "m", max_nodes_visited=6)
    other = ReasoningRAGStrategy(handbook, Recorder(DECISIONS), "m", max_nodes_visited=6)
    first, second = walk_events(one), walk_events(other)
    assert second == first
    assert one.node_views() is other.node_views()
    entered = [(a.node, b.node) for a, b in zip(first, second, strict=True) if isinstance(a, NodeEntered)]
    assert entered and all(a is b for a, b in entered)  # one view per node, built once


def test_the_walk_on_a_warm_index_equals_the_walk_on_a_fresh_one():
    warm = HierarchyIndex(documents(HANDBOOK))
    for _ in range(2):
        ReasoningRAGStrategy(warm, AllChildren(), "m", max_nodes_visited=100).retrieve("q")
    fresh = HierarchyIndex(documents(HANDBOOK))
    assert walk_events(ReasoningRAGStrategy(warm, Recorder(DECISIONS), "m")) == walk_events(
        ReasoningRAGStrategy(fresh, Recorder(DECISIONS), "m")
    )


def titled_twice() -> HierarchyIndex:
    docs = []
    for doc in documents(HANDBOOK):
        metadata = dict(doc.metadata)
        metadata["heading"] = f"Heading {doc.id}"
        metadata["blurb"] = f"Blurb {doc.id}!"
        docs.append(RetrievedDocument(doc.content, doc.id, doc.score, metadata))
    return HierarchyIndex(docs)


class ByHeading(ReasoningRAGStrategy):
    NODE_TITLE_METADATA = "heading"


class ByBlurb(ReasoningRAGStrategy):
    NODE_SUMMARY_METADATA = "blurb"


@pytest.mark.parametrize("base_first", [True, False])
def test_other_title_or_summary_keys_are_not_served_from_the_cache_of_the_default_keys(base_first):
    idx = titled_twice()
    nav = Recorder({"start": ["billing"], "billing": ["invoices"]})
    walks: dict[type[ReasoningRAGStrategy], list[WalkEvent]] = {}
    order = [ReasoningRAGStrategy, ByHeading, ByBlurb]
    for cls in order if base_first else order[::-1]:
        walks[cls] = walk_events(cls(idx, nav, "m"))

    def offered(events: list[WalkEvent]) -> list[tuple[str, str]]:
        return [(c.title, c.summary) for c in events[1].candidates]

    assert offered(walks[ReasoningRAGStrategy])[0] == ("Title billing", "About billing")
    assert offered(walks[ByHeading])[0] == ("Heading billing", "About billing")
    assert offered(walks[ByBlurb])[0] == ("Title billing", "Blurb billing!")
    entered = [e.node for e in walks[ByHeading] if isinstance(e, NodeEntered)]
    assert [(v.id, v.title) for v in entered] == [("billing", "Heading billing"), ("invoices", "Heading invoices")]
    # chars shipped follow the keys too: "Heading billing" is two characters longer than "Title billing"
    assert walks[ByHeading][1].chars_shipped == walks[ReasoningRAGStrategy][1].chars_shipped + 3 * 2
    assert walks[ByBlurb][1].chars_shipped == walks[ReasoningRAGStrategy][1].chars_shipped + 3 * 1
    assert ByHeading(idx, nav, "m").node_views() is not ReasoningRAGStrategy(idx, nav, "m").node_views()
    assert idx.node_views("heading", "reasoningSummary") is ByHeading(idx, nav, "m").node_views()


def test_a_source_filter_gets_its_own_root_offer(handbook):
    docs = documents([leaf("a1"), leaf("a2")], source="a") + documents([leaf("b1")], source="b")
    idx = HierarchyIndex(docs)
    every = Recorder()
    only_b = Recorder()
    ReasoningRAGStrategy(idx, every, "m").retrieve("q")
    ReasoningRAGStrategy(idx, only_b, "m", sources="b").retrieve("q")
    ReasoningRAGStrategy(idx, every, "m").retrieve("q")
    assert every.offered == [(None, ("a1", "a2", "b1"), 15)] * 2
    assert only_b.offered == [(None, ("b1",), 15)]


# NodeViews itself -------------------------------------------------------------------------------------


def test_node_views_shows_titles_summaries_and_defaults(handbook):
    bare = HierarchyIndex([RetrievedDocument("c", "x", 0.0, {"reasoningTitle": 7})])
    views = bare.node_views("reasoningTitle", "reasoningSummary")
    assert views.view("x") == NodeView("x", "7", "")
    assert handbook.node_views("nope", "nothing").view("billing") == NodeView("billing", "billing", "")
    assert isinstance(views, NodeViews)


def test_node_views_offers_children_roots_and_refuses_unknown_ids(handbook):
    views = handbook.node_views("reasoningTitle", "reasoningSummary")
    offer = views.children("billing")
    assert offer is not None
    assert offer.ids == ("invoices", "refunds")
    assert offer.offered == frozenset(offer.ids)
    assert offer.current == views.view("billing")
    assert [v.id for v in offer.views] == ["invoices", "refunds"]
    assert offer.chars == sum(len(f"Title {i}") + len(f"About {i}") for i in ("billing", "invoices", "refunds"))
    assert views.children("billing") is offer
    assert views.children("support") is None
    roots = views.roots()
    assert roots is not None and roots.ids == ("billing", "accounts", "support") and roots.current is None
    assert views.roots(("elsewhere",)) is None
    with pytest.raises(KeyError, match="'ghost'"):
        views.view("ghost")
    with pytest.raises(KeyError, match="'ghost'"):
        views.children("ghost")
    assert ReasoningRAGStrategy(handbook, Recorder(), "m").view("refunds") is views.view("refunds")


# Events built by the walk are the frozen objects the public constructors make ---------------------------


def every_event_kind(handbook: HierarchyIndex) -> list[WalkEvent]:
    token = CancellationToken()
    events = list(ReasoningRAGStrategy(handbook, Recorder(DECISIONS), "m", max_nodes_visited=6).walk(
        "q", cancellation=token))
    failing = ReasoningRAGStrategy(handbook, Recorder({"start": ValueError("down")}), "m",
                                   on_failure=OnFailure.PARTIAL)
    return events + list(failing.walk("q"))


def test_walk_events_equal_their_public_construction_and_stay_frozen(handbook):
    events = every_event_kind(handbook)
    assert {type(e).__name__ for e in events} >= {"NavigatorFailed", "NavigatorChose", "NodeEntered"}
    objects: list[Any] = list(events)
    for event in events:
        if isinstance(event, WalkFinished):
            objects.extend([event.result, *event.result.stops, *event.result.documents])
    for obj in objects:
        values = [getattr(obj, f.name) for f in dataclasses.fields(obj)]
        rebuilt = type(obj)(*values)
        assert rebuilt == obj and repr(rebuilt) == repr(obj)
        assert pickle.loads(pickle.dumps(obj)) == obj
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.__setattr__(dataclasses.fields(obj)[0].name, None)
        assert not hasattr(obj, "__dict__")


def test_landed_documents_have_read_only_metadata_and_pickle(handbook):
    [*docs] = drain(ReasoningRAGStrategy(handbook, Recorder(DECISIONS), "m").walk("q")).documents
    assert docs
    for doc in docs:
        with pytest.raises(TypeError):
            doc.metadata[HierarchyMetadata.DEPTH] = 0  # type: ignore[index]
        assert type(doc.metadata[HierarchyMetadata.STOP_REASON]) is str
        assert pickle.loads(pickle.dumps(doc)) == doc
        assert hash(doc) == hash(RetrievedDocument(doc.content, doc.id, doc.score, dict(doc.metadata)))


def test_the_navigator_request_is_the_public_type_with_the_walk_token(handbook):
    nav = Recorder({"start": ["support"]})
    token = CancellationToken()
    ReasoningRAGStrategy(handbook, nav, "m", max_nodes_visited=3).retrieve("q", cancellation=token)
    [request] = nav.requests
    assert type(request) is NavigatorRequest
    assert request.cancellation is token
    assert request == NavigatorRequest("q", "m", None, request.candidates, 3, token)
    with pytest.raises(dataclasses.FrozenInstanceError):
        request.__setattr__("query", "other")


def test_fast_constructor_refuses_what_it_cannot_build():
    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        a: int

    with pytest.raises(TypeError, match="not a slots dataclass"):
        fast_constructor(NoSlots)
    with pytest.raises(TypeError, match="not a slots dataclass"):
        fast_constructor(int)


# The plain-answer shortcut and the rejected ids ------------------------------------------------------


class Tag(str):
    """A str subclass: still an id."""


def test_a_tuple_with_a_non_str_id_is_a_provider_failure_like_a_list(handbook):
    with pytest.raises(RetrievalError, match=r"7 \(int\)"):
        ReasoningRAGStrategy(handbook, Recorder({"start": ("billing", 7)}), "m").retrieve("q")


def test_ids_of_a_str_subclass_are_ids(handbook):
    result = ReasoningRAGStrategy(handbook, Recorder({"start": (Tag("support"),)}), "m").retrieve("q")
    assert ids(result) == ["support"]


@pytest.mark.parametrize(
    ("answer", "selected", "hallucinated", "rejected"),
    [
        (("accounts",), ("accounts",), (), ("billing", "support")),
        (["support"], ("support",), (), ("billing", "accounts")),
        (("billing",), ("billing",), (), ("accounts", "support")),
        (("ghost",), ("ghost",), ("ghost",), ("billing", "accounts", "support")),
        ((), (), (), ("billing", "accounts", "support")),
        (("support", "billing", "support"), ("support", "billing"), (), ("accounts",)),
    ],
)
def test_the_choice_event_splits_every_answer_shape(handbook, answer, selected, hallucinated, rejected):
    events = list(ReasoningRAGStrategy(handbook, Recorder({"start": answer}), "m", max_nodes_visited=1).walk("q"))
    chose = next(e for e in events if isinstance(e, NavigatorChose))
    assert (chose.selected, chose.hallucinated, chose.rejected) == (selected, hallucinated, rejected)
    assert all(type(i) is str for i in chose.rejected)


# The token's probe ---------------------------------------------------------------------------------------


def test_the_token_probe_reads_the_token():
    token = CancellationToken()
    probe = token.probe
    assert probe() is False
    token.cancel()
    assert probe() is True and token.cancelled
    never = CancellationToken.none()
    never.cancel()
    assert never.probe() is False
