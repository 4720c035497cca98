"""The session's walks, one record each, and a pick in progress, driven headless."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core import NavigatorChose
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.navigators.forcing import ForcingNavigator
from explorer.navigators.manual import DecisionDesk, PendingDecision
from explorer.walk_settings import WalkSettings
from explorer.walks.history import WalkHistory
from explorer.walks.picking import Pick
from explorer.walks.session import WalkSession, Wiring, fork, rewalk
from explorer.walks.walk_list import Walk, WalkList
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
DEPTH_LIMIT = f"script:{ROOT / 'sample_corpora' / 'scripts' / 'depth-limit.yaml'}"


def live_walk(model: str = DEPTH_LIMIT, query: str = "refunds", wiring: Wiring | None = None) -> Walk:
    navigator = (wiring or Wiring()).wire(resolve_navigator(model))
    session = WalkSession(HANDBOOK, WalkSettings(query, model), navigator)
    return Walk(session.history, session)


def test_walks_are_numbered_in_order_and_found_by_number_history_and_worker_id():
    walks = WalkList()
    first, second = walks.add(live_walk()), walks.add(live_walk())
    assert (first.number, second.number, walks.next_number) == (1, 2, 3)
    assert first.name.startswith("walk 1 · ") and second.name.startswith("walk 2 · ")
    assert walks.number(2) is second and walks.holding(first.history) is first
    assert walks.by_id(second.session.id) is second and first.id != second.id
    assert walks.by_token(first.session.token) is first
    with pytest.raises(IndexError, match="no walk 3: there are 2"):
        walks.number(3)
    assert walks.holding(WalkHistory(WalkSettings("elsewhere"))) is None


def test_a_walk_is_live_until_it_ends_then_keeps_no_session_and_no_pick():
    walks = WalkList()
    walk = walks.add(live_walk())
    session = walk.session
    assert walk.live and walks.live() == [walk]
    session.run_headless()
    assert walk.history.end is WalkEnd.FINISHED and not walk.live  # ended: no step left to take
    assert walk.retire() is session
    assert (walk.session, walk.pick, walk.id, walks.live()) == (None, None, None, [])
    assert walks.by_id(session.id) is None  # a late message from its worker finds no walk


def test_a_walk_holds_its_settings_and_navigator_once_and_keeps_the_navigator_once_it_ended():
    navigator = resolve_navigator(DEPTH_LIMIT)
    history = WalkHistory(WalkSettings("refunds", DEPTH_LIMIT, max_nodes_visited=4))
    session = WalkSession(HANDBOOK, history, navigator)
    walk = Walk(history, session)
    assert session.history is history and session.settings is history.settings  # read from the history
    assert walk.navigator is navigator and session.walked_with is navigator
    session.run_headless()
    assert walk.retire() is session and walk.session is None and walk.retire() is None
    assert walk.navigator is navigator  # what a fork of the ended walk goes on with


def test_a_forks_walk_goes_on_with_the_navigator_it_wraps_and_a_replaying_re_walk_with_none():
    source = live_walk()
    source.session.run_headless()
    billing = next(d for d in source.history.decisions() if d.node == "billing")
    navigator = resolve_navigator(DEPTH_LIMIT)
    forked = fork(source.history, billing.offer_seq, ("invoices",), HANDBOOK, navigator)
    assert isinstance(forked.navigator, ForcingNavigator) and Walk(forked.history, forked).navigator is navigator
    again = rewalk(source.history, HANDBOOK, max_nodes_visited=2)
    assert again.settings.max_nodes_visited == 2 and again.settings is again.history.settings
    assert Walk(again.history, again).navigator is None  # it asks no navigator: its record, or stop


def test_a_walk_refuses_a_session_that_writes_into_another_history():
    session = live_walk().session
    with pytest.raises(ValueError, match="a walk's session must write into the walk's own history"):
        Walk(WalkHistory(WalkSettings("refunds")), session)


def test_each_walk_keeps_its_own_cursor():
    walks = WalkList()
    first, second = walks.add(live_walk()), walks.add(live_walk())
    for walk in (first, second):
        walk.session.run_headless()
    second.history.go(2)
    first.history.go(4)
    assert (walks.number(1).history.cursor, walks.number(2).history.cursor) == (4, 2)


def test_a_fork_pick_starts_from_what_was_answered_and_toggles_by_number():
    walk = live_walk()
    walk.session.run_headless()
    billing = next(d for d in walk.history.decisions() if d.node == "billing")
    pick = Pick.for_fork(billing)
    assert pick.forking and pick.picked == ("refunds",)  # the original answer, ticked
    ids = [c.id for c in pick.candidates]
    toggled = pick.toggled(ids.index("refunds") + 1).toggled(1)
    assert toggled.picked == ("invoices",) and pick.picked == ("refunds",)  # every key gives a new pick
    assert toggled.pressed == (f"unpicked {ids.index('refunds') + 1}", "picked 1")
    assert toggled.toggled(0) is toggled and toggled.toggled(len(ids) + 1) is toggled  # out of range: unchanged


def test_a_typed_value_is_an_id_even_never_offered_or_a_candidates_number():
    walk = live_walk()
    walk.session.run_headless()
    start = next(walk.history.decisions())
    pick = Pick(start.offer.candidates, decision=start)
    assert pick.typed("ghost").picked == ("ghost",)
    assert pick.typed("ghost").typed("ghost").picked == ()  # typed again: taken back
    assert pick.typed("ghost").typed("ghost").pressed == ("typed ghost", "untyped ghost")
    assert pick.typed("3").picked == (start.offer.candidates[2].id,)  # a number picks that candidate
    assert pick.typed("99").picked == ("99",)  # a number past the offer is an id


def test_a_manual_pick_answers_its_request_with_what_was_pressed():
    requests: list[PendingDecision] = []
    desk = DecisionDesk()
    desk.attach(requests.append)
    try:
        walk = live_walk("manual:", wiring=Wiring(desk))
        walk.session.run_to_end()
        worker = threading.Thread(target=walk.session.run_headless, daemon=True)
        worker.start()
        for _ in range(3000):
            if requests:
                break
            worker.join(0.01)
        pick = Pick.for_request(requests[0])
        assert not pick.forking and pick.picked == ()
        pick.toggled(3).answer(("billing",), "picked by hand")
        for _ in range(3000):
            if len(requests) == 2:  # billing's children are asked about: the first answer is recorded
                break
            worker.join(0.01)
        walk.session.cancel()
        worker.join(30)
    finally:
        desk.detach(requests.append)
    chose = next(e for e in walk.history.events if isinstance(e, NavigatorChose))
    assert chose.selected == ("billing",) and chose.rationale == "picked by hand"
    assert chose.transcript == (("person", "picked 3; answered"), ("answer", "billing"))


def test_a_walk_records_its_workers_events_in_order_and_drops_a_stale_one():
    source = live_walk()
    source.session.run_headless()
    events = source.history.events
    assert len(events) >= 4
    walk = Walk(WalkHistory(source.history.settings))
    assert walk.record(1, events[0], forced=False)
    assert not walk.record(3, events[2], forced=False)  # overtaken: not the next one
    assert not walk.record(1, events[0], forced=False)  # already in
    assert walk.record(2, events[1], forced=True)
    assert (walk.history.events, walk.history.forced, walk.history.cursor) == (events[:2], {2}, 2)


def test_a_pinned_cursor_stays_where_it_is_while_an_event_arrives():
    source = live_walk()
    source.session.run_headless()
    events = source.history.events
    walk = Walk(WalkHistory(source.history.settings))
    walk.record(1, events[0], forced=False)
    walk.record(2, events[1], forced=False)
    assert walk.record(3, events[2], forced=False, pinned=True) and walk.history.cursor == 2
    assert walk.record(4, events[3], forced=False) and walk.history.cursor == 2  # not at the latest: not followed
    walk.history.latest()
    assert walk.record(5, events[4], forced=False) and walk.history.cursor == 5  # at the latest: followed


def test_a_walk_cancelled_ends_at_its_latest_event_and_records_nothing_after():
    source = live_walk()
    source.session.run_headless()
    walk = live_walk()
    walk.record(1, source.history.events[0], forced=False)
    walk.record(2, source.history.events[1], forced=False)
    walk.history.go(1)
    session = walk.session
    assert walk.cancel()
    assert session.token.cancelled and (walk.session, walk.live) == (None, False)
    assert (walk.history.end, walk.history.cursor) == (WalkEnd.CANCELLED, 2)
    assert not walk.record(3, source.history.events[2], forced=False)  # its worker's late word
    assert not walk.cancel()  # cancelled once; the second time there is nothing running
    walk.end(WalkEnd.FINISHED)
    assert walk.history.end is WalkEnd.CANCELLED  # the first end said wins


def test_a_walk_ended_by_its_worker_says_how_and_drops_its_session():
    walk = live_walk()
    walk.end(WalkEnd.FAILED, "the navigator broke")
    assert (walk.history.end, walk.history.error, walk.session, walk.live) == (
        WalkEnd.FAILED, "the navigator broke", None, False)
