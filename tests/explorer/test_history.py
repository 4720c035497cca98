"""The walk history, driven headless: step, back, forward, fork, switch; and --force's navigator."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from pathlib import Path

import pytest

from core import CandidatesOffered, NavigatorChose, NavigatorFailed, NodeEntered, OnFailure, StopReason, WalkFinished
from explorer.corpora import load_corpus
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.navigators.forcing import Force, ForceError, parse_force
from explorer.trace import read_trace
from explorer.walk_settings import WalkSettings
from explorer.walks.history import Origin, WalkHistory
from explorer.walks.session import WalkSession, fork, save_history
from explorer.walks.state import Mark
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK = load_corpus(SAMPLES / "handbook.yaml")
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def walked(script: str, query: str = "refunds", **options) -> WalkSession:
    model = f"script:{SCRIPTS / script}"
    session = WalkSession(HANDBOOK, WalkSettings(query, model, **options), resolve_navigator(model))
    session.run_headless()
    return session


def timeless(events):
    """Events with the navigator's seconds zeroed and the mark of a replayed answer taken off: a replayed decision
    takes no time and says it was replayed, the same decision."""
    def unmarked(transcript):
        return transcript[1:] if transcript and transcript[0][0] == "answered" else transcript

    return [replace(e, seconds=0.0, transcript=unmarked(e.transcript)) if isinstance(e, NavigatorChose | NavigatorFailed)
            else e for e in events]


def entered(history: WalkHistory) -> list[str]:
    return [e.node.id for e in history.events if isinstance(e, NodeEntered)]


def landed(history: WalkHistory) -> list[str]:
    return list(history.state().landed) if history.at_latest else []


def test_history_steps_back_and_forward_through_the_recorded_walk():
    history = walked("depth-limit.yaml").history
    total = len(history.events)
    assert history.end is WalkEnd.FINISHED and history.cursor == total
    assert history.back() and history.cursor == total - 1
    assert history.state().finished is False
    assert history.forward() and history.cursor == total and history.state().finished
    assert not history.forward()  # nothing past the latest event
    assert history.first() and history.cursor == 1
    assert not history.back()  # the first step is as far back as it goes
    assert history.go(3) and isinstance(history.state().last, NavigatorChose)
    assert history.latest() and history.cursor == total


def test_cursor_stays_put_when_moved_back_while_events_arrive():
    history = WalkHistory(WalkSettings("q"))
    source = walked("depth-limit.yaml").history
    for event in source.events[:4]:
        history.append(event)
    assert history.cursor == 4
    history.back()
    for event in source.events[4:]:
        history.append(event)
    assert history.cursor == 3 and len(history.events) == len(source.events)


def test_decisions_pair_each_offer_with_its_answer():
    history = walked("provider-failure.yaml", on_failure=OnFailure.PARTIAL).history
    decisions = list(history.decisions())
    assert [(d.node, type(d.answer).__name__) for d in decisions] == [
        (None, "NavigatorChose"), ("billing", "NavigatorChose"), ("refunds", "NavigatorFailed"),
        ("invoices", "NavigatorChose"),
    ]
    assert all(isinstance(history.events[d.offer_seq - 1], CandidatesOffered) for d in decisions)
    assert history.decision_at(decisions[1].offer_seq + 1) == decisions[1]


def test_fork_replays_the_record_forces_the_answer_then_asks_the_navigator():
    original = walked("provider-failure.yaml", on_failure=OnFailure.PARTIAL).history
    before = list(original.events)
    billing = next(d for d in original.decisions() if d.node == "billing")
    navigator = resolve_navigator(original.settings.model)
    session = fork(original, billing.offer_seq, ("invoices",), HANDBOOK, navigator, number=2)
    session.run_headless()
    new = session.history
    assert new.origin is Origin.FORK and new.parent is original and new.fork_seq == billing.offer_seq
    assert new.name == "walk 2 · fork of walk 1: at billing chose invoices"
    # The same walk up to the fork point, then the forced answer, then the script's own decisions.
    assert timeless(new.events[: billing.offer_seq]) == timeless(before[: billing.offer_seq])
    replayed = [e for e in new.events[: billing.offer_seq] if isinstance(e, NavigatorChose)]
    assert [e.transcript[0] for e in replayed] == [("answered", "replayed: the answer recorded at this node")]
    forced = new.events[billing.offer_seq]
    assert isinstance(forced, NavigatorChose) and forced.selected == ("invoices",)
    assert new.forced == {billing.offer_seq + 1}
    assert entered(new) == ["billing", "invoices", "invoice-schedule"]
    assert list(new.state().landed) == ["invoice-schedule"]
    assert Mark.FORCED in new.state().marks().values()
    # Same budget: the fork used the visits the original had used up to there, no more.
    assert new.events[-1].result.visits_used == 3
    # The original is untouched.
    assert original.events == before and entered(original) == ["billing", "refunds", "invoices", "invoice-schedule"]


def test_fork_at_the_start_stopping_there_lands_nothing():
    original = walked("depth-limit.yaml").history
    start = next(original.decisions())
    session = fork(original, start.offer_seq, (), HANDBOOK, resolve_navigator(original.settings.model))
    session.run_headless()
    result = session.history.events[-1].result
    assert result.documents == () and [s.reason for s in result.stops] == [StopReason.NAVIGATOR_STOPPED]
    assert session.history.label == "fork of walk 1: at the start stopped here"


def test_fork_with_an_id_never_offered_shows_a_hallucination():
    original = walked("depth-limit.yaml").history
    billing = next(d for d in original.decisions() if d.node == "billing")
    session = fork(original, billing.offer_seq, ("ghost",), HANDBOOK, resolve_navigator(original.settings.model))
    session.run_headless()
    stops = session.history.events[-1].result.stops
    assert [(s.reason, s.branch) for s in stops] == [(StopReason.INVALID_CHOICE, "ghost")]
    assert session.history.events[-1].result.documents[0].id == "billing"


def test_fork_replays_a_recorded_failure_as_it_was():
    original = walked("provider-failure.yaml", on_failure=OnFailure.PARTIAL).history
    invoices = next(d for d in original.decisions() if d.node == "invoices")
    session = fork(original, invoices.offer_seq, (), HANDBOOK, resolve_navigator(original.settings.model))
    session.run_headless()
    failed = [e for e in session.history.events if isinstance(e, NavigatorFailed)]
    original_failed = [e for e in original.events if isinstance(e, NavigatorFailed)]
    assert [f.error for f in failed] == [f.error for f in original_failed]


def test_fork_at_a_step_that_is_not_an_offer_is_refused():
    original = walked("depth-limit.yaml").history
    with pytest.raises(ValueError, match="not an offer"):
        fork(original, 1, (), HANDBOOK, resolve_navigator(original.settings.model))


def test_forced_decisions_survive_a_trace(tmp_path):
    original = walked("depth-limit.yaml").history
    billing = next(d for d in original.decisions() if d.node == "billing")
    session = fork(original, billing.offer_seq, ("invoices",), HANDBOOK, resolve_navigator(original.settings.model))
    session.run_headless()
    path = save_history(session.history, HANDBOOK, tmp_path / "fork.trace.jsonl")
    assert '"forced": true' in path.read_text()
    reopened = WalkHistory.from_trace(read_trace(path), number=5)
    assert reopened.forced == session.history.forced
    assert reopened.name.startswith("walk 5 · trace fork.trace.jsonl")
    assert reopened.cursor == 1 and reopened.end is WalkEnd.FINISHED


def test_ending_after_budget_exhaustion_names_what_was_never_entered():
    history = walked("wide-walk-out-of-visits.yaml", "what does it cost", max_nodes_visited=6).history
    ending = history.state().ending()
    assert ending is not None and ending.end is WalkEnd.FINISHED
    never = ending.never_entered["no visit left"]
    assert never == ("seats", "changing-plans", "discounts", "billing", "accounts")
    assert dict(ending.landed_by_reason) == {"leaf": 5, "visit_budget_exhausted": 1}
    assert sum(ending.landed_by_reason.values()) == ending.landed


def test_cancelled_walk_marks_waiting_branches_never_entered():
    model = f"script:{SCRIPTS / 'provider-failure.yaml'}"
    session = WalkSession(HANDBOOK, WalkSettings("refunds", model), resolve_navigator(model))
    session.step(6)  # started, offer, chose billing, entered billing, offer, chose refunds+invoices
    worker = threading.Thread(target=session.run, args=(session.record,), daemon=True)
    worker.start()  # the worker is the history's only writer until it ends
    deadline = time.monotonic() + 30  # a hang guard, not a promise of speed
    while len(session.history.events) < 6 and worker.is_alive():
        assert time.monotonic() < deadline, "the walk never reached refunds and invoices chosen"
        worker.join(0.01)
    session.cancel()
    worker.join(30)
    assert not worker.is_alive() and len(session.history.events) == 6
    state = session.history.state()
    assert session.history.end is WalkEnd.CANCELLED
    assert state.mark_of("invoices") is Mark.STOPPED and state.mark_of("refunds") is Mark.STOPPED
    assert state.reasons()["invoices"] == "never entered: cancelled"
    assert state.ending().never_entered == {"the walk was cancelled": ("invoices", "refunds")}


@pytest.mark.parametrize(
    ("text", "node", "selected"),
    [("billing=refunds,invoices", "billing", ("refunds", "invoices")), ("start=billing", None, ("billing",)),
     ("billing=", "billing", ()), ("billing= a , a ,b", "billing", ("a", "b"))],
)
def test_parse_force(text, node, selected):
    assert parse_force(text) == Force(node, selected)


@pytest.mark.parametrize("text", ["billing", "=refunds", ""])
def test_parse_force_refuses_what_it_cannot_read(text):
    with pytest.raises(ForceError, match="NODE=ID"):
        parse_force(text)


def test_forces_that_never_apply_are_reported():
    model = f"script:{SCRIPTS / 'depth-limit.yaml'}"
    forces = [parse_force("billing=invoices"), parse_force("shipping=x")]
    session = WalkSession(HANDBOOK, WalkSettings("q", model), resolve_navigator(model), forces=forces)
    session.run_headless()
    assert [f.label for f in session.not_applied()] == ["shipping"]
    assert isinstance(session.history.events[-1], WalkFinished)
    assert len(session.history.forced) == 1


def test_a_fork_of_a_fork_keeps_the_earlier_forced_decision_marked(tmp_path):
    original = walked("depth-limit.yaml").history
    start = next(original.decisions())
    navigator = resolve_navigator(original.settings.model)
    first = fork(original, start.offer_seq, ("billing",), HANDBOOK, navigator, number=2)
    first.run_headless()
    billing = next(d for d in first.history.decisions() if d.node == "billing")
    second = fork(first.history, billing.offer_seq, ("invoices",), HANDBOOK, navigator, number=3)
    second.run_headless()
    assert second.history.forced == {3, billing.offer_seq + 1}  # the start's force, then billing's
    assert [d.forced for d in second.history.decisions()][:2] == [True, True]
    saved = save_history(second.history, HANDBOOK, tmp_path / "f.jsonl").read_text()
    assert saved.count('"forced": true') == 2
