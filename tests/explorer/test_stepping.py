"""Stepping through a walk (issue 19's rough edges 1, 2, 3 and 10, their UI-free half): names that tell walks
apart, where a budget stop is, a forced decision's headline, where the budget ran out, a pick capped by the visits
left, and a walk re-walked with another budget from its record, with no navigator call."""

from __future__ import annotations

import json

from core import NavigatorChoice, NavigatorRequest, PathStopped, TreeNavigator
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.describe import capped_note, event_summary
from explorer.walks.history import Origin, WalkHistory, label_for, short_query
from explorer.walks.session import WalkSession, fork, rewalk, save_history
from explorer.walks.state import Mark
from explorer.walks.walk_list import Walk, WalkList
from tests.command_line import run_cli as run

from .test_history import HANDBOOK, SCRIPTS

WIDE = f"script:{SCRIPTS / 'wide-walk-out-of-visits.yaml'}"


def walked(model: str = WIDE, query: str = "everything about money", **settings) -> WalkHistory:
    session = WalkSession(HANDBOOK, WalkSettings(query, model, **settings), resolve_navigator(model))
    session.run_headless()
    return session.history


def test_walks_on_different_queries_get_different_names_with_what_differs():
    walks = WalkList()
    first = walks.add(Walk(WalkHistory(WalkSettings("How are refunds issued?", "semantic:hybrid"))))
    second = walks.add(Walk(WalkHistory(WalkSettings("How long do refunds take to arrive in my bank account?",
                                                     "semantic:hybrid"))))
    third = walks.add(Walk(WalkHistory(WalkSettings("How long do refunds take to arrive in my bank account?",
                                                    "semantic:hybrid", max_nodes_visited=8), Origin.RESTART)))
    assert first.name == "walk 1 · “How are refunds issued?” · semantic:hybrid · budget 15"
    assert second.name == "walk 2 · “How long do refunds take to arr…” · semantic:hybrid"
    assert third.name == "walk 3 · restart · “How long do refunds take to arr…” · semantic:hybrid · budget 8"
    assert len({first.name, second.name, third.name}) == 3
    assert short_query("a\nb\x1b[31m") == "“a b\\x1b[31m”"  # on one line, nothing raw reaches a terminal
    before = WalkSettings("q", max_depth=6)
    assert label_for(WalkSettings("q", max_depth=2), before) == "“q” · lexical:default · depth limit 2"


def test_a_name_given_by_its_maker_is_kept():
    walks = WalkList()
    walks.add(Walk(WalkHistory(WalkSettings("q"))))
    named = walks.add(Walk(WalkHistory(WalkSettings("other"), label="question money-back · lexical:default")))
    assert named.name == "walk 2 · question money-back · lexical:default"


def test_at_a_budget_stop_the_step_is_at_the_branch_it_could_not_enter():
    history = walked()
    stop_seq = next(seq for seq, e in enumerate(history.events, start=1)
                    if isinstance(e, PathStopped) and e.record.branch == "accounts")
    history.go(stop_seq - 1)
    assert history.state().current == "billing"  # the node entered last, in another branch
    history.go(stop_seq)
    state = history.state()
    assert (state.current, state.current_path) == ("accounts", ("accounts",))
    assert state.mark_of("accounts") is Mark.CURRENT and state.mark_of("billing") is not Mark.CURRENT
    assert event_summary(history.events[stop_seq - 1]).plain == "visit_budget_exhausted at accounts"


def test_a_stop_with_no_visit_left_to_go_deeper_is_at_its_node():
    history = walked()
    stop_seq = history.budget_ran_out_at()
    stop = history.events[stop_seq - 1]
    assert isinstance(stop, PathStopped) and stop.record.node == "billing" and stop.record.branch is None
    history.go(stop_seq)
    assert history.state().current_path == ("billing",)


def test_the_step_where_the_budget_ran_out():
    history = walked()
    step = history.budget_ran_out_at()
    assert step is not None
    stop = history.events[step - 1]
    assert stop.record.reason.value == "visit_budget_exhausted"
    assert not any(isinstance(e, PathStopped) and e.record.reason.value == "visit_budget_exhausted"
                   for e in history.events[: step - 1])
    assert walked(max_nodes_visited=100).budget_ran_out_at() is None


def test_a_forced_decisions_headline_says_forced_not_navigator_chose():
    original = walked(f"script:{SCRIPTS / 'depth-limit.yaml'}", "annual refund formula")
    billing = next(d for d in original.decisions() if d.node == "billing")
    session = fork(original, billing.offer_seq, ("invoices",), HANDBOOK, resolve_navigator(original.settings.model))
    session.run_headless()
    forced = session.history.events[billing.offer_seq]
    assert event_summary(forced).plain == "forced by a person: invoices"
    replayed = session.history.events[2]  # the roots' answer, replayed from the original
    assert event_summary(replayed).plain == "navigator chose billing · replayed"
    live = original.events[billing.offer_seq]
    assert event_summary(live).plain == "navigator chose refunds"
    # A trace written before forced answers were marked in their transcript: the flag says it.
    assert event_summary(live, forced=True).plain == "forced by a person: refunds"


def test_a_pick_capped_by_the_visits_left_is_told_from_the_offer_and_the_choice():
    capped = next(walked("semantic:wide", "refunds", max_nodes_visited=2).decisions())
    assert capped.offer.remaining_visits == 2 and capped.answer.valid == ("billing", "offboarding")
    assert capped.capped_by_visits
    assert capped_note(capped) == "capped by the visits left: 2 visits left, 9 candidates offered"
    free = next(walked("semantic:wide", "refunds").decisions())
    assert len(free.answer.valid) == 3 and not free.capped_by_visits and capped_note(free) == ""
    greedy = next(walked(max_nodes_visited=2).decisions())  # the script takes 3 roots with 2 visits left
    assert greedy.capped_by_visits and len(greedy.answer.valid) == 3


class Refusing(TreeNavigator):
    """A navigator that must never be asked."""

    def supports(self, model: str) -> bool:
        return True

    def choose(self, request: NavigatorRequest) -> NavigatorChoice:
        raise AssertionError("a re-walk called the navigator")


def test_re_walking_with_another_budget_replays_the_record_with_no_navigator_call(tmp_path):
    original = walked()
    session = rewalk(original, HANDBOOK, max_nodes_visited=8)
    session.run_headless()
    new = session.history
    assert new.origin is Origin.REWALK and new.parent is original
    assert new.name == "walk 2 · walk 1 re-walked with budget 8"
    assert original.settings.max_nodes_visited == 15  # the original is untouched
    state = new.state()
    assert (state.live_calls, state.replayed_answers, state.chars_shipped) == (0, state.answers, 0)
    # The same as ``replay --max-visits 8`` of the walk's trace.
    trace = tmp_path / "walk.trace.jsonl"
    save_history(original, HANDBOOK, trace)
    replayed = json.loads(run("replay", trace, "--max-visits", "8", "--json").stdout)
    assert list(state.landed) == replayed["summary"]["landed"]
    assert new.budget_ran_out_at() is not None


def test_re_walking_with_more_visits_stops_where_the_record_ends_unless_a_navigator_is_given():
    original = walked()
    more = rewalk(original, HANDBOOK, max_nodes_visited=40)
    more.run_headless()
    billing = next(d for d in more.history.decisions() if d.node == "billing")  # never judged in walk 1
    assert billing.answer.selected == ()
    assert billing.answer.rationale == "walk 1 never judged 'billing'; stopping here"
    asked = rewalk(original, HANDBOOK, max_nodes_visited=40, navigator=resolve_navigator(WIDE))
    asked.run_headless()
    billing = next(d for d in asked.history.decisions() if d.node == "billing")
    assert billing.answer.selected == ("invoices", "payment-methods", "failed-payments", "taxes", "refunds",
                                       "account-credits")
    # With fewer visits every node reached was judged in walk 1: the navigator given is never asked.
    fewer = rewalk(original, HANDBOOK, max_nodes_visited=8, navigator=Refusing())
    fewer.run_headless()
    assert fewer.history.end == "finished" and fewer.history.state().live_calls == 0


def test_characters_shipped_never_flicker_as_a_walk_is_stepped():
    """Characters shipped rose at each offer and fell back at a replayed answer (1,003 → 0 → 580 → 0, issue 45, tried
    as three kinds of user, point 7): they count once the answer says a call sent them. Stepped through, a replayed
    walk ships none at any step, and a live walk's figure only grows, to the total core says it shipped."""
    original = walked()
    session = rewalk(original, HANDBOOK, max_nodes_visited=8)
    session.run_headless()
    replayed = session.history
    shipped = []
    for step in range(1, len(replayed.events) + 1):
        replayed.go(step)
        shipped.append(replayed.state().chars_shipped)
    assert set(shipped) == {0}
    live = []
    for step in range(1, len(original.events) + 1):
        original.go(step)
        live.append(original.state().chars_shipped)
    assert live == sorted(live) and live[-1] == original.state().result.chars_shipped > 0


def test_a_best_first_walk_draining_its_frontier_lists_no_branch_that_stopped():
    """At step 15, Next still listed a node that stopped at step 13 (issue 45, tried as three kinds of user, point
    6): a best-first walk out of visits stops each branch still waiting, and says no frontier with those stops."""
    from core import PathStopped, Policy, StopReason

    history = walked("lexical:default", "How long do refunds take to arrive?", max_nodes_visited=4,
                     policy=Policy.BEST_FIRST)
    drained = [seq for seq, event in enumerate(history.events, start=1) if isinstance(event, PathStopped)
               and event.record.reason is StopReason.VISIT_BUDGET_EXHAUSTED]
    assert len(drained) == 2
    waiting = []
    for seq in drained:
        history.go(seq)
        waiting.append([node for node, _ in history.state().frontier.all()])
    assert waiting == [["satisfaction-guarantee"], []]
