"""The budget sweep, from the evaluation screen's ``b``: every question walked at each visit budget typed
(``3,5,8,15``), as ``eval --budgets`` walks them (:class:`~explorer.walks.evaluation.SweepRun`), on a thread
worker, cancellable with ``x``, its progress shown as the evaluation screen shows its own.

When it is over: the chart (hit rate by budget, :class:`~explorer.tui.widgets.sweep_chart.SweepChart`) and the
questions by the smallest budget at which an expected node lands ("lands from 8", "not within 15"), the cheapest
first, each budget's ✓ beside it. Over a navigator whose answers are calls (an LLM), only the largest budget's calls
are made; the smaller budgets re-walk its decisions. Escape goes back to the evaluation table as it was left.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, ProgressBar

from core import TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import QuestionSet
from ...safe_text import safe, styled
from ...walk_settings import WalkSettings
from ...walks.evaluation import QuestionOutcome, Sweep, SweepRun, parse_budgets, reuses_answers
from ...walks.session import JOBS, UNWIRED, Wiring
from ..say import say
from ..widgets.sweep_chart import SweepChart
from .closing_once import ClosesOnce
from .prompt import PromptScreen

BUDGETS = "3,5,8,15"
"""What the budgets prompt offers first."""


def budgets_prompt(model: str) -> PromptScreen[tuple[int, ...]]:
    """Ask for the budgets (``3,5,8,15``); a list that is not one is said under the field, the prompt kept open."""
    return PromptScreen(f"Budget sweep with {model}: the visit budgets (3,5,8,15)", BUDGETS, read=parse_budgets)


def lands_words(budget: int | None, largest: int) -> str:
    """``lands from 8``, or ``not within 15``: the smallest budget at which a question lands an expected node."""
    return f"lands from {budget}" if budget is not None else f"not within {largest}"


@dataclass
class SweepWalked(Message):
    """One more walk of the sweep ended (``done`` of all)."""

    done: int


@dataclass
class SweepEnded(Message):
    """The sweep is over: ``found`` (``None`` when it was cancelled), or it broke with ``error``."""

    found: Sweep | None
    error: str | None = None


class SweepScreen(ClosesOnce, ModalScreen[None]):
    """``questions`` walked with ``navigator`` at each of ``budgets`` (``settings`` for the rest)."""

    CSS_PATH = Path(__file__).with_name("evaluation_sweep.tcss")
    BINDINGS = [
        Binding("x", "cancel", "Cancel sweep", id="sweep.cancel"),
        Binding("escape", "back", "Evaluation", id="sweep.back"),
        Binding("q", "app.quit", "Quit", id="sweep.quit"),
    ]

    def __init__(self, corpus: Corpus, questions: QuestionSet, settings: WalkSettings, navigator: TreeNavigator,
                 budgets: tuple[int, ...], *, jobs: int = JOBS, wiring: Wiring = UNWIRED) -> None:
        super().__init__()
        self.corpus = corpus
        self.question_set = questions
        self.settings = settings
        self.budgets = tuple(sorted(set(budgets)))
        self.run = SweepRun(corpus, questions.questions, settings, self.budgets, navigator=wiring.wire(navigator),
                            jobs=jobs, observers=wiring.observers)
        self.reused = reuses_answers(navigator)
        self.found: Sweep | None = None
        """The sweep, once it is over (``None`` before, and when it was cancelled)."""
        self.over = False
        self.done = 0
        self._lock = threading.Lock()

    def compose(self) -> ComposeResult:
        with Vertical(id="sweep-dialog"):
            title = styled("Budget sweep: ", "bold")
            title.append_text(safe(self.question_set.path.name, width=60))
            title.append(f" · {len(self.question_set.questions)} questions · ")
            title.append_text(safe(self.settings.model, width=60))
            title.append(" · budgets " + ", ".join(map(str, self.budgets)))
            yield Label(title, id="sweep-title")
            how = ("only the largest budget's navigator calls are made: the smaller budgets re-walk its decisions"
                   if self.reused else "every budget walked live (this navigator's answers cost no call)")
            yield Label(how, id="sweep-how")
            with Horizontal(id="sweep-progress-row"):
                yield Label("", id="sweep-progress-label")
                yield ProgressBar(total=self.run.walks, show_eta=False, id="sweep-progress")
            yield SweepChart(id="sweep-chart")
            yield DataTable(id="sweep-table", cursor_type="row", zebra_stripes=True)
            yield Label("x cancels the sweep · Escape back to the evaluation", id="sweep-hint")

    def on_mount(self) -> None:
        self._add_columns()
        self._show_progress()
        self.query_one(DataTable).focus()
        self.run_worker(self._walk, thread=True, group="sweep", name="sweep", exit_on_error=False)

    def on_unmount(self) -> None:
        self.run.cancel()

    def _walk(self) -> None:
        def walked(_: QuestionOutcome) -> None:
            with self._lock:
                self.done += 1
                done = self.done
            self.post_message(SweepWalked(done))

        try:
            found = self.run.run(walked)
        except Exception as exc:  # a bug in a navigator or in us: say it, keep the explorer alive
            self.post_message(SweepEnded(None, f"unexpected {type(exc).__name__}: {exc}"))
            return
        self.post_message(SweepEnded(found))

    def on_sweep_walked(self, message: SweepWalked) -> None:
        if not self.over:
            self._show_progress()

    def on_sweep_ended(self, message: SweepEnded) -> None:
        self.over, self.found = True, message.found
        if message.error:
            say(self, message.error, title="The budget sweep broke", severity="error", timeout=8)
        self._show_progress()
        self.query_one(SweepChart).show(self.found)
        if self.found is not None:
            self._fill(self.found)

    def _add_columns(self, question: int | None = None, query: int | None = None) -> None:
        """The table's columns; ``question`` and ``query`` (the widest id and query) size those two, which the
        table would otherwise measure on its next idle and draw at that width on its next refresh: a draw in
        between kept the ids cut to the heading's width."""
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column("question", key="question", width=question)
        table.add_column("needs", key="needs", width=len(lands_words(None, self.budgets[-1])))
        for budget in self.budgets:
            table.add_column(str(budget), key=f"budget:{budget}", width=max(2, len(str(budget))))
        table.add_column("query", key="query", width=query)

    def _fill(self, found: Sweep) -> None:
        table = self.query_one(DataTable)
        largest = found.budgets[-1]
        numbers = {question.id: n for n, question in enumerate(found.questions)}
        ids = [safe(question.id, width=40) for question in found.questions]
        queries = [safe(question.query, width=60) for question in found.questions]
        self._add_columns(max((text.cell_len for text in ids), default=0) or None,
                          max((text.cell_len for text in queries), default=0) or None)
        for budget, question in found.needs():
            number = numbers[question.id]
            marks = [styled("✓", "green") if row.outcomes[number].hit else Text("·", style="dim")
                     for row in found.rows]
            needs = styled(lands_words(budget, largest), "green" if budget is not None else "yellow")
            table.add_row(safe(question.id, width=40), needs, *marks, safe(question.query, width=60),
                          key=question.id)

    def _show_progress(self) -> None:
        with self._lock:
            done = self.done
        total = self.run.walks
        self.query_one(ProgressBar).update(total=total, progress=done)
        if not self.over:
            label = f"walking {done}/{total}"
        elif self.found is None:
            label = f"cancelled at {done}/{total} walks: Escape, then b sweeps again"
        else:
            label = f"done {done}/{total}"
        self.query_one("#sweep-progress-label", Label).update(label)

    def action_cancel(self) -> None:
        if self.over:
            say(self, "No sweep is running.", timeout=2)
            return
        self.run.cancel()
        say(self, "Budget sweep cancelled.", timeout=3)

    def action_back(self) -> None:
        self.run.cancel()
        self.dismiss()
