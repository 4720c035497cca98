"""A kept run as the evaluation's other side: the screen's run (A) against a run kept by ``eval --save-run``, as
``eval --against`` prints it: hit, hit@3 and precision deltas, then the questions fixed and broken, each with the
first wrong turn of the walk that missed (:class:`~explorer.walks.evaluation.RunComparison`). Hidden until a kept
run is opened; until A's run is over it says how far A has got."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import RenderableType
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...corpora import Corpus
from ...corpora.validate import stats
from ...safe_text import safe
from ...walks.evaluation import KeptRun, QuestionOutcome, RunComparison, RunError, summarize
from ...walks.evaluation.kept_run import check_fit, file_sha256, read_run


def open_kept_run(text: str, questions_path: Path, corpus: Corpus) -> KeptRun:
    """The run kept at ``text``, checked to be a run of this question set over this corpus; a :class:`RunError`
    (a ``ValueError``) in one line that says why not."""
    if not text.strip():
        raise RunError("Type the path of a kept run (a file written by eval --save-run).")
    kept = read_run(Path(text.strip()).expanduser())
    check_fit(kept, file_sha256(questions_path), corpus.sha256)
    return kept


def kept_runs_beside(questions_path: Path) -> list[str]:
    """The kept runs beside the question set (``*.run.json``), offered first when opening one."""
    try:
        return sorted(str(path) for path in questions_path.parent.glob("*.run.json") if path.is_file())
    except OSError:
        return []


class KeptRunPanel(VerticalScroll):
    """The screen's run against ``kept`` (set by the screen once a kept run is opened), in ``#eval-kept-text``; on
    a small terminal it scrolls (Tab to it, then the arrow keys)."""

    def __init__(self, questions_path: Path, corpus: Corpus, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.questions_path = questions_path
        self.corpus = corpus
        self.kept: KeptRun | None = None
        self.comparison: RunComparison | None = None
        """The comparison once A's run is over (``None`` before, or with no kept run)."""
        self._compared: Sequence[QuestionOutcome | None] | None = None
        self.display = False

    def compose(self) -> ComposeResult:
        yield Static("", id="eval-kept-text")

    def _show(self, shown: RenderableType) -> None:
        self.query_one("#eval-kept-text", Static).update(shown)

    def open(self, kept: KeptRun) -> None:
        """Compare with ``kept`` from now on (replacing any kept run opened before)."""
        self.kept, self.comparison, self._compared = kept, None, None

    def show_run(self, model: str, outcomes: Sequence[QuestionOutcome | None], *, over: bool,
                 cancelled: bool) -> None:
        """Show A's run (``model``'s ``outcomes`` so far) against the kept one."""
        kept = self.kept
        self.display = kept is not None
        if kept is None:
            return
        walked = [o for o in outcomes if o is not None]
        head = Text("Against ", style="bold")
        head.append_text(safe(kept.path, width=80))
        head.append(f": kept {kept.hits}/{len(kept.results)} hits with ")
        head.append_text(safe(kept.navigator, width=60))
        if not over or cancelled or len(walked) < len(outcomes):
            why = "A's run was cancelled: walk the set again to compare" if over else "waiting for A's run"
            head.append(f" · {why} ({len(walked)}/{len(outcomes)} walked)")
            self.comparison = None
            self._show(head)
            return
        if self._compared is not outcomes or self.comparison is None:
            now = KeptRun.of("this run", model, self.questions_path, self.corpus, walked,
                             summarize(walked, stats(self.corpus)))
            try:
                self.comparison = RunComparison(kept, now)
            except RunError as exc:
                self._show(safe(str(exc), width=200))
                return
            self._compared = outcomes
        self._show(safe("\n".join(self.comparison.lines()), multiline=True))
