"""A kept run as the evaluation's was side: the screen's run now (B's when two are compared, else A's) against a run
kept by ``eval --save-run`` or ``ctrl+s``, as ``eval --against`` prints it: on the questions both hold (said with how
many), hit, hit@3 and precision deltas, then the questions fixed (the kept run missed, now hit) and broken, each with
the first wrong turn of the walk that missed (:class:`~explorer.walks.evaluation.RunComparison`). Hidden until a
kept run is opened; it grows as the questions are walked."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import RenderableType
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from ...corpora import Corpus
from ...safe_text import safe
from ...walk_settings import WalkSettings
from ...walks.evaluation import KeptRun, QuestionOutcome, RunComparison, RunError
from ...walks.evaluation.kept_run import check_fit, file_sha256, read_run


def open_kept_run(text: str, questions_path: Path, corpus: Corpus) -> KeptRun:
    """The run kept at ``text``, checked to be a run of this question set over this corpus; a :class:`RunError`
    (a ``ValueError``) in one line that says why not."""
    if not text.strip():
        raise RunError("Type the path of a kept run (a file written by eval --save-run).")
    kept = read_run(Path(text.strip()).expanduser())
    check_fit(kept, file_sha256(questions_path), corpus.sha256, compared_on=questions_path)
    return kept


def kept_runs_beside(questions_path: Path) -> list[str]:
    """The kept runs beside the question set (``*.run.json``), offered first when opening one."""
    try:
        return sorted(str(path) for path in questions_path.parent.glob("*.run.json") if path.is_file())
    except OSError:
        return []


class KeptRunPanel(VerticalScroll):
    """A run on screen (now) against ``kept`` (was; set by the screen once a kept run is opened), in
    ``#eval-kept-text``, on the questions both hold, as they are walked; on a small terminal it scrolls (Tab to it,
    then the arrow keys)."""

    def __init__(self, questions_path: Path, corpus: Corpus, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.questions_path = questions_path
        self.corpus = corpus
        self.kept: KeptRun | None = None
        self.comparison: RunComparison | None = None
        """The comparison shown (``None`` with no kept run)."""
        self._questions_sha256: str | None = None
        self.display = False

    def compose(self) -> ComposeResult:
        yield Static("", id="eval-kept-text")

    def _show(self, shown: RenderableType) -> None:
        self.query_one("#eval-kept-text", Static).update(shown)

    def open(self, kept: KeptRun) -> None:
        """Compare with ``kept`` from now on (replacing any kept run opened before)."""
        self.kept, self.comparison = kept, None

    def show_run(self, name: str, settings: WalkSettings, outcomes: Sequence[QuestionOutcome | None],
                 corpus: Corpus | None = None) -> None:
        """Show side ``name``'s run (``outcomes`` so far, walked with ``settings`` on ``corpus``, by default the
        panel's: a side walked with a map variant names it) against the kept one, on the questions both hold."""
        kept = self.kept
        self.display = kept is not None
        if kept is None:
            return
        if self._questions_sha256 is None:
            self._questions_sha256 = file_sha256(self.questions_path)
        now = KeptRun.of(f"{name}'s run", settings, self._questions_sha256, corpus or self.corpus, outcomes,
                         self.questions_path)
        try:
            self.comparison = RunComparison(kept, now)
        except RunError as exc:
            self.comparison = None
            self._show(safe(str(exc), width=200))
            return
        self._show(safe("\n".join(self.comparison.lines()), multiline=True))
