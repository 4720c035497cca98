"""The walk, rule by rule (SPEC.md, "The walk")."""

from __future__ import annotations

import pytest

from core import (
    CandidatesOffered,
    HierarchyMetadata,
    NavigatorChoice,
    NavigatorChose,
    NodeEntered,
    NodePath,
    OnFailure,
    PathStopped,
    RAGContext,
    ReasoningRAGStrategy,
    RetrievalConfigError,
    StopReason,
    StopRecord,
    WalkFinished,
    WalkStarted,
    drain,
)

from .trees import AllChildren, Recorder, chain, documents, ids, index, leaf, reasons

HANDBOOK = [
    (
        "billing",
        [
            leaf("invoices"),
            ("refunds", [leaf("refund-eligibility"), leaf("refund-timing")]),
            leaf("payment-methods"),
        ],
    ),
    ("accounts", [leaf("sign-in"), leaf("closing")]),
    leaf("support"),
]


def strategy(navigator, spec=HANDBOOK, **kwargs) -> ReasoningRAGStrategy:
    return ReasoningRAGStrategy(index(spec), navigator, "test:model", **kwargs)


def stops(result) -> list[tuple[str, tuple[str, ...], str | None, str | None]]:
    return [(s.reason.value, tuple(s.path), s.branch, s.landed) for s in result.stops]


# 1. The first offer -------------------------------------------------------------------------------


def test_first_offer_is_the_roots_with_no_current_node_and_the_whole_budget():
    nav = Recorder()
    strategy(nav, max_nodes_visited=7).retrieve("q")
    assert nav.offered == [(None, ("billing", "accounts", "support"), 7)]
    assert nav.requests[0].query == "q"
    assert nav.requests[0].model == "test:model"


def test_sources_filter_the_roots_offered():
    docs = documents([leaf("a1"), leaf("a2")], source="a") + documents([leaf("b1")], source="b")
    from core import HierarchyIndex

    nav = Recorder({"start": ["b1"]})
    result = ReasoningRAGStrategy(HierarchyIndex(docs), nav, "m", sources=["b"]).retrieve("q")
    assert nav.offered == [(None, ("b1",), 15)]
    assert ids(result) == ["b1"]


def test_a_single_source_name_is_one_source_not_letters():
    docs = documents([leaf("a1")], source="ab") + documents([leaf("b1")], source="b")
    from core import HierarchyIndex

    nav = Recorder()
    ReasoningRAGStrategy(HierarchyIndex(docs), nav, "m", sources="ab").retrieve("q")
    assert nav.offered == [(None, ("a1",), 15)]


def test_a_source_with_no_hierarchy_is_a_config_error_before_any_walk():
    nav = Recorder()
    with pytest.raises(RetrievalConfigError, match="'missing'"):
        strategy(nav, sources=["s", "missing"])
    assert nav.requests == []


def test_no_roots_ends_the_walk_empty_without_calling_the_navigator():
    from core import HierarchyIndex

    nav = Recorder()
    s = ReasoningRAGStrategy(HierarchyIndex([]), nav, "m")
    events = list(s.walk("q"))
    assert [type(e) for e in events] == [WalkStarted, WalkFinished]
    result = events[-1].result
    assert (result.documents, result.stops, result.visits_used, result.navigator_calls) == ((), (), 0, 0)
    assert s.retrieve("q") == []
    assert nav.requests == []


# 2. Checking, de-duplicating and ordering branches ------------------------------------------------


def test_duplicate_ids_are_dropped_keeping_the_first():
    nav = Recorder({"start": ["support", "accounts", "support"], "accounts": ["closing", "closing"]})
    walk = list(strategy(nav).walk("q"))
    chose = [e for e in walk if isinstance(e, NavigatorChose)]
    assert chose[0].selected == ("support", "accounts")
    assert chose[1].selected == ("closing",)
    result = walk[-1].result
    assert ids(result.documents) == ["support", "closing"]
    assert result.visits_used == 3


def test_branches_are_taken_depth_first_in_the_navigators_order():
    nav = AllChildren()
    result = drain(strategy(nav, max_nodes_visited=100).walk("q"))
    entered = [tuple(s.path) for s in result.stops]
    assert entered == [
        ("billing", "invoices"),
        ("billing", "refunds", "refund-eligibility"),
        ("billing", "refunds", "refund-timing"),
        ("billing", "payment-methods"),
        ("accounts", "sign-in"),
        ("accounts", "closing"),
        ("support",),
    ]
    assert nav.offered == [
        (None, ("billing", "accounts", "support"), 100),
        ("billing", ("invoices", "refunds", "payment-methods"), 99),
        ("refunds", ("refund-eligibility", "refund-timing"), 97),
        ("accounts", ("sign-in", "closing"), 93),
    ]
    assert result.visits_used == 10
    assert result.navigator_calls == 4


def test_reverse_preference_order_is_followed():
    nav = Recorder({"start": ["support", "billing"], "billing": ["payment-methods", "invoices"]})
    result = strategy(nav).retrieve("q")
    assert ids(result) == ["support", "payment-methods", "invoices"]


# 3. Budget before entering ------------------------------------------------------------------------


def test_entering_costs_one_visit_and_each_offer_sees_what_is_left():
    nav = Recorder({"start": ["billing"], "billing": ["refunds"], "refunds": ["refund-timing"]})
    result = drain(strategy(nav, max_nodes_visited=5).walk("q"))
    assert [r for *_, r in nav.offered] == [5, 4, 3]
    assert result.visits_used == 3
    assert ids(result.documents) == ["refund-timing"]


def test_no_visit_left_before_entering_lands_the_parent_with_budget_exhausted():
    nav = Recorder({"start": ["billing"], "billing": ["invoices", "payment-methods", "refunds"]})
    result = drain(strategy(nav, max_nodes_visited=2).walk("q"))
    assert stops(result) == [
        ("leaf", ("billing", "invoices"), None, "invoices"),
        ("visit_budget_exhausted", ("billing",), "payment-methods", "billing"),
        ("visit_budget_exhausted", ("billing",), "refunds", None),  # billing had landed already
    ]
    assert ids(result.documents) == ["invoices", "billing"]
    assert reasons(result.documents) == ["leaf", "visit_budget_exhausted"]
    assert result.visits_used == 2


def test_a_root_branch_that_cannot_be_entered_lands_nothing():
    nav = Recorder({"start": ["support", "accounts"]})
    result = drain(strategy(nav, max_nodes_visited=1).walk("q"))
    assert stops(result) == [
        ("leaf", ("support",), None, "support"),
        ("visit_budget_exhausted", (), "accounts", None),
    ]
    assert ids(result.documents) == ["support"]


# 4. After entering: leaf, depth limit, budget -----------------------------------------------------


def test_an_entered_node_without_children_lands_as_a_leaf_without_a_navigator_call():
    nav = Recorder({"start": ["support"]})
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [("leaf", ("support",), None, "support")]
    assert result.navigator_calls == 1


def test_a_node_at_the_depth_limit_with_children_lands_with_max_depth():
    nav = AllChildren()
    result = drain(strategy(nav, max_depth=1).walk("q"))
    assert ("max_depth", ("billing", "refunds"), None, "refunds") in stops(result)
    assert all(current != "refunds" for current, _, _ in nav.offered)
    assert max(len(s.path) for s in result.stops) == 2  # depth 1 is the deepest entered


def test_a_leaf_at_the_depth_limit_lands_as_a_leaf():
    nav = AllChildren()
    result = drain(strategy(nav, max_depth=1).walk("q"))
    assert ("leaf", ("billing", "invoices"), None, "invoices") in stops(result)


def test_max_depth_zero_lands_roots_that_have_children_without_offering_them():
    nav = Recorder({"start": ["billing", "support"]})
    result = drain(strategy(nav, max_depth=0).walk("q"))
    assert stops(result) == [
        ("max_depth", ("billing",), None, "billing"),
        ("leaf", ("support",), None, "support"),
    ]
    assert len(nav.requests) == 1


def test_an_entered_node_with_children_and_no_visit_left_lands_without_a_call():
    nav = Recorder({"start": ["billing"]})
    result = drain(strategy(nav, max_nodes_visited=1).walk("q"))
    assert stops(result) == [("visit_budget_exhausted", ("billing",), None, "billing")]
    assert result.navigator_calls == 1


def test_remaining_visits_offered_is_never_zero():
    nav = AllChildren()
    for budget in range(1, 12):
        nav.requests.clear()
        strategy(nav, max_nodes_visited=budget).retrieve("q")
        assert all(remaining >= 1 for *_, remaining in nav.offered)


def test_leaf_is_checked_before_depth_and_budget():
    nav = Recorder({"start": ["support"]})
    result = drain(strategy(nav, max_nodes_visited=1, max_depth=0).walk("q"))
    assert stops(result) == [("leaf", ("support",), None, "support")]


def test_depth_is_checked_before_budget():
    nav = Recorder({"start": ["billing"]})
    result = drain(strategy(nav, max_nodes_visited=1, max_depth=0).walk("q"))
    assert stops(result) == [("max_depth", ("billing",), None, "billing")]


# 5. Empty choices and hallucinated branches --------------------------------------------------------


def test_an_empty_choice_lands_the_current_node_as_navigator_stopped():
    nav = Recorder({"start": ["billing"], "billing": []})
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [("navigator_stopped", ("billing",), None, "billing")]
    assert ids(result.documents) == ["billing"]


def test_an_empty_choice_at_the_start_lands_nothing_but_is_recorded():
    nav = Recorder({"start": []})
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [("navigator_stopped", (), None, None)]
    assert result.documents == ()


def test_a_hallucinated_id_lands_the_node_that_offered_it_and_valid_branches_go_on():
    nav = Recorder({"start": ["billing"], "billing": ["ghost", "invoices"]})
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [
        ("invalid_choice", ("billing",), "ghost", "billing"),
        ("leaf", ("billing", "invoices"), None, "invoices"),
    ]
    assert ids(result.documents) == ["billing", "invoices"]
    assert result.documents[0].metadata[HierarchyMetadata.STOP_REASON] == "invalid_choice"


def test_a_real_node_that_was_not_offered_is_a_hallucination_too():
    nav = Recorder({"start": ["billing"], "billing": ["sign-in"]})  # exists, but under accounts
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [("invalid_choice", ("billing",), "sign-in", "billing")]
    assert result.visits_used == 1


def test_a_hallucinated_id_at_the_start_lands_nothing():
    nav = Recorder({"start": ["ghost", "support"]})
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [("invalid_choice", (), "ghost", None), ("leaf", ("support",), None, "support")]
    assert ids(result.documents) == ["support"]


def test_the_choice_event_separates_hallucinated_and_rejected_ids():
    nav = Recorder({"start": NavigatorChoice(("ghost", "accounts"), "because", {"prompt_tokens": 9})})
    chose = next(e for e in strategy(nav).walk("q") if isinstance(e, NavigatorChose))
    assert chose.current is None
    assert chose.selected == ("ghost", "accounts")
    assert chose.hallucinated == ("ghost",)
    assert chose.valid == ("accounts",)
    assert chose.rejected == ("billing", "support")
    assert chose.rationale == "because"
    assert dict(chose.usage) == {"prompt_tokens": 9}
    assert chose.seconds >= 0


# 6. Landing once -------------------------------------------------------------------------------------


def test_a_node_lands_once_with_its_first_reason_and_every_stop_is_kept():
    nav = Recorder({"start": ["billing"], "billing": ["ghost", "other-ghost", "refunds"], "refunds": []})
    result = drain(strategy(nav).walk("q"))
    assert stops(result) == [
        ("invalid_choice", ("billing",), "ghost", "billing"),
        ("invalid_choice", ("billing",), "other-ghost", None),
        ("navigator_stopped", ("billing", "refunds"), None, "refunds"),
    ]
    assert ids(result.documents) == ["billing", "refunds"]
    assert reasons(result.documents) == ["invalid_choice", "navigator_stopped"]


# Landed copies and the context --------------------------------------------------------------------


def test_landed_nodes_are_copies_with_score_reason_path_and_depth():
    idx = index(HANDBOOK)
    nav = Recorder({"start": ["billing"], "billing": ["refunds"], "refunds": ["refund-timing"]})
    [doc] = ReasoningRAGStrategy(idx, nav, "m").retrieve("q")
    assert doc.id == "refund-timing"
    assert doc.content == "content of refund-timing"
    assert doc.score == ReasoningRAGStrategy.SELECTED_SCORE == 1.0
    assert doc.metadata[HierarchyMetadata.STOP_REASON] == "leaf"
    assert doc.metadata[HierarchyMetadata.PATH] == ("billing", "refunds", "refund-timing")
    assert type(doc.metadata[HierarchyMetadata.PATH]) is tuple
    assert doc.metadata[HierarchyMetadata.DEPTH] == 2
    assert doc.metadata["reasoningTitle"] == "Title refund-timing"
    original = idx["refund-timing"]
    assert original.score == 0.0
    assert HierarchyMetadata.STOP_REASON not in original.metadata


def test_results_come_in_landing_order():
    nav = Recorder({"start": ["support", "billing"], "billing": ["payment-methods", "refunds"], "refunds": []})
    assert ids(strategy(nav).retrieve("q")) == ["support", "payment-methods", "refunds"]


def test_context_keeps_the_first_max_results():
    nav = AllChildren()
    s = strategy(nav, max_nodes_visited=100)
    assert ids(s.retrieve("q")) == ["invoices", "refund-eligibility", "refund-timing", "payment-methods", "sign-in"]
    assert ids(s.retrieve("q", RAGContext(max_results=2))) == ["invoices", "refund-eligibility"]
    assert s.retrieve("q", RAGContext(max_results=0)) == []


def test_context_filters_on_metadata_equality_and_min_score():
    nav = Recorder({"start": ["billing", "support"], "billing": ["ghost", "invoices"]})
    s = strategy(nav)
    leaves = s.retrieve("q", RAGContext(metadata_filters={HierarchyMetadata.STOP_REASON: "leaf"}))
    assert ids(leaves) == ["invoices", "support"]
    depth0 = s.retrieve("q", RAGContext(metadata_filters={HierarchyMetadata.DEPTH: 0}))
    assert ids(depth0) == ["billing", "support"]
    assert s.retrieve("q", RAGContext(metadata_filters={"absent-key": None})) == []
    assert ids(s.retrieve("q", RAGContext(min_score=1.0))) == ["billing", "invoices", "support"]
    assert s.retrieve("q", RAGContext(min_score=1.01)) == []


def test_context_rejects_a_negative_max_results():
    with pytest.raises(ValueError, match="max_results"):
        RAGContext(max_results=-1)


# Construction ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"max_nodes_visited": 0}, "max_nodes_visited must be at least 1"),
    ({"max_depth": -1}, "max_depth must be at least 0"),
])
def test_bounds_out_of_range_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=message):
        strategy(Recorder(), **kwargs)


def test_defaults_are_fifteen_visits_depth_six_and_throw():
    s = strategy(Recorder())
    assert (s.max_nodes_visited, s.max_depth, s.on_failure) == (15, 6, OnFailure.THROW)


@pytest.mark.parametrize("model", ["", "   ", "\t"])
def test_a_blank_model_is_a_value_error(model):
    with pytest.raises(ValueError, match="blank"):
        ReasoningRAGStrategy(index(HANDBOOK), Recorder(), model, on_failure=OnFailure.EMPTY)


def test_node_view_title_defaults_to_the_id_and_summary_to_empty():
    from core import HierarchyIndex, RetrievedDocument

    idx = HierarchyIndex([RetrievedDocument("secret content", "bare", 0.0, {})])
    nav = Recorder()
    ReasoningRAGStrategy(idx, nav, "m").retrieve("q")
    view = nav.requests[0].candidates[0]
    assert (view.id, view.title, view.summary) == ("bare", "bare", "")
    assert not hasattr(view, "content")


# Events ---------------------------------------------------------------------------------------------


def test_events_of_a_small_walk_in_order():
    nav = Recorder({"start": ["billing", "ghost"], "billing": ["invoices"]})
    events = list(strategy(nav, max_nodes_visited=4).walk("where are invoices"))
    kinds = [type(e).__name__ for e in events]
    assert kinds == [
        "WalkStarted",
        "CandidatesOffered", "NavigatorChose",
        "NodeEntered",
        "CandidatesOffered", "NavigatorChose",
        "NodeEntered", "PathStopped",
        "PathStopped",
        "WalkFinished",
    ]
    started = events[0]
    assert (started.query, started.model, started.max_nodes_visited, started.max_depth) == (
        "where are invoices", "test:model", 4, 6)
    offer = events[1]
    assert isinstance(offer, CandidatesOffered)
    assert offer.current is None and offer.path == () and offer.depth == 0 and offer.remaining_visits == 4
    assert [c.id for c in offer.candidates] == ["billing", "accounts", "support"]
    # "Title billing"+"About billing" = 13+13, accounts 14+14, support 13+13
    assert offer.chars_shipped == 26 + 28 + 26
    entered = events[3]
    assert isinstance(entered, NodeEntered)
    assert (entered.node.id, entered.path, entered.depth, entered.remaining_visits, entered.visits_used) == (
        "billing", ("billing",), 0, 3, 1)
    second = events[4]
    assert second.current.id == "billing" and second.depth == 1 and second.remaining_visits == 3
    assert second.chars_shipped == 26 + (14 + 14) + (13 + 13) + (21 + 21)  # current + 3 candidates
    assert isinstance(events[7], PathStopped)
    assert events[7].record == StopRecord(StopReason.LEAF, NodePath(("billing", "invoices")), None, "invoices")
    assert events[8].record.reason is StopReason.INVALID_CHOICE and events[8].record.branch == "ghost"
    result = events[-1].result
    assert result.chars_shipped == offer.chars_shipped + second.chars_shipped
    assert (result.visits_used, result.navigator_calls, result.failure) == (2, 2, None)


def test_the_navigator_is_called_only_when_the_choice_is_pulled():
    nav = Recorder({"start": ["support"]})
    events = strategy(nav).walk("q")
    assert isinstance(next(events), WalkStarted)
    assert nav.requests == []
    assert isinstance(next(events), CandidatesOffered)
    assert nav.requests == []
    assert isinstance(next(events), NavigatorChose)
    assert len(nav.requests) == 1


def test_walk_and_retrieve_agree():
    nav = AllChildren()
    s = strategy(nav, max_nodes_visited=6)
    assert s.retrieve("q", RAGContext(max_results=100)) == list(drain(s.walk("q")).documents)


# 7. Depth -------------------------------------------------------------------------------------------


def test_a_twenty_thousand_deep_walk_runs_without_recursion_and_shares_paths():
    depth = 20_000
    nav = Recorder(default=lambda request: [request.candidates[0].id])
    s = ReasoningRAGStrategy(chain("n", depth), nav, "m", max_nodes_visited=depth, max_depth=depth)
    previous = None
    for event in s.walk("q"):
        if isinstance(event, NodeEntered):
            if previous is not None:
                assert event.path.parent is previous  # the parent's path object, not a copy
            previous = event.path
        if isinstance(event, WalkFinished):
            result = event.result
    assert ids(result.documents) == [f"n{depth - 1}"]
    assert result.documents[0].metadata[HierarchyMetadata.DEPTH] == depth - 1
    assert len(result.documents[0].metadata[HierarchyMetadata.PATH]) == depth
    assert result.visits_used == depth
