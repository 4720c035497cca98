"""Presenting mode's words and steps, headless: a walk's events grouped into decisions, and each said in plain words."""

from __future__ import annotations

import shutil
from pathlib import Path

from core import CandidatesOffered, NavigatorChose, OnFailure
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.navigators.forcing import parse_force
from explorer.safe_text import clip, one_line
from explorer.walk_settings import WalkSettings
from explorer.walks.decision_steps import (
    DecisionStep,
    StepKind,
    decision_steps,
    is_stop_point,
    step_after,
    step_at,
    step_before,
)
from explorer.walks.history import WalkHistory
from explorer.walks.narration import names, narrate
from explorer.walks.session import WalkSession
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPTS = ROOT / "sample_corpora" / "scripts"
QUERY = "How long do refunds take to arrive?"


def walked(model: str, query: str = QUERY, forces: tuple[str, ...] = (), **options) -> WalkHistory:
    session = WalkSession(HANDBOOK, WalkSettings(query, model, **options), resolve_navigator(model),
                          forces=[parse_force(f) for f in forces])
    session.run_headless()
    return session.history


def said(history: WalkHistory) -> list[str]:
    return [narrate(history.events, step, forced=history.forced, end=history.end, error=history.error)
            for step in decision_steps(history.events)]


def test_a_twelve_event_walk_is_a_start_three_decisions_and_an_end():
    history = walked("lexical:default")
    assert len(history.events) == 12
    assert decision_steps(history.events) == (
        DecisionStep(1, StepKind.START, 1, 1, 1),
        DecisionStep(2, StepKind.DECISION, 2, 4, 3),  # the roots offered, billing chosen, billing entered
        DecisionStep(3, StepKind.DECISION, 5, 7, 6),
        DecisionStep(4, StepKind.DECISION, 8, 11, 9),  # refund delivery chosen, entered, landed (leaf)
        DecisionStep(5, StepKind.END, 12, 12, 12),
    )
    steps = decision_steps(history.events)
    # Each decision is shown at its answer: the offer and the choice are both in the state there.
    for step in steps[1:4]:
        assert isinstance(history.events[step.shown - 1], NavigatorChose)
        assert isinstance(history.events[step.first - 1], CandidatesOffered)


def test_the_narration_says_where_the_navigator_is_what_it_was_offered_what_it_chose_and_why():
    assert said(walked("lexical:default")) == [
        f"The navigator (lexical:default) is asked “{QUERY}”, with 15 visits to spend and a depth limit of 6.",
        "The navigator starts at the top. It was offered 9 sections and chose Billing: matched billing 1.99 (refund). "
        "It entered Billing (visit 1 of 15).",
        "The navigator is at Billing. It was offered 6 sections and chose Refunds: matched refunds 2.64 (refund). "
        "It entered Refunds (visit 2 of 15).",
        "The navigator is at Refunds. It was offered 4 sections and chose Refund delivery: matched refund-delivery "
        "2.73 (long, refund, tak) — below the margin: requesting-a-refund 0.18, refund-exceptions 0.14, "
        "satisfaction-guarantee 0.09. It entered Refund delivery (visit 3 of 15). Refund delivery has no children: "
        "it lands (leaf).",
        "The walk is over: 1 landed — Refund delivery (leaf). It used 3 of 15 visits.",
    ]


def test_a_hallucinated_id_is_named_and_the_node_that_offered_it_lands():
    history = walked(f"script:{SCRIPTS / 'hallucinated-branch.yaml'}", "How do I get a refund?")
    assert said(history)[2] == (
        "The navigator is at Billing. It was offered 6 sections and chose Refunds: refund-policy sounds right (it was "
        "never offered), then refunds. It named refund-policy, which was never offered (hallucinated): that branch "
        "stops there. It entered Refunds (visit 2 of 15). refund-policy was never offered. Billing lands "
        "(invalid_choice).")


def test_a_failure_says_the_error_and_what_the_policy_does():
    history = walked(f"script:{SCRIPTS / 'provider-failure.yaml'}", "refunds and invoices",
                     on_failure=OnFailure.PARTIAL)
    assert said(history)[3] == (
        "The navigator is at Refunds. It was offered 4 sections and the navigator failed: ScriptedFailure: upstream "
        "timeout after 30 s (HTTP 504 from the model gateway). The walk goes on (on failure: partial). It entered "
        "Invoices (visit 3 of 15). Refunds lands where the navigator failed (navigator_failed).")


def test_a_failure_under_throw_ends_the_walk_and_the_last_step_says_so(tmp_path):
    # The error names the script's path: one in a long folder makes it longer than the narration keeps, wherever
    # the repository is checked out.
    script = tmp_path / ("a-folder-whose-name-is-long-" * 3) / "provider-failure.yaml"
    script.parent.mkdir()
    shutil.copy(SCRIPTS / "provider-failure.yaml", script)
    history = walked(f"script:{script}", "refunds and invoices")
    assert history.end is WalkEnd.FAILED
    steps = decision_steps(history.events)
    assert steps[-1].kind is StepKind.DECISION and steps[-1].last == len(history.events)
    assert len(history.error) > 200  # the failure's whole message is in the step panel; the narration keeps 200
    assert said(history)[-1] == (
        "The navigator is at Refunds. It was offered 4 sections and the navigator failed: ScriptedFailure: upstream "
        "timeout after 30 s (HTTP 504 from the model gateway). The walk stops with this error. The walk failed: "
        f"{clip(one_line(history.error), 200)}.")
    assert said(history)[-1].endswith(f"{history.error[:199]}….")  # cut after 199 characters


def test_a_forced_decision_says_a_person_forced_it_not_that_the_navigator_chose():
    history = walked("lexical:default", "How are refunds issued?", forces=("billing=refunds,invoices,ghost",))
    assert said(history)[2] == (
        "The navigator is at Billing. It was offered 6 sections; a person forced the answer: Refunds and Invoices. "
        "It named ghost, which was never offered (hallucinated): that branch stops there. It entered Refunds "
        "(visit 2 of 15).")


def test_a_walk_out_of_visits_folds_every_landing_and_every_branch_left_into_one_step():
    history = walked(f"script:{SCRIPTS / 'wide-walk-out-of-visits.yaml'}", "money", max_nodes_visited=6)
    steps = decision_steps(history.events)
    assert [step.kind for step in steps] == [StepKind.START, StepKind.DECISION, StepKind.DECISION, StepKind.END]
    assert (steps[2].first, steps[2].last) == (5, 21)  # 17 events of bookkeeping: one step
    assert said(history)[2] == (
        "The navigator is at Plans and pricing. It was offered 8 sections and chose Free plan, Team plan, Business "
        "plan, Enterprise plan and 4 more: Every plan may matter: take all eight. It entered Free plan, Team plan, "
        "Business plan, Enterprise plan and 1 more (visit 6 of 6). Free plan, Team plan, Business plan, Enterprise "
        "plan and 1 more have no children: they land (leaf). No visit was left to enter Seats, Changing plans, "
        "Discounts, Billing and 1 more. Plans and pricing lands (visit_budget_exhausted).")
    assert said(history)[3] == ("The walk is over: 6 landed — Free plan (leaf), Team plan (leaf), Business plan (leaf), "
                                "Enterprise plan (leaf) and 2 more. It used 6 of 6 visits.")


def test_moving_by_steps_lands_on_each_answer_and_back():
    steps = decision_steps(walked("lexical:default").events)
    assert step_after(steps, 0).shown == 1
    assert step_after(steps, 1).shown == 3
    assert step_after(steps, 4).shown == 6  # from the bookkeeping of a step: the next answer
    assert step_after(steps, 12) is None
    assert step_before(steps, 12).shown == 9
    assert step_before(steps, 7).shown == 6  # from inside a step: back to its own answer
    assert step_before(steps, 6).shown == 3
    assert step_before(steps, 1) is None
    assert step_at(steps, 10).number == 4 and step_at(steps, 0) is None


def test_a_live_walk_so_far_ends_on_an_offer_still_awaited():
    events = walked("lexical:default").events[:5]  # ... billing entered, its children offered: no answer yet
    steps = decision_steps(events)
    assert steps[-1] == DecisionStep(3, StepKind.DECISION, 5, 5, 5)
    assert not steps[-1].answered and steps[1].answered
    assert narrate(events, steps[-1]) == "The navigator is at Billing. It is choosing among 6 sections…"
    assert [is_stop_point(e) for e in events] == [False, False, True, False, False]


def test_names_are_listed_in_plain_words_and_counted_past_four():
    assert names([]) == "" and names(["A"]) == "A" and names(["A", "B"]) == "A and B"
    assert names(["A", "B", "C"]) == "A, B and C"
    assert names(list("ABCDEFG")) == "A, B, C, D and 3 more"
