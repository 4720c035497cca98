"""The next walk's settings on the walk screen: budget, depth limit, navigator and failure policy — and the walks
that many are run with at once (a stability run, a question set's evaluation).

The query is not here: it lives in the query box alone. What a walk on screen was run with is its own
history's settings; these apply to the next walk (``r`` restarts with them).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from rich.text import Text

from core import OnFailure, Policy, TreeNavigator

from ...corpora import Corpus, CorpusError
from ...corpora.questions import QuestionSet, fit_problem, load_questions, sets_beside
from ...navigators import SUGGESTED_MODELS, NavigatorConfigError, resolve_navigator
from ...numbers import whole
from ...outputs import Ledger
from ...safe_text import clip_words, one_line, visible
from ...walk_settings import WalkSettings, policy_text, read_policy
from ...walks.evaluation import CheckSet, check_set, write_check_set
from ...walks.session import JOBS
from ...walks.settings import describe_settings
from ...walks.stability import Stability, StabilityRun
from ..messages import EvaluateQuestions
from ..say import FILES_OFF
from ..screens.prompt import PromptScreen
from ..screens.stability import StabilityScreen
from .shown import Grounds, Part


def whole_number(low: int, high: int) -> Callable[[str], int]:
    """A prompt's reader: a whole number from ``low`` to ``high`` (:func:`explorer.numbers.whole`, as the command
    line reads one), handed back as the number it checked; a ``ValueError`` says what is wrong with it."""

    def read(value: str) -> int:
        try:
            return whole(value, low, high)
        except ValueError as exc:
            raise ValueError(f"{exc}.") from None

    return read


def written_check(check: CheckSet, corpus: Corpus, ledger: Ledger) -> str | None:
    """``check`` written beside the corpus, to be evaluated as any set (``None``), or the one line that says why not
    (a file of its name someone else made, a folder not writable). What it was built from (question sets, kept runs)
    goes into the program's ``ledger``: no file the program writes may replace them."""
    for source in check.sources:
        ledger.read(source.what, source.path)
    try:
        write_check_set(check, corpus)
    except CorpusError as exc:
        return one_line(str(exc))
    except OSError as exc:
        return f"{check.path}: cannot write the check set ({exc.strerror or exc})"
    return None


def read_order(text: str) -> tuple[Policy, float]:
    """A prompt's reader: a walk policy as ``--policy`` reads it (:func:`explorer.walk_settings.read_policy`), with or
    without ``policy=`` before it; a ``ValueError`` says what to write."""
    given = text.strip()
    return read_policy(given[len("policy="):] if given.lower().startswith("policy=") else given)


class NextWalk(Part):
    """The settings and navigator the next walk will use, and the prompts that change them; ``shown`` shows them
    (the query bar's note) each time they change. A stability run's navigator is wired with the grounds' wiring,
    and observed by its observers (the explorer's telemetry)."""

    def __init__(self, grounds: Grounds, settings: WalkSettings, navigator: TreeNavigator | None = None, *,
                 shown: Callable[[], None]) -> None:
        super().__init__(grounds)
        self.settings = settings.but(query="")
        self._navigator = navigator
        self.shown = shown

    @property
    def navigator(self) -> TreeNavigator:
        """The next walk's navigator; made without one (a screen that shows recorded walks), it is resolved from
        the settings' model when a walk first needs it."""
        if self._navigator is None:
            self._navigator = resolve_navigator(self.settings.model, allow_files=self.allow_files)
        return self._navigator

    @navigator.setter
    def navigator(self, navigator: TreeNavigator) -> None:
        self._navigator = navigator

    def describe(self) -> Text:
        """The query bar's note: what the next walk will use."""
        return Text(visible(f"next walk: {describe_settings(self.settings)}"))

    def _changed(self, what: str) -> None:
        self.shown()
        self.say(f"{what} — applies to the next walk (r restarts).")

    def adopt(self, max_nodes_visited: int, max_depth: int, on_failure: OnFailure) -> None:
        """Take an opened trace's budget, depth limit and policy (its navigator stays: the trace called none)."""
        self.settings = self.settings.but(max_nodes_visited=max_nodes_visited, max_depth=max_depth,
                                          on_failure=on_failure)
        self.shown()

    # -- budget, depth, policy, navigator ---------------------------------------------------------------------------

    def ask_budget(self) -> None:
        def apply(value: int | None) -> None:
            if value is not None:
                self.settings = self.settings.but(max_nodes_visited=value)
                self._changed(f"Visit budget {value}")

        self.stage.app.push_screen(PromptScreen("Visit budget (visits across the whole walk)",
                                               str(self.settings.max_nodes_visited),
                                               read=whole_number(1, 100_000)), apply)

    def ask_depth(self) -> None:
        def apply(value: int | None) -> None:
            if value is not None:
                self.settings = self.settings.but(max_depth=value)
                self._changed(f"Depth limit {value}")

        self.stage.app.push_screen(PromptScreen("Depth limit (roots are depth 0)", str(self.settings.max_depth),
                                               read=whole_number(0, 100_000)), apply)

    def ask_order(self) -> None:
        """The walk order of the next walk: ``depth-first``, or ``best-first@alpha=A`` (``policy=`` before it is read
        too, as the settings line writes it)."""
        def apply(value: tuple[Policy, float] | None) -> None:
            if value is not None:
                self.settings = self.settings.but(policy=value[0], alpha=value[1])
                self._changed(f"Walk order {policy_text(*value)}")

        settings = self.settings
        self.stage.app.push_screen(PromptScreen(
            "Walk order: depth-first, or best-first@alpha=A (the frontier by path score; alpha above 0, at most 1, "
            "default 0.5)", policy_text(settings.policy, settings.alpha), read=read_order,
            suggestions=["depth-first", "best-first", "best-first@alpha=0.7"]), apply)

    def cycle_policy(self) -> None:
        policies = list(OnFailure)
        self.set_policy(policies[(policies.index(self.settings.on_failure) + 1) % len(policies)])

    def set_policy(self, policy: OnFailure | str) -> None:
        policy = OnFailure(policy)
        self.settings = self.settings.but(on_failure=policy)
        self._changed(f"On failure: {policy.value}")

    def ask_navigator(self, recent_traces: list[str]) -> None:
        resolved: dict[str, TreeNavigator] = {}

        def check(model: str) -> str | None:
            try:
                resolved[model] = resolve_navigator(model, allow_files=self.allow_files)
            except NavigatorConfigError as exc:
                return str(exc)
            return None

        def apply(model: str | None) -> None:
            if model and model in resolved:
                self.navigator = resolved[model]
                self.settings = self.settings.but(model=model)
                self._changed(f"Navigator {model}")

        self.stage.app.push_screen(PromptScreen("Navigator model (any model id; the list holds what is here)",
                                               self.settings.model, check=check,
                                               suggestions=self.suggestions(recent_traces)),
                                  apply)

    def suggestions(self, recent_traces: list[str]) -> list[str]:
        """The shipped models, the scripts beside the corpus, and replays of the traces at hand: all usable (with
        files off, none of the files: they are neither listed nor read)."""
        suggestions = list(SUGGESTED_MODELS)
        if not self.allow_files:
            return suggestions
        seen: set[Path] = set()
        for folder in (Path(self.corpus.path).parent / "scripts", Path("sample_corpora") / "scripts"):
            try:
                scripts = sorted(folder.glob("*.yaml")) if folder.is_dir() else []
            except OSError:
                continue
            for script in scripts:
                if script.resolve() not in seen:
                    seen.add(script.resolve())
                    suggestions.append(f"script:{script}")
        suggestions.extend(f"replay:{trace}" for trace in recent_traces[:5])
        return suggestions

    # -- many walks at once -----------------------------------------------------------------------------------------

    def headless_navigator(self, model: str) -> tuple[TreeNavigator | None, str | None]:
        """The navigator for walks nobody steps through (stability runs, evaluations), or why there is none."""
        if model == self.settings.model and not getattr(self.navigator, "needs_a_person", False):
            return self.navigator, None
        try:
            return resolve_navigator(model, headless=True, allow_files=self.allow_files), None
        except NavigatorConfigError as exc:
            return None, str(exc)

    def ask_stability(self, query: str, show: Callable[[Stability], None]) -> None:
        """Ask how many times to walk ``query``, then run them; ``show`` puts the run's frequencies on the tree."""
        query = query.strip()
        if not query:
            self.say("Type a question first: stability walks the current query many times.", severity="warning")
            return
        navigator, error = self.headless_navigator(self.settings.model)
        if navigator is None:
            self.say(f"Stability: {error}", severity="warning", timeout=6)
            return

        def start(value: int | None) -> None:
            if value is not None:
                run = StabilityRun(self.corpus, self.settings.but(query=query), self.wiring.wire(navigator), value,
                                   jobs=JOBS, hook=self.wiring.hook())
                self.stage.app.push_screen(StabilityScreen(run, show))

        asked = f"Stability: walk {clip_words(visible(query), 80)!r} how many times? (2-1000)"
        self.stage.app.push_screen(PromptScreen(asked, "10", read=whole_number(2, 1000)), start)

    def ask_evaluation(self) -> None:
        if not self.allow_files:
            self.say(FILES_OFF, severity="warning", timeout=4)
            return
        # This corpus's sets beside it, its own first (its check set is not one: it is offered as itself, below).
        suggestions = [str(questions.path) for questions in sets_beside(self.corpus)]
        title = "Evaluate: walk a question set (a .questions.yaml for this corpus)"
        initial = suggestions[0] if suggestions else ""
        check = check_set(self.corpus, self.view.history.settings.query if self.view.history is not None else "")
        if check.questions:  # the check set first, written when it is chosen; the full sets one key away (↓)
            title = visible(f"Evaluate on the check set, {check.words()} (↓ the corpus's full set, or type a path)")
            initial = str(check.path)

        def open_(value: str | None) -> None:
            path = Path(value).expanduser() if value else None
            chosen = path is not None and path == check.path
            problem = written_check(check, self.corpus, self.wiring.ledger) if chosen else None
            if problem is not None:
                self.say(problem, title="Cannot walk the check set", severity="error", timeout=8)
            elif path is not None:
                self.evaluate_file(path)

        self.stage.app.push_screen(PromptScreen(title, initial, placeholder="corpus.questions.yaml",
                                               suggestions=suggestions,
                                               check=lambda v: None if v else "Type the path of a question set."),
                                  open_)

    def evaluate_file(self, path: Path, compare: str | None = None) -> None:
        """Ask for the evaluation screen on the question set at ``path`` (checked against this corpus)."""
        corpus = self.corpus
        try:
            questions = load_questions(path)
        except (CorpusError, OSError) as exc:
            self.say(str(exc), title="Cannot open the question set", severity="error", timeout=8)
            return
        problem = fit_problem(questions, corpus, named_corpus=True)
        if problem is not None:
            self.say(problem, title="The question set does not fit this corpus", severity="error", timeout=8)
            return
        self.evaluate_questions(questions, compare)

    def evaluate_questions(self, questions: QuestionSet, compare: str | None = None) -> None:
        """Ask for the evaluation screen on ``questions`` (a set of this corpus) with these settings, and a second
        navigator ``compare`` when given."""
        navigator, error = self.headless_navigator(self.settings.model)
        other: tuple[str, TreeNavigator] | None = None
        if navigator is not None and compare:
            b, error = self.headless_navigator(compare)
            other = (compare, b) if b is not None else None
        if navigator is None or error is not None:
            self.say(f"Evaluate: {error}", severity="error", timeout=8)
            return
        self.stage.post(EvaluateQuestions(questions, self.settings, navigator, other))

