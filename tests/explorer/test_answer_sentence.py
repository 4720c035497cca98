"""The sentence of an answer that best matches the query (presenting's answer card), and a long reason cut at a
clause for the narration: exact sentences, offsets and cuts."""

from __future__ import annotations

from explorer.walks.answer_sentence import Lead, lead_sentence, sentences
from explorer.walks.narration import Narration, shortened

from .app.helpers import HANDBOOK

REFUND_DELIVERY = " ".join(HANDBOOK.index["refund-delivery"].content.split())


def test_sentences_end_at_a_stop_before_a_capital_and_not_after_an_abbreviation() -> None:
    text = 'Refunds go back. After we issue it (e.g. Visa), banks take 5 days. "Is it late?" Ask us. Done!'
    assert sentences(text) == [(0, "Refunds go back."), (17, "After we issue it (e.g. Visa), banks take 5 days."),
                               (67, '"Is it late?"'), (81, "Ask us."), (89, "Done!")]
    assert sentences("  one line, no stop  ") == [(2, "one line, no stop")]
    assert sentences("Erstattung. Über fünf Tage. 払い戻し。次に来ます。") == [
        (0, "Erstattung."), (12, "Über fünf Tage."), (28, "払い戻し。"), (33, "次に来ます。")]
    assert sentences("") == [] and sentences("   ") == []


def test_the_answer_to_how_long_is_the_sentence_with_the_days_not_the_first() -> None:
    second = ("After we issue a card refund, banks usually take 5 to 10 business days to show it on the statement; "
              "ACH and SEPA refunds take 3 to 5 business days.")
    for query in ("How long until I get my money back?", "How long do refunds take to arrive?"):
        lead = lead_sentence(REFUND_DELIVERY, query)
        assert lead == Lead(REFUND_DELIVERY.index(second), second, 2), query
    where = lead_sentence(REFUND_DELIVERY, "Where does my refund go?")
    assert where is not None and where.number == 1 and where.start == 0
    assert where.sentence == ("Refunds go back to the payment method used for the original charge and in the same "
                              "currency.")


def test_a_given_score_decides_and_a_tie_goes_to_the_earlier_sentence() -> None:
    text = "Alpha beta. Gamma delta. Beta gamma."
    assert lead_sentence(text, "gamma", score=lambda s: float("Gamma" in s or "gamma" in s)) == Lead(12, "Gamma delta.", 2)
    assert lead_sentence(text, "delta", score=lambda s: 0.0) == Lead(0, "Alpha beta.", 1)
    assert lead_sentence(text, "   ") is None and lead_sentence("", "gamma") is None
    assert lead_sentence(text, "what is it?") is None  # stop words only: no sentence leads


def test_a_long_reason_is_cut_at_its_last_clause_in_the_second_half_else_at_a_word() -> None:
    reason = ("most similar to the query: billing 0.39 (similarity 0.29 + words 0.10: refund), onboarding 0.30, "
              "offboarding 0.20 — next: support 0.19, data-privacy 0.18, security 0.17")
    assert shortened(reason) == ("most similar to the query: billing 0.39 (similarity 0.29 + words 0.10: refund), "
                                 "onboarding 0.30, offboarding 0.20.")
    assert shortened("short and whole") == "short and whole"
    words = "word " * 40
    assert shortened(words) == ("word " * 29).rstrip() + "…"  # no clause: at a space, never mid-word
    assert shortened("x" * 200) == "x" * 149 + "…"


def test_a_narration_says_its_sentences_and_keeps_a_brief() -> None:
    said = Narration(("One.", "Two: because."), ("One.", "Two."))
    assert said.words == "One. Two: because."
