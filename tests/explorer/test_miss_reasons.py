"""Why a miss is a miss (issue 19): each reason produced by a scripted walk of the handbook, the step it points at,
and the words said in ``eval``'s text and ``--json``."""

from __future__ import annotations

import json
import textwrap
import threading
from pathlib import Path

import pytest

from core import (
    CandidatesOffered,
    NavigatorChoice,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    NodeEntered,
    OnFailure,
    PathStopped,
    TreeNavigator,
)
from explorer.corpora import load_corpus
from explorer.corpora.questions import Question
from explorer.ending import WalkEnd
from explorer.navigators import resolve_navigator
from explorer.walk_settings import WalkSettings
from explorer.walks.evaluation import (
    EvaluationRun,
    MissReason,
    evaluate,
    miss_column,
    miss_sentence,
    wrong_turn_step,
)
from tests.command_line import run_cli as run
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[2]
HANDBOOK_PATH = SAMPLES / "handbook.yaml"
HANDBOOK = load_corpus(HANDBOOK_PATH)
HOTELS = Question("hotel-limit-london", "What is the hotel limit per night in London?", ("hotels",), 1)
MONEY_BACK = Question("money-back", "How long until I get my money back?", ("refund-delivery",), 1)

# The hotel-limit-london shape: the walk takes support first, support's branches spend the visits, and the
# way to hotels (people-policies › expenses › travel) is entered with the last visit.
BUDGET_SPENT_ON_SUPPORT = """\
decisions:
  start: [support, people-policies]
  support: [contacting-support, severity-and-response-times, service-level-agreement, escalations]
  service-level-agreement: [uptime-commitment, sla-service-credits, sla-exclusions, scheduled-maintenance]
  sla-service-credits: [credit-tiers, claiming-service-credits]
  people-policies: [expenses]
  expenses: [travel]
  travel: [hotels]
"""


def script(tmp_path: Path, text: str) -> str:
    path = tmp_path / "case.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return f"script:{path}"


def walk(model: str, question: Question, **settings):
    [outcome] = evaluate(HANDBOOK, [question], WalkSettings("", model, **settings))
    return outcome


def event(outcome, step):
    return outcome.history.events[step - 1]


def test_budget_spent_on_other_branches_points_at_where_the_visits_went_not_at_an_entered_event(tmp_path):
    outcome = walk(script(tmp_path, BUDGET_SPENT_ON_SUPPORT), HOTELS, max_nodes_visited=13)
    assert not outcome.hit and outcome.landed[-1] == "expenses"
    entered_last = event(outcome, len(outcome.history.events) - 2)
    assert isinstance(entered_last, NodeEntered) and entered_last.node.id == "expenses"
    assert entered_last.remaining_visits == 0  # entered with the last visit: where the old "wrong turn" pointed
    miss = outcome.miss
    assert miss.reason is MissReason.BUDGET
    assert (miss.node, miss.missed, miss.chose) == (None, "travel", ("support",))
    assert miss.spent == (("support", 11),)
    assert outcome.first_wrong_turn is None  # the navigator took no wrong turn: the budget ran out
    step = wrong_turn_step(outcome)
    assert step == 3 and isinstance(event(outcome, step), NavigatorChose)  # the roots, where support came first
    assert miss.sentence() == ("the budget ran out toward travel: 11 of 13 visits went to other branches first — "
                               "support (11); at step 3, judging the roots, the navigator chose them")
    assert miss_column(outcome) == "budget ran out"
    assert miss_sentence(outcome) == miss.sentence()


def test_budget_spent_in_several_branches_names_each_with_its_visits(tmp_path):
    model = script(tmp_path, """\
        decisions:
          start: [people-policies]
          people-policies: [leave, remote-work, expenses]
          leave: [vacation, public-holidays, sick-leave, parental-leave]
          parental-leave: [parental-leave-pay]
          remote-work: [core-hours, home-office-setup]
          expenses: [travel]
          travel: [hotels]
        """)
    outcome = walk(model, HOTELS, max_nodes_visited=10)
    miss = outcome.miss
    assert miss.reason is MissReason.BUDGET and miss.missed == "expenses"
    assert miss.spent == (("leave", 6), ("remote-work", 3))
    assert (miss.node, miss.chose) == ("people-policies", ("leave", "remote-work"))
    # The step panel's numbering: the decision's answer, right after its offer.
    offer, answer = event(outcome, miss.step - 1), event(outcome, miss.step)
    assert isinstance(offer, CandidatesOffered) and offer.current.id == "people-policies"
    assert isinstance(answer, NavigatorChose) and answer.valid == ("leave", "remote-work", "expenses")


def test_turned_away_is_the_navigators_decision_with_its_step_node_and_choice(tmp_path):
    outcome = walk(script(tmp_path, "decisions:\n  start: [billing]\n  billing: [invoices, taxes]\n"), MONEY_BACK)
    miss = outcome.miss
    assert miss.reason is MissReason.TURNED_AWAY
    assert (miss.node, miss.missed, miss.chose) == ("billing", "refunds", ("invoices", "taxes"))
    assert outcome.first_wrong_turn == 1
    offer, answer = event(outcome, miss.step - 1), event(outcome, miss.step)
    assert isinstance(offer, CandidatesOffered) and offer.current.id == "billing"
    assert isinstance(answer, NavigatorChose) and answer.valid == ("invoices", "taxes")
    assert miss.sentence() == f"turned away: at step {miss.step}, judging billing, the navigator chose invoices, " \
                              "taxes, not refunds"


def test_choosing_nothing_is_turning_away(tmp_path):
    outcome = walk(script(tmp_path, "decisions:\n  start: []\n"), MONEY_BACK)
    assert (outcome.miss.reason, outcome.miss.node, outcome.miss.chose, outcome.miss.step) == (
        MissReason.TURNED_AWAY, None, (), 3)
    assert outcome.miss.sentence() == "turned away: at step 3, judging the roots, the navigator chose nothing, " \
                                      "not billing"


def test_an_answer_of_ids_never_offered(tmp_path):
    outcome = walk(script(tmp_path, "decisions:\n  start: [billing]\n  billing: [refundz]\n"), MONEY_BACK)
    miss = outcome.miss
    assert (miss.reason, miss.node, miss.chose, miss.missed) == (
        MissReason.NEVER_OFFERED, "billing", ("refundz",), "refunds")
    assert outcome.first_wrong_turn == 1
    assert outcome.landed == ("billing",)  # the offering node lands (invalid_choice)


def test_the_depth_limit_points_at_its_stop(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [people-policies]\n  people-policies: [expenses]\n"
                             "  expenses: [travel]\n")
    outcome = walk(model, HOTELS, max_depth=1)
    miss = outcome.miss
    assert (miss.reason, miss.node, miss.missed) == (MissReason.DEPTH, "expenses", "travel")
    stop = event(outcome, miss.step)
    assert isinstance(stop, PathStopped) and stop.record.reason.value == "max_depth"
    assert outcome.first_wrong_turn is None
    assert miss.sentence() == "the depth limit (1) stopped the walk at expenses toward travel"


def test_a_navigator_failure_on_the_way(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [billing]\n  billing: {error: upstream timeout}\n")
    outcome = walk(model, MONEY_BACK, on_failure=OnFailure.PARTIAL)
    miss = outcome.miss
    assert (miss.reason, miss.node, miss.missed) == (MissReason.FAILED, "billing", "refunds")
    assert "upstream timeout" in miss.error
    assert isinstance(event(outcome, miss.step), NavigatorFailed)
    assert isinstance(event(outcome, miss.step - 1), CandidatesOffered)


def test_a_failure_that_empties_the_walk_after_it_entered_the_answer(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [billing, support]\n  billing: [refunds]\n"
                             "  refunds: [refund-delivery]\n  support: {error: gateway down}\n")
    outcome = walk(model, MONEY_BACK, on_failure=OnFailure.EMPTY)
    assert outcome.landed == () and not outcome.hit
    assert outcome.miss.reason is MissReason.FAILED and "gateway down" in outcome.miss.error


def test_a_cancel_before_the_walk_reached_the_answer(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [billing]\n  billing: {select: [refunds], delay: 60}\n")
    inside = threading.Event()
    scripted = resolve_navigator(model)

    class Telling(TreeNavigator):
        def supports(self, model: str) -> bool:
            return True

        def choose(self, request: NavigatorRequest) -> NavigatorChoice:
            if request.current is not None:
                inside.set()
            return scripted.choose(request)

    evaluation = EvaluationRun(HANDBOOK, [MONEY_BACK], WalkSettings("", model), navigator=Telling())
    results: list[object] = []
    worker = threading.Thread(target=lambda: results.append(evaluation.run()))
    worker.start()
    assert inside.wait(30)
    evaluation.cancel()
    worker.join(30)
    [outcome] = results[0]
    assert outcome.end == WalkEnd.CANCELLED
    assert (outcome.miss.reason, outcome.miss.node, outcome.miss.missed) == (
        MissReason.CANCELLED, "billing", "refunds")


def test_entering_an_expected_node_with_children_and_going_below_it(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [billing]\n  billing: [refunds]\n  refunds: [refund-delivery]\n")
    outcome = walk(model, Question("q", "refunds?", ("refunds",), 1))
    miss = outcome.miss
    assert (miss.reason, miss.node, miss.chose) == (MissReason.WENT_PAST, "refunds", ("refund-delivery",))
    assert outcome.first_wrong_turn is None and outcome.branch_entered


def test_a_hit_has_no_miss(tmp_path):
    model = script(tmp_path, "decisions:\n  start: [billing]\n  billing: [refunds]\n  refunds: [refund-delivery]\n")
    outcome = walk(model, MONEY_BACK)
    assert outcome.hit and outcome.miss is None and miss_column(outcome) == "" and wrong_turn_step(outcome) is None


def questions_file(tmp_path: Path, *questions: tuple[str, str, str]) -> Path:
    lines = [f"corpus: {HANDBOOK_PATH}", "questions:"]
    lines += [f"  - {{id: {i}, query: {q!r}, expect: [{e}]}}" for i, q, e in questions]
    path = tmp_path / "set.questions.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_eval_says_each_miss_reason_in_its_text_and_json(tmp_path):
    model = script(tmp_path, BUDGET_SPENT_ON_SUPPORT)
    path = questions_file(tmp_path, ("hotel-limit-london", "hotel limit?", "hotels"),
                          ("money-back", "money back?", "refund-delivery"))
    text = run("eval", path, "--navigator", model, "--max-visits", "13")
    assert text.returncode == 0, text.stderr
    assert "Why each miss is a miss (2 misses):" in text.stdout
    assert ("hotel-limit-london: the budget ran out toward travel: 11 of 13 visits went to other branches first — "
            "support (11); at step 3, judging the roots, the navigator chose them") in text.stdout
    assert "money-back: turned away: at step 3, judging the roots, the navigator chose support, people-policies, " \
           "not billing" in text.stdout
    assert "misses turned away 1, budget ran out 1" in text.stdout
    document = json.loads(run("eval", path, "--navigator", model, "--max-visits", "13", "--json").stdout)
    hotel, money = document["results"]
    assert hotel["miss"] == {
        "reason": "budget ran out", "step": 3, "node": None, "missed": "travel", "chose": ["support"],
        "spent": [{"branch": "support", "visits": 11}], "error": None,
        "says": "the budget ran out toward travel: 11 of 13 visits went to other branches first — support (11); "
                "at step 3, judging the roots, the navigator chose them",
    }
    assert hotel["first_wrong_turn"] is None
    assert (money["miss"]["reason"], money["first_wrong_turn"]) == ("turned away", 0)
    assert document["summary"]["misses"] == {"turned away": 1, "budget ran out": 1}


@pytest.mark.parametrize("reason", list(MissReason))
def test_every_reason_has_a_sentence(reason):
    from explorer.walks.evaluation import Miss

    sentence = Miss(reason, 3, "billing", "refunds", ("invoices",), (("support", 2),), "boom", 15, 6).sentence()
    assert sentence and "\n" not in sentence


def test_expected_ids_that_are_not_in_the_corpus_were_never_offered(tmp_path):
    outcome = walk(script(tmp_path, "decisions:\n  start: [billing]\n"), Question("q", "x", ("ghost",), 1))
    assert (outcome.miss.reason, outcome.miss.step, outcome.miss.missed) == (MissReason.NEVER_OFFERED, None, None)
    assert outcome.miss.sentence() == "an id never offered: no expected id is in the corpus"
