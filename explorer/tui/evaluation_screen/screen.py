"""The evaluation screen: a question set walked by a navigator (and, to compare, a second one), one row per question.

The rows fill in as the walks finish: a thread worker drives an :class:`~explorer.walks.evaluation.EvaluationRun`
(its questions walked by a thread pool) and posts each outcome here, tagged with its side (A or B) and the run's
generation, so the results of a run that was replaced are dropped. The table, the totals and the progress bar are
derived from the outcomes kept per side; the filters only choose which rows are shown.

Enter on a row asks for that question's walk in the main view at its first wrong turn, with the expected nodes
marked on the tree (an ``OpenWalk`` message); ``D`` on a row where the two navigators differ asks for both walks side
by side (``CompareWalks``). The screen stays installed while the main view is shown, so Escape there comes back to the
table as it was left.

Each miss says whose fault it was (the map, the navigator, no signal, or a limit's own reason) and where a flat
search ranks its expected node: judged on a worker as the walks end, once the first miss comes (an evaluation with
no miss loads no judge), by the bundled embeddings (:mod:`~explorer.walks.evaluation.verdict_run`); the totals
count the misses by verdict beside the flat search's hit@3, and ``v`` shows one verdict's rows at a time.

Time counts: once a walk has ended, the progress row says the time left (``about 3 min left``, from the mean
seconds a walk took: :func:`~explorer.walks.evaluation.time_left`); ``x`` stops the walks and keeps what was walked,
a partial run that says which questions it holds; ``ctrl+s`` keeps the runs, whole or partial, both sides when two
are compared (A the baseline, B the candidate: :mod:`.run_saving`); ``R`` resumes a kept run, walking only the
questions it does not hold; ``o`` compares the run now (B's, or A's alone) with a kept run, the was side. Each side
is named by its model and prompt variant (``local:smollm2 with prompt v2``), the whole model id in the settings line.
"""

from __future__ import annotations

import contextlib
from pathlib import Path

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Label, ProgressBar

from core import TreeNavigator

from ...corpora import Corpus
from ...corpora.questions import QuestionSet
from ...navigators import SUGGESTED_MODELS, NavigatorConfigError, resolve_navigator
from ...numbers import counted
from ...safe_text import safe, styled, visible
from ...walk_settings import WalkSettings
from ...walks.evaluation import (
    BlameKind,
    Change,
    EvaluationRun,
    KeptRun,
    Pace,
    QuestionOutcome,
    Side,
    differs,
    miss_sentence,
    time_left,
    wrong_turn_shown,
)
from ...walks.evaluation.verdict_run import OneJudge, VerdictRun
from ...walks.session import JOBS, UNWIRED, Wiring
from ...walks.settings import describe_settings
from ..messages import CompareWalks, OpenWalk
from ..say import FILES_OFF, Severity, say
from ..screens import run_saving
from ..screens.closing_once import ClosesOnce
from ..screens.evaluation_sweep import SweptSide, ask_and_sweep, ask_policy_curve
from ..screens.prompt import PromptScreen
from ..throttle import Throttle
from ..widgets.kept_run_panel import KeptRunPanel, kept_runs_beside, open_kept_run
from .cells import how, totals
from .sides import EvaluationEnded, QuestionJudged, QuestionWalked, SideRun
from .table import ResultsTable

__all__ = ["EVALUATION", "EvaluationScreen", "open_question_set", "totals"]

EVALUATION = "evaluation"
"""The name the evaluation screen is installed under (one at a time)."""
REDRAW_SECONDS = 0.2
"""The table, progress and totals are redrawn at most this often while walks end (a redraw repaints every cell)."""


def open_question_set(app: App[int]) -> Path | None:
    """The question set the evaluation open in ``app`` walks (``None``: no evaluation is open)."""
    screen = app.get_screen(EVALUATION) if app.is_screen_installed(EVALUATION) else None
    return screen.question_set.path if isinstance(screen, EvaluationScreen) else None


class EvaluationScreen(ClosesOnce, ModalScreen[None]):
    """Walk every question of ``questions`` with ``settings`` and ``navigator`` (and ``compare``'s, when given)."""

    CSS_PATH = Path(__file__).with_name("evaluation.tcss")
    BINDINGS = [
        Binding("m", "toggle_misses", "Misses only", id="eval.misses"),
        Binding("v", "cycle_verdict", "One verdict", id="eval.verdict"),
        Binding("b", "sweep", "Budget sweep…", id="eval.sweep"),
        Binding("p", "policy_curve", "Policy curve…", id="eval.policy_curve"),
        Binding("o", "open_kept_run", "Kept run…", id="eval.kept_run"),
        Binding("d", "toggle_differences", "Differences only", id="eval.differences"),
        Binding("c", "compare", "Compare navigator…", id="eval.compare"),
        Binding("D", "compare_row", "Side by side", id="eval.side_by_side"),
        Binding("x", "cancel", "Cancel walks", id="eval.cancel"),
        Binding("ctrl+s", "save_run", "Keep runs…", id="eval.save_run"),
        Binding("R", "resume", "Resume a kept run…", id="eval.resume"),
        Binding("escape", "main_view", "Main view", id="eval.main_view"),
        Binding("q", "app.quit", "Quit", id="eval.quit"),
    ]

    def __init__(self, corpus: Corpus, questions: QuestionSet, settings: WalkSettings, navigator: TreeNavigator,
                 *, compare: tuple[str, TreeNavigator] | None = None, jobs: int = JOBS,
                 allow_files: bool = True, wiring: Wiring = UNWIRED,
                 corpora: tuple[Corpus, Corpus] | None = None) -> None:
        super().__init__()
        self.corpus = corpus
        self.corpora = dict(zip((Side.A, Side.B), corpora, strict=True)) if corpora is not None else {}
        """The corpus each side walks when they differ (the original map as A, a map variant as B: ``E``)."""
        self.wiring = wiring if wiring is not UNWIRED else Wiring()  # a ledger of its own, never the shared one's
        """The explorer's listeners (a local model loading) and observers, handed to the walks run here, and its
        ledger of the files read, which every file written here asks about (the corpus, this set, kept runs)."""
        self.wiring.ledger.read("the corpus", corpus.path)
        for walked in (corpus, *self.corpora.values()):  # a map variant is an input as the corpus is
            self.wiring.ledger.read("the map variant", walked.map.path if walked.map is not None else None)
        self.wiring.ledger.read("the question set", questions.path)
        self.allow_files = allow_files
        """Whether a navigator naming a file may be compared (off in a session shared on a network)."""
        self.question_set = questions
        self.questions = questions.questions
        self.settings = settings
        self.jobs = jobs
        self.sides: dict[Side, SideRun] = {}
        self.misses_only = False
        self.differences_only = False
        self.verdict: BlameKind | None = None
        """The one verdict whose rows are shown (``v``), ``None``: every row."""
        self.judge = OneJudge.of(corpus, self.wiring, told=self._told)
        """The judge of every miss (``--judge``'s, made at the first miss; ``None``: ``--judge none``); a side on a
        map of its own (``E``: the original map against a variant) has one of that map (:meth:`judge_of`)."""
        self._judges = {side: OneJudge.of(own, self.wiring, told=self._told)
                        for side, own in self.corpora.items() if own is not corpus}
        self._generation = 0
        self._first: tuple[str, TreeNavigator] = (settings.model, navigator)
        self._compare = compare
        self.table = ResultsTable(self.questions, self.sides,
                                  lambda: (self.misses_only, self.differences_only, self.verdict),
                                  lambda: self.query_one(DataTable), corpus.title_of)
        """The table of questions: its columns, each question's row, which the filters show and in what order."""
        self._redraws = Throttle(self.set_timer, self._draw_changes, REDRAW_SECONDS, at_once=lambda: all(
            side.over and not (side.verdicts and side.verdicts.left) for side in self.sides.values()))
        """The table, progress and totals redrawn as walks end: at once when the last walk and verdict are in."""
        self._read: list[Path] = []
        """The kept runs read here (opened with ``o``, resumed with ``R``): never written over."""
        self._kept: Path | None = None
        """The last run kept or read here: what ``R`` offers first."""
        self._kept_said = ""
        """What was said when runs were kept here (where, as what, how to compare): the hint line's first line."""

    def say(self, message: str, *, title: str = "", severity: Severity = "information", timeout: float = 3) -> None:
        say(self, message, title=title, severity=severity, timeout=timeout)

    def _told(self, line: str) -> None:
        """What the judge says as it is made on a worker (the default one's fallback to BM25), said here."""
        with contextlib.suppress(RuntimeError):  # the app closed meanwhile: nobody to tell
            self.app.call_from_thread(self.say, line[:1].upper() + line[1:] + ".", severity="warning", timeout=8)

    # -- layout -----------------------------------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        with Vertical(id="eval-dialog"):
            title = styled("Evaluation: ", "bold")
            title.append_text(safe(self.question_set.path.name, width=80))
            title.append(f" · {counted(len(self.questions), 'question')} on ")
            title.append_text(safe(self.corpus.title, width=60))
            yield Label(title, id="eval-title")
            yield Label("", id="eval-settings")
            with Horizontal(id="eval-progress-row"):
                yield Label("", id="eval-progress-label")
                yield ProgressBar(total=len(self.questions), show_eta=False, id="eval-progress")
                yield Label("", id="eval-time-left")
            yield Label("", id="eval-totals")
            yield KeptRunPanel(self.question_set.path, self.corpus, id="eval-kept")
            yield DataTable(id="eval-table", cursor_type="row", zebra_stripes=True)
            yield Label(Text(visible(self._hint(), multiline=True)), id="eval-hint")

    def on_mount(self) -> None:
        self._start(Side.A, *self._first)
        if self._compare is not None:
            self._start(Side.B, *self._compare)
        self.table.build_columns()
        self._draw_changes(everything=True)
        self.query_one(DataTable).focus()

    def on_unmount(self) -> None:
        self.stop()

    def stop(self) -> None:
        """Cancel every walk under way (the screen is going away, or a person asked)."""
        for side in self.sides.values():
            side.run.cancel()
            if side.verdicts is not None:
                side.verdicts.cancel()

    # -- runs -------------------------------------------------------------------------------------------------------

    def _start(self, name: Side, model: str, navigator: TreeNavigator,
               resumed: tuple[KeptRun, dict[int, QuestionOutcome]] | None = None) -> None:
        """Walk the set with ``navigator`` as side ``name`` (replacing the run there); ``resumed``: a kept run and the
        outcomes it holds, which are not walked again."""
        old = self.sides.get(name)
        if old is not None:
            old.run.cancel()
            if old.verdicts is not None:
                old.verdicts.cancel()
        self._generation += 1
        kept, held = resumed if resumed is not None else (None, {})
        corpus = self.corpus_of(name)
        run = EvaluationRun(corpus, self.questions, self.settings.but(model=model),
                            navigator=self.wiring.wire(navigator), jobs=self.jobs, hook=self.wiring.hook(), held=held)
        side = self.sides[name] = SideRun(model, navigator, run, self._generation, list(run.outcomes), Pace(), kept,
                                          map=corpus.map)
        generation = side.generation
        self._show_settings()

        def judged(number: int, outcome: QuestionOutcome) -> None:
            self.post_message(QuestionJudged(name, generation, number, outcome))

        judge = self.judge_of(name)
        side.verdicts = VerdictRun(judge, model, judged) if judge is not None else None

        def walked(number: int, outcome: QuestionOutcome) -> None:
            self.post_message(QuestionWalked(name, generation, number, outcome))

        def walk() -> None:
            try:
                run.run(walked)
            except Exception as exc:  # a bug in a navigator or in us: say it, keep the explorer alive
                self.post_message(EvaluationEnded(name, generation, f"unexpected {type(exc).__name__}: {exc}"))
                return
            self.post_message(EvaluationEnded(name, generation))

        self.run_worker(walk, thread=True, group=f"evaluation-{name}", name=f"evaluation-{name}-{generation}",
                        exit_on_error=False)

    def corpus_of(self, side: Side) -> Corpus:
        """The corpus side ``side`` walks: its own when the sides differ by map, else the screen's."""
        return self.corpora.get(side, self.corpus)

    def judge_of(self, side: Side) -> OneJudge | None:
        """The judge of side ``side``'s misses: one of the map it walks (a verdict says what that map hid)."""
        return self._judges.get(side, self.judge)

    def _current(self, side: Side, generation: int) -> SideRun | None:
        found = self.sides.get(side)
        return found if found is not None and found.generation == generation else None

    def on_question_walked(self, message: QuestionWalked) -> None:
        side = self._current(message.side, message.generation)
        if side is None:
            return  # a run that was replaced
        side.outcomes[message.number] = message.outcome
        side.pace.walk_ended()
        verdicts = side.verdicts
        if verdicts is not None and verdicts.offer(message.number, message.outcome):  # a miss: judge on a worker

            def drain() -> None:
                try:
                    verdicts.drain()
                except Exception as exc:  # a broken judge: say it, keep the figures
                    self.post_message(QuestionJudged(message.side, message.generation, -1, None,
                                                     f"unexpected {type(exc).__name__}: {exc}"))

            self.run_worker(drain, thread=True, group=f"verdicts-{message.side}", name="judge the misses",
                            exit_on_error=False)
        # the row may come or go (a filter), or move up among the flipped
        self.table.changed(message.number, moves=self.table.filtering or self.table.flipped(message.number))
        self._redraws.ask()

    def on_question_judged(self, message: QuestionJudged) -> None:
        side = self._current(message.side, message.generation)
        if side is None:
            return  # a run that was replaced
        if message.outcome is None:
            self.say(message.error or "", title="The judge of the misses broke", severity="error", timeout=8)
            return
        side.outcomes[message.number] = message.outcome
        self.table.changed(message.number, moves=self.verdict is not None)  # the row may come in
        self._redraws.ask()

    def on_evaluation_ended(self, message: EvaluationEnded) -> None:
        side = self._current(message.side, message.generation)
        if side is None:
            return
        side.over, side.error = True, message.error
        if message.error:
            self.say(message.error, title=f"The evaluation with {side.model} broke", severity="error", timeout=8)
        self._redraws.now()  # the last rows, "done" and the totals at once, not a beat later

    # -- the table (its columns, rows, filters and order: .table) ---------------------------------------------------

    @property
    def comparing(self) -> bool:
        return self.table.comparing

    def _draw_changes(self, *, everything: bool = False) -> None:
        """The rows that changed (:meth:`.ResultsTable.draw_changes`), the progress and the totals, drawn."""
        if self.table.draw_changes(everything=everything):
            self._show_hint()
        total = len(self.questions) * len(self.sides)
        done = sum(side.done for side in self.sides.values())
        self.query_one(ProgressBar).update(total=total, progress=done)
        label = "done" if all(side.over for side in self.sides.values()) else "walking"
        self.query_one("#eval-progress-label", Label).update(f"{label} {done}/{total}")
        left = time_left([(side.pace, side.left) for side in self.sides.values() if not side.over])
        self.query_one("#eval-time-left", Label).update(left)
        self._show_totals()

    def _rebuild(self) -> None:
        """Show the rows the filters let through (the cursor kept on its question), and say what is shown."""
        self.table.rebuild()
        self._show_hint()

    def _show_settings(self) -> None:
        """The settings walked with, and each side's whole model id (the detail its label leaves out)."""
        settings = describe_settings(self.settings).split(" · ", 1)[1]
        text = Text(settings)
        for name, side in self.sides.items():
            text.append(f" · {name} ")
            text.append_text(safe(side.model + (f" · map {side.map.path}" if side.map is not None else ""), width=200))
        self.query_one("#eval-settings", Label).update(text)

    def _show_totals(self) -> None:
        text = Text()
        for name, side in self.sides.items():
            if text:
                text.append("\n")
            text.append(f"{name} ", style="bold")
            text.append_text(safe(side.label, width=60))
            text.append(f" · {side.done}/{len(self.questions)} walked")
            if side.resumed is not None:
                text.append_text(safe(f" ({len(side.run.held)} from {Path(side.resumed.path).name})", width=80))
            text.append(totals(side.outcomes, side.verdicts.left if side.verdicts is not None else 0))
            if side.over and side.run.cancelled and len(side.held) < len(self.questions):
                text.append(" · cancelled: ", style="bold")
                text.append_text(safe(side.holding(), width=120))
        if self.comparing:
            differences = [d for d in (self.table.difference(n) for n in range(len(self.questions))) if d is not None]
            text.append(f"\n{len(differences)} question(s) where A and B land differently")
            better = sum(d.change is Change.B_HITS for d in differences)
            worse = sum(d.change is Change.A_HITS for d in differences)
            text.append(f" · only B hits {better} · only A hits {worse}")
        self.query_one("#eval-totals", Label).update(text)
        name, now = self._now
        self.query_one(KeptRunPanel).show_run(name, self.settings.but(model=now.model), now.outcomes,
                                              self.corpus_of(name))

    @property
    def _now(self) -> tuple[Side, SideRun]:
        """The run a kept run is compared with (the kept run is the was side): B's, the candidate, else A's."""
        name = Side.B if self.comparing else Side.A
        return name, self.sides[name]


    def _hint(self) -> str:
        shown = []
        if self.misses_only:
            shown.append("misses only")
        if self.differences_only:
            shown.append("differences only")
        if self.verdict is not None:
            shown.append(f"the misses whose verdict is {self.verdict.words}")
        keys = ("Enter opens a walk at its first wrong turn · m misses only · v one verdict at a time · "
                "c compare another navigator · "
                "b budget sweep · p policy curve · o against a kept run · R resume one")
        if self.comparing:
            keys += " · D A and B side by side · d differences only (br. branch entered, turn first wrong turn)"
        keys += " · x cancel · ctrl+s keep the runs · Escape main view"
        kept = f"{self._kept_said}\n" if self._kept_said else ""
        return kept + (f"showing {', '.join(shown)} · " if shown else "") + keys

    def _show_hint(self) -> None:
        self.query_one("#eval-hint", Label).update(Text(visible(self._hint(), multiline=True)))

    # -- reading the table ------------------------------------------------------------------------------------------

    def cursor_question(self) -> int | None:
        """The question number of the row under the cursor (``None`` when no row is shown)."""
        return self.table.cursor_question()

    # -- keys -------------------------------------------------------------------------------------------------------

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if not self.on_top:
            return  # a second Enter queued as the first closed the screen: it opens nothing
        number = self.cursor_question()
        if number is None:
            return
        outcome = self.table.outcome(Side.A, number)
        if outcome is None or outcome.history is None:
            self.say(self._no_walk(number, outcome), timeout=3)
            return
        self.post_message(OpenWalk(outcome.history, wrong_turn_shown(outcome), frozenset(outcome.question.expect),
                                   how(outcome), miss_sentence(outcome)))
        self.dismiss()

    def _no_walk(self, number: int, outcome: QuestionOutcome | None) -> str:
        """Why a question's walk cannot be opened: not walked yet, or held from a kept run (its figures, no walk)."""
        question = self.questions[number].id
        if outcome is None:
            return f"{question}: not walked yet."
        return f"{question}: held from a kept run, which keeps its figures, not its walk: nothing to open."

    def action_compare_row(self) -> None:
        if not self.on_top:
            return
        number = self.cursor_question()
        if not self.comparing:
            self.say("Compare with another navigator first (c).", timeout=3)
            return
        if number is None:
            return
        a, b = self.table.outcome(Side.A, number), self.table.outcome(Side.B, number)
        if a is None or b is None:
            self.say(f"{self.questions[number].id}: not walked by both navigators yet.", timeout=3)
            return
        if not differs(a, b):
            self.say(f"{self.questions[number].id}: A and B landed the same nodes.", timeout=3)
            return
        if a.history is None or b.history is None:
            self.say(self._no_walk(number, a if a.history is None else b), timeout=4)
            return
        self.post_message(CompareWalks(a.history, b.history, frozenset(a.question.expect)))
        self.dismiss()

    def action_sweep(self, policies: bool = False) -> None:
        """Sweep A, B or both (asked when two are compared), or (``policies``) A under depth-first and best-first,
        at the budgets typed (:mod:`.evaluation_sweep`)."""
        sides = [SweptSide(str(name), side.label, self.settings.but(model=side.model), side.navigator,
                           self.corpus_of(name)) for name, side in self.sides.items()]
        if policies:  # the first side's curve, on its map, beside its judge's flat search
            first = next(iter(self.sides))
            ask_policy_curve(self, self.corpus_of(first), self.question_set, sides[0], jobs=self.jobs,
                             wiring=self.wiring, allow_files=self.allow_files, judge=self.judge_of(first))
        else:
            ask_and_sweep(self, self.corpus, self.question_set, sides, jobs=self.jobs, wiring=self.wiring,
                          allow_files=self.allow_files, flat=self.judge)

    def action_policy_curve(self) -> None:
        self.action_sweep(policies=True)

    def action_open_kept_run(self) -> None:
        """Open a kept run as the was side of the run now (:mod:`..widgets.kept_run_panel`)."""
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        panel = self.query_one(KeptRunPanel)
        beside = kept_runs_beside(self.question_set.path)

        def opened(kept: KeptRun | None) -> None:
            if kept is not None:
                self._read.append(Path(kept.path))
                self.wiring.ledger.read("a kept run read here", kept.path)
                panel.open(kept)
                self._show_totals()

        name, now = self._now
        self.app.push_screen(PromptScreen(
            visible(f"Open a kept run (ctrl+s, eval --save-run FILE) as the was side: {name} {now.label} now against "
                    "it"),
            beside[0] if beside else "", read=lambda text: open_kept_run(text, self.question_set.path, self.corpus),
            suggestions=beside), opened)

    def action_toggle_misses(self) -> None:
        self.misses_only = not self.misses_only
        self._rebuild()

    def action_cycle_verdict(self) -> None:
        """``v``: show the rows of one verdict, then the next one some row holds, then every row again."""
        kinds = self.table.verdicts()
        if not kinds and self.verdict is None:
            judging = any(side.verdicts is not None and side.verdicts.left for side in self.sides.values())
            self.say("The misses are being judged: v filters by verdict once they are." if judging else
                     "No verdict to filter by: no miss was judged.", timeout=3)
            return
        later = [kind for kind in kinds if self.verdict is None or list(BlameKind).index(kind)
                 > list(BlameKind).index(self.verdict)]
        self.verdict = later[0] if later else None
        self._rebuild()
        self.say(f"Showing the misses whose verdict is {self.verdict.words} ({len(self.table.shown)}); v for the "
                 "next verdict" if self.verdict is not None else "Showing every row: the verdict filter is off.",
                 timeout=3)

    def action_toggle_differences(self) -> None:
        if not self.comparing:
            self.say("Compare with another navigator first (c).", timeout=3)
            return
        self.differences_only = not self.differences_only
        self._rebuild()

    def action_compare(self) -> None:
        resolved: dict[str, TreeNavigator] = {}

        def check(model: str) -> str | None:
            try:
                resolved[model] = resolve_navigator(model, headless=True, allow_files=self.allow_files)
            except NavigatorConfigError as exc:
                return str(exc)
            return None

        def start(model: str | None) -> None:
            if model and model in resolved:
                self.compare_with(model, resolved[model])

        current = self.sides[Side.B].model if self.comparing else ""
        self.app.push_screen(PromptScreen("Compare with navigator (B): every question walked again with it", current,
                                          check=check, suggestions=SUGGESTED_MODELS), start)

    def compare_with(self, model: str, navigator: TreeNavigator) -> None:
        """Walk every question again with ``navigator`` as B (replacing any B)."""
        self._start(Side.B, model, navigator)
        self.table.build_columns()
        self._draw_changes(everything=True)

    def action_cancel(self) -> None:
        running = [side for side in self.sides.values() if not side.over]
        if not running:
            self.say("No walk is running.", timeout=2)
            return
        self.stop()
        self.say("Evaluation cancelled: what was walked stays, a partial run (ctrl+s keeps it; R resumes a kept run, "
                 "walking only what it does not hold).", timeout=5)

    def action_save_run(self) -> None:
        """Keep each side's run, whole or partial, as ``eval --save-run`` keeps it (:mod:`.run_saving`): both sides
        when two are compared (A the baseline, B the candidate), typed as one path's stem."""
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        if not any(side.held for side in self.sides.values()):
            self.say("Nothing walked yet: ctrl+s keeps a run once a question is walked.", severity="warning",
                     timeout=4)
            return
        models = {name: side.model for name, side in self.sides.items()}
        self.app.push_screen(run_saving.keep_prompt(self.question_set.path, models, self._read, self.wiring.ledger),
                             self._keep)

    def _keep(self, paths: dict[Side, Path] | None) -> None:
        """Keep each side's run at its path (none when the prompt was cancelled), or say in one line why not."""
        if not paths:
            return
        runs = {name: (self.settings.but(model=self.sides[name].model), self.sides[name].outcomes) for name in paths}
        try:
            kept = run_saving.keep_sides(paths, self.question_set.path, self.corpus, runs, self.wiring.ledger,
                                         corpora=self.corpora)
        except OSError as exc:
            self.say(f"Cannot write the run: {exc.strerror or exc}", title="Cannot keep the run", severity="error",
                     timeout=8)
            return
        self._kept = Path(kept[max(kept)].path)  # B's when both were kept: the candidate is what is resumed
        # A short toast; the whole (where, as what, how to compare) in the hint line, over neither table nor footer.
        self._kept_said = run_saving.kept_message(kept)
        self._show_hint()
        self.say(run_saving.kept_toast(kept), timeout=4)

    def action_resume(self) -> None:
        """Resume a kept run on the side that walks with its model and settings: the questions it holds are kept,
        only the others are walked (no navigator is asked about a question it holds)."""
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        beside = kept_runs_beside(self.question_set.path)
        offered = ([str(self._kept)] if self._kept is not None else []) + [p for p in beside if p != str(self._kept)]
        models = {name: side.model for name, side in self.sides.items()}
        maps = {name: side.map for name, side in self.sides.items()}
        self.app.push_screen(run_saving.resume_prompt(self.question_set, self.corpus, self.settings, models, offered,
                                                      maps),
                             self._resume)

    def _resume(self, found: run_saving.Resumed | None) -> None:
        if found is None:
            return
        self._read.append(Path(found.kept.path))
        self.wiring.ledger.read("a kept run read here", found.kept.path)
        self._kept = Path(found.kept.path)
        side = self.sides[found.side]
        self._start(found.side, side.model, side.navigator, (found.kept, found.held))
        self._draw_changes(everything=True)
        self.say(found.words(len(self.questions)), timeout=6)

    def action_main_view(self) -> None:
        self.dismiss()
