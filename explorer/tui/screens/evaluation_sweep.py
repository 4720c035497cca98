"""The budget sweep, from the evaluation screen's ``b``: every question walked at each visit budget typed
(``3,5,8,15``), as ``eval --budgets`` walks them (:class:`~explorer.walks.evaluation.SweepRun`), for side A, side B
or both (a picker asks when two navigators are compared: :func:`ask_and_sweep`), on a thread worker, cancellable with
``x``, its progress shown as the evaluation screen shows its own.

When it is over: the chart of hit@3 by budget, one line per side (plotext's drawing:
:class:`~explorer.tui.widgets.budget_chart.BudgetChartView`), with each budget's figures beside it (hits, hit@3,
precision, live calls), over the questions by the smallest budget at which an expected node lands ("lands from 8",
"not within 15"), the cheapest first, each budget's ✓ beside it. ``H`` writes the same chart, figures and questions
as one HTML file (:mod:`.sweep_page`). The sweep and the cost/quality curve (``p``: depth-first against best-first)
draw the flat search's hit@3 beside them, a level line of its own (the judge ``--judge`` names ranking every node, no
tree: it depends on no budget; none with ``--judge none``), searched on the same worker. Over a navigator whose
answers are calls (an LLM), only the largest budget's calls are made; the smaller budgets re-walk its decisions.
Escape goes back to the evaluation table as it was left.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Label, ProgressBar, Static

from core import Policy, TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import QuestionSet
from ...numbers import counted
from ...safe_text import safe, styled, visible
from ...walk_settings import WalkSettings, policy_text
from ...walks.evaluation import (
    QuestionOutcome,
    Sweep,
    SweepRun,
    figures_lines,
    flat_line,
    hit_at_3_chart,
    parse_budgets,
    reuses_answers,
)
from ...walks.evaluation.verdict_run import OneJudge
from ...walks.session import JOBS, UNWIRED, Wiring
from ..say import say
from ..widgets.budget_chart import BudgetChartView
from .closing_once import ClosesOnce
from .prompt import PromptScreen
from .sweep_page import flat_figures, write_sweep_page

BUDGETS = "3,5,8,15"
"""What the budgets prompt offers first."""
BOTH = "both"
"""The side picker's answer for A and B."""


@dataclass(frozen=True)
class SweptSide:
    """A side of the evaluation to sweep: its name (``A``), label (its model and prompt variant), settings and
    navigator."""

    name: str
    label: str
    settings: WalkSettings
    navigator: TreeNavigator
    corpus: Corpus | None = None
    """The corpus this side walks when it is not the sweep's (``E``'s sides: the original map, a variant)."""

    @property
    def titled(self) -> str:
        return f"{self.name} {self.label}"


def budgets_prompt(what: str) -> PromptScreen[tuple[int, ...]]:
    """Ask for the budgets (``3,5,8,15``) to sweep ``what`` at; a list that is not one is said under the field, the
    prompt kept open."""
    return PromptScreen(f"Budget sweep with {what}: the visit budgets (3,5,8,15)", BUDGETS, read=parse_budgets)


def read_sides(text: str, names: Sequence[str]) -> tuple[str, ...]:
    """``A``, ``B`` or ``both`` (any case) as the sides to sweep; a :class:`ValueError` that says what to type."""
    typed = text.strip()
    if typed.lower() == BOTH:
        return tuple(names)
    found = [name for name in names if name.lower() == typed.lower()]
    if not found:
        raise ValueError(f"{visible(typed)!r} is no side; type {', '.join(names)} or {BOTH}")
    return (found[0],)


def sides_prompt(sides: Sequence[SweptSide]) -> PromptScreen[tuple[str, ...]]:
    """Which sides to sweep: ``both`` offered first, then each side (Down enters the list, Enter accepts)."""
    names = [side.name for side in sides]
    which = ", ".join(visible(side.titled) for side in sides)
    return PromptScreen(f"Budget sweep of which side? {which}, or {BOTH}", BOTH,
                        read=lambda text: read_sides(text, names), suggestions=[BOTH, *names])


def ask_and_sweep(screen: Screen[Any], corpus: Corpus, questions: QuestionSet, sides: Sequence[SweptSide], *,
                  jobs: int = JOBS, wiring: Wiring = UNWIRED, allow_files: bool = True, pick: bool = True,
                  flat: OneJudge | None = None) -> None:
    """``b``: with two sides, ask which to sweep (A, B or both; ``pick=False``: both, unasked); then the budgets;
    then sweep them on the sweep screen, pushed over ``screen`` (``flat``: the judge whose flat search is drawn
    beside them)."""
    app = screen.app

    def budgets_for(chosen: Sequence[SweptSide]) -> Callable[[tuple[int, ...] | None], None]:
        def sweep(budgets: tuple[int, ...] | None) -> None:
            if budgets:
                app.push_screen(SweepScreen(corpus, questions, chosen, budgets, jobs=jobs, wiring=wiring,
                                            allow_files=allow_files, flat=flat))
        return sweep

    def ask_budgets(chosen: Sequence[SweptSide]) -> None:
        what = " and ".join(side.titled for side in chosen) if len(sides) > 1 else chosen[0].label
        app.push_screen(budgets_prompt(visible(what)), budgets_for(chosen))

    if len(sides) == 1 or not pick:
        ask_budgets(sides)
        return

    def picked(names: tuple[str, ...] | None) -> None:
        if names:
            ask_budgets([side for side in sides if side.name in names])

    app.push_screen(sides_prompt(sides), picked)


def policy_sides(side: SweptSide) -> list[SweptSide]:
    """``side`` under each walk policy, depth-first then best-first (its own alpha, when it walks best-first):
    the two lines of the cost/quality curve, named ``DF`` and ``BF``."""
    alpha = side.settings.alpha
    return [SweptSide(short, f"{policy_text(policy, alpha)} · {side.label}",
                      side.settings.but(policy=policy, alpha=alpha), side.navigator, side.corpus)
            for short, policy in (("DF", Policy.DEPTH_FIRST), ("BF", Policy.BEST_FIRST))]


def ask_policy_curve(screen: Screen[Any], corpus: Corpus, questions: QuestionSet, side: SweptSide, *,
                     jobs: int = JOBS, wiring: Wiring = UNWIRED, allow_files: bool = True,
                     judge: OneJudge | None = None) -> None:
    """``p``: the budgets, then ``side`` swept under depth-first and under best-first (the curve ``eval
    --compare-policy --budgets`` prints), with ``judge``'s flat search beside them (none: ``--judge none``), on the
    sweep screen over ``screen``."""
    ask_and_sweep(screen, corpus, questions, policy_sides(side), jobs=jobs, wiring=wiring, allow_files=allow_files,
                  pick=False, flat=judge)


def lands_words(budget: int | None, largest: int) -> str:
    """``lands from 8``, or ``not within 15``: the smallest budget at which a question lands an expected node."""
    return f"lands from {budget}" if budget is not None else f"not within {largest}"


@dataclass
class SweepWalked(Message):
    """One more walk of the sweep ended (``done`` of all)."""

    done: int


@dataclass
class SweepEnded(Message):
    """The sweep is over: ``found`` (each side's sweep, by name; ``None`` when it was cancelled), or it broke with
    ``error``."""

    found: dict[str, Sweep] | None
    error: str | None = None
    flat: int | None = None
    """The flat search's hit@3, when it was asked for."""


class SweepScreen(ClosesOnce, ModalScreen[None]):
    """``questions`` walked at each of ``budgets`` by each of ``sides``, one side after the other."""

    CSS_PATH = Path(__file__).with_name("evaluation_sweep.tcss")
    BINDINGS = [
        Binding("x", "cancel", "Cancel sweep", id="sweep.cancel"),
        Binding("H", "export", "HTML page…", id="sweep.export"),
        Binding("escape", "back", "Evaluation", id="sweep.back"),
        Binding("q", "app.quit", "Quit", id="sweep.quit"),
    ]

    def __init__(self, corpus: Corpus, questions: QuestionSet, sides: Sequence[SweptSide], budgets: tuple[int, ...],
                 *, jobs: int = JOBS, wiring: Wiring = UNWIRED, allow_files: bool = True,
                 flat: OneJudge | None = None) -> None:
        super().__init__()
        self.judge = flat
        """The judge whose flat search's hit@3 is drawn beside the sweeps (``None``: none is)."""
        self.flat: int | None = None
        """That hit@3, once the sweep is over."""
        self.corpus = corpus
        self.question_set = questions
        self.sides = tuple(sides)
        self.budgets = tuple(sorted(set(budgets)))
        self.allow_files = allow_files
        self.runs = {side.name: SweepRun(side.corpus or corpus, questions.questions, side.settings, self.budgets,
                                         navigator=wiring.wire(side.navigator), jobs=jobs, hook=wiring.hook())
                     for side in self.sides}
        self.reused = any(reuses_answers(side.navigator) for side in self.sides)
        self.found: dict[str, Sweep] | None = None
        """Each side's sweep by name, once it is over (``None`` before, and when it was cancelled)."""
        self.over = False
        self.done = 0
        self._cancelled = False
        self._lock = threading.Lock()
        self.ledger = wiring.ledger
        """The program's ledger of the files it read and wrote, which the page (``H``) asks about."""

    @property
    def walks(self) -> int:
        """Every walk of the sweep: each side's questions at each budget."""
        return sum(run.walks for run in self.runs.values())

    def title_text(self) -> Text:
        title = styled("Budget sweep: ", "bold")
        title.append_text(safe(self.question_set.path.name, width=60))
        title.append(f" · {counted(len(self.question_set.questions), 'question')} · ")
        for number, side in enumerate(self.sides):
            if number:
                title.append(" and ")
            title.append_text(safe(side.titled, width=60))
        title.append(" · budgets " + ", ".join(map(str, self.budgets)))
        return title

    def compose(self) -> ComposeResult:
        with Vertical(id="sweep-dialog"):
            yield Label(self.title_text(), id="sweep-title")
            how = ("only the largest budget's navigator calls are made: the smaller budgets re-walk its decisions"
                   if self.reused else
                   "every budget walked live (this navigator asks no model: its calls cost nothing to make again)")
            yield Label(how, id="sweep-how")
            with Horizontal(id="sweep-progress-row"):
                yield Label("", id="sweep-progress-label")
                yield ProgressBar(total=self.walks, show_eta=False, id="sweep-progress")
            with Horizontal(id="sweep-chart-row"):
                yield BudgetChartView(id="sweep-chart")
                yield Static("", id="sweep-figures")
            yield DataTable(id="sweep-table", cursor_type="row", zebra_stripes=True)
            yield Label("x cancels the sweep · H writes it as an HTML page · Escape back to the evaluation",
                        id="sweep-hint")

    def on_mount(self) -> None:
        self.set_class(self.judge is not None, "-flat")  # a legend line more: room for it
        self._add_columns()
        self._show_progress()
        self.query_one(DataTable).focus()
        self.run_worker(self._walk, thread=True, group="sweep", name="sweep", exit_on_error=False)

    def on_unmount(self) -> None:
        self.cancel()

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
        for run in self.runs.values():
            run.cancel()

    def _walk(self) -> None:
        def walked(_: QuestionOutcome) -> None:
            with self._lock:
                self.done += 1
                done = self.done
            self.post_message(SweepWalked(done))

        found: dict[str, Sweep] = {}
        try:
            for name, run in self.runs.items():
                swept = None if self._cancelled else run.run(walked)
                if swept is None:
                    self.post_message(SweepEnded(None))
                    return
                found[name] = swept
            flat = None if self.judge is None else self.judge.flat_hits_at_3(
                [(question.query, question.expect) for question in self.question_set.questions])
        except Exception as exc:  # a bug in a navigator or in us: say it, keep the explorer alive
            self.post_message(SweepEnded(None, f"unexpected {type(exc).__name__}: {exc}"))
            return
        self.post_message(SweepEnded(found, flat=flat))

    def on_sweep_walked(self, message: SweepWalked) -> None:
        if not self.over:
            self._show_progress()

    def on_sweep_ended(self, message: SweepEnded) -> None:
        self.over, self.found, self.flat = True, message.found, message.flat
        if message.error:
            say(self, message.error, title="The budget sweep broke", severity="error", timeout=8)
        self._show_progress()
        if self.found is not None:
            named = self.named()
            self.query_one(BudgetChartView).show(flat_line(hit_at_3_chart(named), self.flat))
            short = [(side.name if len(self.sides) > 1 else "", found) for side, (_, found) in zip(
                [side for side in self.sides if side.name in self.found], named, strict=True)]
            self.query_one("#sweep-figures", Static).update(
                Text("\n".join(figures_lines(short) + flat_figures(self.flat, named))))
            self._fill(named)

    def named(self) -> list[tuple[str, Sweep]]:
        """Each side's sweep, named as the chart's legend names it (``A lexical:default``); none before it is over."""
        found = self.found or {}
        return [(side.titled, found[side.name]) for side in self.sides if side.name in found]

    def _add_columns(self, question: int | None = None, query: int | None = None) -> None:
        """The table's columns; ``question`` and ``query`` (the widest id and query) size those two, which the
        table would otherwise measure on its next idle and draw at that width on its next refresh: a draw in
        between kept the ids cut to the heading's width. With two sides, a "needs" column each, and each budget's
        marks for A then B."""
        table = self.query_one(DataTable)
        table.clear(columns=True)
        table.add_column("question", key="question", width=question)
        several = len(self.sides) > 1
        for side in self.sides:
            label = f"{side.name} needs" if several else "needs"
            table.add_column(label, key=f"needs:{side.name}", width=len(lands_words(None, self.budgets[-1])))
        for budget in self.budgets:
            table.add_column(str(budget), key=f"budget:{budget}", width=max(len(self.sides), len(str(budget))))
        table.add_column("query", key="query", width=query)

    def _fill(self, named: list[tuple[str, Sweep]]) -> None:
        table = self.query_one(DataTable)
        first = named[0][1]
        largest = first.budgets[-1]
        ids = [safe(question.id, width=40) for question in first.questions]
        queries = [safe(question.query, width=60) for question in first.questions]
        self._add_columns(max((text.cell_len for text in ids), default=0) or None,
                          max((text.cell_len for text in queries), default=0) or None)

        def needed(found: Sweep, number: int) -> int:
            budget = found.lands_from(number)
            return largest + 1 if budget is None else budget

        # the cheapest first, by the first side's budget, then the next side's; ties in the set's order
        order = sorted(range(len(first.questions)), key=lambda n: tuple(needed(found, n) for _, found in named))
        for number in order:
            question = first.questions[number]
            needs = [styled(lands_words(found.lands_from(number), largest),
                            "green" if found.lands_from(number) is not None else "yellow") for _, found in named]
            marks = []
            for budget_index in range(len(first.rows)):
                mark = Text()
                for _, found in named:
                    hit = found.rows[budget_index].outcomes[number].hit
                    mark.append_text(styled("✓", "green") if hit else Text("·", style="dim"))
                marks.append(mark)
            table.add_row(ids[number], *needs, *marks, queries[number], key=question.id)

    def _show_progress(self) -> None:
        with self._lock:
            done = self.done
        total = self.walks
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
        self.cancel()
        say(self, "Budget sweep cancelled.", timeout=3)

    def action_export(self) -> None:
        """``H``: ask where, then write the sweep as one HTML page (the chart, the figures, the questions)."""
        if self.found is None:
            say(self, "The sweep is not over: H writes it once it is.", timeout=3)
            return
        write_sweep_page(self, self.question_set, self.corpus, self.sides, self.named(), self.title_text().plain,
                         allow_files=self.allow_files, ledger=self.ledger, flat=self.flat)

    def action_back(self) -> None:
        self.cancel()
        self.dismiss()
