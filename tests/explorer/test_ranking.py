"""A walk's answer, ranked: the navigator's order, what put each node there, the best first, the stand-ins last."""

from __future__ import annotations

from pathlib import Path

from core import StopReason
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.ranking import ordinal, rank_landed
from explorer.walks.session import WalkSession
from explorer.walks.state import WalkState
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def ranked(model: str, query: str, **options):
    session = WalkSession(HANDBOOK, WalkSettings(query, model, **options), resolve_navigator(model))
    session.run_headless()
    events = session.history.events
    return rank_landed(WalkState.from_events(events), events)


def test_a_scoring_navigator_ranks_in_its_order_each_with_its_score():
    nodes = ranked("semantic:hybrid", "How long do refunds take to arrive?")
    assert [(n.place, n.node, n.why, n.stand_in) for n in nodes] == [
        (1, "refund-delivery", "score 1.06 · cosine similarity + BM25 share", None),
        (2, "first-day", "score 0.23 · cosine similarity + BM25 share", None),
        (3, "returning-equipment", "score 0.28 · cosine similarity + BM25 share", None)]
    assert nodes[0].best and not nodes[1].best
    assert (nodes[0].score, nodes[0].score_kind) == (1.060284, "cosine similarity + BM25 share")


def test_nodes_landed_because_the_visits_ran_out_are_stand_ins_after_the_answers():
    nodes = ranked(f"script:{SCRIPTS / 'wide-walk-out-of-visits.yaml'}", "money", max_nodes_visited=6)
    assert [(n.place, n.node, n.record.reason, n.stand_in) for n in nodes] == [
        (1, "free-plan", StopReason.LEAF, None),
        (2, "team-plan", StopReason.LEAF, None),
        (3, "business-plan", StopReason.LEAF, None),
        (4, "enterprise-plan", StopReason.LEAF, None),
        (5, "free-trial", StopReason.LEAF, None),
        (None, "plans", StopReason.VISIT_BUDGET_EXHAUSTED, "stand-in: 3 chosen children never entered")]
    assert (nodes[0].why, nodes[0].reasons) == ('named 1st of 8', 'named 1st of 8 · "Every plan may matter: take all eight."')
    assert nodes[-1].rationale == 'Money questions touch plans, billing and accounts; take them all.'


def test_ordinals():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 101, 111)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "101st", "111th"]


def test_a_node_at_the_depth_limit_is_a_stand_in():
    nodes = ranked(f"script:{SCRIPTS / 'depth-limit.yaml'}", "refunds", max_depth=1)
    assert [(n.place, n.node, n.record.reason, n.stand_in) for n in nodes] == [
        (None, "refunds", StopReason.MAX_DEPTH, "stand-in: at the depth limit, its children never offered")]


def test_a_node_whose_chosen_child_was_never_offered_is_a_stand_in():
    nodes = ranked(f"script:{SCRIPTS / 'hallucinated-branch.yaml'}", "How do I get a refund?")
    assert [(n.place, n.node, n.record.reason, n.stand_in) for n in nodes] == [
        (1, "requesting-a-refund", StopReason.LEAF, None),
        (None, "billing", StopReason.INVALID_CHOICE, "stand-in: it chose one never offered below it")]
