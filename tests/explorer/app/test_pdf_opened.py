"""The explorer opens a PDF from the command line: its tree from the bookmarks, and the answer card of a walk shows
the page text of what landed."""

from __future__ import annotations

from pathlib import Path

import pytest

from explorer.cli.main import main
from explorer.tui.widgets.answer_card import AnswerCard
from tests.explorer.corpora.pdf_maker import Bookmark, Line, make_pdf
from tests.explorer.corpora.test_pdf import BILLING, REFUNDS, SHIPPING

from .helpers import explorer_made_here, wait_for


async def test_a_pdf_opens_and_the_answer_card_reads_its_pages(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    refunds = [*REFUNDS, Line("Partial refunds are shown on the next invoice as a credit line."),
               Line("Ask support by email when a refund is later than that.")]
    pdf = make_pdf(tmp_path / "guide.pdf", [BILLING, refunds, SHIPPING], page_numbers=True,
                   outline=(Bookmark("1 Billing", 0, (Bookmark("1.1 Refunds", 1),)), Bookmark("2 Shipping", 2)))
    made, _ = explorer_made_here(monkeypatch)
    assert main([str(pdf), "--navigator", "lexical:default", "--query", "how long does a refund take",
                 "--present"]) == 0
    (app,) = made
    assert [app.corpus.title_of(i) for i in app.corpus.index.ids()] == ["1 Billing", "1.1 Refunds", "2 Shipping"]
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.walk_screen
        await pilot.press("enter")
        await wait_for(pilot, lambda: screen.view.history is not None and bool(screen.view.history.events))
        for _ in range(10):
            if screen.view.history.ended and screen.view.history.at_latest and not screen.presenter.advancing:
                break
            await pilot.press("n")
            await wait_for(pilot, lambda: not screen.presenter.advancing)
        card = screen.query_one(AnswerCard)
        await wait_for(pilot, lambda: "Refunds" in card.words)
        assert app.corpus.summary_of("1-1-refunds") == (
            "A refund is paid within ten days of the request. Refunds go back to the card that paid the invoice. "
            "Partial refunds are shown on the next invoice as a credit line.")
        shown = " ".join(card.words.split())
        assert "Ask support by email when a refund is later than that." in shown  # the page's text, past the summary
