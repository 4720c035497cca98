"""The stability run on screen: N walks of the current query on a worker, a progress bar, ``x`` cancels them all.

A panel over the explorer (the tree stays in view beside it). Each walk is a
:class:`~explorer.walks.session.WalkSession` with its own token, run by a
:class:`~explorer.walks.stability.StabilityRun` on a thread worker; the worker
tells the panel of each walk as it ends, and once they are all over (or
cancelled) hands the :class:`~explorer.walks.stability.Stability` to ``show``,
which puts the frequencies on the tree. The panel then says how many walks
finished, the distinct landed sets and the most frequent first divergence.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Label, ProgressBar, Static

from ...safe_text import safe, styled
from ...walks.session import WalkSession
from ...walks.settings import describe_settings
from ...walks.stability import Stability, StabilityRun, describe_divergence
from .closing_once import ClosesOnce


@dataclass
class WalksEnded(Message):
    """``ended`` walks of the stability run are over."""

    ended: int


@dataclass
class StabilityMeasured(Message):
    """Every walk is over (or was cancelled): what they show."""

    stability: Stability


@dataclass
class StabilityFailed(Message):
    """The run itself broke (a bug): what to say."""

    error: str


class StabilityScreen(ClosesOnce, ModalScreen[Stability | None]):
    """Runs ``run`` on a worker as soon as it is shown; ``show`` gets the result (the app puts it on the tree)."""

    CSS_PATH = Path(__file__).with_name("stability.tcss")
    BINDINGS = [
        Binding("x", "cancel_all", "Cancel all", id="stability.cancel"),
        Binding("escape,enter", "close", "Close", id="stability.close"),
    ]

    def __init__(self, run: StabilityRun, show: Callable[[Stability], None]) -> None:
        super().__init__()
        self.stability_run = run
        self.deliver = show
        self.stability: Stability | None = None

    def compose(self) -> ComposeResult:
        settings = self.stability_run.settings
        with Vertical(id="stability-dialog"):
            title = styled("Stability: ", "bold")
            title.append_text(safe(repr(settings.query), width=80))
            title.append(f" walked {self.stability_run.asked} times")
            yield Label(title, id="stability-title")
            yield Label(safe(describe_settings(settings), width=120), id="stability-settings")
            yield ProgressBar(total=self.stability_run.asked, show_eta=False, id="stability-progress")
            yield Label(self._status(0), id="stability-status")
            with VerticalScroll(id="stability-summary-scroll"):
                yield Static("", id="stability-summary")
            yield Label("x cancels every walk · Escape cancels and closes", id="stability-hint")

    def on_mount(self) -> None:
        self.run_worker(self._walk, thread=True, group="stability", name="stability", exit_on_error=False)

    def on_unmount(self) -> None:
        self.stability_run.cancel()  # closed, or the app is quitting: no walk outlives the panel

    # -- the worker -------------------------------------------------------------------------------------------------

    def _walk(self) -> None:
        try:
            run = self.stability_run

            def ended(number: int, session: WalkSession) -> None:
                self.post_message(WalksEnded(run.ended))

            stability = run.run(ended)
        except Exception as exc:  # a bug: say it, keep the explorer alive
            self.post_message(StabilityFailed(f"unexpected {type(exc).__name__}: {exc}"))
            return
        self.post_message(StabilityMeasured(stability))

    # -- what it shows ----------------------------------------------------------------------------------------------

    def _status(self, ended: int) -> Text:
        if self.stability_run.cancelled:
            return styled(f"cancelling… {ended} of {self.stability_run.asked} walks over", "bold")
        return Text(f"walking… {ended} of {self.stability_run.asked} walks over · x cancels them all")

    def on_walks_ended(self, message: WalksEnded) -> None:
        if self.stability is None:
            self.query_one(ProgressBar).update(progress=message.ended)
            self.query_one("#stability-status", Label).update(self._status(message.ended))

    def on_stability_measured(self, message: StabilityMeasured) -> None:
        stability = self.stability = message.stability
        self.query_one(ProgressBar).update(progress=stability.asked - stability.cancelled)
        if stability.cancelled and not stability.runs:
            status = f"cancelled before any of the {stability.asked} walks finished: nothing to count"
        elif stability.cancelled:
            status = (f"cancelled: {stability.runs} of {stability.asked} walks finished; the frequencies count "
                      f"those {stability.runs}")
        else:
            status = f"done: {stability.runs} of {stability.asked} walks finished"
        if stability.failed:
            status += f" ({stability.failed} failed)"
        self.query_one("#stability-status", Label).update(Text(status, style="bold"))
        self.query_one("#stability-summary", Static).update(summary(stability))
        self.query_one("#stability-hint", Label).update(
            "The tree says \"chosen k/N walks\" beside each node these walks chose; its marks stay the walk on "
            "screen's · Escape closes")
        if stability.runs:
            self.deliver(stability)

    def on_stability_failed(self, message: StabilityFailed) -> None:
        self.query_one("#stability-status", Label).update(safe(message.error, "bold red"))

    # -- keys -------------------------------------------------------------------------------------------------------

    def action_cancel_all(self) -> None:
        if self.stability is None and not self.stability_run.cancelled:
            self.stability_run.cancel()  # trips every walk's token: under way they end at once, the others never start
            self.query_one("#stability-status", Label).update(self._status(self.stability_run.ended))

    def action_close(self) -> None:
        self.stability_run.cancel()
        self.dismiss(self.stability)


def summary(stability: Stability) -> Text:
    """The distinct landed sets (most frequent first) and the most frequent first divergence, as safe text."""
    s = stability
    text = Text()
    if not s.runs:
        text.append("No walk finished: nothing to measure.", style="italic")
        return text
    text.append(f"{len(s.landed_sets)} distinct landed set(s)", style="bold")
    text.append(f" · {len(s.reference_runs)} of {s.runs} walks made the most common decisions\n")
    for landed in s.landed_sets[:8]:
        text.append(f"  {landed.count:>4}/{s.runs}  ")
        text.append_text(safe(", ".join(landed.nodes) if landed.nodes else "(nothing landed)", width=2_000))
        text.append("\n")
    if len(s.landed_sets) > 8:
        text.append(f"  … {len(s.landed_sets) - 8} more (walk --runs --json lists them all)\n", style="dim")
    point = s.most_frequent_divergence
    text.append("Most frequent first divergence: ", style="bold")
    if point is None:
        text.append("none — every walk made the same decisions")
    else:
        text.append_text(safe(describe_divergence(point, s.runs), width=400))
    return text
