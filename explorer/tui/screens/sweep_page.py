"""The budget sweep as one HTML page (``H`` on the sweep screen): its title, the chart of hit@3 by budget (the same
drawing as the screen's and ``eval --budgets``', :func:`~explorer.walks.evaluation.chart.draw`), each budget's figures
and the questions by the budget they need.

The page is Rich's HTML export of that text: every piece of it escaped (a question's ``<script>`` is text), its
styles inline, no script and no link, so it opens offline in any browser. Where it goes is asked first (offered
beside the question set: ``small.sweep.html``), checked by the one rule for outputs (:mod:`explorer.outputs`: never
over the question set, the corpus or a navigator's file) and written whole or not at all
(:func:`~explorer.atomic_file.write_atomically`). A session with files off refuses it in one line.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from rich.console import Console
from rich.text import Text

from ...outputs import Ledger, Output, Read, write
from ...safe_text import visible
from ...walks.evaluation import Sweep, figures_lines, flat_line, hit_at_3_chart
from ...walks.evaluation.chart import draw
from ..say import FILES_OFF, say
from .save_prompt import model_reads, save_prompt

if TYPE_CHECKING:
    from textual.screen import Screen

    from ...corpora import Corpus
    from ...corpora.questions import QuestionSet
    from ...walk_settings import WalkSettings

PAGE_WIDTH = 110
"""Cells a line of the page holds: the chart (:data:`CHART_SIZE`) and the tables of figures and questions under it."""
CHART_SIZE = (76, 20)


class Named(Protocol):
    """A side swept: its short name (``A``), its name with its label (``A lexical:default``), its settings."""

    @property
    def name(self) -> str: ...

    @property
    def titled(self) -> str: ...

    @property
    def settings(self) -> WalkSettings: ...


def page_name(questions: Path) -> Path:
    """``small.questions.yaml`` → ``small.sweep.html`` beside it."""
    stem = questions.name.removesuffix(".yaml").removesuffix(".yml").removesuffix(".questions")
    return questions.with_name(f"{stem}.sweep.html")


def sweep_html(title: str, named: Sequence[tuple[str, Sweep]], short: Sequence[str], flat: int | None = None) -> str:
    """The page: ``title``, the chart of ``named`` (each sweep with its legend name; ``flat``: the flat search's
    hit@3, a level line of its own), the figures (each side by its ``short`` name) and each question with the budget
    it needs on each side."""
    out = Console(record=True, width=PAGE_WIDTH, file=io.StringIO(), color_system="truecolor", force_terminal=True)
    out.print(Text(visible(title), style="bold"))
    out.print(Text.from_ansi(draw(flat_line(hit_at_3_chart(named), flat), *CHART_SIZE, colour=True)))
    out.print(Text("\n".join(figures_lines([(name if len(named) > 1 else "", found)
                                            for name, (_, found) in zip(short, named, strict=True)])
                             + flat_figures(flat, named))))
    first = named[0][1]
    largest = first.budgets[-1]
    out.print(Text("\nEach question: the smallest budget that lands an expected node"))
    for number, question in enumerate(first.questions):
        needs = []
        for name, (_, found) in zip(short, named, strict=True):
            budget = found.lands_from(number)
            words = f"lands from {budget}" if budget is not None else f"not within {largest}"
            needs.append(f"{name} {words}" if len(named) > 1 else words)
        out.print(Text(f"  {visible(question.id)}  {' · '.join(needs)}"), soft_wrap=True)
    return out.export_html(inline_styles=True, clear=False)


def flat_figures(flat: int | None, named: Sequence[tuple[str, Sweep]]) -> list[str]:
    """The flat search's figure under the budgets' (none when it was not searched), no wider than theirs: the
    chart beside them takes what they leave."""
    if flat is None or not named:
        return []
    return [f"flat search: hit@3 {flat}/{len(named[0][1].questions)}, any budget"]


def write_sweep_page(screen: Screen[Any], questions: QuestionSet, corpus: Corpus, sides: Sequence[Named],
                     named: Sequence[tuple[str, Sweep]], title: str, *, allow_files: bool = True,
                     ledger: Ledger | None = None, flat: int | None = None) -> None:
    """Ask where (a prompt over ``screen``: :func:`.save_prompt.save_prompt`), then write the page there through
    the one gate, with what the program read (``ledger``), the question set, the corpus and the sides' navigators'
    files; what goes wrong is said in one line."""
    if not allow_files:
        say(screen, FILES_OFF, severity="warning", timeout=4)
        return
    book = ledger if ledger is not None else Ledger()

    def reads() -> list[Read]:
        return [Read("the question set", questions.path), Read("the corpus", Path(corpus.path)),
                *model_reads(book, *(side.settings.model for side in sides))]

    def write_page(text: str | None) -> None:
        if not text:
            return
        out = Path(text).expanduser()
        try:
            write(Output("the HTML", out), sweep_html(title, named, [side.name for side in sides], flat), reads(),
                  doing="write the HTML", example="sweep.html", replace=True, ledger=book)  # asked first
        except OSError as exc:
            say(screen, f"Cannot write the HTML to {visible(str(out))}: {exc.strerror or exc}",
                title="Cannot write the page", severity="error", timeout=8)
            return
        say(screen, f"Wrote the budget sweep to {visible(str(out))}.", timeout=6)

    screen.app.push_screen(save_prompt("Write the budget sweep as an HTML page in", page_name(questions.path),
                                       "the HTML", reads, doing="write the HTML", example="sweep.html"), write_page)
