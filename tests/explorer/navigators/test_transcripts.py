"""What the shipped offline navigators saw and said: each fills NavigatorChoice.transcript (SPEC 'The navigator')."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from core import (
    CancellationToken,
    NavigatorChose,
    NavigatorFailed,
    NavigatorRequest,
    NodeView,
    OnFailure,
    ReasoningRAGStrategy,
)
from explorer.corpora import load_corpus
from explorer.navigators import resolve_navigator
from explorer.navigators.manual import DecisionDesk, ManualNavigator, PendingDecision
from explorer.navigators.scored import scores_in
from explorer.navigators.script import ScriptedFailure
from tests.samples import SAMPLES

ROOT = Path(__file__).resolve().parents[3]
HANDBOOK = SAMPLES / "handbook.yaml"
SCRIPTS = ROOT / "sample_corpora" / "scripts"


def request(query, candidates, model, current=None, remaining=10):
    views = tuple(NodeView(i, t, s) for i, t, s in candidates)
    return NavigatorRequest(query, model, current, views, remaining, CancellationToken())


CANDIDATES = [
    ("billing", "Billing", "Invoices, payment methods, failed payments, taxes and refunds."),
    ("refunds", "Refunds", "Money back within 14 days."),
    ("support", "Support", "How to reach support and response times."),
]


# Lexical ----------------------------------------------------------------------------------------------


def test_lexical_transcript_holds_the_terms_every_score_and_the_rule():
    choice = resolve_navigator("lexical:default").choose(
        request("How do I get my money back for a refund?", CANDIDATES, "lexical:default"))
    assert choice.selected == ("refunds",)
    assert choice.transcript == (
        ("terms", "money back refund"),
        ("scores", "refunds 2.76 (money, back, refund)\nbilling 0.42 (refund)\nsupport 0.00"),
        ("rule", "the best and up to 2 more scoring at least 50% of it"),
        ("scored", '{"kind":"bm25","scores":{"refunds":2.756724,"billing":0.420817,"support":0.0}}'),
    )


def test_lexical_transcript_when_nothing_matches_and_for_strict():
    nothing = resolve_navigator("lexical:strict").choose(request("the of and", CANDIDATES, "lexical:strict"))
    assert nothing.selected == ()
    assert nothing.transcript == (
        ("terms", "(none: every word is a stop word)"),
        ("scores", "billing 0.00\nrefunds 0.00\nsupport 0.00"),
        ("rule", "the single best"),
        ("scored", '{"kind":"bm25","scores":{"billing":0.0,"refunds":0.0,"support":0.0}}'),
    )


def test_lexical_transcript_of_a_wide_offer_lists_a_hundred_and_counts_the_rest():
    candidates = [(f"n{i}", f"Topic {i}", "refund" if i == 150 else "") for i in range(300)]
    choice = resolve_navigator("lexical:default").choose(request("refund", candidates, "lexical:default"))
    scores = dict(choice.transcript)["scores"].split("\n")
    assert len(scores) == 101
    assert scores[0].startswith("n150 ") and scores[0].endswith(" (refund)")
    assert scores[1:3] == ["n0 0.00", "n1 0.00"]
    assert scores[-1] == "… 200 more, scoring 0.00 or less"
    scored = scores_in(choice.transcript)
    assert scored is not None and scored.kind == "bm25" and len(scored.by_id) == 100
    assert list(scored.by_id)[:3] == ["n150", "n0", "n1"] and scored.by_id["n0"] == 0.0


def test_a_lexical_walk_carries_each_transcript_onto_its_events():
    corpus = load_corpus(HANDBOOK)
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator("lexical:default"), "lexical:default")
    chose = [e for e in strategy.walk("How are refunds issued?") if isinstance(e, NavigatorChose)]
    assert chose
    for event in chose:
        labels = [label for label, _ in event.transcript]
        assert labels == ["terms", "scores", "rule", "scored"]
        assert dict(event.transcript)["terms"] == "refund issu"


# Script -----------------------------------------------------------------------------------------------


def test_script_transcript_is_the_entry_as_written_with_its_line(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text(
        "# a comment\n"
        "decisions:\n"
        "  start: {select: [billing], rationale: \"billing it is\"}\n"
        "  billing:\n"
        "    select: [refunds, ghost]\n"
        "    rationale: refunds, and one never offered\n"
        "\n"
        "  refunds: [a]\n"
        "default: {select: [], rationale: nothing else}\n"
    )
    model = f"script:{script}"
    nav = resolve_navigator(model)

    def transcript(current):
        view = None if current is None else NodeView(current, current.title(), "")
        return nav.choose(request("q", CANDIDATES, model, current=view)).transcript

    assert transcript(None) == (
        ("script", 'start: {select: [billing], rationale: "billing it is"}'), ("from", f"{script}:3"))
    assert transcript("billing") == (
        ("script", "billing:\n  select: [refunds, ghost]\n  rationale: refunds, and one never offered"),
        ("from", f"{script}:4"),
    )
    assert transcript("refunds") == (("script", "refunds: [a]"), ("from", f"{script}:8"))
    assert transcript("support") == (
        ("script", "default: {select: [], rationale: nothing else}"), ("from", f"{script}:9 (no entry for 'support')"))


def test_script_transcript_without_a_default(tmp_path):
    script = tmp_path / "s.yaml"
    script.write_text("decisions:\n  start: [billing]\n")
    model = f"script:{script}"
    choice = resolve_navigator(model).choose(request("q", CANDIDATES, model, current=NodeView("x", "X", "")))
    assert choice.selected == ()
    assert choice.transcript == (("script", "no entry for 'x' and no default: answering []"), ("from", str(script)))


def test_a_scripted_failure_carries_its_entry_onto_navigator_failed():
    corpus = load_corpus(HANDBOOK)
    model = f"script:{SCRIPTS / 'provider-failure.yaml'}"
    strategy = ReasoningRAGStrategy(corpus.index, resolve_navigator(model), model, on_failure=OnFailure.PARTIAL)
    failed = [e for e in strategy.walk("q") if isinstance(e, NavigatorFailed)]
    assert len(failed) == 1
    script_text, where = (text for _, text in failed[0].transcript)
    assert [label for label, _ in failed[0].transcript] == ["script", "from"]
    assert script_text.startswith("refunds:") and "upstream timeout after 30 s" in script_text
    assert where.startswith(f"{SCRIPTS / 'provider-failure.yaml'}:")


def test_scripted_failure_keeps_its_message():
    failure = ScriptedFailure("boom", (("script", "a: {error: boom}"),))
    assert str(failure) == "boom"
    assert failure.transcript == (("script", "a: {error: boom}"),)


# Manual -----------------------------------------------------------------------------------------------


def test_manual_transcript_says_what_the_person_pressed_and_answered():
    pending = PendingDecision(request("q", CANDIDATES, "manual:"))
    assert pending.decide(["refunds", "ghost"], "picked by hand",
                          pressed=["picked 2", "picked 3", "unpicked 3", "typed ghost", "answered"])
    choice = pending.wait()
    assert choice.selected == ("refunds", "ghost")
    assert choice.transcript == (
        ("person", "picked 2; picked 3; unpicked 3; typed ghost; answered"),
        ("answer", "refunds, ghost"),
    )


@pytest.mark.parametrize(("pressed", "selected", "expected"), [
    ((), (), (("person", "answered"), ("answer", "(nothing: stop here)"))),
    (("stop here",), (), (("person", "stop here"), ("answer", "(nothing: stop here)"))),
    ((), ("billing",), (("person", "answered"), ("answer", "billing"))),
])
def test_manual_transcript_without_keys_or_with_a_stop(pressed, selected, expected):
    pending = PendingDecision(request("q", CANDIDATES, "manual:"))
    pending.decide(selected, "by hand", pressed=pressed)
    assert pending.wait().transcript == expected


def test_a_manual_walk_carries_the_keys_onto_navigator_chose():
    def answer(pending):
        first = pending.request.candidates[0].id
        threading.Thread(target=pending.decide, args=([first] if pending.request.current is None else [],),
                         kwargs={"pressed": ["picked 1", "answered"] if pending.request.current is None
                                 else ["stop here"]}).start()

    desk = DecisionDesk()
    desk.attach(answer)
    try:
        corpus = load_corpus(HANDBOOK)
        strategy = ReasoningRAGStrategy(corpus.index, ManualNavigator(desk), "manual:")
        chose = [e for e in strategy.walk("q") if isinstance(e, NavigatorChose)]
    finally:
        desk.detach(answer)
    first_root = corpus.index.root_ids()[0]
    assert [(e.current, e.selected, e.transcript) for e in chose] == [
        (None, (first_root,), (("person", "picked 1; answered"), ("answer", first_root))),
        (first_root, (), (("person", "stop here"), ("answer", "(nothing: stop here)"))),
    ]


def test_the_scored_pair_reads_back_and_a_broken_one_reads_as_none():
    from explorer.navigators.scored import scored_pair

    pair = scored_pair("bm25", [("a b", 2.5), ("é", 1), ("nan", float("nan"))])
    assert pair == ("scored", '{"kind":"bm25","scores":{"a b":2.5,"é":1.0}}')
    scored = scores_in([("terms", "x"), pair])
    assert scored is not None and (scored.kind, dict(scored.by_id)) == ("bm25", {"a b": 2.5, "é": 1.0})
    assert scores_in(None) is None and scores_in([("scores", "a 1.00")]) is None
    assert scores_in([("scored", "not json")]) is None and scores_in([("scored", '{"kind": 1, "scores": {}}')]) is None
    assert scores_in([("scored", '{"kind": "x", "scores": {"a": "high", "b": true, "c": 3}}')]) == \
        type(scored)("x", {"c": 3.0})
